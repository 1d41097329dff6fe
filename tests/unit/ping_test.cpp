// ping(8) in the simulator: the ICMP echo path, its statistics, its report
// in both systems' layouts, and the T1 testbed's idle ping against the hand
// arithmetic of docs/t1.md.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "netsim/app/ping_client.h"
#include "netsim/app/ping_report.h"
#include "netsim/measure/measurement_file.h"
#include "netsim/scenario/measured_comparison.h"
#include "netsim/scenario/scenario_loader.h"
#include "ping_read_back.h"
#include "two_host_scenario.h"
#include "netsim/scenario/scenario_runner.h"

namespace netsim {
namespace {

const std::string& kTwoHosts = test_support::kTwoHostsPing;

results::RunResult run_text(const std::string& yaml, const std::vector<Override>& overrides = {}) {
  return run_scenario(parse_scenario_text(yaml, "inline.yaml", overrides));
}

PingReply reply(std::uint64_t seq, SimTime rtt) { return {seq, rtt, 0}; }

TEST(PingStats, HandWorkedTimes) {
  // 1, 2, 3, 4 ms: mean 2.5, population variance (1 + 4 + 9 + 16) / 4 - 6.25 = 1.25.
  const PingStats s = ping_stats(5, {reply(0, 1'000'000'000), reply(1, 2'000'000'000), reply(3, 3'000'000'000),
                                     reply(4, 4'000'000'000)});
  EXPECT_EQ(s.transmitted, 5u);
  EXPECT_EQ(s.received, 4u);
  EXPECT_DOUBLE_EQ(*s.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(*s.avg_ms, 2.5);
  EXPECT_DOUBLE_EQ(*s.max_ms, 4.0);
  EXPECT_DOUBLE_EQ(*s.stddev_ms, std::sqrt(1.25));
}

TEST(PingStats, IdenticalTimesHaveNoSpreadAndNoRepliesNoFigures) {
  const PingStats same = ping_stats(2, {reply(0, 488'000'000), reply(1, 488'000'000)});
  EXPECT_EQ(*same.stddev_ms, 0.0);
  const PingStats none = ping_stats(3, {});
  EXPECT_EQ(none.received, 0u);
  EXPECT_FALSE(none.min_ms || none.avg_ms || none.max_ms || none.stddev_ms);
}

TEST(PingFlow, RoundTripIsTwiceTheDelayAndSerialization) {
  const results::RunResult r = run_text(kTwoHosts);
  ASSERT_EQ(r.flows_size(), 1);
  const auto& f = r.flows(0);
  EXPECT_EQ(f.kind(), "ping");
  EXPECT_EQ(f.packets_sent(), 4u);
  EXPECT_EQ(f.packets_received(), 4u);
  EXPECT_EQ(f.packets_lost(), 0u);
  // An 84-byte datagram (20 IP + 8 ICMP + 56 data) plus 38 bytes of framing:
  // 976 ns at 1 Gbit/s each way, plus 5 us: 11.952 us. The first request
  // leaves at time 0, the others 1 s apart; all see the same time.
  for (double v : {f.rtt_min_ms(), f.rtt_avg_ms(), f.rtt_max_ms()}) EXPECT_DOUBLE_EQ(v, 0.011952);
  EXPECT_EQ(f.rtt_stddev_ms(), 0.0);
  ASSERT_EQ(r.ping_size(), 1);
  const auto& p = r.ping(0);
  ASSERT_EQ(p.replies_size(), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(p.replies(i).icmp_seq(), static_cast<std::uint64_t>(i));
    EXPECT_EQ(p.replies(i).time_ps(), 11'952'000);
  }
  // Last request at 3 s, its reply 11.952 us later.
  EXPECT_EQ(p.elapsed_ps(), 3'000'011'952'000);
  ASSERT_EQ(r.links_size(), 2);
  for (const auto& l : r.links()) EXPECT_EQ(l.bytes_sent(), 4u * 84u) << l.from() << "->" << l.to();
}

TEST(PingFlow, IntervalSizeStopAndCount) {
  // -s 1472 -i 0.2: 1500-byte datagrams, (1538 * 8) ns + 5 us = 17.304 us each way.
  const results::RunResult r =
      run_text(kTwoHosts, {{"traffic.p.size", "1472B"}, {"traffic.p.interval", "200ms"}, {"traffic.p.count", "100"},
                           {"traffic.p.stop", "1s"}});
  const auto& f = r.flows(0);
  EXPECT_EQ(f.packets_sent(), 5u);  // 0, 0.2, ..., 0.8 s: stop comes first
  EXPECT_DOUBLE_EQ(f.rtt_avg_ms(), 0.034608);
  const results::RunResult forever = run_text(kTwoHosts, {{"traffic.p.count", "1"}});
  EXPECT_EQ(forever.flows(0).packets_sent(), 1u);
}

TEST(PingFlow, ARuleOnIcmpLosesRequests) {
  // iptables -A INPUT -p icmp -m statistic --mode nth --every 2 --packet 0 -j DROP on b:
  // requests 1 and 3 (1-based) are dropped, so seq 0 and 2 get no reply.
  std::string yaml = kTwoHosts;
  yaml.insert(yaml.find("traffic:"), "filters:\n  drop: { host: b, hook: ingress, type: nth, every: 2, packet: 0, "
                                     "match: { protocol: icmp } }\n");
  const results::RunResult r = run_text(yaml);
  const auto& f = r.flows(0);
  EXPECT_EQ(f.packets_sent(), 4u);
  EXPECT_EQ(f.packets_received(), 2u);
  EXPECT_EQ(f.packets_lost(), 2u);
  EXPECT_DOUBLE_EQ(f.loss_pct(), 50.0);
  ASSERT_EQ(r.ping(0).replies_size(), 2);
  EXPECT_EQ(r.ping(0).replies(0).icmp_seq(), 1u);
  EXPECT_EQ(r.ping(0).replies(1).icmp_seq(), 3u);
  // A rule for tcp does not see the echoes.
  std::string tcp_rule = kTwoHosts;
  tcp_rule.insert(tcp_rule.find("traffic:"), "filters:\n  drop: { host: b, hook: ingress, type: nth, every: 1, "
                                             "match: { protocol: tcp } }\n");
  EXPECT_EQ(run_text(tcp_rule).flows(0).packets_received(), 4u);
}

TEST(PingFlow, NoReplyMeansNoRoundTripFigures) {
  std::string yaml = kTwoHosts;
  yaml.insert(yaml.find("traffic:"), "filters:\n  drop: { host: b, hook: ingress, type: nth, every: 1 }\n");
  const results::RunResult r = run_text(yaml);
  const auto& f = r.flows(0);
  EXPECT_EQ(f.packets_received(), 0u);
  EXPECT_FALSE(f.has_rtt_min_ms() || f.has_rtt_avg_ms() || f.has_rtt_max_ms() || f.has_rtt_stddev_ms());
  std::ostringstream out;
  app::write_ping_text(out, r.ping(0));
  EXPECT_EQ(out.str(), "PING 10.0.0.2 (10.0.0.2): 56 data bytes\n\n--- 10.0.0.2 ping statistics ---\n"
                       "4 packets transmitted, 0 packets received, 100.0% packet loss\n");
}

TEST(PingReport, FreeBsdAndLinuxLayouts) {
  const results::RunResult r = run_text(kTwoHosts, {{"traffic.p.count", "2"}});
  std::ostringstream freebsd;
  app::write_ping_text(freebsd, r.ping(0));
  EXPECT_EQ(freebsd.str(),
            "PING 10.0.0.2 (10.0.0.2): 56 data bytes\n"
            "64 bytes from 10.0.0.2: icmp_seq=0 ttl=64 time=0.012 ms\n"
            "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.012 ms\n"
            "\n--- 10.0.0.2 ping statistics ---\n"
            "2 packets transmitted, 2 packets received, 0.0% packet loss\n"
            "round-trip min/avg/max/stddev = 0.012/0.012/0.012/0.000 ms\n");
  results::PingResult linux_ping = r.ping(0);
  linux_ping.set_output("linux");
  std::ostringstream linux_text;
  app::write_ping_text(linux_text, linux_ping);
  // iputils: sequence from 1, whole microseconds truncated, "time" in whole ms.
  EXPECT_EQ(linux_text.str(),
            "PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
            "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.011 ms\n"
            "64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=0.011 ms\n"
            "\n--- 10.0.0.2 ping statistics ---\n"
            "2 packets transmitted, 2 received, 0% packet loss, time 1000ms\n"
            "rtt min/avg/max/mdev = 0.011/0.011/0.011/0.000 ms\n");
}

TEST(PingReport, ReadBackAsMeasuredData) {
  // What netsim prints for a ping is what it reads as a measured ping.
  const results::RunResult r = run_scenario(load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/t1-idle-ping.yaml",
                                                          {{"seeds", "1"}, {"hosts.sender.hz", "1000"}}));
  test_support::expect_ping_reads_back(r, 10, "ICMP");
}

TEST(T1IdlePing, WithoutJitterItIsTheHandArithmetic) {
  // docs/t1.md: 4 links x (11 us + 16.5 us to wake the sleeping link, EEE)
  // + 2 receive paths x (20 us interrupt + 167.5 us wake-up of a vCPU idle
  // for more than 1 ms), plus 4 x 976 ns of serialization: 488.904 us for
  // every echo, 1 s apart.
  const std::string path = std::string(NETSIM_SOURCE_DIR) + "/scenarios/t1-idle-ping.yaml";
  const results::RunResult r = run_scenario(load_scenario(
      path, {{"seeds", "1"}, {"hosts.sender.nic.irq_jitter", "0us"}, {"hosts.receiver.nic.irq_jitter", "0us"},
             {"hosts.sender.nic.idle_wake_jitter", "0us"}, {"hosts.receiver.nic.idle_wake_jitter", "0us"}}));
  ASSERT_EQ(r.ping_size(), 1);
  ASSERT_EQ(r.ping(0).replies_size(), 10);
  for (const auto& x : r.ping(0).replies()) EXPECT_EQ(x.time_ps(), 488'904'000) << x.icmp_seq();
  ASSERT_EQ(r.nics_size(), 2);
  for (const auto& n : r.nics()) EXPECT_EQ(n.idle_wakeups(), 10u) << n.host();
  ASSERT_EQ(r.links_size(), 4);
  for (const auto& l : r.links()) EXPECT_EQ(l.lpi_wakeups(), 10u) << l.from() << "->" << l.to();
}

TEST(T1IdlePing, JitterStaysInsideTheDocumentedRange) {
  // With the shipped jitter: 488.904 us plus 2 x (0-20 + 0-137) us, i.e.
  // within [488.904, 802.904] us, and spread over most of it.
  const std::string path = std::string(NETSIM_SOURCE_DIR) + "/scenarios/t1-idle-ping.yaml";
  const results::RunResult r =
      run_scenario(load_scenario(path, {{"seeds", "1"}, {"traffic.ping.count", "500"}, {"duration", "501s"}}));
  const auto& f = r.flows(0);
  EXPECT_EQ(f.packets_received(), 500u);
  EXPECT_GE(f.rtt_min_ms(), 0.488904);
  EXPECT_LE(f.rtt_max_ms(), 0.802904);
  EXPECT_LT(f.rtt_min_ms(), 0.55);
  EXPECT_GT(f.rtt_max_ms(), 0.74);
  // Mean of the jitter: 2 x (10 + 68.5) us above the floor.
  EXPECT_NEAR(f.rtt_avg_ms(), 0.488904 + 0.157, 0.01);
}

TEST(PingMeasured, RoundTripMetricsCompareInMilliseconds) {
  const std::string path = std::string(NETSIM_SOURCE_DIR) + "/scenarios/t1-idle-ping.yaml";
  const ScenarioSpec spec = load_scenario(path, {{"seeds", "1"}, {"hosts.sender.hz", "1000"}});
  const std::optional<MeasuredSpec> m = parse_measured(spec);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->metrics.size(), 3u);
  EXPECT_EQ(m->metrics[1].metric, "rtt_avg_ms");
  EXPECT_FALSE(m->metrics[1].is_count());
  results::RunSet set;
  *set.add_runs() = run_scenario(spec);
  const auto rows = compare(set, *m);
  ASSERT_EQ(rows.size(), 1u);
  const auto& f = set.runs(0).flows(0);
  EXPECT_DOUBLE_EQ(rows[0].metrics[1].sim_mean, f.rtt_avg_ms());
  EXPECT_DOUBLE_EQ(rows[0].metrics[1].error, (f.rtt_avg_ms() - 0.685) / 0.685 * 100.0);
  std::ostringstream text;
  write_comparison_text(text, set, *m);
  EXPECT_NE(text.str().find("0.485"), std::string::npos) << text.str();  // ms to the microsecond
  EXPECT_EQ(text.str().find("ranking"), std::string::npos) << text.str();  // times are not ranked as throughputs
  std::ostringstream csv;
  write_comparison_csv(csv, set, *m);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "hz,seed,min_rtt_min_ms,avg_rtt_avg_ms,max_rtt_max_ms,measured_min_rtt_min_ms,measured_avg_rtt_avg_ms,"
            "measured_max_rtt_max_ms,error_pct");
}

TEST(PingScenarioErrors, BadKeys) {
  const auto error = test_support::two_hosts_error;
  EXPECT_NE(error({{"traffic.p.size", "4B"}}).find("traffic.p.size"), std::string::npos);
  EXPECT_NE(error({{"traffic.p.interval", "0s"}}).find("interval must be greater than zero"), std::string::npos);
  EXPECT_NE(error({{"traffic.p.output", "solaris"}}).find("traffic.p.output"), std::string::npos);
  EXPECT_NE(error({{"traffic.p.dst_port", "7"}}).find("traffic.p.dst_port"), std::string::npos);
  EXPECT_NE(error({{"traffic.p.count", "0"}}).find("traffic.p.count"), std::string::npos);
  std::string icmp_port = kTwoHosts;
  icmp_port.insert(icmp_port.find("traffic:"), "filters:\n  drop: { host: b, hook: ingress, type: nth, every: 2, "
                                               "match: { protocol: icmp, dst_port: 7 } }\n");
  try {
    parse_scenario_text(icmp_port, "inline.yaml");
    ADD_FAILURE() << "icmp with a port loaded";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field, "filters.drop.match.dst_port");
    EXPECT_NE(e.message.find("icmp has no ports"), std::string::npos);
  }
}

}  // namespace
}  // namespace netsim
