// FreeBSD `netstat -s -p tcp` (or the tcp: section of `netstat -s`): the
// TCP stack's counters, one per line after a "tcp:" header,
//   tcp:
//           2089218 packets sent
//                   4112 data packets (5953776 bytes) retransmitted
//           12 retransmit timeouts
//           321 SACK recovery episodes
// (usr.bin/netstat/inet.c, tcp_stats). Each "tcp:" section is one snapshot
// and one run; run `netstat -s -p tcp -z` before the test (it zeroes the
// counters) so that the snapshot after it holds that test's counts. With
// -ss netstat leaves out zero counters, so a counter missing from a section
// reads as 0. The figures taken are the data sender's:
//   "N data packets (M bytes) retransmitted" -> retransmits
//   "N retransmit timeouts"                  -> rto_count
//   "N SACK recovery episodes"               -> recovery_episodes
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError naming the file and line of a counter line above whose
// count does not parse, or of a counter repeated within a section.
std::vector<MeasuredRun> parse_netstat_tcp(std::string_view text, const std::string& file);

// "tcp:", or one of the counter lines above (not necessarily valid).
bool looks_like_netstat_tcp_line(std::string_view text);

}  // namespace netsim::measure
