// Linux `nstat` output (iproute2): the kernel's SNMP and netstat counters,
//   #kernel
//   TcpExtDelayedACKs               137                0.0
// one "NAME VALUE RATE" line per counter. Each "#kernel" header starts a
// snapshot, and each snapshot is one run (counter lines without any header
// are one snapshot). nstat prints increments since its previous call unless
// given -a, and omits zero counters unless given -z, so a counter missing
// from a snapshot reads as 0. The figures taken are the data receiver's:
// TcpExtDelayedACKs (ACKs sent by the delayed-ACK timer) -> receiver_delayed_acks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError naming the file and line of the first counter line that
// does not parse, or of a counter repeated within a snapshot.
std::vector<MeasuredRun> parse_nstat(std::string_view text, const std::string& file);

// "#kernel", or a line that starts like a counter line: a counter name of
// the families nstat prints (Ip, Icmp, Tcp, Udp, ...) and a number.
bool looks_like_nstat_line(std::string_view text);

}  // namespace netsim::measure
