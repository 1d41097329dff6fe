#!/usr/bin/env bash
# netsim run --pcap over IPv6 (scenarios/ipv6-bulk-ping.yaml, shortened to the
# pings and 0.1 s of TCP), read back by tshark: ICMPv6 echoes (types 128 and
# 129, checksums Wireshark verifies), the SYNs' MSS of 1440, 1428-byte
# segments in 1500-byte datagrams, good TCP checksums, and no IPv4 at all.
# Skipped (77) without tshark.
# Usage: pcap_ipv6_cli_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

if ! command -v tshark >/dev/null; then echo "tshark not installed: skipped"; exit 77; fi
pcap=$work/pcap
expect pcap6-run 0 'sender.egress +sender.egress.pcap' '' -- \
  "$netsim" run "$src/scenarios/ipv6-bulk-ping.yaml" --set duration=1100ms --pcap "$pcap"
# fields FILE FILTER FIELD...: one line per matching frame, tab-separated.
fields() {
  local file=$1 filter=$2
  shift 2
  local args=()
  for f in "$@"; do args+=(-e "$f"); done
  tshark -r "$pcap/$file" -o tcp.check_checksum:TRUE -Y "$filter" -T fields "${args[@]}" 2>/dev/null
}

# Echo requests from the sender, replies from the receiver: seq 0..4, 16
# ICMPv6 bytes (ping6's 8 data bytes), checksum good (status 1).
requests=$(fields sender.egress.pcap icmpv6 icmpv6.type icmpv6.echo.sequence_number ipv6.plen icmpv6.checksum.status |
  tr '\t' ' ' | paste -sd, -)
want='128 0 16 1,128 1 16 1,128 2 16 1,128 3 16 1,128 4 16 1'
[ "$requests" = "$want" ] && pass pcap6-echo-requests || fail "pcap6-echo-requests: '$requests'"
replies=$(fields receiver.egress.pcap icmpv6 icmpv6.type icmpv6.checksum.status | tr '\t' ' ' | sort | uniq -c |
  awk '{print $1, $2, $3}')
[ "$replies" = "5 129 1" ] && pass pcap6-echo-replies || fail "pcap6-echo-replies: '$replies'"

# Both SYNs offer 1500 - 40 - 20.
mss=$(fields sender.egress.pcap 'tcp.flags.syn==1' tcp.options.mss_val)$(fields receiver.egress.pcap 'tcp.flags.syn==1' tcp.options.mss_val)
[ "$mss" = "14401440" ] && pass pcap6-syn-mss || fail "pcap6-syn-mss: '$mss'"

# Data: 1428 bytes of payload at most, full segments in 1500-byte datagrams
# (payload length 1460 = 20 + 12 + 1428).
sizes=$(fields sender.egress.pcap 'tcp.len>0' tcp.len ipv6.plen | sort | uniq -c | sort -rn | head -1 | awk '{print $2, $3}')
larger=$(fields sender.egress.pcap 'tcp.len>1428' frame.number | wc -l)
full=$(fields sender.egress.pcap 'tcp.len==1428' frame.number | wc -l)
if [ "$sizes" = "1428 1460" ] && [ "$larger" -eq 0 ] && [ "$full" -gt 5000 ]; then
  pass pcap6-segment-sizes
else
  fail "pcap6-segment-sizes: most common '$sizes', $larger larger, $full full"
fi

# Whole frames (the receiver's ACKs, under the 128-byte snaplen) have good
# TCP checksums over the IPv6 pseudo-header.
acks=$(fields receiver.egress.pcap tcp frame.number | wc -l)
good=$(fields receiver.egress.pcap 'tcp.checksum.status==1' frame.number | wc -l)
if [ "$acks" -gt 1000 ] && [ "$good" -eq "$acks" ]; then pass pcap6-tcp-checksums; else fail "pcap6-tcp-checksums: $good of $acks"; fi

# Nothing but IPv6 in any file.
v4=0
for f in "$pcap"/*.pcap; do v4=$((v4 + $(fields "$(basename "$f")" 'ip || arp' frame.number | wc -l))); done
[ "$v4" -eq 0 ] && pass pcap6-no-ipv4 || fail "pcap6-no-ipv4: $v4 frames"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
