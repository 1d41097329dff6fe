// Shared check of ping tests: what `netsim run --format ping` prints for a
// run's ping, in each layout, reads back as one measured ping with the
// run's counts and times (to the printed microsecond).
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "netsim/app/ping_report.h"
#include "netsim/measure/measurement_file.h"
#include "netsim/results/run_result.pb.h"

namespace netsim::test_support {

inline void expect_ping_reads_back(const results::RunResult& r, std::uint64_t count, const std::string& protocol) {
  for (const char* layout : {"freebsd", "linux"}) {
    SCOPED_TRACE(layout);
    results::PingResult p = r.ping(0);
    p.set_output(layout);
    std::ostringstream text;
    app::write_ping_text(text, p);
    EXPECT_EQ(measure::detect_format(text.str(), "sim.txt"), measure::MeasurementFormat::ping);
    const auto runs = measure::parse_measurements(text.str(), "sim.txt");
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].line, 1);  // the banner
    EXPECT_EQ(runs[0].tool, "ping");
    EXPECT_EQ(runs[0].protocol, protocol);
    EXPECT_EQ(*runs[0].ping_transmitted, count);
    EXPECT_EQ(*runs[0].ping_received, count);
    const auto& f = r.flows(0);
    // Printed to the microsecond (iputils truncates, FreeBSD rounds).
    EXPECT_NEAR(*runs[0].rtt_min_ms, f.rtt_min_ms(), 0.001);
    EXPECT_NEAR(*runs[0].rtt_avg_ms, f.rtt_avg_ms(), 0.001);
    EXPECT_NEAR(*runs[0].rtt_max_ms, f.rtt_max_ms(), 0.001);
    EXPECT_NEAR(*runs[0].rtt_stddev_ms, f.rtt_stddev_ms(), 0.001);
  }
}

}  // namespace netsim::test_support
