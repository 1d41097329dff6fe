#!/usr/bin/env bash
# netsim run --pcap on a T1 cell, read back by Wireshark's tshark: every file
# opens, frame counts equal netsim's capture stats and link counters, and the
# TCP analysis of the sender's capture finds exactly netsim's retransmits.
# Usage: pcap_cli_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

if ! command -v tshark >/dev/null || ! command -v mergecap >/dev/null; then
  echo "tshark/mergecap not installed (tools/setup.sh installs tshark)"; exit 1
fi
t1=$src/scenarios/t1-loss-resilience.yaml
# One T1 cell, shortened to 2 s of iperf3 so that tshark's passes stay short.
cell=(--set 'sweep={}' --set hosts.sender.hz=1000 --set traffic.iperf3.cc=newreno --set filters.drop.every=100
      --set traffic.iperf3.time=2s --set duration=4s)
pcap=$work/pcap

expect pcap-run-text 0 'receiver.accepted +receiver.accepted.pcap' '' -- \
  "$netsim" run "$t1" "${cell[@]}" --pcap "$work/pcap-text"
"$netsim" run "$t1" "${cell[@]}" --format json --pcap "$pcap" >"$work/run.json" 2>/dev/null

# tshark reads every file, and its frame count is the one netsim reported.
python3 - "$work/run.json" >"$work/expected" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
for c in r["captures"]:
    print(c["file"], c.get("frames", "0"))
EOF
if [ "$(wc -l <"$work/expected")" -ne 10 ]; then fail "pcap-files: $(cat "$work/expected")"; else pass pcap-files; fi
bad=0
declare -A count_of
while read -r file frames; do
  got=$(tshark -r "$pcap/$file" -T fields -e frame.number 2>"$work/tshark.err" | wc -l)
  if [ -s "$work/tshark.err" ] && grep -v 'Running as user "root"' "$work/tshark.err" | grep -q .; then
    echo "tshark on $file: $(cat "$work/tshark.err")"; bad=1
  fi
  [ "$got" -eq "$frames" ] || { echo "$file: tshark $got frames, netsim $frames"; bad=1; }
  count_of[$file]=$got
done <"$work/expected"
[ $bad -eq 0 ] && pass pcap-tshark-reads-all || fail pcap-tshark-reads-all

# Frames on the wire equal the link counters: sender.wire_out carries what
# sender-router sent from the sender, receiver.wire_in what router-receiver
# delivered to the receiver.
python3 - "$work/run.json" >"$work/links" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
sent = {(l["link"], l["from"]): int(l.get("packets_sent", 0)) for l in r["links"]}
print(sent[("sender-router", "sender")], sent[("router-receiver", "router")],
      sent[("sender-router", "router")], sent[("router-receiver", "receiver")])
EOF
read -r s_out r_in s_in r_out <"$work/links"
frames() { echo "${count_of[$1]:-0}"; }
if [ "$(frames sender.wire_out.pcap)" -eq "$s_out" ] && [ "$(frames receiver.wire_in.pcap)" -eq "$r_in" ] &&
   [ "$(frames sender.wire_in.pcap)" -eq "$s_in" ] && [ "$(frames receiver.wire_out.pcap)" -eq "$r_out" ]; then
  pass pcap-link-counters
else
  fail "pcap-link-counters: links $s_out $r_in $s_in $r_out"
fi

# The receiver's nth rule: ingress minus accepted is what the filter dropped.
dropped=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["runs"][0]["filters"][0]["dropped"]))' "$work/run.json")
if [ $(( $(frames receiver.ingress.pcap) - $(frames receiver.accepted.pcap) )) -eq "$dropped" ]; then
  pass pcap-filter-drops
else
  fail "pcap-filter-drops: filter dropped $dropped"
fi

# Retransmissions as Wireshark's TCP analysis sees them at the sender, both
# directions merged as tcpdump on the interface would show them. Wireshark
# flags the first segment of each SACK recovery tcp.analysis.retransmission
# (fast retransmission) and the ones that follow within one RTT of the
# highest sequence sent tcp.analysis.out_of_order; together they are the
# segments sent again, counted up to the flow's end as netsim counts them.
# (Wireshark calls a retransmission "fast" only after two duplicate ACKs of
# an unchanged window; the Linux receiver's window moves, so that count is
# printed, not compared.)
mergecap -F nsecpcap -w "$work/sender.pcap" "$pcap/sender.egress.pcap" "$pcap/sender.ingress.pcap"
python3 - "$work/run.json" >"$work/flow" <<'EOF'
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["runs"][0]["flows"] if f["name"] == "iperf3"][0]
e = int(f["end_ps"])  # as seconds with the capture's nanoseconds
print(f"{e // 10**12}.{e % 10**12 // 1000:09d}", int(f.get("retransmits", 0)), int(f.get("recovery_episodes", 0)))
EOF
read -r end_s retransmits recoveries <"$work/flow"
data_port=$(tshark -r "$work/sender.pcap" -q -z conv,tcp 2>/dev/null | awk '/<->/ {print $1; exit}' | sed 's/.*://')
filter="tcp.srcport==$data_port && tcp.dstport==5201 && frame.time_epoch < $end_s"
count() { tshark -r "$work/sender.pcap" -Y "$filter && ($1)" -T fields -e frame.number 2>/dev/null | wc -l; }
resent=$(count 'tcp.analysis.retransmission || tcp.analysis.out_of_order')
fast=$(count 'tcp.analysis.fast_retransmission')
echo "data port $data_port: tshark resent $resent (fast $fast), netsim retransmits $retransmits (recoveries $recoveries)"
if [ "$retransmits" -gt 1000 ] && [ "$resent" -eq "$retransmits" ]; then pass pcap-retransmits; else fail pcap-retransmits; fi

# Options on the wire: the data connection's SYN carries MSS, SACK-permitted,
# timestamps and window scale; the receiver's ACKs carry SACK blocks.
syn=$(tshark -r "$work/sender.pcap" -Y "tcp.srcport==$data_port && tcp.flags.syn==1" \
  -T fields -e tcp.options.mss_val -e tcp.options.sack_perm -e tcp.options.timestamp.tsval -e tcp.options.wscale.shift 2>/dev/null | head -1)
if [[ $syn =~ ^1460[[:space:]]+[^[:space:]]+[[:space:]]+[0-9]+[[:space:]]+[0-9]+$ ]]; then pass pcap-syn-options; else fail "pcap-syn-options: '$syn'"; fi
sacks=$(tshark -r "$work/sender.pcap" -Y "tcp.options.sack_le" -T fields -e frame.number 2>/dev/null | wc -l)
[ "$sacks" -gt 0 ] && pass pcap-sack-blocks || fail "pcap-sack-blocks: $sacks"

# Bad --pcap target: a file where a directory must be.
touch "$work/not-a-dir"
expect pcap-bad-dir 4 '' 'not-a-dir' -- "$netsim" run "$t1" "${cell[@]}" --pcap "$work/not-a-dir"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
