#!/usr/bin/env bash
# tools/testbed/t2-measure.sh against stand-ins for the testbed (ssh and
# sleep on PATH, run by dash as FreeBSD's /bin/sh would): each sender's
# algorithm is set before every run and put back at the end, the counters
# are reset before and saved after each run, both servers are up before
# either client starts, the boxes' NIC drops are counted per run, and the
# mapping files it writes are what `netsim run --data` reads.
# Usage: testbed_t2_kit_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
kit_stubs
# ssh DESTINATION COMMAND...: what each host would print. s2's kern.hz is
# $S2_HZ (default 100); the boxes' Drop counters grow by 1573 (box1) and 0
# (box2) per reading pair, the receiver's PAUSE counters by 300 + 301, its
# receive drops by 7; an algorithm named "fail" makes the client fail.
cat >"$stubs/ssh" <<SH
#!/bin/sh
dest=\$1
shift
echo "ssh \$dest \$*" >>"$log"
case "\$dest \$*" in
  *"sysctl -n kern.hz") [ "\$dest" = root@s2 ] && echo "\${S2_HZ:-100}" || echo 100 ;;
  *"sysctl -n net.inet.tcp.cc.algorithm") echo newreno ;;
  *"iperf -s -p 5001"*) cat "$data/iperf2-t2-s1-server.txt" ;;
  *"iperf -s -p 5002"*) cat "$data/iperf2-t2-s2-server.txt" ;;
  *"iperf -c"*)
    grep -q 'algorithm=fail' "$work/algorithm.\$dest" 2>/dev/null && exit 1
    [ "\$dest" = root@s1 ] && cat "$data/iperf2-t2-s1-client.txt" || cat "$data/iperf2-t2-s2-client.txt" ;;
  *"sysctl net.inet.tcp.cc.algorithm="*) echo "\$*" >"$work/algorithm.\$dest" ;;
  *"netstat -s -p tcp") cat "$data/netstat-tcp-sender.txt" ;;
  *"/proc/net/dev"*)
    n=\$(cat "$work/reads.rcvdev" 2>/dev/null || echo 0)
    echo \$((n + 1)) >"$work/reads.rcvdev"
    echo "Inter-|   Receive                                                |  Transmit"
    echo " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed"
    echo "  eno1: 48213377220 33213840    0 \$((17 + (n + 1) / 2 * 7))    0     0          0      1033 1251177812 18833512    0    0    0     0       0          0" ;;
  *"ethtool -S "*)
    n=\$(cat "$work/reads.ethtool" 2>/dev/null || echo 0)
    echo \$((n + 1)) >"$work/reads.ethtool"
    echo "NIC statistics:"
    echo "     rx_packets: 33213840"
    echo "     tx_flow_control_xon: \$((10 + (n + 1) / 2 * 300))"
    echo "     rx_flow_control_xon: 0"
    echo "     tx_flow_control_xoff: \$((12 + (n + 1) / 2 * 301))" ;;
  *"ping -i 0.2"*) sed -n '/^PING/,\$p' "$data/ping-freebsd.txt" | grep -v '^root@' ;;
  "root@rcv nstat") cat "$data/nstat-receiver.txt" ;;
  *"netstat -I re0 -d -n")
    n=\$(cat "$work/reads.\$dest" 2>/dev/null || echo 0)
    echo \$((n + 1)) >"$work/reads.\$dest"
    step=0; [ "\$dest" = root@box1 ] && step=1573
    echo "Name    Mtu Network       Address              Ipkts Ierrs Idrop    Opkts Oerrs  Coll  Drop"
    echo "re0    1500 <Link#1>      7c:83:34:b9:1a:2e  1234567     0     0  2345678     0     0 \$((120 + n / 2 * step + n % 2 * step))"
    echo "re0       - 192.168.50.0/ 192.168.50.37        45678     -     -    56789     -     -     -" ;;
  *) ;;
esac
SH
# sleep (the kit's pause between starting the servers and the clients):
# logged once both servers of this run have logged their start (the kit
# starts them in the background), so that the log's order is the kit's.
real_sleep=$(command -v sleep)
cat >"$stubs/sleep" <<SH
#!/bin/sh
want=\$(( (\$(grep -c '^sleep' "$log") + 1) * 2 ))
i=0
while [ "\$(grep -c 'iperf -s' "$log")" -lt "\$want" ] && [ "\$i" -lt 500 ]; do "$real_sleep" 0.01; i=\$((i + 1)); done
echo "sleep \$*" >>"$log"
SH
chmod +x "$stubs"/*
kit="$src/tools/testbed/t2-measure.sh"
hosts=(-s root@s1 -s root@s2 -r root@rcv -a 10.0.0.2)

expect t2kit-usage 2 '' 'usage: t2-measure.sh' -- env PATH="$stubs:$PATH" "$shell" "$kit" -s root@s1 -r root@rcv -a 10.0.0.2
expect t2kit-bad-pairing 2 '' "'cubic' is not a pairing" -- \
  env PATH="$stubs:$PATH" "$shell" "$kit" "${hosts[@]}" -p cubic
expect t2kit-bad-repeats 2 '' "'0' is not a positive whole number" -- \
  env PATH="$stubs:$PATH" "$shell" "$kit" "${hosts[@]}" -n 0
expect t2kit-one-box 2 '' '-b names both boxes or neither' -- \
  env PATH="$stubs:$PATH" "$shell" "$kit" "${hosts[@]}" -b root@box1
expect t2kit-hz-mismatch 1 '' 'the senders run kern.hz 100 and 1000' -- \
  env PATH="$stubs:$PATH" S2_HZ=1000 "$shell" "$kit" "${hosts[@]}" -o "$work/mismatch"

: >"$log"
expect t2kit-runs 0 '' 'mapping files in' -- env PATH="$stubs:$PATH" "$shell" "$kit" "${hosts[@]}" \
  -b root@box1 -b root@box2 -R eno1 -p cubic,newreno -p cubic_d46046:cubic,newreno -n 2 -t 4 -o "$work/kit"
# Per run, in this order: algorithms set and counters zeroed, nstat reset,
# the boxes' counters read, ethtool -S, both servers, both clients, the
# counters saved, the boxes read again, ethtool -S; at the end the senders'
# algorithms put back.
grep -v -e 'uname' -e 'ethtool -[icag] ' -e 'ethtool --show-eee' -e 'sysctl -n' "$log" >"$work/runs.log"
cat >"$work/want.log" <<'TXT'
ssh root@s1 sysctl net.inet.tcp.cc.algorithm=cubic >/dev/null && netstat -s -p tcp -z >/dev/null
ssh root@s2 sysctl net.inet.tcp.cc.algorithm=newreno >/dev/null && netstat -s -p tcp -z >/dev/null
ssh root@rcv nstat -n
ssh root@box1 netstat -I re0 -d -n
ssh root@box2 netstat -I re0 -d -n
ssh root@rcv ethtool -S eno1
ssh root@rcv grep -E '^ *(Inter|face|eno1:)' /proc/net/dev
ssh root@rcv timeout -s INT 19 iperf -s -p 5001 -e -i 2
ssh root@rcv timeout -s INT 19 iperf -s -p 5002 -e -i 2
sleep 2
ssh root@s1 iperf -c 10.0.0.2 -p 5001 -l 1M -t 4 -i 2 -e
ssh root@s2 iperf -c 10.0.0.2 -p 5002 -l 1M -t 4 -i 2 -e
ssh root@s1 sleep 2 && ping -i 0.2 -c 5 10.0.0.2
ssh root@s1 netstat -s -p tcp
ssh root@s2 netstat -s -p tcp
ssh root@rcv nstat
ssh root@box1 netstat -I re0 -d -n
ssh root@box2 netstat -I re0 -d -n
ssh root@rcv ethtool -S eno1
ssh root@rcv grep -E '^ *(Inter|face|eno1:)' /proc/net/dev
TXT
# The two servers and the two clients run in the background, so their
# order within each pair is not fixed: compare the first run's lines sorted.
if diff <(sort "$work/want.log") <(head -20 "$work/runs.log" | sort) >/dev/null &&
   head -6 "$work/runs.log" | diff -u <(head -6 "$work/want.log") - &&
   [ "$(grep -c 'iperf -s' "$work/runs.log")" -eq 8 ] && [ "$(grep -c 'iperf -c' "$work/runs.log")" -eq 8 ] &&
   grep -q 'sysctl net.inet.tcp.cc.algorithm=cubic >' "$work/runs.log" &&
   tail -2 "$work/runs.log" | grep -q 'sysctl net.inet.tcp.cc.algorithm=newreno$'; then
  pass t2kit-command-order
else
  fail t2kit-command-order
  cat "$work/runs.log"
fi
# In every run both servers start, then the pause, then the clients (and
# sender1's ping during the run).
if awk '/iperf -s/ { s++ } /^sleep 2$/ { p++; if (s != 2 * p) bad = 1 }
        /iperf -c/ { c++; if (c > 2 * p) bad = 1 } END { exit bad || p != 4 }' "$work/runs.log"; then
  pass t2kit-servers-first
else
  fail t2kit-servers-first
fi
if grep -q 'file: cubic_d46046-newreno-hz100-r2-s2.server, flow: s2, params: { hz: 100, cc1: cubic_d46046, cc2: newreno } }' \
     "$work/kit/throughput.yaml" &&
   grep -q 'file: cubic-newreno-hz100-r1-s1.client, flow: s1, params: { hz: 100, cc1: cubic, cc2: newreno }, metric: sender_mbps' \
     "$work/kit/sender-throughput.yaml" &&
   [ "$(grep -c 'file:' "$work/kit/rto.yaml")" -eq 8 ] && [ -f "$work/kit/cubic-newreno-hz100-r2.nstat" ] &&
   grep -q 'file: cubic-newreno-hz100-r1-box2.netstat-if, flow: s2, params: { hz: 100, cc1: cubic, cc2: newreno }, metric: sender_tx_drops' \
     "$work/kit/tx-drops.yaml" && [ "$(grep -c '<Link#1>' "$work/kit/cubic-newreno-hz100-r1-box1.netstat-if")" -eq 2 ] &&
   grep -q '^### box1: uname -a; ifconfig re0; sysctl dev.re.0$' "$work/kit/testbed-facts.txt" &&
   grep -q '^### receiver: ethtool --show-eee eno1$' "$work/kit/testbed-facts.txt" &&
   grep -q 'file: cubic-newreno-hz100-r2-s1.ping, flow: lping, params: { hz: 100, cc1: cubic, cc2: newreno } }' \
     "$work/kit/ping-loaded.yaml" && [ "$(grep -c 'file:' "$work/kit/ping-loaded.yaml")" -eq 4 ] &&
   grep -q 'file: cubic-newreno-hz100-r1-rcv.proc-net-dev, flow: s1, params: { hz: 100, cc1: cubic, cc2: newreno }, metric: receiver_rx_drops' \
     "$work/kit/rx-drops.yaml" &&
   grep -q 'file: cubic-newreno-hz100-r2-rcv.ethtool-s, flow: s1, params: { hz: 100, cc1: cubic, cc2: newreno }, metric: receiver_pause_frames' \
     "$work/kit/pause.yaml" && [ "$(grep -c '^NIC statistics:' "$work/kit/cubic-newreno-hz100-r1-rcv.ethtool-s")" -eq 2 ]; then
  pass t2kit-files-and-mappings
else
  fail t2kit-files-and-mappings
fi
# box1's queue dropped 1573 frames in each run, box2's none.
if [ "$(cat "$work/kit/box-drops.txt")" = "cubic-newreno-hz100-r1 box1=1573 box2=0
cubic_d46046-newreno-hz100-r1 box1=1573 box2=0
cubic-newreno-hz100-r2 box1=1573 box2=0
cubic_d46046-newreno-hz100-r2 box1=1573 box2=0" ]; then
  pass t2kit-box-drops
else
  fail t2kit-box-drops
  cat "$work/kit/box-drops.txt"
fi

# The mapping files are netsim's --data: the stand-in logs (279 and 647
# Mbit/s, twice: 2 measured runs, each value's range) beside the simulated
# pairing, Jain's index from the two.
pairing=(--set hosts.s1.hz=100 --set hosts.s2.hz=100 --set traffic.s1.cc=cubic --set traffic.s2.cc=newreno
  --set seeds=1 --set duration=3s --set traffic.s1.time=2s --set traffic.s2.time=2s)
expect t2kit-data-throughput 0 '^  100 +cubic +newreno +1 +2 +[0-9.]+ +279\.0 +279\.0-279\.0 .* 647\.0 +647\.0-647\.0 .* 86\.4% +86\.4%-86\.4% ' '' -- \
  "$netsim" run "$src/scenarios/t2-tcp-friendliness.yaml" --data "$work/kit/throughput.yaml" "${pairing[@]}"
expect t2kit-data-sender 0 '^  100 +cubic +newreno +1 +2 +[0-9.]+ +279\.0 +279\.0-279\.0 .* 647\.0 +647\.0-647\.0 .* 86\.4% ' '' -- \
  "$netsim" run "$src/scenarios/t2-tcp-friendliness.yaml" --data "$work/kit/sender-throughput.yaml" "${pairing[@]}" \
  --set 'measured.metrics={s1: {flow: s1, metric: sender_mbps}, s2: {flow: s2, metric: sender_mbps}, jain: {fairness: [s1, s2]}}'
# box1's interface dropped 1573 frames in each run, box2's none.
expect t2kit-data-tx-drops 0 '^  100 +cubic +newreno +1 +2 +[0-9.]+ +1573\.0 +1573\.0-1573\.0 .* 0\.0 +0\.0-0\.0 ' '' -- \
  "$netsim" run "$src/scenarios/t2-tcp-friendliness.yaml" --data "$work/kit/tx-drops.yaml" "${pairing[@]}" \
  --set 'measured.metrics={s1: {flow: s1, metric: sender_tx_drops}, s2: {flow: s2, metric: sender_tx_drops}}'
# sender1's ping during each run (the sample: 0.534/0.660/0.799 ms) beside
# the model's ping flow from s1 to the receiver.
expect t2kit-data-ping 0 '^  100 +cubic +newreno +1 +2 +[0-9.]+ +0\.660 +0\.660-0\.660 ' '' -- \
  "$netsim" run "$src/scenarios/t2-tcp-friendliness.yaml" --data "$work/kit/ping-loaded.yaml" "${pairing[@]}" \
  --set 'traffic.lping={type: ping, from: s1, to: rcv, interval: 200ms, start: 1s, stop: 2s}' \
  --set 'measured.metrics={avg: {flow: lping, metric: rtt_avg_ms}}'
# The receiver's interface dropped 7 frames in each run; the model's receive ring none.
expect t2kit-data-rx-drops 0 '^  100 +cubic +newreno +1 +2 +0\.0 +7\.0 +7\.0-7\.0 ' '' -- \
  "$netsim" run "$src/scenarios/t2-tcp-friendliness.yaml" --data "$work/kit/rx-drops.yaml" "${pairing[@]}" \
  --set 'measured.metrics={rx: {flow: s1, metric: receiver_rx_drops}}'
# The receiver's NIC sent 601 PAUSE frames in each run; the model's receiver has no flow control.
expect t2kit-data-pause 0 '^  100 +cubic +newreno +1 +2 +0\.0 +601\.0 +601\.0-601\.0 ' '' -- \
  "$netsim" run "$src/scenarios/t2-tcp-friendliness.yaml" --data "$work/kit/pause.yaml" "${pairing[@]}" \
  --set 'measured.metrics={pause: {flow: s1, metric: receiver_pause_frames}}'
# The stand-in netstat has 9 RTOs.
expect t2kit-data-rto 0 '^  100 +cubic +newreno +1 +2 +[0-9.]+ +9\.0 +9\.0-9\.0 .* 9\.0 ' '' -- \
  "$netsim" run "$src/scenarios/t2-tcp-friendliness.yaml" --data "$work/kit/rto.yaml" "${pairing[@]}" \
  --set 'measured.metrics={s1: {flow: s1, metric: rto_count}, s2: {flow: s2, metric: rto_count}}'

# A failed client is named, its files kept, nothing mapped, the algorithms
# still put back.
: >"$log"
expect t2kit-failed-run 1 '' 'fail-newreno-hz100 failed' -- env PATH="$stubs:$PATH" "$shell" "$kit" "${hosts[@]}" \
  -p fail,newreno -n 1 -o "$work/kit2"
if ! grep -q 'fail-newreno' "$work/kit2/throughput.yaml" && [ -f "$work/kit2/fail-newreno-hz100-s1.netstat" ] &&
   tail -2 "$log" | grep -q 'root@s1 sysctl net.inet.tcp.cc.algorithm=newreno$'; then
  pass t2kit-failed-run-cleans-up
else
  fail t2kit-failed-run-cleans-up
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
