// nuttcp's brief output (the default, -b), as printed by the client:
//   "  1178.5625 MB /  10.00 sec =  988.6462 Mbps 12 %TX 29 %RX 0 retrans 0.39 msRTT"
// (nuttcp 6.x and later; 5.x ends after "%RX"; UDP tests add
// "0 / 150000 drop/pkt 0.00 %loss"), preceded by interval lines with -i:
//   "  111.6250 MB /   1.00 sec =  936.3950 Mbps     0 retrans"
// Each final line (the one with %TX/%RX) ends a run. Other lines are skipped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError naming the file and the line of the first nuttcp line
// that does not parse, or of interval lines that no final line follows.
std::vector<MeasuredRun> parse_nuttcp(std::string_view text, const std::string& file);

// A line that starts like nuttcp's "X MB / Y sec = Z Mbps" (not necessarily valid).
bool looks_like_nuttcp_line(std::string_view text);

}  // namespace netsim::measure
