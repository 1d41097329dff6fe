// Energy-Efficient Ethernet (IEEE 802.3az low power idle): the state machine
// by hand, then a ping and a burst over a link that sleeps.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "netsim/net/low_power_idle.h"
#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_runner.h"
#include "two_host_scenario.h"

namespace netsim {
namespace {

constexpr SimTime us(double v) { return static_cast<SimTime>(v * 1e6); }

TEST(LowPowerIdle, OneThousandBaseTSleepsOnlyWhenBothDirectionsAreIdle) {
  LowPowerIdle lpi({us(16.5), us(10), true});
  // The link idled before the simulation: a frame at 0 finds it asleep,
  // leaves at 16.5 us and (12 us long) ends at 28.5 us.
  EXPECT_EQ(lpi.begin_frame(0, 0), us(16.5));
  lpi.end_frame(0, us(28.5));
  // The other side at 30 us: direction 0 idle for 1.5 us only, the link awake.
  EXPECT_EQ(lpi.begin_frame(1, us(30)), 0);
  lpi.end_frame(1, us(42));
  // Both idle since 42 us: asleep from 52 us, so a frame at 60 us waits the full wake.
  EXPECT_EQ(lpi.begin_frame(0, us(60)), us(16.5));
  // The other side at 70 us rides the same wake-up, which ends at 76.5 us.
  EXPECT_EQ(lpi.begin_frame(1, us(70)), us(6.5));
  lpi.end_frame(0, us(88.5));
  // Direction 1 still sends: the link stays awake however long direction 0 idles.
  EXPECT_EQ(lpi.begin_frame(0, us(600)), 0);
  EXPECT_EQ(lpi.counters(0).wakeups, 2u);
  EXPECT_EQ(lpi.counters(0).joined, 0u);
  EXPECT_EQ(lpi.counters(0).wait, us(33));
  EXPECT_EQ(lpi.counters(1).wakeups, 0u);
  EXPECT_EQ(lpi.counters(1).joined, 1u);
  EXPECT_EQ(lpi.counters(1).wait, us(6.5));
}

TEST(LowPowerIdle, AsymmetricDirectionsSleepAndWakeOnTheirOwn) {
  LowPowerIdle lpi({us(20.5), us(5), false});
  EXPECT_EQ(lpi.begin_frame(1, 0), us(20.5));  // direction 1 busy from 0 on
  // Direction 0 asleep since before the start although direction 1 is busy.
  EXPECT_EQ(lpi.begin_frame(0, us(8)), us(20.5));
  lpi.end_frame(0, us(30));
  lpi.end_frame(1, us(31));
  // Direction 1 idle since 31 us, not asleep before 36 us; no wake-up of
  // direction 0 carries over to it.
  EXPECT_EQ(lpi.begin_frame(1, us(35)), 0);
  lpi.end_frame(1, us(40));
  EXPECT_EQ(lpi.begin_frame(1, us(45)), us(20.5));
  EXPECT_EQ(lpi.counters(0).wakeups, 1u);
  EXPECT_EQ(lpi.counters(1).wakeups, 2u);
  EXPECT_EQ(lpi.counters(1).joined, 0u);
}

TEST(LowPowerIdle, BackToBackFramesNeverSeeTheLinkIdle) {
  LowPowerIdle lpi({us(16.5), 0, true});
  EXPECT_EQ(lpi.begin_frame(0, us(100)), us(16.5));
  for (int i = 1; i <= 5; ++i) {
    lpi.end_frame(0, us(100 + 16.5 + 12 * i));
    EXPECT_EQ(lpi.begin_frame(0, us(100 + 16.5 + 12 * i)), 0) << "frame " << i;
  }
  EXPECT_EQ(lpi.counters(0).wakeups, 1u);
}

results::RunResult run_two_hosts(const std::vector<Override>& overrides) {
  return run_scenario(parse_scenario_text(test_support::kTwoHostsPing, "inline.yaml", overrides));
}

// The ping of ping_test.cpp takes 11.952 us over this link (2 x (5 us + 976
// ns)); requests go at 0, 1, 2 and 3 s, each reply 5.976 us after its request.
TEST(LowPowerIdle, APingWakesTheLinkOnceOrTwice) {
  {
    // LPI at once: the request and the reply each wake the link.
    const auto r = run_two_hosts({{"links.a-b.eee", "{lpi_after: 0s}"}});
    ASSERT_EQ(r.ping(0).replies_size(), 4);
    for (const auto& x : r.ping(0).replies()) EXPECT_EQ(x.time_ps(), us(11.952 + 2 * 16.5));
    ASSERT_EQ(r.links_size(), 2);
    EXPECT_TRUE(r.links(0).low_power_idle());
    EXPECT_EQ(r.links(0).lpi_wakeups(), 4u);  // a->b
    EXPECT_EQ(r.links(1).lpi_wakeups(), 4u);  // b->a
    EXPECT_EQ(r.links(0).lpi_wait_ps(), 4 * us(16.5));
    EXPECT_EQ(r.links(0).lpi_joined(), 0u);
  }
  {
    // LPI after 10 us: the reply leaves 5 us after the request's last bit,
    // before the link sleeps.
    const auto r = run_two_hosts({{"links.a-b.eee", "{lpi_after: 10us}"}});
    ASSERT_EQ(r.ping(0).replies_size(), 4);
    for (const auto& x : r.ping(0).replies()) EXPECT_EQ(x.time_ps(), us(11.952 + 16.5));
    EXPECT_EQ(r.links(0).lpi_wakeups(), 4u);
    EXPECT_EQ(r.links(1).lpi_wakeups(), 0u);
  }
  {
    // The same on a link whose directions sleep on their own (`symmetric:
    // false`) with LPI after 3 us: b's transmitter sleeps although a's sent 5 us ago.
    const auto r = run_two_hosts({{"links.a-b.eee", "{lpi_after: 3us, symmetric: false}"}});
    for (const auto& x : r.ping(0).replies()) EXPECT_EQ(x.time_ps(), us(11.952 + 2 * 16.5));
  }
  {
    // `eee: {}` takes every default: 16.5 us, LPI at once, symmetric.
    const auto r = run_two_hosts({{"links.a-b.eee", "{}"}});
    EXPECT_EQ(r.ping(0).replies(3).time_ps(), us(11.952 + 2 * 16.5));
  }
  {
    // `eee: true` is `eee: {}`; `eee: false` is no EEE (it turns off a profile's).
    EXPECT_EQ(run_two_hosts({{"links.a-b.eee", "true"}}).ping(0).replies(3).time_ps(), us(11.952 + 2 * 16.5));
    const auto off = run_two_hosts({{"links.a-b.eee", "false"}});
    EXPECT_EQ(off.ping(0).replies(3).time_ps(), us(11.952));
    EXPECT_FALSE(off.links(0).low_power_idle());
  }
  {
    // An explicit wake time replaces 802.3's 16.5 us for 1000BASE-T.
    const auto r = run_two_hosts({{"links.a-b.eee", "{wake: 30us}"}});
    for (const auto& x : r.ping(0).replies()) EXPECT_EQ(x.time_ps(), us(11.952 + 2 * 30));
  }
}

TEST(LowPowerIdle, ABurstWaitsOnceAndKeepsItsRate) {
  // A UDP source at full rate from 1 ms to 2 ms: only its first frame finds
  // the link asleep; the rest follow back to back (1538-byte frames, 12.304
  // us each), so the burst is shifted by 16.5 us, two frames fewer fit
  // before the source stops, and the link's busy time is serialization only.
  const std::vector<Override> udp = {
      {"traffic", "{u: {type: udp, from: a, to: b, size: 1472, start: 1ms, stop: 2ms}}"}};
  std::vector<Override> eee = udp;
  eee.push_back({"links.a-b.eee", "{lpi_after: 0s}"});
  const auto plain = run_two_hosts(udp);
  const auto with = run_two_hosts(eee);
  EXPECT_EQ(with.links(0).lpi_wakeups(), 1u);
  EXPECT_EQ(with.links(0).lpi_wait_ps(), us(16.5));
  EXPECT_EQ(with.links(0).busy_ps(), static_cast<SimTime>(with.links(0).packets_sent()) * us(12.304));
  EXPECT_EQ(plain.links(0).busy_ps(), static_cast<SimTime>(plain.links(0).packets_sent()) * us(12.304));
  EXPECT_EQ(with.flows(0).packets_received() + 2, plain.flows(0).packets_received());
  std::ostringstream text;
  results::RunSet set;
  *set.add_runs() = with;
  write_text(text, set);
  EXPECT_NE(text.str().find("eee:"), std::string::npos) << text.str();
  std::ostringstream plain_text;
  results::RunSet plain_set;
  *plain_set.add_runs() = plain;
  write_text(plain_text, plain_set);
  EXPECT_EQ(plain_text.str().find("eee:"), std::string::npos);
}

TEST(LowPowerIdle, Errors) {
  const auto error = test_support::two_hosts_error;
  EXPECT_NE(error({{"links.a-b.rate", "40Gbps"}, {"links.a-b.eee", "{lpi_after: 1us}"}}).find("needs 'wake'"),
            std::string::npos);
  EXPECT_EQ(error({{"links.a-b.rate", "40Gbps"}, {"links.a-b.eee", "{wake: 1us}"}}), "no error");
  EXPECT_NE(error({{"links.a-b.eee", "{wake: 0s}"}}).find("links.a-b.eee.wake"), std::string::npos);
  EXPECT_NE(error({{"links.a-b.eee", "{lpi_after: -1us}"}}).find("links.a-b.eee.lpi_after"), std::string::npos);
  EXPECT_NE(error({{"links.a-b.eee", "{sleep: 1us}"}}).find("links.a-b.eee.sleep"), std::string::npos);
  EXPECT_NE(error({{"links.a-b.eee", "{symmetric: maybe}"}}).find("links.a-b.eee.symmetric"), std::string::npos);
  EXPECT_NE(error({{"links.a-b.eee", "16.5us"}}).find("links.a-b.eee': expected a map with keys wake, lpi_after, symmetric"),
            std::string::npos);
}

}  // namespace
}  // namespace netsim
