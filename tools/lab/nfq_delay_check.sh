#!/usr/bin/env bash
# Measures the delay netsim-nfq-delay adds, on the real kernel, between two
# network namespaces joined by a veth pair (198.18.0.0/15 addresses only; the
# host's interfaces are never touched: the veth is created inside the
# namespaces).
#
#   nfq_delay_check.sh DAEMON [--delay-us D]... [--tolerance-us T] [--rate RATE]
#                      [--count N] [--tcp-seconds S] [--no-tcp] [--tcp-both]
#                      [--daemon-arg ARG]...   (extra daemon flag, e.g. --spin-us=50)
#
# For every D: ping (ICMP queued on INPUT of namespace b, so one way: RTT +D)
# and, unless --no-tcp, iperf3 from a to b with TCP queued on INPUT of b (data
# +D; --tcp-both also queues INPUT of a, so the ACKs get +D too), with a's
# egress shaped by htb to RATE (default 1gbit).
# Exit: 0 ok, 1 a check failed (with --tolerance-us: |median added - D| > T;
# always: daemon drops, ping loss, daemon exit != 0), 2 usage, 77 skipped
# (not root, or namespaces unavailable).
set -u -o pipefail

usage() { echo "usage: $0 DAEMON [--delay-us D]... [--tolerance-us T] [--rate RATE] [--count N] [--tcp-seconds S] [--no-tcp] [--tcp-both] [--daemon-arg ARG]..." >&2; exit 2; }
[[ $# -ge 1 ]] || usage
daemon=$1; shift
daemon_args=() delays=() tolerance= rate=1gbit count=200 tcp=1 tcp_both=0 tcp_seconds=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --delay-us) [[ $# -ge 2 ]] || usage; delays+=("$2"); shift 2 ;;
    --tolerance-us) [[ $# -ge 2 ]] || usage; tolerance=$2; shift 2 ;;
    --rate) [[ $# -ge 2 ]] || usage; rate=$2; shift 2 ;;
    --count) [[ $# -ge 2 ]] || usage; count=$2; shift 2 ;;
    --tcp-seconds) [[ $# -ge 2 ]] || usage; tcp_seconds=$2; shift 2 ;;
    --daemon-arg) [[ $# -ge 2 ]] || usage; daemon_args+=("$2"); shift 2 ;;
    --no-tcp) tcp=0; shift ;;
    --tcp-both) tcp_both=1; shift ;;
    *) echo "unknown flag $1" >&2; usage ;;
  esac
done
[[ ${#delays[@]} -gt 0 ]] || delays=(250)
[[ -x $daemon ]] || { echo "daemon $daemon is not executable" >&2; exit 2; }

if [[ $(id -u) -ne 0 ]]; then echo "SKIP: needs root (network namespaces, NFQUEUE)"; exit 77; fi
for tool in ip ping jq tc; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
if [[ $tcp -eq 1 ]] && ! command -v iperf3 >/dev/null; then echo "SKIP: iperf3 not installed"; exit 77; fi
ipt=iptables-legacy
command -v $ipt >/dev/null || ipt=iptables

ns_a=nslab-$$-a ns_b=nslab-$$-b
octet=$(( $$ % 256 ))
addr_a=198.18.$octet.1 addr_b=198.18.$octet.2
work=$(mktemp -d /tmp/nfq_delay_check.XXXXXX)
pids=()          # daemons and iperf3 servers we started
created_ns=()

cleanup() {
  local pid ns
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  for ns in "${created_ns[@]}"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

in_a() { ip netns exec "$ns_a" "$@"; }
in_b() { ip netns exec "$ns_b" "$@"; }

ip netns add "$ns_a" 2>/dev/null || { echo "SKIP: ip netns add failed"; exit 77; }
created_ns+=("$ns_a")
ip netns add "$ns_b" 2>/dev/null || { echo "SKIP: ip netns add failed"; exit 77; }
created_ns+=("$ns_b")
ip link add veth-a netns "$ns_a" type veth peer name veth-b netns "$ns_b" || exit 1
in_a ip addr add $addr_a/30 dev veth-a && in_b ip addr add $addr_b/30 dev veth-b || exit 1
in_a ip link set lo up && in_a ip link set veth-a up && in_b ip link set lo up && in_b ip link set veth-b up || exit 1
in_a tc qdisc add dev veth-a root handle 1: htb default 1 || exit 1
in_a tc class add dev veth-a parent 1: classid 1:1 htb rate "$rate" ceil "$rate" quantum 60000 || exit 1
in_a ping -c 3 -i 0.2 -W 1 -q $addr_b >/dev/null || { echo "FAIL: no connectivity $addr_a -> $addr_b"; exit 1; }

status=0
fail() { echo "FAIL: $*"; status=1; }

# percentile P of the numbers on stdin (nearest rank)
percentile() { sort -g | awk -v p="$1" '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} r=int(p*NR+0.999999); if (r<1) r=1; if (r>NR) r=NR; print v[r]}'; }

# ping_rtts FILE: $count RTTs in us from a to b, one per line
ping_rtts() {
  local out
  out=$(in_a ping -c "$count" -i 0.01 -W 1 $addr_b) || true
  grep -o 'time=[0-9.]*' <<<"$out" | cut -d= -f2 | awk '{printf "%.0f\n", $1*1000}' >"$1"
  local got; got=$(wc -l <"$1")
  [[ $got -eq $count ]] || fail "ping: $got of $count replies"
}

# start_daemon NS D STATS: binds queue 0 in namespace NS; sets daemon_pid.
# ip netns exec execs the daemon, so $! is the daemon itself (a shell
# function here would put a subshell in between and SIGTERM would miss it).
start_daemon() {
  local ns=$1 d=$2 stats=$3 i
  ip netns exec "$ns" "$daemon" --queue 0 --delay-us "$d" --stats-file "$stats" "${daemon_args[@]}" 2>"$stats.log" &
  daemon_pid=$!
  pids+=("$daemon_pid")
  for i in $(seq 100); do
    ip netns exec "$ns" awk '$1 == 0 {found=1} END {exit !found}' /proc/net/netfilter/nfnetlink_queue 2>/dev/null && return 0
    kill -0 "$daemon_pid" 2>/dev/null || break
    sleep 0.05
  done
  fail "daemon did not bind queue 0: $(cat "$stats.log")"
  return 1
}

# stop_daemon PID STATS: SIGTERM, exit status 0, drops 0
stop_daemon() {
  local pid=$1 stats=$2 rc
  kill -TERM "$pid"; wait "$pid"; rc=$?
  [[ $rc -eq 0 ]] || fail "daemon exited $rc: $(cat "$stats.log")"
  [[ -s $stats ]] || { fail "no stats in $stats"; return; }
  echo "STATS $(basename "$stats" .json) $(cat "$stats")"
  local drops
  drops=$(jq '.enobufs + .id_gaps + .kernel_queue_dropped + .kernel_user_dropped + .maxlen_reached + .verdict_errors' "$stats")
  [[ $drops -eq 0 ]] || fail "daemon reported drops/overflows: $(cat "$stats")"
}

daemon_summary() {
  jq -r '"pkts \(.packets) held_max \(.held_max) late_us p50 \(.late_us.p50) p99 \(.late_us.p99) max \(.late_us.max) enobufs \(.enobufs) fail_open_gaps \(.id_gaps) kdrop \(.kernel_queue_dropped + .kernel_user_dropped)"' "$1"
}

# iperf3 a -> b; prints "Mbit/s retransmits mean_rtt_us"
run_iperf() {
  local json=$1 i
  ip netns exec "$ns_b" iperf3 -s -1 -B $addr_b >/dev/null 2>&1 &
  local srv=$!
  pids+=("$srv")
  for i in $(seq 100); do in_b ss -ltn 2>/dev/null | grep -q ":5201 " && break; sleep 0.05; done
  in_a iperf3 -c $addr_b -t "$tcp_seconds" -J >"$json" 2>&1 || fail "iperf3 client failed: $(head -c 300 "$json")"
  wait "$srv" 2>/dev/null
  jq -r '"\(.end.sum_received.bits_per_second / 1e6 | floor) \(.end.sum_sent.retransmits) \(.end.streams[0].sender.mean_rtt)"' "$json" 2>/dev/null || echo "nan nan nan"
}

echo "namespaces $ns_a ($addr_a) <-> $ns_b ($addr_b), $ipt, htb $rate on $ns_a egress"
ping_rtts "$work/base.rtt"
base_med=$(percentile 0.5 <"$work/base.rtt")
base_p99=$(percentile 0.99 <"$work/base.rtt")
echo "ping baseline: median ${base_med} us, p99 ${base_p99} us ($count pings)"
if [[ $tcp -eq 1 ]]; then
  read -r base_mbit base_retr base_rtt < <(run_iperf "$work/base.json")
  echo "tcp baseline: ${base_mbit} Mbit/s, retransmits ${base_retr}, mean rtt ${base_rtt} us"
fi

for d in "${delays[@]}"; do
  # ping: ICMP on INPUT of b (echo requests) -> RTT + D
  in_b $ipt -A INPUT -p icmp -j NFQUEUE --queue-num 0 --queue-bypass || exit 1
  stats=$work/ping-$d.json
  if start_daemon "$ns_b" "$d" "$stats"; then
    ping_rtts "$work/ping-$d.rtt"
    stop_daemon "$daemon_pid" "$stats"
    med=$(percentile 0.5 <"$work/ping-$d.rtt")
    p99=$(percentile 0.99 <"$work/ping-$d.rtt")
    added_med=$(( med - base_med )) added_p99=$(( p99 - base_med ))
    echo "RESULT ping D=$d us: added median $added_med us, p99 $added_p99 us (rtt median $med, p99 $p99); daemon: $(daemon_summary "$stats")"
    if [[ -n $tolerance ]]; then
      off=$(( added_med - d )); off=${off#-}
      [[ $off -le $tolerance ]] || fail "ping D=$d us: median added $added_med us is $off us off (tolerance $tolerance us)"
    fi
  fi
  in_b $ipt -D INPUT -p icmp -j NFQUEUE --queue-num 0 --queue-bypass

  [[ $tcp -eq 1 ]] || continue
  # TCP: data packets on INPUT of b; with --tcp-both ACKs on INPUT of a too
  in_b $ipt -A INPUT -p tcp -j NFQUEUE --queue-num 0 --queue-bypass || exit 1
  sb=$work/tcp-b-$d.json
  start_daemon "$ns_b" "$d" "$sb" || continue
  pid_b=$daemon_pid
  if [[ $tcp_both -eq 1 ]]; then
    in_a $ipt -A INPUT -p tcp -j NFQUEUE --queue-num 0 --queue-bypass || exit 1
    sa=$work/tcp-a-$d.json
    start_daemon "$ns_a" "$d" "$sa" || continue
    pid_a=$daemon_pid
  fi
  read -r mbit retr rtt < <(run_iperf "$work/tcp-$d.json")
  stop_daemon "$pid_b" "$sb"
  line="RESULT tcp D=$d us ($([[ $tcp_both -eq 1 ]] && echo both ways || echo data only)) at $rate: ${mbit} Mbit/s, retransmits $retr, mean rtt $rtt us (base $base_rtt); daemon b: $(daemon_summary "$sb")"
  if [[ $tcp_both -eq 1 ]]; then
    stop_daemon "$pid_a" "$sa"
    line+="; daemon a: $(daemon_summary "$sa")"
    in_a $ipt -D INPUT -p tcp -j NFQUEUE --queue-num 0 --queue-bypass
  fi
  echo "$line"
  in_b $ipt -D INPUT -p tcp -j NFQUEUE --queue-num 0 --queue-bypass
done

[[ $status -eq 0 ]] && echo "PASS" || echo "FAILED"
exit $status
