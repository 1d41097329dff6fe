// iperf 2 text output, TCP: the enhanced (-e) layout of iperf 2.1.x on the
// client ("[ ID] Interval Transfer Bandwidth Write/Err Rtry Cwnd/RTT(var)
// NetPwr") and the server ("... Reads=Dist"), with [SUM] lines for -P, and the
// plain layout ("[  3]  0.0-10.0 sec  1.10 GBytes   941 Mbits/sec") of
// iperf 2.0.x and of 2.1.x without -e. See app/iperf2_report.h for the 2.1.8
// layout. Other lines are skipped. Several tests one after another (a client
// run again, or a server that served several clients) are several runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError naming the file and the line of the first bandwidth or
// header line that does not parse, or of a run without its final line.
std::vector<MeasuredRun> parse_iperf2_text(std::string_view text, const std::string& file);

}  // namespace netsim::measure
