// Turns the iperf2 part of a run's results (results::Iperf2Result, filled by
// the scenario runner for `app: iperf2` flows) into the report model of
// iperf2_report.h, so that `netsim run --format iperf2` prints what iperf
// 2.1.8 itself would have printed for the simulated test (`iperf -c ... -e`,
// or with --app-side server `iperf -s -e -i <interval>`).
#pragma once

#include <cstdint>

#include "netsim/app/iperf2_report.h"
#include "netsim/results/run_result.pb.h"

namespace netsim::app {

// A simulation has no wall clock: simulated time 0 is printed as this Unix
// time (2024-07-01 00:00:00 UTC, the month of the T2 measurements), so the
// "on <date>" stamps are deterministic.
inline constexpr std::int64_t kIperf2SimulatedEpochUnix = 1719792000;

Iperf2Test iperf2_test_from_result(const results::Iperf2Result& r,
                                   std::int64_t epoch_unix_s = kIperf2SimulatedEpochUnix);

}  // namespace netsim::app
