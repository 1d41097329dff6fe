// iperf3's human-readable output (3.x, TCP), client or server side, as pasted
// in mailing lists and bug reports: "Connecting to host ...", the
// "[ ID] Interval ... Bitrate ..." header (older versions: "Bandwidth"),
// interval lines, the sender/receiver summary ([SUM] lines with -P), and with
// -V the "CPU Utilization: ..." and "snd_tcp_congestion ..." lines. Other
// lines (shell prompts, warnings) are skipped. Several outputs one after
// another are several runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError naming the file and the line of the first bandwidth,
// header or CPU line that does not parse, or of a run without a summary.
std::vector<MeasuredRun> parse_iperf3_text(std::string_view text, const std::string& file);

}  // namespace netsim::measure
