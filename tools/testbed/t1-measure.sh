#!/bin/sh
# Measures table T1's cells on the real testbed, with the counters that tell
# netsim's candidate mechanisms apart (docs/t1.md, "What a measurement would
# decide"): per cell, iperf3 -J on the sender (throughput and Retr), the
# FreeBSD sender's netstat -s -p tcp (RTOs, SACK recoveries) and the Linux
# receiver's nstat (delayed-ACK timer ACKs), and ping: once idle before
# the cells, and every 0.2 s during each run (a loaded ping tells a path
# whose guests never go idle from one that stalls on delayed ACKs and pays a
# vCPU wake-up after each stall; docs/t1.md).
#
# Run on the FreeBSD sender, as root (netstat -z zeroes the counters); the
# Linux receiver must take root commands over ssh (iptables, nstat) and run
# `iperf3 -s`. kern.hz is whatever the sender booted with (loader.conf);
# run the script once per kern.hz. For each cc and drop rate it:
#   1. inserts the receiver's rule, as T1 did:
#        iptables -I INPUT 1 -p tcp --dport 5201 -m statistic --mode nth --every N --packet 0 -j DROP
#      and resets nstat's history there (nstat -n);
#   2. zeroes the sender's TCP counters (netstat -s -p tcp -z);
#   3. runs iperf3 -c ADDRESS -l 1M -t SECONDS -i 1 -C ALGO -J, and from 2 s
#      into it ping -i 0.2 until a second before its end;
#   4. saves netstat -s -p tcp here and nstat there, then deletes the rule.
# Files: DIR/idle-hzHZ.ping (ping -c 20 before the first cell),
# DIR/LABEL-hzHZ-everyN[-rK].json, .netstat, .nstat, .ping, and mapping files
# for netsim's --data (docs/measured-data.md):
#   throughput.yaml (receiver_mbps), retransmits.yaml (iperf3's Retr),
#   rto.yaml (rto_count), recoveries.yaml (recovery_episodes),
#   delayed-acks.yaml (receiver_delayed_acks), ping-loaded.yaml (each run's
#   ping; the measured block's metric says which figure, e.g. rtt_avg_ms),
#   idle-ping.yaml (for scenarios/t1-idle-ping.yaml).
# Compare, for example:
#   netsim run scenarios/t1-loss-resilience.yaml --profile scenarios/profiles/t1-newreno-fit.profile.yaml \
#     --data DIR/rto.yaml --set measured.metric=rto_count --set seeds=2
#   netsim run scenarios/t1-loss-resilience.yaml --set seeds=2 \
#     --set 'traffic.lping={type: ping, from: sender, to: receiver, interval: 200ms, start: 2s, stop: 11s}' \
#     --data DIR/ping-loaded.yaml --set measured.flow=lping --set measured.metric=rtt_avg_ms
#   netsim run scenarios/t1-idle-ping.yaml --data DIR/idle-ping.yaml
# With -b USER@BOX (the bhyve host that carries this VM) it also reads the
# box's NIC counters (netstat -I re0 -d) before and after each cell, into
# DIR/LABEL-hzHZ-everyN[-rK].netstat-if and tx-drops.yaml
# (sender_tx_drops: frames the box's re(4) queue dropped; the model has
# none in T1, its queue never holding more than 179 of its 766 frames):
#   netsim run scenarios/t1-loss-resilience.yaml --data DIR/tx-drops.yaml --set measured.metric=sender_tx_drops
# One thing this script cannot see from inside the VMs: whether the boxes'
# links to the hub run Energy-Efficient Ethernet, which netsim's testbed
# profiles assume (docs/t1.md "Energy-Efficient Ethernet"). FreeBSD's re(4)
# shows no EEE state; boot a box from a Linux stick, keep it on the same
# switch port, and run `ethtool --show-eee <port>` ("enabled - active" or not).
# The rule's text is built here and meant to expand on this side.
# shellcheck disable=SC2029
set -u

usage() {
  cat >&2 <<'TXT'
usage: t1-measure.sh -r USER@RECEIVER -a RECEIVER_ADDRESS [-o DIR] [-c LABEL[:ALGO]]... [-e N]...
                     [-t SECONDS] [-n REPEATS] [-b USER@BOX [-i BOX_IFACE]]
  -r  ssh destination of the Linux receiver (root: iptables, nstat)
  -a  the receiver's address for iperf3 -c
  -o  output directory (default: t1-measurements-hzHZ)
  -c  a congestion control: LABEL as the scenario names it, ALGO as iperf3 -C takes it
      (default ALGO = LABEL); e.g. -c newreno -c cubic, or -c cubic_d46046:cubic on a
      kernel with review D46046 (default: newreno and cubic)
  -e  drop every N-th packet (default: 100 50 33 25)
  -t  iperf3 -t (default 10)
  -n  repetitions of every cell (default 1)
  -b  ssh destination of the bhyve host that carries this VM (netstat -I)
  -i  that host's NIC (default re0)
TXT
  exit 2
}

receiver="" address="" out="" ccs="" everys="" seconds=10 repeats=1 box="" box_if=re0
while getopts r:a:o:c:e:t:n:b:i:h opt; do
  case $opt in
    r) receiver=$OPTARG ;;
    a) address=$OPTARG ;;
    o) out=$OPTARG ;;
    c) ccs="$ccs $OPTARG" ;;
    e) everys="$everys $OPTARG" ;;
    t) seconds=$OPTARG ;;
    n) repeats=$OPTARG ;;
    b) box=$OPTARG ;;
    i) box_if=$OPTARG ;;
    *) usage ;;
  esac
done
if [ -z "$receiver" ] || [ -z "$address" ]; then usage; fi
[ -n "$ccs" ] || ccs="newreno cubic"
[ -n "$everys" ] || everys="100 50 33 25"
for n in $everys $seconds $repeats; do
  case $n in '' | *[!0-9]*) echo "t1-measure.sh: '$n' is not a positive whole number" >&2; exit 2 ;; esac
done

hz=$(sysctl -n kern.hz) || { echo "t1-measure.sh: cannot read kern.hz" >&2; exit 1; }
[ -n "$out" ] || out="t1-measurements-hz$hz"
mkdir -p "$out" || exit 1

rule="INPUT -p tcp --dport 5201 -m statistic --mode nth --every"
inserted=""
remove_rule() {
  if [ -n "$inserted" ]; then
    ssh "$receiver" "iptables -D $rule $inserted --packet 0 -j DROP" || echo "t1-measure.sh: could not remove the drop rule (every $inserted) on $receiver" >&2
    inserted=""
  fi
}
trap 'remove_rule' EXIT
trap 'remove_rule; exit 130' INT TERM

for m in throughput retransmits rto recoveries delayed-acks ping-loaded idle-ping tx-drops; do
  [ -f "$out/$m.yaml" ] || printf 'runs:\n' >"$out/$m.yaml"
done
entry() {  # mapping file, measurement file, cc label, every[, metric]
  printf '  - { file: %s, params: { cc: %s, hz: %s, every: %s }%s }\n' "$2" "$3" "$hz" "$4" "${5:+, metric: $5}" >>"$out/$1.yaml"
}

# The idle path first, as T1's setup quotes it (ping RTT 0.485-0.799 ms).
if ping -c 20 "$address" >"$out/idle-hz$hz.ping"; then
  printf '  - { file: %s, params: { hz: %s } }\n' "idle-hz$hz.ping" "$hz" >>"$out/idle-ping.yaml"
else
  echo "t1-measure.sh: the idle ping failed; idle-hz$hz.ping is kept but not mapped" >&2
fi
# Echoes during a run: from 2 s in (after iperf3's control connection and
# its dropped SYN) until a second before the run ends.
pings=$(((seconds - 2) * 5))

failed=0
r=1
while [ "$r" -le "$repeats" ]; do
  for cc in $ccs; do
    label=${cc%%:*}
    algo=${cc#*:}
    for every in $everys; do
      base="$label-hz$hz-every$every"
      [ "$repeats" -gt 1 ] && base="$base-r$r"
      echo "t1-measure.sh: $base" >&2
      if ! ssh "$receiver" "iptables -I $rule $every --packet 0 -j DROP && nstat -n"; then
        echo "t1-measure.sh: cannot set up the receiver for $base" >&2
        failed=$((failed + 1))
        continue
      fi
      inserted=$every
      netstat -s -p tcp -z >/dev/null
      [ -z "$box" ] || ssh "$box" "netstat -I $box_if -d -n" >"$out/$base.netstat-if"
      pinger=""
      if [ "$pings" -gt 0 ]; then
        (sleep 2 && ping -i 0.2 -c "$pings" "$address") >"$out/$base.ping" 2>&1 &
        pinger=$!
      fi
      if iperf3 -c "$address" -l 1M -t "$seconds" -i 1 -C "$algo" -J >"$out/$base.json"; then
        ok=1
      else
        ok=0
      fi
      loaded_ping=0
      if [ -n "$pinger" ] && wait "$pinger"; then loaded_ping=1; fi
      netstat -s -p tcp >"$out/$base.netstat"
      ssh "$receiver" nstat >"$out/$base.nstat" || ok=0
      [ -z "$box" ] || ssh "$box" "netstat -I $box_if -d -n" >>"$out/$base.netstat-if" || ok=0
      remove_rule
      if [ "$ok" -eq 0 ]; then
        echo "t1-measure.sh: $base failed; its files are kept but not mapped" >&2
        failed=$((failed + 1))
        continue
      fi
      entry throughput "$base.json" "$label" "$every" receiver_mbps
      entry retransmits "$base.json" "$label" "$every" retransmits
      entry rto "$base.netstat" "$label" "$every" rto_count
      entry recoveries "$base.netstat" "$label" "$every" recovery_episodes
      entry delayed-acks "$base.nstat" "$label" "$every" receiver_delayed_acks
      if [ "$loaded_ping" -eq 1 ]; then entry ping-loaded "$base.ping" "$label" "$every"; fi
      [ -z "$box" ] || entry tx-drops "$base.netstat-if" "$label" "$every" sender_tx_drops
    done
  done
  r=$((r + 1))
done
[ "$failed" -eq 0 ] || { echo "t1-measure.sh: $failed cells failed" >&2; exit 1; }
echo "t1-measure.sh: mapping files in $out/ (throughput, retransmits, rto, recoveries, delayed-acks, ping-loaded, idle-ping, tx-drops .yaml)" >&2
