// ping(8)'s own text for a simulated ping flow (netsim run --format ping), in
// FreeBSD's layout or Linux iputils', so that scripts which read a real
// ping's output read the simulated one too.
//
// FreeBSD (sbin/ping/ping.c): "PING a (a): 56 data bytes", per reply "64
// bytes from a: icmp_seq=0 ttl=64 time=0.612 ms" (sequence from 0, time
// %.3f), then "--- a ping statistics ---", "N packets transmitted, M packets
// received, L% packet loss" (%.1f) and "round-trip min/avg/max/stddev =
// .../.../.../... ms" (%.3f each). Linux: "PING a (a) 56(84) bytes of
// data.", sequence from 1, the time with 3 decimals below 1 ms... down to
// none from 100 ms on, the counts line "N packets transmitted, M received,
// L% packet loss, time Tms" (%g and whole ms) and "rtt min/avg/max/mdev = ...
// ms". The TTL printed is 64, both systems' default: the model's switches
// and routers forward frames without decrementing it.
//
// To an IPv6 host, as ping -6 (ping6) prints: FreeBSD (sbin/ping/ping6.c of
// freebsd-src main, believed to be 14.x's; older releases print "PING6(")
// "PING(64=40+8+16 bytes) SRC --> DST" (IP, ICMPv6 and data lengths), per
// reply "24 bytes from DST, icmp_seq=0 hlim=64 time=0.612 ms" (a comma after
// the address, the hop limit as hlim), the statistics as for IPv4. iputils
// (ping/ping6_common.c) "PING DST(DST) 56 data bytes" (no space before the
// parenthesis, no total length; current iputils, ping/ping_output.c, prints
// a space: which release changed it was not checked),
// replies and statistics as for IPv4 (the hop limit as ttl).
#pragma once

#include <ostream>

#include "netsim/results/run_result.pb.h"

namespace netsim::app {

void write_ping_text(std::ostream& out, const results::PingResult& ping);

}  // namespace netsim::app
