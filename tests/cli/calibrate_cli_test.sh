#!/usr/bin/env bash
# Black-box tests of `netsim calibrate` and --profile: usage and input errors,
# a fit that writes a profile `netsim run --profile` applies, measurement
# files via --data (a broken one is named and the others are used).
# Usage: calibrate_cli_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

# A UDP flow into a 400 Mbit/s hop behind a random 2% loss; the measurements
# were made with 600 Mbit/s and 5%, so the fit has somewhere to go.
cat >"$work/syn.yaml" <<'YAML'
name: udp-synthetic
duration: 200ms
hosts:
  tx: { address: 10.0.0.1 }
  rx: { address: 10.0.0.2 }
switches:
  sw: { buffer: 256KiB }
links:
  tx-sw: { ends: [tx, sw], rate: 10Gbps, delay: 1us }
  sw-rx: { ends: [sw, rx], rate: 400Mbps, delay: 50us }
filters:
  loss: { host: rx, type: random, probability: 0.02, match: { protocol: udp } }
traffic:
  flow: { type: udp, from: tx, to: rx, size: 1472B, rate: 200Mbps }
sweep:
  traffic.flow.rate: [200Mbps, 900Mbps]
measured:
  keys: { rate: traffic.flow.rate }
  cells:
    - { rate: 200Mbps, value: 191.30112 }
    - { rate: 900Mbps, value: 556.76928 }
calibrate:
  parameters:
    links.sw-rx.rate: { min: 100Mbps, max: 1Gbps }
    filters.loss.probability: { min: 0, max: 0.2 }
  fit_on: { rate: 900Mbps }
  max_evaluations: 40
YAML

expect calibrate-help 0 'max-evaluations' '' -- "$netsim" calibrate --help
expect calibrate-help-starts 0 'starts N' '' -- "$netsim" calibrate --help
expect calibrate-bad-starts 2 '' "--starts needs a positive integer up to 64" -- "$netsim" calibrate "$work/syn.yaml" --starts 65
expect calibrate-unwritable-profile 4 '' 'cannot write the profile .*/no/such/dir/p.yaml' -- \
  "$netsim" calibrate "$work/syn.yaml" --out "$work/no/such/dir/p.yaml"
if grep -q 'evaluation' "$work/err"; then failures=$((failures + 1)); echo "FAIL calibrate-unwritable-before-fitting"; else
  passes=$((passes + 1)); echo "ok   calibrate-unwritable-before-fitting"; fi
expect calibrate-help-check-seeds 0 'check-seeds N' '' -- "$netsim" calibrate --help
expect calibrate-bad-check-seeds 2 '' "--check-seeds needs an integer from 0 to 1000, got 'two'" -- \
  "$netsim" calibrate "$work/syn.yaml" --check-seeds two
expect calibrate-needs-file 2 '' "needs a scenario FILE" -- "$netsim" calibrate
expect calibrate-bad-option 2 '' "unknown option '--axis'" -- "$netsim" calibrate "$work/syn.yaml" --axis a=1
expect calibrate-no-measured 3 '' "needs a measured: block" -- "$netsim" calibrate "$src/scenarios/udp-drop-sweep.yaml" --out "$work/p.yaml"
sed '/^calibrate:/,$d' "$work/syn.yaml" >"$work/nocal.yaml"
expect calibrate-no-block 3 '' "no calibrate: block" -- "$netsim" calibrate "$work/nocal.yaml" --out "$work/p.yaml"
expect calibrate-pinned-path 3 '' "cannot be" -- "$netsim" calibrate "$work/syn.yaml" --set links.sw-rx.rate=1Gbps --out "$work/p.yaml"

expect calibrate-fits 0 'MAPE: fitted .* \(1 cells\), predicted .* \(1 cells\)' 'profile written to' -- \
  "$netsim" calibrate "$work/syn.yaml" -j 2 --out "$work/syn.profile.yaml"
if grep -q '^command: "netsim calibrate ' "$work/syn.profile.yaml" && grep -q '"links.sw-rx.rate": { value: ' "$work/syn.profile.yaml"; then
  pass profile-records-command-and-values
else
  fail profile-records-command-and-values
fi
expect calibrate-check-seeds 0 'On seeds 2-3, which the fit never ran: objective' '' -- \
  "$netsim" calibrate "$work/syn.yaml" -j 2 --check-seeds 2 --max-evaluations 10 --out "$work/check.profile.yaml"
if grep -q '^seed_check: { seeds: \[2, 3\]' "$work/check.profile.yaml"; then
  pass profile-records-seed-check
else
  fail profile-records-seed-check
fi
expect calibrate-starts 0 'Starts \(2; the declared start, then Halton points over the box\):' 'start 2, evaluation' -- \
  "$netsim" calibrate "$work/syn.yaml" -j 2 --starts 2 --out "$work/syn2.profile.yaml"
if grep -q '^starts:' "$work/syn2.profile.yaml"; then
  pass profile-records-starts
else
  fail profile-records-starts
fi
rate=$(sed -n 's/.*"links.sw-rx.rate": { value: \([^,]*\),.*/\1/p' "$work/syn.profile.yaml")
expect run-with-profile 0 "\"value\": \"$rate\"" '' -- \
  "$netsim" run "$work/syn.yaml" --profile "$work/syn.profile.yaml" --format json
# The fitted cell's simulated value in the profile is what run --profile gives.
sim=$(sed -n 's/.*rate: "900Mbps", metric: value, measured: [0-9.]*, simulated: \([0-9.]*\),.*/\1/p' "$work/syn.profile.yaml")
expect run-with-profile-reproduces 0 "^900Mbps,1,[0-9.]+,$sim," '' -- \
  "$netsim" run "$work/syn.yaml" --profile "$work/syn.profile.yaml" --format csv
expect set-beats-profile 0 '"value": "123Mbps"' '' -- \
  "$netsim" run "$work/syn.yaml" --profile "$work/syn.profile.yaml" --set links.sw-rx.rate=123Mbps --format json
printf 'scenario: x\nparameters:\n  a.b: [1, 2]\n' >"$work/bad.profile.yaml"
expect bad-profile 3 '' 'bad.profile.yaml:3:' -- "$netsim" run "$work/syn.yaml" --profile "$work/bad.profile.yaml"
expect missing-profile 3 '' 'cannot read the calibration profile' -- "$netsim" validate "$work/syn.yaml" --profile "$work/none.yaml"

# --- measurement files: iperf3 -J reports of a short TCP test --------------------
cat >"$work/tcp.yaml" <<'YAML'
name: tcp-data
duration: 2s
hosts:
  s: { address: 10.0.0.1 }
  r: { address: 10.0.0.2 }
links:
  sr: { ends: [s, r], rate: 300Mbps, delay: 100us }
traffic:
  iperf3: { type: tcp, app: iperf3, time: 1s, from: s, to: r }
measured:
  keys: { delay: links.sr.delay }
  cells:
    - { delay: 100us, value: 1 }
calibrate:
  parameters:
    links.sr.rate: { min: 100Mbps, max: 1Gbps, start: 500Mbps }
  max_evaluations: 25
YAML
"$netsim" run "$work/tcp.yaml" --format iperf3-json >"$work/d100.json" 2>/dev/null
"$netsim" run "$work/tcp.yaml" --set links.sr.delay=300us --format iperf3-json >"$work/d300.json" 2>/dev/null
printf '{ "start": {\n  "connected": [\n' >"$work/broken.json"
cat >"$work/map.yaml" <<YAML
runs:
  - { file: d100.json, params: { delay: 100us } }
  - { file: broken.json, params: { delay: 200us } }
YAML
expect calibrate-data 0 'predicted' 'broken.json:[0-9]+' -- \
  "$netsim" calibrate "$work/tcp.yaml" --data "$work/map.yaml" --data "$work/d300.json:links.sr.delay=300us" \
  -j 2 --out "$work/tcp.profile.yaml"
if grep -q 'd300.json' "$work/tcp.profile.yaml" && grep -q '300us' "$work/out"; then
  pass data-cells-in-report-and-profile
else
  fail data-cells-in-report-and-profile
fi
fitted=$(sed -n 's/.*"links.sr.rate": { value: \([0-9.]*\)Mbps,.*/\1/p' "$work/tcp.profile.yaml")
if python3 -c "import sys; sys.exit(0 if abs($fitted / 300 - 1) < 0.02 else 1)"; then
  pass data-recovers-rate
else
  fail "data-recovers-rate (got ${fitted}Mbps)"
fi
expect data-unknown-key 3 '' 'not usable|no usable' -- \
  "$netsim" calibrate "$work/tcp.yaml" --data "$work/d100.json:speed=1" --out "$work/x.yaml"

# --- the sender's stack counters (FreeBSD netstat -s -p tcp) as the measured metric:
# a loss-free flow retransmits nothing, and a measured 0 is compared, not refused.
printf 'tcp:\n\t\t0 data packets (0 bytes) retransmitted\n\t0 retransmit timeouts\n' >"$work/s.netstat"
expect data-counters 0 '^  100us +0\.0 +0\.0 +\+0\.0% +fitted' '' -- \
  "$netsim" calibrate "$work/tcp.yaml" --data "$work/s.netstat:delay=100us" --set measured.metric=retransmits \
  --max-evaluations 2 --out "$work/counters.profile.yaml"

# --- netsim run --data: the same files compared without fitting -------------------
# d300.json was measured at 300us; the run's table shows its rate beside the simulated one.
d300=$(python3 -c "import json; print(round(json.load(open('$work/d300.json'))['end']['sum_received']['bits_per_second'] / 1e6, 1))")
expect run-data 0 "^  300us +1 +[0-9.]+ +$d300 " 'run: 1 measurements in 1 cells from --data' -- \
  "$netsim" run "$work/tcp.yaml" --set links.sr.delay=300us --data "$work/d300.json:delay=300us"
expect run-data-counters 0 'simulated vs measured \(retransmits, --data\)' '' -- \
  "$netsim" run "$work/tcp.yaml" --data "$work/s.netstat:delay=100us" --set measured.metric=retransmits
# T2's block compares two flows and Jain's index: each file says which sender
# it measured, and the index comes from the two measured rates of the cell
# (two iperf3 reports stand in for the senders' logs: 1-1 MB/s is Jain 1.000).
cat >"$work/t2-map.yaml" <<YAML
runs:
  - { file: $src/tests/data/measure/iperf3-client.json, flow: s1, params: { hz: 100, cc1: cubic, cc2: newreno } }
  - { file: $src/tests/data/measure/iperf3-client.json, flow: s2, params: { hz: 100, cc1: cubic, cc2: newreno } }
YAML
expect run-data-t2 0 '^  100 +cubic +newreno +1 .* 100\.0% +-?[0-9.]+ +' 'run: 2 measurements in 1 cells from --data' -- \
  "$netsim" run "$src/scenarios/t2-tcp-friendliness.yaml" --set seeds=1 -j 2 --data "$work/t2-map.yaml"
sed '/^measured:/,$d' "$work/tcp.yaml" >"$work/plain.yaml"
expect run-data-needs-block 3 '' "needs the scenario's measured: block" -- \
  "$netsim" run "$work/plain.yaml" --data "$work/d100.json:delay=100us"
expect run-data-nothing-usable 3 '' 'no usable measurement' -- \
  "$netsim" run "$work/tcp.yaml" --data "$work/broken.json:delay=100us"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
