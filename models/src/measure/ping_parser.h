// The output of `ping`, FreeBSD ping(8) or Linux iputils ping:
//   PING 192.168.50.89 (192.168.50.89): 56 data bytes             (FreeBSD)
//   PING 192.168.50.89 (192.168.50.89) 56(84) bytes of data.      (Linux)
//   64 bytes from 192.168.50.89: icmp_seq=0 ttl=64 time=0.612 ms
//   --- 192.168.50.89 ping statistics ---
//   2 packets transmitted, 2 packets received, 0.0% packet loss   (Linux: "2 received")
//   round-trip min/avg/max/stddev = 0.612/0.706/0.799/0.094 ms    (Linux: "rtt min/avg/max/mdev")
// Each statistics block is one run with no rate: its counts give
// ping_transmitted and ping_received, its round-trip line rtt_min_ms ...
// rtt_stddev_ms (both tools print the population standard deviation). ping
// prints no round-trip line when no reply came back (or with -s too small to
// carry a timestamp); the rtt figures are then empty. The reply lines are
// checked, not used: the statistics are what ping computed from every reply.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError naming the file and line of a line above that does not
// parse, a statistics line without its counts line after it, a counts or
// round-trip line without a statistics line before it, more replies received
// than requests transmitted, round-trip values not in min <= avg <= max order,
// and a ping (banner or reply lines) without statistics after it (truncated).
std::vector<MeasuredRun> parse_ping(std::string_view text, const std::string& file);

// A line of the layouts above: banner, reply, statistics, counts or
// round-trip line (not necessarily valid).
bool looks_like_ping_line(std::string_view text);

}  // namespace netsim::measure
