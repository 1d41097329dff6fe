#!/usr/bin/env bash
# Black-box tests of `netsim lab` that need no root: usage, --dry-run (the
# commands a cell becomes), fields the lab refuses (exit 3 with file:line),
# and exit 5 when the machine cannot run the lab (as a non-root user).
# Usage: lab_cli_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
lab=$src/scenarios/lab-linux-nth.yaml

expect "lab needs a file" 2 "" "'lab' needs a scenario FILE" -- "$netsim" lab
expect "lab --reps 0" 2 "" "--reps needs a positive integer" -- "$netsim" lab "$lab" --reps 0
expect "lab --all without --clean" 2 "" "--all goes with --clean" -- "$netsim" lab "$lab" --all
expect "lab --clean takes no file" 2 "" "takes no scenario FILE" -- "$netsim" lab --clean "$lab"
expect "lab --help" 0 "Exit codes: 0 every repetition" "" -- "$netsim" lab --help

# 30 cells; the per-packet reno cell with every 50: rule, shaping, offloads, tools.
expect "dry run plans every cell" 0 "# cell 30/30 " "" -- "$netsim" lab "$lab" --dry-run
expect "dry run: nth rule on the receiver's INPUT" 0 \
  "iptables(-legacy)? -A INPUT -p tcp --dport 5201 -m statistic --mode nth --every 50 --packet 0 -j DROP" "" -- \
  "$netsim" lab "$lab" --dry-run --set traffic.iperf3.cc=reno --set filters.nth-drop.every=50
expect "dry run: per-packet offloads" 0 "ethtool -K veth-a tso off gso off gro off" "" -- \
  "$netsim" lab "$lab" --dry-run --set traffic.iperf3.tso=false --set hosts.receiver.nic.gro=false \
  --set traffic.iperf3.cc=reno --set filters.nth-drop.every=50
expect "dry run: iperf3 client" 0 "iperf3 -c 198.18.0.2 -B 198.18.0.1 -p 5201 -t 10 -l 131072 -P 1 -C reno -J -i 1" "" -- \
  "$netsim" lab "$lab" --dry-run --set traffic.iperf3.cc=reno --set filters.nth-drop.every=50
expect "dry run: delay daemons" 0 "netsim-nfq-delay --queue 0 --delay-us 250" "" -- \
  "$netsim" lab "$lab" --dry-run --set traffic.iperf3.cc=reno --set filters.nth-drop.every=50

# Refused fields: exit 3, the file and line (or the override), the field.
sed 's/address: 198.18.0.1, hz: 250, os: linux/address: 198.18.0.1, hz: 250, os: linux, clock_ppm: 20/' "$lab" >"$work/ppm.yaml"
line=$(grep -n "clock_ppm" "$work/ppm.yaml" | cut -d: -f1)
expect "refused field names file:line and field" 3 "" "ppm.yaml:$line:[0-9]+: error: field 'hosts.sender.clock_ppm': netsim lab: " -- \
  "$netsim" lab "$work/ppm.yaml" --dry-run
expect "refused override names the override" 3 "" "--set links.sender-receiver.eee=\{\}.*veth has no Energy-Efficient" -- \
  "$netsim" lab "$lab" --dry-run --set 'links.sender-receiver.eee={}'
expect "model-only app refused" 3 "" "field 'traffic.iperf3.app': netsim lab: app: bulk has no real tool" -- \
  "$netsim" lab "$lab" --dry-run --set traffic.iperf3.app=bulk

# The shipped lab data beside the model: the stable CSV columns, 30 cells
# with a measured value each; the one-parameter calibration lands between
# the daemon's measured delay and the srtt the lab's sender saw.
data=$src/scenarios/lab-data/linux-nth-6.18-hz250/measurements.yaml
expect "run --data: stable columns" 0 "^cc,every,offload,seed,sender_mbps,receiver_mbps,retransmits,measured_mbps,error_pct" "" -- \
  "$netsim" run "$lab" --data "$data" --format csv -j 2
rows=$("$netsim" run "$lab" --data "$data" --format csv -j 2 2>/dev/null | grep -cE '^(reno|cubic),[a-z0-9]+,(per-packet|tso|gro),1,[0-9.]+,[0-9.]+,[0-9]+,[0-9.]+,')
[ "$rows" = 30 ] && pass "run --data: 30 rows with a lab value" || fail "run --data: $rows rows with a lab value, not 30"
"$netsim" calibrate "$lab" --data "$data" -j 2 --out "$work/lab.profile.yaml" >"$work/cal.txt" 2>/dev/null
delay=$(grep -oE 'links.sender-receiver.delay +[0-9.]+us' "$work/cal.txt" | head -1 | grep -oE '[0-9.]+us$' | tr -d us)
python3 -c 'import sys; d=float(sys.argv[1]); sys.exit(0 if 290 < d < 500 else 1)' "${delay:-0}" \
  && pass "calibrate: fitted delay ${delay}us" || fail "calibrate: fitted delay '${delay}' us outside 290-500"

if [ "$(id -u)" -ne 0 ]; then
  expect "not root: exit 5" 5 "" "netsim lab needs root" -- "$netsim" lab "$lab" --out "$work/lab"
  expect "clean not root: exit 5" 5 "" "needs root" -- "$netsim" lab --clean
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
