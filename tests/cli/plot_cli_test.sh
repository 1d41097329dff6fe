#!/usr/bin/env bash
# Black-box tests of `netsim plot`: the T1 comparison (runs the 24 cells with
# the NewReno-fitted profile) as PNG and SVG, a comparison from a saved run
# set, a --trace-tcp plot, an intervals plot, and the errors: usage (2), an
# unreadable input or a scenario without measured cells (3, naming the
# file), an output that cannot be written (4), gnuplot missing (5).
# Usage: plot_cli_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
t1=$src/scenarios/t1-loss-resilience.yaml
t1_profile=$src/scenarios/profiles/t1-newreno-fit.profile.yaml
sweep=$src/scenarios/d46046-hz-sweep.yaml

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
# is_svg FILE TEXT...: well-formed XML with an <svg> root holding every TEXT.
is_svg() {
  python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
if not root.tag.endswith('svg'): sys.exit('root is ' + root.tag)
text = '\n'.join(t.strip() for t in root.itertext())
missing = [s for s in sys.argv[2:] if s not in text]
if missing: sys.exit('missing: ' + ', '.join(missing))
PY
}
t1_labels=()
for hz in 100 1000; do
  for cc in newreno cubic cubic_d46046; do
    for every in 100 50 33 25; do t1_labels+=("hz=$hz cc=$cc every=$every"); done
  done
done

# --- T1: simulated beside measured, both formats --------------------------
expect "plot compare T1 (png)" 0 "" "plot: .*t1.png written" -- \
  "$netsim" plot compare "$t1" --profile "$t1_profile" --out "$work/t1.png" -j 2
is_png "$work/t1.png" && pass "t1.png has the PNG signature" || fail "t1.png is not a PNG"
[ ! -e "$work/t1.png.tmp" ] && pass "no t1.png.tmp left" || fail "t1.png.tmp left behind"
expect "plot compare T1 (svg)" 0 "" "" -- \
  "$netsim" plot compare "$t1" --profile "$t1_profile" --out "$work/t1.svg" -j 2
if is_svg "$work/t1.svg" "t1-loss-resilience: receiver_mbps" "Mbit/s" "${t1_labels[@]}"; then
  pass "t1.svg: XML with the title, the unit and all 24 cell labels"
else
  fail "t1.svg lacks the title, the unit or a cell label"
fi
if grep -Eq '20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9]:[0-9][0-9]:[0-9][0-9]' "$work/t1.svg"; then
  fail "t1.svg has a timestamp"
else
  pass "t1.svg has no timestamp"
fi
expect "plot compare again" 0 "" "" -- \
  "$netsim" plot compare "$t1" --profile "$t1_profile" --out "$work/t1-again.svg" -j 2
cmp -s "$work/t1.svg" "$work/t1-again.svg" && pass "same input, same SVG" || fail "the SVG differs between two runs"

# --- from a saved run set, with seeds --------------------------------------
"$netsim" run "$sweep" --set duration=3s --set interval=250ms --format pb --out "$work/runs.pb" -j 2 2>/dev/null
expect "plot compare --results" 0 "" "" -- "$netsim" plot compare "$sweep" --results "$work/runs.pb" --out "$work/sweep.svg"
is_svg "$work/sweep.svg" "d46046-hz-sweep: receiver_mbps" "hz=100 every=100" "hz=100000 every=50" \
  && pass "sweep.svg from --results has the title and labels" || fail "sweep.svg from --results"
expect "plot compare --results, no run matches" 0 "" "2 of 2 measured cells have no simulated run" -- \
  "$netsim" plot compare "$t1" --results "$work/runs.pb" --out "$work/none.svg" \
  --data "$src/tests/data/measure/iperf3-client.json:hz=100,cc=newreno,every=100" \
  --data "$src/tests/data/measure/iperf3-client.json:hz=1000,cc=newreno,every=100"

# --- a --trace-tcp CSV ------------------------------------------------------
"$netsim" run "$sweep" --set hosts.sender.hz=1000 --set filters.drop.every=100 --set duration=1500ms \
  --trace-tcp "$work/trace.csv" --out "$work/trace-run.txt" 2>/dev/null
expect "plot trace (png)" 0 "" "" -- "$netsim" plot trace "$work/trace.csv" --out "$work/trace.png"
is_png "$work/trace.png" && pass "trace.png has the PNG signature" || fail "trace.png is not a PNG"
expect "plot trace (svg)" 0 "" "" -- "$netsim" plot trace "$work/trace.csv" --out "$work/trace.svg"
is_svg "$work/trace.svg" "TCP sender state: trace.csv" "iperf3 cwnd" "srtt (ms)" "iperf3 fast retransmit" \
  && pass "trace.svg: title, cwnd, srtt axis, loss markers" || fail "trace.svg lacks title, series or markers"

# --- per-interval throughput of a run set -------------------------------------
expect "plot intervals" 0 "" "" -- "$netsim" plot intervals "$work/runs.pb" --out "$work/intervals.svg"
is_svg "$work/intervals.svg" "d46046-hz-sweep: throughput per interval" "iperf3, hz=100 every=100" \
  "iperf3, hz=100000 every=50" && pass "intervals.svg: one line per run, labelled by its overrides" \
  || fail "intervals.svg lacks the title or a run's line"
"$netsim" run "$sweep" --set duration=1s --set interval=0s --format pb --out "$work/no-intervals.pb" -j 2 2>/dev/null
expect "plot intervals without samples" 3 "" "no-intervals.pb: no interval samples" -- \
  "$netsim" plot intervals "$work/no-intervals.pb" --out "$work/x.svg"

# --- errors -------------------------------------------------------------------
expect "plot needs a kind" 2 "" "'plot' needs what to draw" -- "$netsim" plot
expect "unknown plot" 2 "" "unknown plot 'pie'" -- "$netsim" plot pie "$t1" --out "$work/x.png"
expect "plot needs --out" 2 "" "'plot' needs --out OUT.png or OUT.svg" -- "$netsim" plot compare "$t1"
expect "unknown extension" 2 "" "--out must end in .png or .svg" -- "$netsim" plot compare "$t1" --out "$work/x.pdf"
expect "--set is for compare" 2 "" "are for 'plot compare'" -- \
  "$netsim" plot trace "$work/trace.csv" --set duration=1s --out "$work/x.png"
expect "plot --help" 0 "Exit codes: 0 drawn" "" -- "$netsim" plot --help
expect "missing scenario" 3 "" "no-such.yaml" -- "$netsim" plot compare "$work/no-such.yaml" --out "$work/x.png"
expect "missing trace" 3 "" "cannot read .*no-such.csv: no such file" -- \
  "$netsim" plot trace "$work/no-such.csv" --out "$work/x.png"
printf 'flow,time_s\nf,0\n' >"$work/bad.csv"
expect "not a trace" 3 "" "bad.csv:1: no column 'event'" -- "$netsim" plot trace "$work/bad.csv" --out "$work/x.png"
expect "missing run set" 3 "" "cannot read .*no-such.pb: no such file" -- \
  "$netsim" plot intervals "$work/no-such.pb" --out "$work/x.png"
expect "not a run set" 3 "" "t1-loss-resilience.yaml: not a run set" -- \
  "$netsim" plot intervals "$t1" --out "$work/x.png"
expect "scenario without measured block" 3 "" "udp-drop-sweep.yaml: no measured: block" -- \
  "$netsim" plot compare "$src/scenarios/udp-drop-sweep.yaml" --out "$work/x.png"
expect "output directory missing" 4 "" "cannot write .*no-dir/x.png" -- \
  "$netsim" plot compare "$sweep" --out "$work/no-dir/x.png"
mkdir -p "$work/bin"  # a PATH without gnuplot
expect "gnuplot missing: exit 5" 5 "" "plot needs gnuplot" -- \
  env PATH="$work/bin" "$netsim" plot trace "$work/trace.csv" --out "$work/x.png"
[ ! -e "$work/x.png" ] && [ ! -e "$work/x.png.tmp" ] && pass "failed plots write nothing" || fail "a failed plot left a file"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
