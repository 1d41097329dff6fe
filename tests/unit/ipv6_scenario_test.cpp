// scenarios/ipv6-bulk-ping.yaml: a FreeBSD sender pings and then sends bulk
// TCP to a Linux receiver over IPv6 on 1 Gbit/s. Against the same scenario
// with IPv4 addresses, goodput and round trips follow the header sizes, and
// a run is bit-identical on repetition.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "netsim/results/machine_times.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"

namespace netsim {
namespace {

const std::string kScenario = std::string(NETSIM_SOURCE_DIR) + "/scenarios/ipv6-bulk-ping.yaml";

results::RunResult run(bool ipv4, std::vector<Override> overrides = {}) {
  if (ipv4) {
    overrides.push_back(parse_override("hosts.sender.address=10.0.0.1"));
    overrides.push_back(parse_override("hosts.receiver.address=10.0.0.2"));
  }
  return run_scenario(load_scenario(kScenario, overrides));
}

const results::FlowStats& flow(const results::RunResult& r, const std::string& name) {
  for (const auto& f : r.flows()) {
    if (f.name() == name) return f;
  }
  ADD_FAILURE() << "no flow " << name;
  return r.flows(0);
}

TEST(Ipv6Scenario, GoodputFollowsThePayloadPerFrame) {
  const results::RunResult v6 = run(false);
  const results::RunResult v4 = run(true);
  const double g6 = flow(v6, "bulk").receiver_mbps();
  const double g4 = flow(v4, "bulk").receiver_mbps();
  // The link is full in both runs with 1500-byte frames (1538 on the wire),
  // which carry 1428 bytes of payload over IPv6 and 1448 over IPv4.
  EXPECT_NEAR(g6 / g4, 1428.0 / 1448.0, 1e-4);
  EXPECT_NEAR(g6, 1000.0 * 1428 / 1538, 0.1);  // 928.48 Mbit/s less the handshake
  EXPECT_NEAR(g4, 1000.0 * 1448 / 1538, 0.1);  // 941.48
  EXPECT_EQ(flow(v6, "bulk").retransmits(), 0u);
  EXPECT_EQ(flow(v4, "bulk").retransmits(), 0u);
}

TEST(Ipv6Scenario, PingRoundTripFollowsTheDatagramSize) {
  // The TCP flow starts after the pings: only the ping matters here.
  // ping6's 56-byte datagram (40 + 8 + 8) against ping's 84 (20 + 8 + 56):
  // 28 bytes = 224 ns less per crossing, 448 ns per round trip.
  const results::RunResult v6 = run(false);
  const results::RunResult v4 = run(true);
  const auto& p6 = flow(v6, "ping6");
  const auto& p4 = flow(v4, "ping6");
  EXPECT_EQ(p6.packets_received(), 5u);
  EXPECT_EQ(p4.packets_received(), 5u);
  EXPECT_NEAR(p4.rtt_avg_ms() - p6.rtt_avg_ms(), 0.000448, 1e-9);
  // With the same datagram size (iputils' 56 data bytes over IPv6: 104
  // bytes) IPv6 takes 20 bytes longer, 320 ns per round trip.
  const results::RunResult linux6 = run(false, {parse_override("traffic.ping6.output=linux")});
  const auto& l6 = flow(linux6, "ping6");
  EXPECT_NEAR(l6.rtt_avg_ms() - p4.rtt_avg_ms(), 0.000320, 1e-9);
}

TEST(Ipv6Scenario, UdpAtLineRateCarriesTheFortyByteHeader) {
  // nuttcp -u -l 1452 at full rate: 1452 + 8 + 40 = 1500 IP bytes per
  // datagram over IPv6 (1538 on the wire), 1480 over IPv4 (1518).
  const std::string yaml = R"(name: udp6
duration: 100ms
hosts:
  a: { address: "fd00::1" }
  b: { address: "fd00::2" }
links:
  a-b: { ends: [a, b], rate: 1Gbps }
traffic:
  u: { type: udp, from: a, to: b, size: 1452B, rate: max }
)";
  for (bool ipv4 : {false, true}) {
    SCOPED_TRACE(ipv4 ? "IPv4" : "IPv6");
    std::vector<Override> o;
    if (ipv4) o = {parse_override("hosts.a.address=10.0.0.1"), parse_override("hosts.b.address=10.0.0.2")};
    const results::RunResult r = run_scenario(parse_scenario_text(yaml, "inline.yaml", o));
    const double frame = ipv4 ? 1518 : 1538;
    // (Plus the two datagrams queued at the end, delivered in the drain.)
    EXPECT_NEAR(r.flows(0).receiver_mbps(), 1000.0 * 1452 / frame, 0.5);
    ASSERT_GT(r.links(0).packets_sent(), 0u);
    EXPECT_EQ(r.links(0).bytes_sent(), r.links(0).packets_sent() * (ipv4 ? 1480u : 1500u));
  }
}

TEST(Ipv6Scenario, RunsAreBitIdentical) {
  results::RunResult a = run(false, {parse_override("duration=2s")});
  results::RunResult b = run(false, {parse_override("duration=2s")});
  results::clear_machine_times(a);
  results::clear_machine_times(b);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
}

}  // namespace
}  // namespace netsim
