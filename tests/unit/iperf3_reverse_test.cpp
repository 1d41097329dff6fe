// iperf3 -R flows built from scenarios: the FreeBSD server sends to the
// Linux client, the client's timer ends the test, the runner's counters and
// iperf3's own report come out as for a real `iperf3 -c HOST -R`.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "netsim/results/machine_times.h"
#include "netsim/app/iperf3_from_result.h"
#include "netsim/app/iperf3_report.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/units.h"

namespace netsim {
namespace {

using namespace netsim::literals;

template <typename F>
ScenarioError capture_scenario_error(F&& f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error";
  return ScenarioError(SourceLoc{}, "", "no error");
}

// Two hosts through a switch at 1 Gbit/s; `extra` is appended to the file.
std::string scenario(const std::string& flow, const std::string& extra = "") {
  return "name: rev\nseed: 3\nduration: 12s\ninterval: 1s\n"
         "hosts:\n  sender: { address: 10.0.0.1, hz: 1000 }\n  receiver: { address: 10.0.0.2, hz: 250 }\n"
         "switches:\n  sw: { buffer: 1MB }\n"
         "links:\n  a: { ends: [sender, sw], rate: 1Gbps, delay: 125us }\n"
         "  b: { ends: [sw, receiver], rate: 1Gbps, delay: 125us }\n" +
         extra + "traffic:\n  iperf3: " + flow + "\n";
}

const std::string kReverse =
    "{ type: tcp, app: iperf3, reverse: true, from: sender, to: receiver, dst_port: 5201, cc: newreno, time: 10s }";

TEST(Iperf3Reverse, LosslessGigabitRunsAtLineRate) {
  const ScenarioSpec spec = parse_scenario_text(scenario(kReverse), "rev.yaml");
  ASSERT_TRUE(spec.tcp_flows[0].reverse);
  const results::RunResult r = run_scenario(spec);
  ASSERT_EQ(r.flows_size(), 1);
  const auto& f = r.flows(0);
  EXPECT_EQ(f.src(), "sender");
  EXPECT_EQ(f.dst(), "receiver");
  EXPECT_NEAR(to_seconds(f.end_ps() - f.start_ps()), 10.0, 1e-9);
  EXPECT_GT(f.receiver_mbps(), 900.0);
  EXPECT_GT(f.sender_mbps(), 900.0);
  EXPECT_EQ(f.retransmits(), 0u);
  std::printf("reverse lossless: sender %.1f Mbit/s, receiver %.1f Mbit/s, start %.6f s\n", f.sender_mbps(),
              f.receiver_mbps(), to_seconds(f.start_ps()));

  ASSERT_EQ(r.iperf3_size(), 1);
  const auto& t = r.iperf3(0);
  EXPECT_TRUE(t.reverse());
  EXPECT_EQ(t.client_address(), "10.0.0.2");
  EXPECT_EQ(t.server_address(), "10.0.0.1");
  EXPECT_EQ(t.mss(), 1448u);
  ASSERT_EQ(t.streams_size(), 1);
  const auto& s = t.streams(0);
  ASSERT_EQ(s.intervals_size(), 10);
  std::uint64_t sent = 0, received = 0;
  for (const auto& x : s.intervals()) {
    sent += x.bytes_sent();
    received += x.bytes_received();
    EXPECT_GT(x.snd_cwnd(), 0u);
  }
  EXPECT_EQ(sent, s.sender_bytes());
  EXPECT_EQ(received, s.receiver_bytes());
  // Client and server agree: the server wrote (whole 128 KB blocks) at least
  // what the client read, and not more than a send buffer or two beyond it.
  EXPECT_EQ(s.sender_bytes() % 131072u, 0u);
  EXPECT_GE(s.sender_bytes() + 131072u, s.receiver_bytes());
  EXPECT_LT(s.sender_bytes() - s.receiver_bytes(), 8u * 1024 * 1024);
  EXPECT_DOUBLE_EQ(s.receiver_seconds(), 10.0);
  EXPECT_GT(s.sender_seconds(), 10.0);  // the server stops when TEST_END arrives
  EXPECT_LT(s.sender_seconds(), 10.01);
  std::printf("reverse lossless: client read %llu bytes, server wrote %llu bytes over %.6f s\n",
              static_cast<unsigned long long>(s.receiver_bytes()), static_cast<unsigned long long>(s.sender_bytes()),
              s.sender_seconds());
}

TEST(Iperf3Reverse, SrcPortRuleOnTheReceiverDropsDataAndCausesRetransmits) {
  const std::string filter =
      "filters:\n  drop:\n    host: receiver\n    hook: ingress\n    type: nth\n    every: 100\n    packet: 50\n"
      "    match: { protocol: tcp, src_port: 5201 }\n";
  const results::RunResult r = run_scenario(parse_scenario_text(scenario(kReverse, filter), "rev.yaml"));
  const auto& f = r.flows(0);
  ASSERT_EQ(r.filters_size(), 1);
  EXPECT_GT(r.filters(0).dropped(), 0u);
  EXPECT_GT(f.retransmits(), 0u);
  EXPECT_EQ(f.retransmits(), r.iperf3(0).streams(0).sender_retransmits());
  std::printf("reverse nth 100: %llu dropped, %llu retransmits, receiver %.1f Mbit/s\n",
              static_cast<unsigned long long>(r.filters(0).dropped()), static_cast<unsigned long long>(f.retransmits()),
              f.receiver_mbps());
  // The same rule on dst_port never sees the data: it arrives from port 5201.
  const std::string dst_filter =
      "filters:\n  drop:\n    host: receiver\n    hook: ingress\n    type: nth\n    every: 100\n    packet: 50\n"
      "    match: { protocol: tcp, dst_port: 5201 }\n";
  const results::RunResult d = run_scenario(parse_scenario_text(scenario(kReverse, dst_filter), "rev.yaml"));
  EXPECT_EQ(d.filters(0).matched(), 0u);
  EXPECT_EQ(d.flows(0).retransmits(), 0u);
}

TEST(Iperf3Reverse, ClientReportLooksLikeIperf3MinusR) {
  const results::RunResult r = run_scenario(parse_scenario_text(scenario(kReverse), "rev.yaml"));
  const app::Iperf3Test t = app::iperf3_test_from_result(r.iperf3(0), r.seed());
  std::ostringstream text;
  app::write_iperf3_text(text, t, app::Iperf3Side::client);
  const std::string o = text.str();
  EXPECT_NE(o.find("Connecting to host 10.0.0.1, port 5201\nReverse mode, remote host 10.0.0.1 is sending\n"),
            std::string::npos);
  EXPECT_NE(o.find("local 10.0.0.2 port "), std::string::npos);
  // Interval lines from the receiving client: no Retr/Cwnd columns.
  EXPECT_NE(o.find("[ ID] Interval           Transfer     Bitrate\n"), std::string::npos);
  EXPECT_NE(o.find("[ ID] Interval           Transfer     Bitrate         Retr\n"), std::string::npos);
  EXPECT_NE(o.find("sender\n"), std::string::npos);
  EXPECT_NE(o.find("receiver\n"), std::string::npos);
  std::ostringstream json;
  app::write_iperf3_json(json, t, app::Iperf3Side::client);
  const std::string j = json.str();
  EXPECT_NE(j.find("\"reverse\":\t1"), std::string::npos);
  EXPECT_NE(j.find("\"sender\":\tfalse"), std::string::npos);
  EXPECT_EQ(j.find("\"sender\":\ttrue"), std::string::npos);
}

TEST(Iperf3Reverse, SameSeedSameResult) {
  const ScenarioSpec spec = parse_scenario_text(scenario(kReverse), "rev.yaml", {parse_override("duration=4s"),
                                                                                 parse_override("traffic.iperf3.time=2s")});
  results::RunResult a = run_scenario(spec);
  results::RunResult b = run_scenario(spec);
  results::clear_machine_times(a);  // the only field that depends on the machine
  results::clear_machine_times(b);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
}

TEST(Iperf3Reverse, ParallelStreamsAndTheShippedExample) {
  const results::RunResult r = run_scenario(parse_scenario_text(
      scenario(kReverse), "rev.yaml",
      {parse_override("traffic.iperf3.parallel=3"), parse_override("duration=5s"), parse_override("traffic.iperf3.time=3s")}));
  ASSERT_EQ(r.iperf3(0).streams_size(), 3);
  for (const auto& s : r.iperf3(0).streams()) EXPECT_GT(s.receiver_bytes(), 0u);
  EXPECT_GT(r.flows(0).receiver_mbps(), 900.0);
  const results::RunResult shipped = run_scenario(load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/iperf3-reverse.yaml"));
  EXPECT_GT(shipped.flows(0).receiver_mbps(), 100.0);
  EXPECT_GT(shipped.flows(0).retransmits(), 0u);
}

TEST(Iperf3Reverse, ReverseIsForIperf3FlowsAndBooleansOnly) {
  const ScenarioError bulk = capture_scenario_error([] {
    parse_scenario_text(scenario("{ type: tcp, from: sender, to: receiver, reverse: true }"), "rev.yaml");
  });
  EXPECT_EQ(bulk.field, "traffic.iperf3.reverse");
  EXPECT_NE(bulk.message.find("app: iperf3"), std::string::npos);
  EXPECT_GT(bulk.loc.line, 0);
  const ScenarioError bad = capture_scenario_error([] {
    parse_scenario_text(scenario("{ type: tcp, app: iperf3, from: sender, to: receiver, reverse: maybe }"), "rev.yaml");
  });
  EXPECT_EQ(bad.field, "traffic.iperf3.reverse");
  const ScenarioSpec set = parse_scenario_text(scenario("{ type: tcp, app: iperf3, from: sender, to: receiver }"),
                                               "rev.yaml", {parse_override("traffic.iperf3.reverse=true")});
  EXPECT_TRUE(set.tcp_flows[0].reverse);
}

}  // namespace
}  // namespace netsim
