// ping over IPv6 as ping -6 (ping6) does it: ICMPv6 echoes with the 40-byte
// header, FreeBSD's 8-byte default, rules on icmpv6, the reply lines of
// FreeBSD's ping6 and iputils, and those read back as measured data.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "netsim/app/ping_report.h"
#include "netsim/measure/measurement_file.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "ping_read_back.h"

namespace netsim {
namespace {

const std::string kTwoHosts6 = R"(name: ping6-two-hosts
duration: 10s
hosts:
  a: { address: "fd00::2" }
  b: { address: "fd00::3" }
links:
  a-b: { ends: [a, b], rate: 1Gbps, delay: 5us }
traffic:
  p: { type: ping, from: a, to: b, count: 4 }
)";

results::RunResult run6(const std::vector<Override>& overrides = {}, const std::string& filters = "") {
  std::string yaml = kTwoHosts6;
  yaml.insert(yaml.find("traffic:"), filters);
  return run_scenario(parse_scenario_text(yaml, "inline.yaml", overrides));
}

std::string text_of(const results::PingResult& p) {
  std::ostringstream out;
  app::write_ping_text(out, p);
  return out.str();
}

TEST(Ping6Flow, RoundTripCountsTheFortyByteHeader) {
  // iputils' 56 data bytes: 40 + 8 + 56 = 104 IP bytes, 142 with framing,
  // 1.136 us at 1 Gbit/s each way, plus 5 us: 12.272 us.
  const results::RunResult r = run6({{"traffic.p.output", "linux"}});
  const auto& f = r.flows(0);
  EXPECT_EQ(f.packets_sent(), 4u);
  EXPECT_EQ(f.packets_received(), 4u);
  EXPECT_DOUBLE_EQ(f.rtt_avg_ms(), 0.012272);
  ASSERT_EQ(r.links_size(), 2);
  for (const auto& l : r.links()) EXPECT_EQ(l.bytes_sent(), 4u * 104u) << l.from() << "->" << l.to();
  EXPECT_EQ(r.ping(0).data_bytes(), 56u);
}

TEST(Ping6Flow, FreeBsdPing6SendsEightDataBytesByDefault) {
  // ping6's DEFDATALEN is its 8-byte timestamp: 40 + 8 + 8 = 56 IP bytes,
  // 94 on the wire (752 ns), so 2 x 5.752 us.
  const results::RunResult r = run6();
  EXPECT_EQ(r.ping(0).data_bytes(), 8u);
  EXPECT_DOUBLE_EQ(r.flows(0).rtt_avg_ms(), 0.011504);
  for (const auto& l : r.links()) EXPECT_EQ(l.bytes_sent(), 4u * 56u);
  // An explicit size is kept, and IPv4 hosts keep FreeBSD ping's 56.
  EXPECT_EQ(run6({{"traffic.p.size", "56B"}}).ping(0).data_bytes(), 56u);
  EXPECT_EQ(run6({{"hosts.a.address", "10.0.0.2"}, {"hosts.b.address", "10.0.0.3"}}).ping(0).data_bytes(), 56u);
}

TEST(Ping6Flow, EchoesAreIcmpv6ForRules) {
  // ip6tables -A INPUT -p icmpv6 -m statistic --mode nth --every 2 --packet 0 -j DROP on b.
  const results::RunResult r = run6(
      {}, "filters:\n  drop: { host: b, hook: ingress, type: nth, every: 2, packet: 0, match: { protocol: icmpv6 } }\n");
  EXPECT_EQ(r.flows(0).packets_received(), 2u);
  ASSERT_EQ(r.ping(0).replies_size(), 2);
  EXPECT_EQ(r.ping(0).replies(0).icmp_seq(), 1u);
  EXPECT_EQ(r.ping(0).replies(1).icmp_seq(), 3u);
  const results::RunResult udp =
      run6({}, "filters:\n  drop: { host: b, hook: ingress, type: nth, every: 1, match: { protocol: udp } }\n");
  EXPECT_EQ(udp.flows(0).packets_received(), 4u);
}

ScenarioError filter_error(const std::string& yaml) {
  try {
    parse_scenario_text(yaml, "inline.yaml");
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error:\n" << yaml;
  return ScenarioError(SourceLoc{}, "", "no error");
}

TEST(Ping6Flow, RulesForTheOtherFamilysIcmpAreErrors) {
  // Line 9 holds the rule; `protocol:`'s value is at column 86.
  std::string yaml = kTwoHosts6;
  const std::string rule =
      "filters:\n  drop: { host: b, hook: ingress, type: nth, every: 2, packet: 0, match: { protocol: icmp } }\n";
  yaml.insert(yaml.find("traffic:"), rule);
  const ScenarioError e = filter_error(yaml);
  EXPECT_EQ(std::string(e.what()), "inline.yaml:9:86: error: field 'filters.drop.match.protocol': icmp never matches "
                                   "on IPv6 host 'b': its echoes are icmpv6");
  std::string v4 = yaml;
  v4.replace(v4.find("\"fd00::2\""), 9, "10.0.0.2");
  v4.replace(v4.find("\"fd00::3\""), 9, "10.0.0.3");
  v4.replace(v4.find("protocol: icmp"), 14, "protocol: icmpv6");
  EXPECT_EQ(filter_error(v4).message, "icmpv6 never matches on IPv4 host 'b': its echoes are icmp");
  std::string port = kTwoHosts6;
  port.insert(port.find("traffic:"), "filters:\n  drop: { host: b, hook: ingress, type: nth, every: 2, "
                                     "match: { protocol: icmpv6, dst_port: 7 } }\n");
  const ScenarioError p = filter_error(port);
  EXPECT_EQ(p.field, "filters.drop.match.dst_port");
  EXPECT_EQ(p.message, "icmpv6 has no ports: match it by protocol alone");
}

TEST(Ping6Report, FreeBsdPing6AndIputilsLayouts) {
  const results::RunResult r = run6({{"traffic.p.count", "2"}});
  // FreeBSD 14 sbin/ping/ping6.c: banner with the lengths and both
  // addresses, "bytes from ADDR, icmp_seq=N hlim=H time=T ms", the
  // statistics of ping(8).
  EXPECT_EQ(text_of(r.ping(0)),
            "PING(56=40+8+8 bytes) fd00::2 --> fd00::3\n"
            "16 bytes from fd00::3, icmp_seq=0 hlim=64 time=0.012 ms\n"
            "16 bytes from fd00::3, icmp_seq=1 hlim=64 time=0.012 ms\n"
            "\n--- fd00::3 ping statistics ---\n"
            "2 packets transmitted, 2 packets received, 0.0% packet loss\n"
            "round-trip min/avg/max/stddev = 0.012/0.012/0.012/0.000 ms\n");
  // iputils ping -6: "PING DST(DST) N data bytes", then as over IPv4.
  const results::RunResult l = run6({{"traffic.p.count", "2"}, {"traffic.p.output", "linux"}});
  EXPECT_EQ(text_of(l.ping(0)),
            "PING fd00::3(fd00::3) 56 data bytes\n"
            "64 bytes from fd00::3: icmp_seq=1 ttl=64 time=0.012 ms\n"
            "64 bytes from fd00::3: icmp_seq=2 ttl=64 time=0.012 ms\n"
            "\n--- fd00::3 ping statistics ---\n"
            "2 packets transmitted, 2 received, 0% packet loss, time 1000ms\n"
            "rtt min/avg/max/mdev = 0.012/0.012/0.012/0.000 ms\n");
}

TEST(Ping6Report, ReadBackAsMeasuredData) {
  test_support::expect_ping_reads_back(run6({{"traffic.p.count", "3"}}), 3, "ICMPv6");
}

// A ping6 run pasted in another system's layout: one run from line 1 with the
// average of its round-trip line.
void expect_one_icmpv6_run(const std::string& text, double avg_ms) {
  const auto runs = measure::parse_measurements(text, "t.txt");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].line, 1);
  EXPECT_EQ(runs[0].protocol, "ICMPv6");
  EXPECT_EQ(runs[0].rtt_avg_ms, avg_ms);
}

TEST(Ping6Report, OlderAndNewerLayoutsParseToo) {
  // Older FreeBSD ping6 (KAME's): "PING6(", "ping6 statistics", "std-dev".
  expect_one_icmpv6_run("PING6(56=40+8+8 bytes) fd00::2 --> fd00::3\n"
                        "16 bytes from fd00::3, icmp_seq=0 hlim=64 time=0.300 ms\n"
                        "\n--- fd00::3 ping6 statistics ---\n"
                        "1 packets transmitted, 1 packets received, 0.0% packet loss\n"
                        "round-trip min/avg/max/std-dev = 0.300/0.300/0.300/0.000 ms\n",
                        0.300);
  // Recent iputils: a space before the parenthesis.
  expect_one_icmpv6_run("PING fd00::3 (fd00::3) 56 data bytes\n"
                        "64 bytes from fd00::3: icmp_seq=1 ttl=64 time=0.279 ms\n"
                        "\n--- fd00::3 ping statistics ---\n"
                        "1 packets transmitted, 1 received, 0% packet loss, time 0ms\n"
                        "rtt min/avg/max/mdev = 0.279/0.279/0.279/0.000 ms\n",
                        0.279);
  // An IPv4 ping stays ICMP.
  const auto v4 = measure::parse_measurements(
      "PING h (10.0.0.2): 56 data bytes\n"
      "64 bytes from 10.0.0.2: icmp_seq=0 ttl=64 time=0.300 ms\n"
      "\n--- h ping statistics ---\n"
      "1 packets transmitted, 1 packets received, 0.0% packet loss\n",
      "t.txt");
  ASSERT_EQ(v4.size(), 1u);
  EXPECT_EQ(v4[0].protocol, "ICMP");
  EXPECT_EQ(measure::detect_format("PING(56=40+8+8 bytes) fd00::2 --> fd00::3\n", "t"),
            measure::MeasurementFormat::ping);
}

}  // namespace
}  // namespace netsim
