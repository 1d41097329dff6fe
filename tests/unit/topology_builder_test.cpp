// TopologyBuilder: a C++-built scenario is the YAML scenario it describes.
#include <gtest/gtest.h>

#include <string>

#include "netsim/results/machine_times.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/scenario/topology_builder.h"
#include "netsim/sim/units.h"

namespace netsim {
namespace {

using namespace netsim::literals;

// A FreeBSD sender, a switch and a Linux receiver with a receive NIC; an nth
// rule on the receiver's ingress (packet 50, so the SYN passes); a bulk TCP
// flow and a UDP flow beside it.
const char* const kYaml = R"(
name: builder-cell
duration: 300ms
seed: 7
interval: 100ms
hosts:
  sender: { address: 10.0.0.1, hz: 1000 }
  receiver: { address: 10.0.0.2, os: linux, nic: { gro: true, irq_delay: 10us } }
switches:
  sw: { buffer: 256KB }
links:
  sender-sw: { ends: [sender, sw], rate: 1Gbps, delay: 20us }
  sw-receiver: { ends: [sw, receiver], rate: 1Gbps, delay: 20us, queue: { packets: 500 } }
filters:
  drop: { host: receiver, hook: ingress, type: nth, every: 100, packet: 50, match: { protocol: tcp, dst_port: 5201 } }
traffic:
  bulk: { type: tcp, from: sender, to: receiver, cc: newreno, tso: false }
  side: { type: udp, from: sender, to: receiver, size: 1000B, rate: 20Mbps }
)";

TopologyBuilder builder_cell() {
  TopologyBuilder t("builder-cell");
  t.duration(300_ms).seed(7).interval(100_ms);
  t.add_host("sender", "10.0.0.1", {{"hz", 1000}});
  t.add_host("receiver", "10.0.0.2", {{"os", "linux"}, {"nic.gro", true}, {"nic.irq_delay", "10us"}});
  t.add_switch("sw", {{"buffer", "256KB"}});
  t.add_link("sender-sw", "sender", "sw", 1_Gbps, {{"delay", "20us"}});
  t.add_link("sw-receiver", "sw", "receiver", 1_Gbps, {{"delay", "20us"}, {"queue.packets", 500}});
  t.add_filter("drop", "receiver", "nth",
               {{"hook", "ingress"}, {"every", 100}, {"packet", 50}, {"match.protocol", "tcp"}, {"match.dst_port", 5201}});
  t.add_flow("bulk", "tcp", "sender", "receiver", {{"cc", "newreno"}, {"tso", false}});
  t.add_flow("side", "udp", "sender", "receiver", {{"size", "1000B"}, {"rate", 20_Mbps}});
  return t;
}

// The run's results without what legitimately differs (the file, the wall time).
std::string comparable(results::RunResult r) {
  r.clear_scenario_file();
  results::clear_machine_times(r);
  return r.SerializeAsString();
}

TEST(TopologyBuilder, RunsExactlyAsTheSameYamlScenario) {
  const ScenarioSpec built = builder_cell().build();
  const ScenarioSpec loaded = parse_scenario_text(kYaml, "cell.yaml");
  // Defaults the validator fills in, not the structs: the switch buffer, the NIC's ring.
  ASSERT_EQ(built.switches.size(), 1u);
  EXPECT_EQ(built.switches[0].buffer_bytes, 256'000);
  ASSERT_TRUE(built.hosts[1].nic.has_value());
  EXPECT_EQ(built.hosts[1].nic->irq_delay, 10_us);
  EXPECT_EQ(built.tcp_flows[0].cc, "newreno");
  EXPECT_EQ(built.hosts[1].os, "linux");

  const results::RunResult a = run_scenario(built);
  const results::RunResult b = run_scenario(loaded);
  ASSERT_EQ(a.error(), "");
  ASSERT_EQ(a.flows_size(), 2);
  ASSERT_EQ(a.filters_size(), 1);
  // The configuration matters: the rule dropped, the flow recovered, the
  // switch forwarded; a builder that lost a field would change these.
  EXPECT_GT(a.filters(0).dropped(), 0u);
  EXPECT_GT(a.flows(0).retransmits(), 0u);
  EXPECT_GT(a.flows(0).receiver_mbps(), 100.0);
  EXPECT_GT(a.flows(1).packets_received(), 0u);
  EXPECT_EQ(a.intervals_size(), b.intervals_size());
  EXPECT_EQ(comparable(a), comparable(b));
  // A different configuration gives different results (the comparison can fail).
  TopologyBuilder other = builder_cell();
  other.seed(8);
  EXPECT_NE(comparable(run_scenario(other.build())), comparable(a));
}

TEST(TopologyBuilder, YamlTextLoadsToTheSameScenario) {
  const TopologyBuilder t = builder_cell();
  const ScenarioSpec from_text = parse_scenario_text(t.yaml(), "builder.yaml");
  const ScenarioSpec built = t.build();
  EXPECT_EQ(from_text.name, "builder-cell");
  EXPECT_EQ(from_text.hosts.size(), built.hosts.size());
  EXPECT_EQ(from_text.links[1].queue_packets, 500);
  EXPECT_EQ(from_text.filters[0].match.dst_port, 5201);
  EXPECT_EQ(comparable(run_scenario(from_text)), comparable(run_scenario(built)));
}

TEST(TopologyBuilder, ElementsAreLocatedAtTheirCalls) {
  TopologyBuilder t = builder_cell();
  const int line = __LINE__ + 1;
  t.add_host("third", "10.0.0.3");
  t.add_link("sw-third", "sw", "third", 1_Gbps);
  const ScenarioSpec s = t.build();
  EXPECT_EQ(s.hosts.back().loc.file, __FILE__);
  EXPECT_EQ(s.hosts.back().loc.line, line);
  EXPECT_EQ(s.file, __FILE__);
}

TEST(TopologyBuilder, ErrorsNameTheCallAndTheField) {
  TopologyBuilder t = builder_cell();
  const int line = __LINE__ + 1;
  t.add_flow("bad", "tcp", "sender", "receiver", {{"cc", "vegas"}});
  try {
    t.build();
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.loc.file, __FILE__);
    EXPECT_EQ(e.loc.line, line);
    EXPECT_EQ(e.field, "traffic.bad.cc");
    EXPECT_NE(e.message.find("got 'vegas'"), std::string::npos) << e.message;
  }
  // A reference to an unknown node is the referring element's.
  TopologyBuilder u = builder_cell();
  const int link_line = __LINE__ + 1;
  u.add_link("dangling", "sw", "nowhere", 1_Gbps);
  try {
    u.build();
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.loc.line, link_line);
    EXPECT_EQ(e.field, "links.dangling.ends");
  }
  // A missing duration is the scenario's: the constructor's line.
  const int made = __LINE__ + 1;
  TopologyBuilder v("no-duration");
  v.add_host("a", "10.0.0.1").add_host("b", "10.0.0.2").add_link("a-b", "a", "b", 1_Gbps);
  v.add_flow("f", "udp", "a", "b");
  try {
    v.build();
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.loc.line, made);
    EXPECT_NE(e.message.find("duration"), std::string::npos) << e.message;
  }
}

TEST(TopologyBuilder, RejectsRepeatsAtTheCall) {
  TopologyBuilder t("repeats");
  t.add_host("a", "10.0.0.1");
  EXPECT_THROW(t.add_host("a", "10.0.0.2"), ScenarioError);
  EXPECT_THROW(t.add_host("b", "10.0.0.2", {{"hz", 100}, {"hz", 1000}}), ScenarioError);
  // A field given as a value has no sub-fields.
  t.add_host("c", "10.0.0.3", {{"nic", true}, {"nic.gro", false}});
  EXPECT_THROW(t.yaml(), ScenarioError);
}

TEST(TopologyBuilder, ScalarTextWritesWhatTheLoaderReads) {
  EXPECT_EQ(ScalarText(1_Gbps).text(), "1Gbps");
  EXPECT_EQ(ScalarText(true).text(), "true");
  EXPECT_EQ(ScalarText(5201).text(), "5201");
  EXPECT_EQ(ScalarText(0.01).text(), "0.01");
  EXPECT_EQ(ScalarText(format_duration(250_us)).text(), "250us");
}

}  // namespace
}  // namespace netsim
