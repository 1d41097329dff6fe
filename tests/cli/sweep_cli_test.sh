#!/usr/bin/env bash
# Black-box tests of `netsim sweep` and `netsim results`: usage errors, a
# failing run recorded while the others complete, the CSV read by Python's csv
# module, shards merging into the full sweep, SIGTERM/SIGINT stop and resume,
# and resume after SIGKILL without duplicate or lost records.
# Usage: sweep_cli_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
compare="python3 $src/tests/cli/compare_sweeps.py"

records() { find "$1/runs" -name '*.pb' ! -name '.*' | wc -l; }

udp=$src/scenarios/udp-switch-nth.yaml
drops=$src/scenarios/udp-drop-sweep.yaml
t1=$src/scenarios/t1-loss-resilience.yaml

# --- usage and input errors ----------------------------------------------------
expect sweep-help 0 'resume' '' -- "$netsim" sweep --help
expect results-help 0 '--metric' '' -- "$netsim" results --help
expect sweep-needs-out 2 '' "needs --out DIR" -- "$netsim" sweep "$udp"
expect bad-shard 2 '' '--shard needs I/N' -- "$netsim" sweep "$udp" --out "$work/x" --shard 3/3
expect bad-axis-syntax 2 '' '--axis needs KEY=V1,V2' -- "$netsim" sweep "$udp" --out "$work/x" --axis hosts.sender.hz
expect seeds-and-seed-axis 2 '' "both vary the seed" -- "$netsim" sweep "$drops" --out "$work/x" --seeds 3
expect bad-axis-value 3 '' "^--axis hosts.sender.hz=fast: error: field 'hosts.sender.hz'" -- \
  "$netsim" sweep "$udp" --out "$work/x" --axis hosts.sender.hz=100,fast
expect bad-scenario 3 '' 'no-such.yaml' -- "$netsim" sweep "$work/no-such.yaml" --out "$work/x"
touch "$work/file"
expect out-unwritable 4 '' 'cannot create result directory' -- "$netsim" sweep "$udp" --out "$work/file/sub"
expect results-no-dir 4 '' 'not a sweep result directory' -- "$netsim" results "$work/nowhere"

# --- a failing run is recorded, the others complete, exit 1 ----------------------
# every=25 with packet=50 is invalid (packet < every); each value alone is fine.
fail_args=(sweep "$udp" --set duration=200ms --axis filters.drop-every-100.every=100,25
           --axis filters.drop-every-100.packet=0,50 --seeds 2 -j 2 --out "$work/fail")
expect failing-run 1 '' 'run [0-9a-f]{16} failed .*every=25.*packet=50.*must be less than every' -- "$netsim" "${fail_args[@]}"
[ "$(records "$work/fail")" -eq 8 ] && pass failing-run-all-recorded || fail "failing-run-all-recorded: $(records "$work/fail")"
expect failing-rerun-skips 1 '' '0 run now, 8 already recorded, 2 failed' -- "$netsim" "${fail_args[@]}"
expect results-summary 1 '^filters.drop-every-100.every +filters.drop-every-100.packet +flow +runs +failed +receiver_mbps_mean' \
  '8 records .* 2 failed' -- "$netsim" results "$work/fail"
expect results-csv 1 '^25,50,-,0,2,-,-,-$' '' -- "$netsim" results "$work/fail" --format csv
expect results-bad-metric 2 '' "unknown metric 'goodput'" -- "$netsim" results "$work/fail" --metric goodput

# --- the CSV loads with Python's csv module (what pandas.read_csv parses) ----------
if python3 - "$work/fail/results.csv" <<'PY'
import csv, sys
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    rows = list(csv.DictReader(f))
expected = ["key", "run_index", "status", "duration", "filters.drop-every-100.every", "filters.drop-every-100.packet",
            "seed", "scenario", "flow", "kind", "src", "dst", "packets_sent", "bytes_sent", "packets_received",
            "bytes_received", "packets_lost", "loss_pct", "sender_mbps", "receiver_mbps", "retransmits", "rto_count",
            "recovery_episodes", "final_cwnd", "srtt_us", "sender_cpu_pct", "receiver_cpu_pct", "sim_time_s", "events", "wall_time_s", "error"]
assert list(rows[0].keys()) == expected, list(rows[0].keys())
assert len(rows) == 8, len(rows)
failed = [r for r in rows if r["status"] == "failed"]
assert len(failed) == 2 and all("must be less than every" in r["error"] for r in failed), failed
ok = [r for r in rows if r["status"] == "ok"]
assert all(float(r["receiver_mbps"]) > 0 and r["flow"] == "udp1" for r in ok)
assert sorted({r["seed"] for r in rows}) == ["1", "2"]
PY
then pass csv-python; else fail csv-python; fi

# --- shards write to one directory; their union equals the full sweep -------------
for i in 0 1 2; do "$netsim" sweep "$drops" -j 1 --out "$work/shards" --shard "$i/3" --progress none 2>/dev/null; done
"$netsim" sweep "$drops" -j 2 --out "$work/full" --progress none 2>/dev/null
if $compare "$work/shards" "$work/full" 8; then pass shard-union; else fail shard-union; fi
expect shard-summary 0 '' '8 records' -- "$netsim" results "$work/shards"

# --- SIGKILL mid-sweep: rerun completes with no duplicate and no lost record -------
t1_args=(sweep "$t1" --seeds 2 -j 2 --progress none)
"$netsim" "${t1_args[@]}" --out "$work/t1-full" 2>/dev/null
"$netsim" "${t1_args[@]}" --out "$work/t1-kill" 2>/dev/null &
pid=$!
for _ in $(seq 1 300); do
  [ -d "$work/t1-kill/runs" ] && [ "$(records "$work/t1-kill")" -ge 6 ] && break
  sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
before=$(records "$work/t1-kill")
if [ "$before" -ge 6 ] && [ "$before" -lt 48 ]; then pass "sigkill-partial ($before of 48 recorded)"; else fail "sigkill-partial: $before"; fi
expect sigkill-resume 0 '' "$((48 - before)) run now, $before already recorded" -- "$netsim" "${t1_args[@]}" --out "$work/t1-kill"
if $compare "$work/t1-kill" "$work/t1-full" 48; then pass sigkill-equal; else fail sigkill-equal; fi

# --- SIGTERM (and SIGINT) stop cleanly and say how to resume -----------------------
for sig in TERM INT; do
  dir=$work/t1-$sig
  "$netsim" "${t1_args[@]}" --out "$dir" 2>"$work/err-$sig" &
  pid=$!
  for _ in $(seq 1 300); do
    [ -d "$dir/runs" ] && [ "$(records "$dir")" -ge 2 ] && break
    sleep 0.05
  done
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  if [ "$rc" -eq 130 ] && grep -q "interrupted by SIG$sig.*To resume, run the same command again" <(tr '\n' ' ' <"$work/err-$sig") &&
     [ -z "$(find "$dir/runs" -name '.*')" ]; then
    pass "sig$sig-stop"
  else
    fail "sig$sig-stop: exit $rc"; cat "$work/err-$sig"
  fi
  "$netsim" "${t1_args[@]}" --out "$dir" 2>/dev/null
  if $compare "$dir" "$work/t1-full" 48 >/dev/null; then pass "sig$sig-resume"; else fail "sig$sig-resume"; fi
done

# --- --emit-slurm writes a job array whose tasks, run by hand, give the same result --
expect emit-slurm 0 'submit: sbatch .*sweep.sbatch' '' -- "$netsim" sweep "$drops" --out "$work/slurm" --emit-slurm --shards 3
if grep -q '^#SBATCH --array=0-2$' "$work/slurm/sweep.sbatch" && [ ! -e "$work/slurm/results.csv" ]; then
  pass emit-slurm-script
else
  fail emit-slurm-script; cat "$work/slurm/sweep.sbatch"
fi
for i in 0 1 2; do SLURM_ARRAY_TASK_ID=$i bash "$work/slurm/sweep.sbatch" 2>/dev/null; done
if $compare "$work/slurm" "$work/full" 8; then pass emit-slurm-tasks; else fail emit-slurm-tasks; fi
expect emit-slurm-needs-task 1 '' 'not running as a Slurm array task' -- bash "$work/slurm/sweep.sbatch"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
