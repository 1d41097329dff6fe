// What sets T1's 3-4% cells (docs/t1.md, "What sets the 3-4% cells"): with
// the NewReno-fitted receive path, a flight reaches the nth rule as
// [first frame][rest]; a dropped rest leaves Linux one segment, which it
// ACKs from its 40 ms delayed-ACK timer, so the sender stalls on delayed
// ACKs instead of RTOs. Whether the rule keeps hitting the rest depends on
// N (a phase effect), which gives NewReno its 3% -> 4% cliff and stock
// CUBIC at hz=100 its dip at 2%. These runs pin the mechanism, not the
// throughputs (seed 1, as the docs quote them), at the parameters of the
// single-start NewReno fit the docs describe (21.034 us links, 22.806 us
// loaded jitter, 8.329 us per frame): stated here, not read from the
// shipped profile, so that a new fit does not silently change what they test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"

namespace netsim {
namespace {

const std::string kT1 = std::string(NETSIM_SOURCE_DIR) + "/scenarios/t1-loss-resilience.yaml";
// The single-start fit of docs/t1.md ("What sets the 3-4% cells"), on the
// model it was fitted to: no Energy-Efficient Ethernet, 200 us vCPU wake-up.
const std::vector<Override> kFit = {{"links.sender-router.eee", "false"},
                                    {"links.router-receiver.eee", "false"},
                                    {"hosts.sender.nic.idle_wake_delay", "200us"},
                                    {"hosts.receiver.nic.idle_wake_delay", "200us"},
                                    {"links.sender-router.delay", "21.034us"},
                                    {"links.router-receiver.delay", "21.034us"},
                                    {"hosts.sender.nic.irq_jitter", "22.806us"},
                                    {"hosts.receiver.nic.irq_jitter", "22.806us"},
                                    {"hosts.receiver.nic.per_packet_cost", "8.329us"}};

results::FlowStats cell(bool fitted, int hz, const std::string& cc, int every) {
  std::vector<Override> o;
  if (fitted) o = kFit;
  o.push_back({"hosts.sender.hz", std::to_string(hz)});
  o.push_back({"traffic.iperf3.cc", cc});
  o.push_back({"filters.drop.every", std::to_string(every)});
  const results::RunResult r = run_scenario(load_scenario(kT1, o));
  EXPECT_EQ(r.flows_size(), 1);
  return r.flows(0);
}

TEST(T1LossMechanisms, FittedNewRenoAt4PercentStallsOnDelayedAcksNotRtos) {
  const results::FlowStats four = cell(true, 1000, "newreno", 25);
  EXPECT_GE(four.receiver_delayed_acks(), 100u);  // docs: 142, ~40 ms each
  EXPECT_LE(four.rto_count(), 2u);
  const results::FlowStats three = cell(true, 1000, "newreno", 33);
  EXPECT_LE(three.receiver_delayed_acks(), 5u);  // docs: 0
  EXPECT_LE(three.rto_count(), 2u);
  EXPECT_GT(three.receiver_mbps(), 2 * four.receiver_mbps());  // the cliff
}

TEST(T1LossMechanisms, StockCubicAtHz100DipsAt2PercentOnDelayedAcks) {
  const results::FlowStats two = cell(true, 100, "cubic", 50);
  const results::FlowStats three = cell(true, 100, "cubic", 33);
  EXPECT_GE(two.receiver_delayed_acks(), 100u);   // docs: 176
  EXPECT_LE(three.receiver_delayed_acks(), 10u);  // docs: 1
  EXPECT_LT(two.receiver_mbps(), three.receiver_mbps());  // the measured non-monotonic row
  EXPECT_LE(two.rto_count() + three.rto_count(), 2u);
}

// The regime before 2026-11-30: 0-157 us on every interrupt merges whole
// flights into one aggregate, and stock CUBIC lives on RTOs.
TEST(T1LossMechanisms, LargeLoadedJitterTrapsStockCubicInRtos) {
  std::vector<Override> o = {{"hosts.sender.nic.irq_jitter", "157us"},
                             {"hosts.receiver.nic.irq_jitter", "157us"},
                             {"hosts.sender.hz", "100"},
                             {"traffic.iperf3.cc", "cubic"},
                             {"filters.drop.every", "33"}};
  const results::RunResult r = run_scenario(load_scenario(kT1, o));
  ASSERT_EQ(r.flows_size(), 1);
  EXPECT_GE(r.flows(0).rto_count(), 20u);
  EXPECT_LT(r.flows(0).receiver_mbps(), 50.0);  // measured 152
}

}  // namespace
}  // namespace netsim
