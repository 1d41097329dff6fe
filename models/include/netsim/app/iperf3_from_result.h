// Turns the iperf3 part of a run's results (results::Iperf3Result, filled by
// the scenario runner for `app: iperf3` flows) into the report model of
// iperf3_report.h, so that `netsim run --format iperf3|iperf3-json` prints
// what iperf3 itself would have printed for the simulated test.
#pragma once

#include <cstdint>

#include "netsim/app/iperf3_report.h"
#include "netsim/results/run_result.pb.h"

namespace netsim::app {

// `seed` makes the cookie deterministic (iperf3 draws it at random). The
// timestamp is the simulated test start counted from the Unix epoch: a
// simulation has no wall clock.
Iperf3Test iperf3_test_from_result(const results::Iperf3Result& r, std::uint64_t seed);

}  // namespace netsim::app
