// The Linux sender (tcp::lnx::LinuxTcpSender) end to end on the lab
// scenario: line-rate goodput without drops, one fast retransmit per nth
// drop with no RTO, CUBIC above Reno under the same drops, the iperf3
// module name, determinism, and the passive-open limit as an error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/units.h"

namespace netsim {
namespace {

const std::string kLab = std::string(NETSIM_SOURCE_DIR) + "/scenarios/lab-linux-nth.yaml";

results::FlowStats run_cell(const std::string& cc, const std::string& every, const std::string& duration = "4s") {
  std::vector<Override> o = {parse_override("duration=" + duration), parse_override("traffic.iperf3.cc=" + cc),
                             parse_override("filters.nth-drop.every=" + every),
                             parse_override("traffic.iperf3.tso=false"),
                             parse_override("hosts.receiver.nic.gro=false")};
  const results::RunResult r = run_scenario(load_scenario(kLab, o));
  EXPECT_EQ(r.flows_size(), 1);
  return r.flows(0);
}

TEST(LinuxTcpSender, NoDropsFillsTheLink) {
  for (const char* cc : {"reno", "cubic"}) {
    const results::FlowStats f = run_cell(cc, "none");
    EXPECT_GT(f.receiver_mbps(), 930.0) << cc;  // 1448 / 1538 of 1 Gbit/s is 941
    EXPECT_LT(f.receiver_mbps(), 942.0) << cc;
    EXPECT_EQ(f.retransmits(), 0u) << cc;
    EXPECT_EQ(f.rto_count(), 0u) << cc;
  }
}

TEST(LinuxTcpSender, EachNthDropIsOneFastRetransmit) {
  const results::FlowStats f = run_cell("reno", "100");
  EXPECT_GT(f.retransmits(), 0u);
  EXPECT_EQ(f.retransmits(), f.packets_lost());
  EXPECT_EQ(f.rto_count(), 0u);
  // Drops are 100 packets apart, more than a window once past slow start:
  // one per recovery (slow start's first window may hold two).
  EXPECT_LE(f.recovery_episodes(), f.retransmits());
  EXPECT_GE(f.recovery_episodes() + 2, f.retransmits());
  EXPECT_GT(f.srtt_us(), 500u);  // 2 x 250 us propagation plus serialization
}

TEST(LinuxTcpSender, CubicKeepsMoreWindowThanRenoUnderTheSameDrops) {
  for (const char* every : {"100", "50", "25"}) {
    const double reno = run_cell("reno", every).receiver_mbps();
    const double cubic = run_cell("cubic", every).receiver_mbps();
    EXPECT_GT(cubic, reno) << every;
  }
}

TEST(LinuxTcpSender, MoreDropsLessGoodput) {
  double last = 1e9;
  for (const char* every : {"100", "50", "33", "25"}) {
    const double mbps = run_cell("reno", every).receiver_mbps();
    EXPECT_LT(mbps, last) << every;
    last = mbps;
  }
}

TEST(LinuxTcpSender, BitIdenticalRuns) {
  const results::FlowStats a = run_cell("cubic", "33", "2s");
  const results::FlowStats b = run_cell("cubic", "33", "2s");
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
}

TEST(LinuxTcpSender, ReverseFlowFromALinuxHostIsAnError) {
  ScenarioSpec spec = load_scenario(kLab, {parse_override("traffic.iperf3.reverse=true")});
  spec.sweep.clear();
  try {
    run_scenario(spec);
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field, "traffic.iperf3.reverse");
    EXPECT_NE(std::string(e.what()).find("no passive open"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace netsim
