#!/usr/bin/env bash
# tools/testbed/t1-measure.sh against stand-ins for the testbed (sysctl,
# ssh, iperf3, netstat on PATH, run by dash as FreeBSD's /bin/sh would): the
# drop rule goes in before and out after every cell, the counters are reset
# before and saved after the run, and the mapping files it writes are what
# `netsim run --data` reads.
# Usage: testbed_kit_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
kit_stubs
cat >"$stubs/sysctl" <<SH
#!/bin/sh
[ "\$*" = "-n kern.hz" ] && echo 1000
SH
cat >"$stubs/ssh" <<SH
#!/bin/sh
echo "ssh \$*" >>"$log"
case "\$2" in
  nstat) cat "$data/nstat-receiver.txt" ;;
  "netstat -I re0 -d -n")
    # The box's counters: Drop grows by 3 from each reading before a cell to the one after it.
    n=\$(cat "$work/box-reads" 2>/dev/null || echo 0)
    echo \$((n + 1)) >"$work/box-reads"
    echo "Name    Mtu Network       Address              Ipkts Ierrs Idrop    Opkts Oerrs  Coll  Drop"
    echo "re0    1500 <Link#1>      7c:83:34:b9:1a:2e  1234567     0     0  2345678     0     0 \$((120 + (n + 1) / 2 * 3))" ;;
esac
SH
cat >"$stubs/netstat" <<SH
#!/bin/sh
echo "netstat \$*" >>"$log"
case "\$*" in
  *-z*) ;;
  *) cat "$data/netstat-tcp-sender.txt" ;;
esac
SH
cat >"$stubs/iperf3" <<SH
#!/bin/sh
echo "iperf3 \$*" >>"$log"
case "\$*" in
  *"-C fail"*) exit 1 ;;
esac
cat "$data/iperf3-client.json"
SH
# ping: the FreeBSD sample for every call (the idle one and those during runs),
# logged apart because the loaded ones run in the background; sleep: at once.
cat >"$stubs/ping" <<SH
#!/bin/sh
echo "ping \$*" >>"$work/ping.log"
cat "$data/ping-freebsd.txt" | sed -n '/^PING/,\$p' | grep -v '^root@'
SH
cat >"$stubs/sleep" <<SH
#!/bin/sh
exit 0
SH
chmod +x "$stubs"/*
kit="$src/tools/testbed/t1-measure.sh"

expect kit-usage 2 '' 'usage: t1-measure.sh' -- env PATH="$stubs:$PATH" "$shell" "$kit" -a 10.0.0.2
expect kit-bad-every 2 '' "'x' is not a positive whole number" -- \
  env PATH="$stubs:$PATH" "$shell" "$kit" -r root@rcv -a 10.0.0.2 -e x

: >"$log"
expect kit-runs 0 '' 'mapping files in' -- env PATH="$stubs:$PATH" "$shell" "$kit" -r root@rcv -a 10.0.0.2 \
  -o "$work/kit" -c newreno -c cubic_d46046:cubic -e 25 -e 50 -t 3
# Per cell, in this order: rule in + nstat reset, zero netstat, iperf3, netstat, nstat, rule out.
cat >"$work/want.log" <<'TXT'
ssh root@rcv iptables -I INPUT -p tcp --dport 5201 -m statistic --mode nth --every 25 --packet 0 -j DROP && nstat -n
netstat -s -p tcp -z
iperf3 -c 10.0.0.2 -l 1M -t 3 -i 1 -C newreno -J
netstat -s -p tcp
ssh root@rcv nstat
ssh root@rcv iptables -D INPUT -p tcp --dport 5201 -m statistic --mode nth --every 25 --packet 0 -j DROP
TXT
if head -6 "$log" | diff -u "$work/want.log" - && [ "$(grep -c -- '-I INPUT' "$log")" -eq 4 ] &&
   [ "$(grep -c -- '-D INPUT' "$log")" -eq 4 ] && grep -q -- '-C cubic -J' "$log"; then
  pass kit-command-order
else
  fail kit-command-order
fi
if [ -f "$work/kit/cubic_d46046-hz1000-every50.nstat" ] &&
   grep -q 'file: cubic_d46046-hz1000-every50.netstat, params: { cc: cubic_d46046, hz: 1000, every: 50 }, metric: rto_count' \
     "$work/kit/rto.yaml" && [ "$(grep -c 'file:' "$work/kit/delayed-acks.yaml")" -eq 4 ]; then
  pass kit-files-and-mappings
else
  fail kit-files-and-mappings
fi

# One idle ping before the cells, one loaded ping per cell (-t 3: 2 s in, 5 echoes).
if [ "$(head -1 "$work/ping.log")" = "ping -c 20 10.0.0.2" ] &&
   [ "$(grep -c -- '^ping -i 0.2 -c 5 10.0.0.2$' "$work/ping.log")" -eq 4 ] &&
   grep -q 'file: idle-hz1000.ping, params: { hz: 1000 } }' "$work/kit/idle-ping.yaml" &&
   grep -q 'file: newreno-hz1000-every25.ping, params: { cc: newreno, hz: 1000, every: 25 } }' \
     "$work/kit/ping-loaded.yaml" && [ "$(grep -c 'file:' "$work/kit/ping-loaded.yaml")" -eq 4 ]; then
  pass kit-pings
else
  fail kit-pings
fi

# The mapping files are netsim's --data: the stand-in counters (9 RTOs, 137
# delayed-ACK timer ACKs) beside the simulated cell.
one_cell=(--set hosts.sender.hz=1000 --set traffic.iperf3.cc=newreno --set filters.drop.every=25)
expect kit-data-rto 0 '^  1000 +newreno +25 +1 +[0-9.]+ +9\.0 ' '' -- \
  "$netsim" run "$src/scenarios/t1-loss-resilience.yaml" --data "$work/kit/rto.yaml" --set measured.metric=rto_count \
  "${one_cell[@]}"
expect kit-data-delayed-acks 0 '^  1000 +newreno +25 +1 +[0-9.]+ +137\.0 ' '' -- \
  "$netsim" run "$src/scenarios/t1-loss-resilience.yaml" --data "$work/kit/delayed-acks.yaml" \
  --set measured.metric=receiver_delayed_acks "${one_cell[@]}"

# The sample ping (min/avg/max 0.534/0.660/0.799 ms) beside the idle ping
# scenario and beside a ping run during the cell.
expect kit-data-idle-ping 0 '^  1000 +5 +0\.[0-9]{3} +0\.[0-9]{3}-0\.[0-9]{3} +0\.534 .* 0\.660 .* 0\.799 ' '' -- \
  "$netsim" run "$src/scenarios/t1-idle-ping.yaml" --data "$work/kit/idle-ping.yaml"
expect kit-data-loaded-ping 0 '^  1000 +newreno +25 +1 +0\.[0-9]{3} +0\.660 ' '' -- \
  "$netsim" run "$src/scenarios/t1-loss-resilience.yaml" --data "$work/kit/ping-loaded.yaml" "${one_cell[@]}" \
  --set 'traffic.lping={type: ping, from: sender, to: receiver, interval: 200ms, start: 2s, stop: 3s}' \
  --set measured.flow=lping --set measured.metric=rtt_avg_ms --set duration=4s

# With -b, the sender's box is read before and after each cell: its drops
# (3 per cell here) beside the model's, which has none in T1.
expect kit-box 0 '' 'mapping files in' -- env PATH="$stubs:$PATH" "$shell" "$kit" -r root@rcv -a 10.0.0.2 \
  -o "$work/kit-box" -c newreno -e 25 -e 50 -t 3 -b root@box
if grep -q 'file: newreno-hz1000-every50.netstat-if, params: { cc: newreno, hz: 1000, every: 50 }, metric: sender_tx_drops' \
     "$work/kit-box/tx-drops.yaml" && [ "$(grep -c '<Link#1>' "$work/kit-box/newreno-hz1000-every25.netstat-if")" -eq 2 ]; then
  pass kit-box-files
else
  fail kit-box-files
fi
expect kit-data-tx-drops 0 '^  1000 +newreno +25 +1 +0\.0 +3\.0 ' '' -- \
  "$netsim" run "$src/scenarios/t1-loss-resilience.yaml" --data "$work/kit-box/tx-drops.yaml" \
  --set measured.metric=sender_tx_drops "${one_cell[@]}"

# A failed iperf3 run is named, its files kept, nothing mapped, and the rule still removed.
: >"$log"
expect kit-failed-cell 1 '' 'fail-hz1000-every25 failed' -- env PATH="$stubs:$PATH" "$shell" "$kit" -r root@rcv \
  -a 10.0.0.2 -o "$work/kit2" -c fail -e 25
if ! grep -q 'fail-hz1000' "$work/kit2/throughput.yaml" && [ -f "$work/kit2/fail-hz1000-every25.netstat" ] &&
   grep -q -- '-D INPUT' "$log"; then
  pass kit-failed-cell-cleans-up
else
  fail kit-failed-cell-cleans-up
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
