#!/bin/sh
# Measures table T2's pairings on the real testbed, repeatedly, with what
# settles the questions docs/t2.md leaves open ("What a measurement would
# decide" there):
#   - run-to-run spread: T2 has one run per pairing, and its mirrored
#     pairings disagree by 4-5 points of the cubic-family sender's share;
#     -n repeats every pairing (the mapping files average the repeats);
#   - drops in the bhyve boxes' own NIC queues (re(4): 766 frames; the model
#     puts 36% of T2's drops there): `netstat -I re0 -d` on each box before
#     and after a run (-b), which netsim compares as sender_tx_drops;
#   - what the receiver's NIC is and does (Intel igb/e1000e or Realtek r8169
#     moves the model's Jain by up to 8 points): its driver, interrupt
#     coalescing, pause (802.3x flow control) and EEE settings, once, and
#     its receive drops per run (/proc/net/dev: whether the receiver falls
#     behind, one reading of the totals gap) (-R);
#   - the senders' RTOs and SACK recoveries (netstat -s -p tcp) and the
#     receiver's delayed-ACK timer ACKs (nstat) per run;
#   - the round trip under load: ping -i 0.2 from sender1 to the receiver
#     during each run, whose echoes queue behind sender1's data in its box's
#     NIC and at the router port (the model: 1.8-2.2 ms on average).
#
# Run it on any machine that reaches the four hosts by ssh (the senders as
# root: sysctl, netstat -z); it runs nothing itself. Each sender runs the
# client; the receiver runs one iperf2 server per sender (ports 5001 and
# 5002), so that each connection's report is a file of its own.
# kern.hz is what the senders booted with (loader.conf); both must have
# the same; run the script once per kern.hz. For each pairing it:
#   1. sets net.inet.tcp.cc.algorithm on each sender (restored at the end),
#      as T2 did: its command line (`iperf -c RCV -l 1M -t 30 -i 2 -e`)
#      names no algorithm;
#   2. zeroes the senders' TCP counters, resets nstat's history on the
#      receiver, reads the boxes' re0 counters (and the receiver's ethtool -S);
#   3. starts both servers, then both clients at the same moment (two ssh
#      sessions started back to back; an ssh ControlMaster to each sender
#      keeps that to a few ms, as T2's "at the same time"), and on sender1
#      ping -i 0.2 from 2 s into the run until a second before its end;
#   4. saves the counters again, and the drops of each box's NIC queue
#      during the run.
# Files: DIR/testbed-facts.txt (once), per run DIR/CC1-CC2-hzHZ[-rK]-s1.client,
# -s2.client, -s1.server, -s2.server, -s1.netstat, -s2.netstat, .nstat,
# -s1.ping, -box1.netstat-if, -box2.netstat-if (netstat -I before and after),
# -rcv.ethtool-s, -rcv.proc-net-dev (each before and after); DIR/box-drops.txt (one line per run); and
# mapping files for netsim's --data (docs/measured-data.md), each entry
# with its flow (s1, s2):
#   throughput.yaml (the servers' receiver_mbps, what the scenario's measured
#   block compares), sender-throughput.yaml (the clients' sender_mbps),
#   retransmits.yaml, rto.yaml, recoveries.yaml (the senders' netstat),
#   tx-drops.yaml (the boxes' interface drops, with -b), rx-drops.yaml and
#   pause.yaml (the receiver's receive drops and the 802.3x PAUSE frames its
#   NIC sent, with -R, under s1: the figures are the host's; pause.yaml only
#   lists runs whose ethtool -S counts PAUSE frames), ping-loaded.yaml
#   (sender1's ping, flow lping: add that flow to the scenario, below).
# Compare, for example:
#   netsim run scenarios/t2-tcp-friendliness.yaml --data DIR/throughput.yaml
#   netsim run scenarios/t2-tcp-friendliness.yaml --data DIR/rto.yaml \
#     --set 'measured.metrics={s1: {flow: s1, metric: rto_count}, s2: {flow: s2, metric: rto_count}}'
#   (and DIR/tx-drops.yaml with metric sender_tx_drops)
#   netsim run scenarios/t2-tcp-friendliness.yaml --data DIR/ping-loaded.yaml \
#     --set 'traffic.lping={type: ping, from: s1, to: rcv, interval: 200ms, start: 2s, stop: 30s}' \
#     --set 'measured.metrics={avg: {flow: lping, metric: rtt_avg_ms}, max: {flow: lping, metric: rtt_max_ms}}'
# The rule's text is built here and meant to expand on this side.
# shellcheck disable=SC2029
set -u

usage() {
  cat >&2 <<'TXT'
usage: t2-measure.sh -s USER@SENDER1 -s USER@SENDER2 -r USER@RECEIVER -a RECEIVER_ADDRESS
                     [-b USER@BOX1 -b USER@BOX2] [-i BOX_IFACE] [-R RECEIVER_IFACE]
                     [-p CC1[:ALGO],CC2[:ALGO]]... [-t SECONDS] [-n REPEATS] [-o DIR]
  -s  ssh destinations of the two FreeBSD sender VMs, sender1 first (root: sysctl, netstat -z)
  -r  ssh destination of the Linux receiver (nstat; ethtool with -R)
  -a  the receiver's address, as the senders reach it
  -b  ssh destinations of the two bhyve hosts, sender1's box first (netstat -I, ifconfig)
  -i  the boxes' NIC (default re0)
  -R  the receiver's NIC, for its driver, coalescing, pause and EEE settings and ethtool -S
  -p  a pairing: sender1's and sender2's congestion control, each LABEL as the scenario
      names it and ALGO as net.inet.tcp.cc.algorithm takes it (default ALGO = LABEL);
      e.g. -p cubic_d46046:cubic,newreno on a kernel with review D46046
      (default: cubic,newreno and newreno,cubic)
  -t  iperf -t (default 30)
  -n  repetitions of every pairing (default 5)
  -o  output directory (default: t2-measurements-hzHZ)
TXT
  exit 2
}

senders="" receiver="" address="" boxes="" box_if=re0 rcv_if="" pairings="" seconds=30 repeats=5 out=""
while getopts s:r:a:b:i:R:p:t:n:o:h opt; do
  case $opt in
    s) senders="$senders $OPTARG" ;;
    r) receiver=$OPTARG ;;
    a) address=$OPTARG ;;
    b) boxes="$boxes $OPTARG" ;;
    i) box_if=$OPTARG ;;
    R) rcv_if=$OPTARG ;;
    p) pairings="$pairings $OPTARG" ;;
    t) seconds=$OPTARG ;;
    n) repeats=$OPTARG ;;
    o) out=$OPTARG ;;
    *) usage ;;
  esac
done
count() { echo $#; }
# shellcheck disable=SC2086 # the lists are split into their words on purpose
if [ "$(count $senders)" -ne 2 ] || [ -z "$receiver" ] || [ -z "$address" ]; then usage; fi
# shellcheck disable=SC2086
case $(count $boxes) in 0 | 2) ;; *) echo "t2-measure.sh: -b names both boxes or neither" >&2; exit 2 ;; esac
# shellcheck disable=SC2086
set -- $senders
s1=$1 s2=$2
[ -n "$pairings" ] || pairings="cubic,newreno newreno,cubic"
for p in $pairings; do
  case $p in
    *,*,* | ,* | *, | *[!A-Za-z0-9_:,.-]*) echo "t2-measure.sh: '$p' is not a pairing CC1[:ALGO],CC2[:ALGO]" >&2; exit 2 ;;
    *,*) ;;
    *) echo "t2-measure.sh: '$p' is not a pairing CC1[:ALGO],CC2[:ALGO]" >&2; exit 2 ;;
  esac
done
for n in $seconds $repeats; do
  case $n in '' | *[!0-9]* | 0) echo "t2-measure.sh: '$n' is not a positive whole number" >&2; exit 2 ;; esac
done

if ! hz1=$(ssh "$s1" sysctl -n kern.hz) || ! hz2=$(ssh "$s2" sysctl -n kern.hz); then
  echo "t2-measure.sh: cannot read kern.hz on the senders" >&2
  exit 1
fi
if [ "$hz1" != "$hz2" ]; then
  echo "t2-measure.sh: the senders run kern.hz $hz1 and $hz2; T2 sets both alike (loader.conf, reboot)" >&2
  exit 1
fi
hz=$hz1
[ -n "$out" ] || out="t2-measurements-hz$hz"
mkdir -p "$out" || exit 1

# The senders' algorithm as found, put back however the script ends.
if ! algo1=$(ssh "$s1" sysctl -n net.inet.tcp.cc.algorithm) || ! algo2=$(ssh "$s2" sysctl -n net.inet.tcp.cc.algorithm); then
  echo "t2-measure.sh: cannot read net.inet.tcp.cc.algorithm on the senders" >&2
  exit 1
fi
restore() {
  ssh "$s1" sysctl net.inet.tcp.cc.algorithm="$algo1" >/dev/null || echo "t2-measure.sh: could not restore $s1's algorithm ($algo1)" >&2
  ssh "$s2" sysctl net.inet.tcp.cc.algorithm="$algo2" >/dev/null || echo "t2-measure.sh: could not restore $s2's algorithm ($algo2)" >&2
}
trap 'restore' EXIT
trap 'exit 130' INT TERM

# What the testbed is, once: each command's output under its own heading;
# one that fails is noted and the others still run.
fact() {  # title, ssh destination, command
  printf '### %s: %s\n' "$1" "$3" >>"$out/testbed-facts.txt"
  ssh "$2" "$3" >>"$out/testbed-facts.txt" 2>&1 || printf '(failed)\n' >>"$out/testbed-facts.txt"
}
: >"$out/testbed-facts.txt"
sender_facts="uname -a; sysctl kern.hz net.inet.tcp.cc.available net.inet.tcp.sendbuf_max net.inet.tcp.sack.revised"
fact sender1 "$s1" "$sender_facts"
fact sender2 "$s2" "$sender_facts"
fact receiver "$receiver" "uname -a; nproc; sysctl net.ipv4.tcp_rmem net.core.default_qdisc"
if [ -n "$rcv_if" ]; then
  for c in "-i" "-c" "-a" "--show-eee" "-g"; do fact receiver "$receiver" "ethtool $c $rcv_if"; done
fi
if [ -n "$boxes" ]; then
  # shellcheck disable=SC2086
  set -- $boxes
  unit=${box_if##*[!0-9]} driver=${box_if%"$unit"}
  # ifconfig's media line shows the negotiated flow control (rxpause, txpause).
  fact box1 "$1" "uname -a; ifconfig $box_if; sysctl dev.$driver.$unit"
  fact box2 "$2" "uname -a; ifconfig $box_if; sysctl dev.$driver.$unit"
fi

for m in throughput sender-throughput retransmits rto recoveries tx-drops rx-drops pause ping-loaded; do
  [ -f "$out/$m.yaml" ] || printf 'runs:\n' >"$out/$m.yaml"
done
entry() {  # mapping file, measurement file, flow, cc1 label, cc2 label[, metric]
  printf '  - { file: %s, flow: %s, params: { hz: %s, cc1: %s, cc2: %s }%s }\n' "$2" "$3" "$hz" "$4" "$5" \
    "${6:+, metric: $6}" >>"$out/$1.yaml"
}
# Echoes during a run: from 2 s in until a second before its end.
pings=$(((seconds - 3) * 5))
# How much the Drop column (if_snd drops) of the interface's link-level line
# grew from the file's first snapshot to its second.
box_drops() { awk '/<Link/ { d[n++] = $NF } END { if (n == 2 && d[0] ~ /^[0-9]+$/ && d[1] ~ /^[0-9]+$/) print d[1] - d[0]; else print "?" }' "$1"; }

failed=0
r=1
while [ "$r" -le "$repeats" ]; do
  for p in $pairings; do
    c1=${p%%,*} c2=${p#*,}
    l1=${c1%%:*} a1=${c1#*:} l2=${c2%%:*} a2=${c2#*:}
    base="$l1-$l2-hz$hz"
    [ "$repeats" -gt 1 ] && base="$base-r$r"
    echo "t2-measure.sh: $base" >&2
    if ! ssh "$s1" "sysctl net.inet.tcp.cc.algorithm=$a1 >/dev/null && netstat -s -p tcp -z >/dev/null" ||
       ! ssh "$s2" "sysctl net.inet.tcp.cc.algorithm=$a2 >/dev/null && netstat -s -p tcp -z >/dev/null" ||
       ! ssh "$receiver" "nstat -n"; then
      echo "t2-measure.sh: cannot set up the hosts for $base" >&2
      failed=$((failed + 1))
      continue
    fi
    if [ -n "$boxes" ]; then
      n=1
      for b in $boxes; do ssh "$b" "netstat -I $box_if -d -n" >"$out/$base-box$n.netstat-if"; n=$((n + 1)); done
    fi
    if [ -n "$rcv_if" ]; then
      ssh "$receiver" "ethtool -S $rcv_if" >"$out/$base-rcv.ethtool-s"
      ssh "$receiver" "grep -E '^ *(Inter|face|$rcv_if:)' /proc/net/dev" >"$out/$base-rcv.proc-net-dev"
    fi
    # The servers stop $seconds + 15 s after they start (SIGINT: iperf2
    # prints what it has and exits); their connection has ended by then.
    ssh "$receiver" "timeout -s INT $((seconds + 15)) iperf -s -p 5001 -e -i 2" >"$out/$base-s1.server" 2>&1 &
    server1=$!
    ssh "$receiver" "timeout -s INT $((seconds + 15)) iperf -s -p 5002 -e -i 2" >"$out/$base-s2.server" 2>&1 &
    server2=$!
    sleep 2
    ssh "$s1" "iperf -c $address -p 5001 -l 1M -t $seconds -i 2 -e" >"$out/$base-s1.client" 2>&1 &
    client1=$!
    ssh "$s2" "iperf -c $address -p 5002 -l 1M -t $seconds -i 2 -e" >"$out/$base-s2.client" 2>&1 &
    client2=$!
    pinger=""
    if [ "$pings" -gt 0 ]; then
      ssh "$s1" "sleep 2 && ping -i 0.2 -c $pings $address" >"$out/$base-s1.ping" 2>&1 &
      pinger=$!
    fi
    ok=1
    wait "$client1" || ok=0
    wait "$client2" || ok=0
    loaded_ping=0
    if [ -n "$pinger" ] && wait "$pinger"; then loaded_ping=1; fi
    ssh "$s1" "netstat -s -p tcp" >"$out/$base-s1.netstat" || ok=0
    ssh "$s2" "netstat -s -p tcp" >"$out/$base-s2.netstat" || ok=0
    ssh "$receiver" nstat >"$out/$base.nstat" || ok=0
    if [ -n "$boxes" ]; then
      n=1 line="$base"
      for b in $boxes; do
        ssh "$b" "netstat -I $box_if -d -n" >>"$out/$base-box$n.netstat-if"
        line="$line box$n=$(box_drops "$out/$base-box$n.netstat-if")"
        n=$((n + 1))
      done
      echo "$line" >>"$out/box-drops.txt"
    fi
    if [ -n "$rcv_if" ]; then
      ssh "$receiver" "ethtool -S $rcv_if" >>"$out/$base-rcv.ethtool-s"
      ssh "$receiver" "grep -E '^ *(Inter|face|$rcv_if:)' /proc/net/dev" >>"$out/$base-rcv.proc-net-dev" || ok=0
    fi
    # timeout exits 124 when it had to stop the server, as it always does here.
    wait "$server1"
    wait "$server2"
    if [ "$ok" -eq 0 ]; then
      echo "t2-measure.sh: $base failed; its files are kept but not mapped" >&2
      failed=$((failed + 1))
      continue
    fi
    for f in s1 s2; do
      entry throughput "$base-$f.server" "$f" "$l1" "$l2"
      entry sender-throughput "$base-$f.client" "$f" "$l1" "$l2" sender_mbps
      entry retransmits "$base-$f.netstat" "$f" "$l1" "$l2" retransmits
      entry rto "$base-$f.netstat" "$f" "$l1" "$l2" rto_count
      entry recoveries "$base-$f.netstat" "$f" "$l1" "$l2" recovery_episodes
    done
    if [ -n "$boxes" ]; then
      entry tx-drops "$base-box1.netstat-if" s1 "$l1" "$l2" sender_tx_drops
      entry tx-drops "$base-box2.netstat-if" s2 "$l1" "$l2" sender_tx_drops
    fi
    [ -z "$rcv_if" ] || entry rx-drops "$base-rcv.proc-net-dev" s1 "$l1" "$l2" receiver_rx_drops
    # r8169 and some other drivers count no PAUSE frames: no entry then.
    if [ -n "$rcv_if" ] && grep -qE '^ +(tx_flow_control_xo(n|ff)|tx_pause_frames|tx_pause_ctrl_phy):' \
      "$out/$base-rcv.ethtool-s"; then
      entry pause "$base-rcv.ethtool-s" s1 "$l1" "$l2" receiver_pause_frames
    fi
    if [ "$loaded_ping" -eq 1 ]; then entry ping-loaded "$base-s1.ping" lping "$l1" "$l2"; fi
  done
  r=$((r + 1))
done
[ "$failed" -eq 0 ] || { echo "t2-measure.sh: $failed runs failed" >&2; exit 1; }
echo "t2-measure.sh: mapping files in $out/ (throughput, sender-throughput, retransmits, rto, recoveries, tx-drops, rx-drops, pause, ping-loaded .yaml)" >&2
