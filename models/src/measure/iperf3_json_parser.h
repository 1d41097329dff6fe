// iperf3 -J (JSON) reports: `iperf3 -c HOST -J` on the client or `iperf3 -s -J`
// on the server, iperf3 3.x, TCP. Several reports one after another (as
// iperf3 --logfile appends them) are several runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError (file and line) on invalid JSON, a missing or mistyped
// member, an iperf3 "error" report or a UDP/--bidir test.
std::vector<MeasuredRun> parse_iperf3_json(std::string_view text, const std::string& file);

}  // namespace netsim::measure
