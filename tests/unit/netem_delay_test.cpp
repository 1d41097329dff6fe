// netem delay on a host's egress (`tc qdisc ... netem delay D limit N`),
// exactly and in a VM whose timers run late.
#include <gtest/gtest.h>

#include <string>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "two_host_scenario.h"

namespace netsim {
namespace {

const std::string& kTwoHosts = test_support::kTwoHostsPing;

results::RunResult run_text(const std::string& yaml, const std::vector<Override>& overrides) {
  return run_scenario(parse_scenario_text(yaml, "inline.yaml", overrides));
}

TEST(NetemDelay, RepliesWaitTheDelayOnTheWayOut) {
  // netem on b delays its echo replies: 40 ms + 2 x (5 us + 976 ns).
  const results::RunResult r = run_text(kTwoHosts, {{"hosts.b.netem", "{delay: 40ms}"}});
  ASSERT_EQ(r.ping_size(), 1);
  ASSERT_EQ(r.ping(0).replies_size(), 4);
  for (const auto& x : r.ping(0).replies()) EXPECT_EQ(x.time_ps(), 40'011'952'000) << x.icmp_seq();
  ASSERT_EQ(r.netem_size(), 1);
  EXPECT_EQ(r.netem(0).host(), "b");
  EXPECT_EQ(r.netem(0).delay_ps(), 40'000'000'000);
  EXPECT_EQ(r.netem(0).limit(), 1000u);
  EXPECT_EQ(r.netem(0).packets(), 4u);
  EXPECT_EQ(r.netem(0).dropped(), 0u);
  EXPECT_EQ(r.netem(0).max_queued(), 1u);
}

TEST(NetemDelay, InAVmTheWatchdogFiresLate) {
  // The watchdog is armed 40 ms ahead when the reply is queued; the VM
  // host's default precision (1/16) makes that 2.5 ms late.
  const results::RunResult r =
      run_text(kTwoHosts, {{"hosts.b.netem", "{delay: 40ms}"}, {"hosts.b.vm_host_alloweddeviation", "5"}});
  for (const auto& x : r.ping(0).replies()) EXPECT_EQ(x.time_ps(), 42'511'952'000) << x.icmp_seq();
}

TEST(NetemDelay, AccountsForEveryPacketAndDropsBeyondItsLimit) {
  // 1472-byte datagrams at 900 Mbit/s for 10 ms (one every 13.08 us) into a
  // 1 ms netem holding at most 20: about 77 arrive per ms, so it fills up
  // and drops; every datagram either passes or is dropped there.
  const std::string yaml = R"(name: netem-limit
duration: 50ms
hosts:
  a: { address: 10.0.0.1, netem: { delay: 1ms, limit: 20 } }
  b: { address: 10.0.0.2 }
links:
  a-b: { ends: [a, b], rate: 1Gbps, delay: 5us }
traffic:
  u: { type: udp, from: a, to: b, rate: 900Mbps, stop: 10ms }
)";
  const results::RunResult r = run_text(yaml, {});
  ASSERT_EQ(r.netem_size(), 1);
  const auto& q = r.netem(0);
  const auto& f = r.flows(0);
  EXPECT_EQ(q.max_queued(), 20u);
  EXPECT_GT(q.dropped(), 0u);
  EXPECT_EQ(q.packets() + q.dropped(), f.packets_sent());
  EXPECT_EQ(f.packets_received(), q.packets());
}

TEST(NetemDelay, Errors) {
  const auto error = test_support::two_hosts_error;
  EXPECT_NE(error({{"hosts.b.netem", "{limit: 10}"}}).find("delay"), std::string::npos);
  EXPECT_NE(error({{"hosts.b.netem", "{delay: 1ms, jitter: 1ms}"}}).find("hosts.b.netem.jitter"), std::string::npos);
  EXPECT_NE(error({{"hosts.b.netem", "{delay: 1ms, limit: 0}"}}).find("hosts.b.netem.limit"), std::string::npos);
}

}  // namespace
}  // namespace netsim
