#!/usr/bin/env bash
# SIFTR end to end: a 1.3.0 log of a T1 cell agrees record by record with the
# run's --trace-tcp (cwnd, ssthresh, srtt); `netsim siftr compare` reads the
# reference sample and a netsim log; the T6 scenario with its IPv4 fit
# predicts the other cells within +-8% and the claims' directions; bad input
# exits non-zero naming what is wrong.
# Usage: siftr_cli_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

t1=$src/scenarios/t1-loss-resilience.yaml
cell=(--set 'sweep={}' --set hosts.sender.hz=1000 --set traffic.iperf3.cc=newreno --set filters.drop.every=100
      --set traffic.iperf3.time=2s --set duration=4s)
expect siftr-t1-run 0 'siftr:' '' -- "$netsim" run "$t1" "${cell[@]}" --siftr "$work/t1.log" --trace-tcp "$work/t1.csv"
out=$(python3 "$src/tests/cli/siftr_trace_agree.py" "$work/t1.log" "$work/t1.csv" iperf3 2>&1)
if [[ $out =~ ^agree\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -gt 20000 ]; then
  pass "siftr-agrees-with-trace ($out)"
else
  fail "siftr-agrees-with-trace: $out"
fi
# The 1.2.4 layout of the same run parses with the same reader.
expect siftr-124-run 0 '' '' -- "$netsim" run "$t1" "${cell[@]}" --set 'hosts.sender.siftr={version: 1.2.4}' \
  --siftr "$work/t124.log"
expect siftr-compare-sample 0 'flow 1: measured 10.1.1.2:32291' '' -- \
  "$netsim" siftr compare "$src/tests/data/measure/siftr-sample.log" "$work/t1.log" --bin 10ms
expect siftr-compare-124 0 'simulated: .*SIFTR 1.2.4' '' -- "$netsim" siftr compare "$work/t1.log" "$work/t124.log"
expect siftr-compare-missing 1 '' 'nope.log' -- "$netsim" siftr compare "$work/nope.log" "$work/t1.log"
expect siftr-compare-bin 2 '' 'whole microseconds' -- "$netsim" siftr compare "$work/t1.log" "$work/t1.log" --bin 1ns
expect siftr-compare-usage 2 '' 'compare MEASURED.log SIMULATED.log' -- "$netsim" siftr compare "$work/t1.log"
expect siftr-path-empty 2 '' '--siftr needs a file name' -- "$netsim" run "$t1" --siftr ''
expect siftr-on-linux 3 '' 'SIFTR is a FreeBSD kernel module' -- \
  "$netsim" validate "$t1" --set hosts.receiver.os=linux --set 'hosts.receiver.siftr={version: 1.3.0}'
expect siftr-bad-version 3 '' "hosts.sender.siftr.version.*1.2.4" -- \
  "$netsim" validate "$t1" --set 'hosts.sender.siftr={version: 1.4}'

# T6: the IPv4 fit predicts the rest.
t6=$src/scenarios/t6-siftr-overhead.yaml
"$netsim" run "$t6" --profile "$src/scenarios/profiles/t6-ipv4-fit.profile.yaml" -j 2 --format csv >"$work/t6.csv" 2>"$work/t6.err"
python3 - "$work/t6.csv" >"$work/t6.out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
need = {"family", "siftr", "duration_s", "seed", "mbps", "log_bytes", "measured_mbps", "error_pct"}
missing = need - set(rows[0].keys())
if missing:
    sys.exit(f"missing columns {sorted(missing)}")
mbps = {(r["family"], r["siftr"], r["duration_s"]): float(r["mbps"]) for r in rows}
worst = max(abs(float(r["error_pct"])) for r in rows if r["error_pct"])
ratio = lambda f, d: mbps[(f, "1.3.0", d)] / mbps[(f, "1.2.4", d)]
for f, lo, hi in (("v4", 1.03, 1.10), ("v6", 1.08, 1.20)):
    for d in ("10", "60"):
        if not lo <= ratio(f, d) <= hi:
            sys.exit(f"{f} {d} s: D40302 over base {ratio(f, d):.3f} outside [{lo}, {hi}]")
if worst > 8:
    sys.exit(f"a cell misses by {worst:.1f}%")
if not all(mbps[(f, "off", d)] > mbps[(f, "1.3.0", d)] for f in ("v4", "v6") for d in ("10", "60")):
    sys.exit("SIFTR off is not the fastest")
print(f"worst {worst:.1f}%")
PY
if [ $? -eq 0 ]; then pass "t6-predictions ($(cat "$work/t6.out"))"; else fail "t6-predictions: $(cat "$work/t6.out")"; fi

# A log netsim wrote, taken as measured data (--data, format siftr): its
# record count is exactly the run's.
one=(--profile "$src/scenarios/profiles/t6-ipv4-fit.profile.yaml" --set 'sweep={}' --set hosts.s1.address=10.1.1.2
     --set hosts.r1.address=10.1.1.3 --set hosts.s1.siftr.version=1.3.0 --set traffic.iperf.time=10s --set duration=10500ms)
"$netsim" run "$t6" "${one[@]}" --siftr "$work/t6.log" >/dev/null 2>&1
expect siftr-log-as-data 0 'v4 +1.3.0 +10 +1 +([0-9.]+) +\1 +\+0.0' '' -- "$netsim" run "$t6" "${one[@]}" \
  --set measured.metric=siftr_records --data "$work/t6.log:family=v4,siftr=1.3.0,duration_s=10" --format compare

echo "siftr cli: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
