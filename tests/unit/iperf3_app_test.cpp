// The iperf3 application model (models/app: Iperf3Client, Iperf3Server and
// their control messages) run from scenarios: the control exchange on the
// wire, message by message, in both directions; what an nth rule on the
// server counts before the first data byte; -P streams; the measured window;
// determinism; and a control message lost to the rule and retransmitted.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "netsim/results/machine_times.h"
#include "netsim/app/iperf3_from_result.h"
#include "netsim/app/iperf3_messages.h"
#include "netsim/app/iperf3_report.h"
#include "netsim/app/iperf3_protocol.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/units.h"

namespace netsim {
namespace {

using namespace netsim::literals;

// ---------------------------------------------------------------------------
// The messages' JSON texts

TEST(Iperf3AppMessages, ParametersOfTheT1Command) {
  // iperf3 -c X -l 1M -t 10 -i 1 -C newreno: send_parameters' members, in its order.
  app::Iperf3ParametersMessage m;
  m.time_s = 10;
  m.parallel = 1;
  m.len = 1048576;
  m.congestion = "newreno";
  const std::string json = app::iperf3_parameters_json(m);
  EXPECT_EQ(json,
            "{\"tcp\":true,\"omit\":0,\"time\":10,\"parallel\":1,\"len\":1048576,\"pacing_timer\":1000,"
            "\"congestion\":\"newreno\",\"client_version\":\"3.17.1\"}");
  EXPECT_EQ(json.size(), 127u);
  m.parallel = 8;
  m.congestion = "";
  EXPECT_EQ(app::iperf3_parameters_json(m).size(), 127u - 23u);  // no ,"congestion":"newreno"
}

TEST(Iperf3AppMessages, ResultsMembersAndStreamIds) {
  app::Iperf3ResultsMessage m;
  m.cpu_util_total = 2.5;
  m.cpu_util_user = 0.5;
  m.cpu_util_system = 2;
  m.sender_has_retransmits = 1;
  m.congestion_used = "newreno";
  for (int i = 0; i < 2; ++i) {
    app::Iperf3StreamResultsEntry e;
    e.id = app::iperf3_stream_id(i);
    e.bytes = 1048576u * (i + 1);
    e.retransmits = 3;
    e.end_time = 10.000046;
    m.streams.push_back(e);
  }
  EXPECT_EQ(app::iperf3_results_json(m),
            "{\"cpu_util_total\":2.5,\"cpu_util_user\":0.5,\"cpu_util_system\":2,\"sender_has_retransmits\":1,"
            "\"congestion_used\":\"newreno\",\"streams\":["
            "{\"id\":1,\"bytes\":1048576,\"retransmits\":3,\"jitter\":0,\"errors\":0,\"omitted_errors\":0,"
            "\"packets\":0,\"omitted_packets\":0,\"start_time\":0,\"end_time\":10.000046},"
            "{\"id\":3,\"bytes\":2097152,\"retransmits\":3,\"jitter\":0,\"errors\":0,\"omitted_errors\":0,"
            "\"packets\":0,\"omitted_packets\":0,\"start_time\":0,\"end_time\":10.000046}]}");
  // iperf_add_stream: 1, then n + 1 for the n-th stream.
  EXPECT_EQ(app::iperf3_stream_id(0), 1);
  EXPECT_EQ(app::iperf3_stream_id(1), 3);
  EXPECT_EQ(app::iperf3_stream_id(2), 4);
}

// ---------------------------------------------------------------------------
// Runs

// Records every TCP packet it is asked about; never drops.
class RecordingTap final : public PacketFilter {
 public:
  struct Seen {
    SimTime time;
    std::uint16_t src_port;
    std::uint16_t dst_port;
    std::uint8_t flags;
    std::uint32_t payload;
  };
  RecordingTap(Simulation& sim, std::string name) : PacketFilter(sim, std::move(name), MatchRule{IpProtocol::tcp, {}, {}}) {}
  const char* type_name() const override { return "tap"; }
  std::vector<Seen> seen;

  // Payload sizes of the data-carrying packets from `src` to `dst` port.
  std::vector<std::uint32_t> payloads(std::uint16_t src, std::uint16_t dst) const {
    std::vector<std::uint32_t> out;
    for (const Seen& s : seen) {
      if (s.src_port == src && s.dst_port == dst && s.payload > 0) out.push_back(s.payload);
    }
    return out;
  }

 protected:
  bool decide_drop(const Packet& p) override {
    seen.push_back({sim().now(), p.src_port, p.dst_port, p.tcp.flags, p.payload_bytes});
    return false;
  }
};

// A client c and an iperf3 server s on one 1 Gbit/s link (100 us each way,
// plus s's 20 us receive interrupt delay); an nth rule for port 5201 on s's
// NIC, after GRO as in T1. The defaults drop nothing in a 3 s run.
std::string scenario_yaml(const std::string& flow_extra = "", const std::string& rule = "every: 1000000, packet: 999999",
                          const std::string& time = "1s") {
  return "name: iperf3-app\n"
         "duration: 3s\n"
         "interval: 1s\n"
         "hosts:\n"
         "  c: { address: 10.0.0.1, hz: 1000 }\n"
         "  s: { address: 10.0.0.2, hz: 250, nic: { irq_delay: 20us } }\n"
         "links:\n"
         "  c-s: { ends: [c, s], rate: 1Gbps, delay: 100us }\n"
         "filters:\n"
         "  drop: { host: s, type: nth, " +
         rule +
         ", match: { protocol: tcp, dst_port: 5201 } }\n"
         "traffic:\n"
         "  t: { type: tcp, app: iperf3, from: c, to: s, time: " +
         time + ", length: 1MiB, cc: newreno" +
         flow_extra + " }\n";
}

// A built scenario with taps: on s's NIC after the rule (what the rule let
// through, in its order), on c's ingress (what the server sent) and on c's
// egress (what the client sent, when it sent it).
struct TappedRun {
  explicit TappedRun(const std::string& yaml)
      : spec(parse_scenario_text(yaml, "inline.yaml")),
        b(build_scenario(spec)),
        to_server(*b.sim, "tap-s"),
        to_client(*b.sim, "tap-c"),
        from_client(*b.sim, "tap-c-out") {
    b.nics.at(0).nic->add_filter(&to_server);
    static_cast<Host*>(b.node("c"))->add_filter(Hook::ingress, &to_client);
    static_cast<Host*>(b.node("c"))->add_filter(Hook::egress, &from_client);
  }
  void run() { b.sim->run_until(spec.duration); }
  const app::Iperf3Client& client() const { return *b.tcp_flows.at(0).iperf3_client; }
  const app::Iperf3Server& server() const { return *b.tcp_flows.at(0).iperf3_server; }
  std::uint16_t control_port() const { return client().control().local_port(); }
  std::uint16_t stream_port(int i) const { return client().stream(i).local_port(); }

  ScenarioSpec spec;
  BuiltScenario b;
  RecordingTap to_server;
  RecordingTap to_client;
  RecordingTap from_client;
};

using Sizes = std::vector<std::uint32_t>;

TEST(Iperf3AppControl, MessagesInOrderAndSizeOnBothConnections) {
  TappedRun t(scenario_yaml());
  t.run();
  const auto& client = t.client();
  const auto& server = t.server();
  ASSERT_TRUE(client.done());
  ASSERT_TRUE(server.done());
  const auto params = static_cast<std::uint32_t>(client.parameters_json().size());
  const auto client_results = static_cast<std::uint32_t>(client.results_json().size());
  const auto server_results = static_cast<std::uint32_t>(server.results_json().size());
  EXPECT_EQ(params, 126u);  // -t 1: one digit shorter than the T1 command's 127
  // Client -> server on the control connection: cookie, parameters (length,
  // JSON), TEST_END, results (length, JSON), IPERF_DONE.
  EXPECT_EQ(t.to_server.payloads(t.control_port(), 5201), (Sizes{37, 4, params, 1, 4, client_results, 1}));
  // Server -> client: PARAM_EXCHANGE, CREATE_STREAMS, TEST_START, TEST_RUNNING,
  // EXCHANGE_RESULTS, results (length, JSON), DISPLAY_RESULTS.
  EXPECT_EQ(t.to_client.payloads(5201, t.control_port()), (Sizes{1, 1, 1, 1, 1, 4, server_results, 1}));
  // The data connection starts with its cookie; the server writes nothing on it.
  const Sizes data = t.to_server.payloads(t.stream_port(0), 5201);
  ASSERT_GT(data.size(), 2u);
  EXPECT_EQ(data[0], 37u);
  EXPECT_GT(data[1], 37u);
  EXPECT_TRUE(t.to_client.payloads(5201, t.stream_port(0)).empty());
  // Every control message is its own segment, pushed.
  for (const auto& s : t.to_server.seen) {
    if (s.src_port == t.control_port() && s.payload > 0) {
      EXPECT_NE(s.flags & tcp_flags::kPush, 0) << s.payload;
    }
  }
}

// The packets the rule sees, in order, up to the first data segment: the
// client's side of the exchange as hand-worked from iperf3 and FreeBSD.
TEST(Iperf3AppRule, CountBeforeTheFirstDataSegment) {
  // --every 1000000 --packet 0: only the very first packet (the control SYN)
  // is dropped; the tap after the rule sees everything else.
  TappedRun t(scenario_yaml("", "every: 1000000, packet: 0"));
  t.run();
  const std::uint16_t ctl = t.control_port();
  const std::uint16_t data = t.stream_port(0);
  struct Expect {
    std::uint16_t port;
    std::uint8_t flags;
    std::uint32_t payload;
  };
  const std::uint8_t kS = tcp_flags::kSyn;
  const std::uint8_t kA = tcp_flags::kAck;
  const std::uint8_t kAP = tcp_flags::kAck | tcp_flags::kPush;
  const std::uint32_t params = static_cast<std::uint32_t>(t.client().parameters_json().size());
  const std::vector<Expect> expected{
      // 1 (dropped, not seen here): the control SYN
      {ctl, kS, 0},         // 2: its retry after FreeBSD's initial RTO of 1 s
      {ctl, kA, 0},         // 3: the handshake's ACK
      {ctl, kAP, 37},       // 4: the cookie
      {ctl, kAP, 4},        // 5: the parameters' length (PARAM_EXCHANGE's ACK rides on it)
      {ctl, kAP, params},   // 6: the parameters
      {data, kS, 0},        // 7: CREATE_STREAMS -> the data connection's SYN
      {data, kA, 0},        // 8: its ACK
      {data, kAP, 37},      // 9: its cookie
      {ctl, kA, 0},         // 10: TEST_START arrives while CREATE_STREAMS' delayed ACK waits: ACK now
      {data, kA, 1448},     // 11: TEST_RUNNING: the first data segment
  };
  ASSERT_GE(t.to_server.seen.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("packet " + std::to_string(i + 2));
    EXPECT_EQ(t.to_server.seen[i].src_port, expected[i].port);
    EXPECT_EQ(t.to_server.seen[i].flags, expected[i].flags);
    EXPECT_EQ(t.to_server.seen[i].payload, expected[i].payload);
  }
  EXPECT_GT(t.to_server.seen[0].time, 990_ms);  // the retry, 1000 ticks after the first SYN
  EXPECT_LT(t.to_server.seen[0].time, 1001_ms);
  // The rule counted every one of them, plus the SYN it dropped.
  const PacketFilter& rule = *t.b.filters.at(0).filter;
  EXPECT_EQ(rule.dropped(), 1u);
  EXPECT_EQ(rule.matched(), t.to_server.seen.size() + 1);
}

TEST(Iperf3AppRule, EachParallelStreamAddsItsHandshakeAndCookie) {
  TappedRun t(scenario_yaml(", parallel: 3", "every: 1000000, packet: 0"));
  t.run();
  // Before the first data byte: 10 packets with one stream (above), and the
  // SYN, ACK and cookie of each further stream, opened one after the other.
  std::size_t first_data = 0;
  while (first_data < t.to_server.seen.size() &&
         (t.to_server.seen[first_data].src_port == t.control_port() || t.to_server.seen[first_data].payload <= 37)) {
    ++first_data;
  }
  EXPECT_EQ(first_data + 1, 10u + 2 * 3u);  // + 1: the dropped SYN
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(t.to_server.payloads(t.stream_port(i), 5201).at(0), 37u) << "stream " << i;
  }
}

TEST(Iperf3AppClient, DelayedAcksOnTheControlConnection) {
  TappedRun t(scenario_yaml());
  t.run();
  const std::uint16_t ctl = t.control_port();
  // TEST_RUNNING (the fourth 1-byte message) is ACKed by FreeBSD's delayed-ACK
  // timer: TCPTV_DELACK = hz/25 = 40 ticks at hz=1000, i.e. 39-40 ms later.
  SimTime running = 0;
  int states = 0;
  for (const auto& s : t.to_client.seen) {
    if (s.src_port == 5201 && s.dst_port == ctl && s.payload == 1 && ++states == 4) running = s.time;
  }
  ASSERT_GT(running, 0);
  SimTime delayed_ack = 0;
  for (const auto& s : t.from_client.seen) {
    if (s.src_port == ctl && s.time >= running && delayed_ack == 0) {
      EXPECT_EQ(s.payload, 0u);
      delayed_ack = s.time;
    }
  }
  ASSERT_GT(delayed_ack, 0);
  EXPECT_GE(delayed_ack - running, 39_ms);
  EXPECT_LE(delayed_ack - running, 40_ms);
  // TEST_START, just before, was ACKed at once: CREATE_STREAMS' delayed ACK
  // was pending (DELAY_ACK is false while TT_DELACK runs).
  SimTime test_start = 0;
  states = 0;
  for (const auto& s : t.to_client.seen) {
    if (s.src_port == 5201 && s.dst_port == ctl && s.payload == 1 && ++states == 3) test_start = s.time;
  }
  bool acked_at_once = false;
  for (const auto& s : t.from_client.seen) {
    if (s.src_port == ctl && s.payload == 0 && s.time == test_start) acked_at_once = true;
  }
  EXPECT_TRUE(acked_at_once);
  // PARAM_EXCHANGE's ACK rides on the parameters: no pure ACK between the
  // cookie and the parameters' length.
  std::vector<std::uint32_t> control_out;
  for (const auto& s : t.from_client.seen) {
    if (s.src_port == ctl) control_out.push_back(s.payload);
  }
  ASSERT_GE(control_out.size(), 5u);
  EXPECT_EQ(control_out[2], 37u);
  EXPECT_EQ(control_out[3], 4u);
}

TEST(Iperf3AppWindow, StartsWhenTheClientReadsTestStart) {
  TappedRun t(scenario_yaml());
  t.run();
  // TEST_START is the third 1-byte message from the server; iperf3's client
  // starts its -t and -i timers when it reads it (iperf_handle_message_client:
  // iperf_init_test, create_client_timers) and writes data from TEST_RUNNING on.
  SimTime test_start = 0;
  int states = 0;
  for (const auto& s : t.to_client.seen) {
    if (s.src_port == 5201 && s.dst_port == t.control_port() && s.payload == 1 && ++states == 3) test_start = s.time;
  }
  const BuiltTcpFlow& f = t.b.tcp_flows.at(0);
  EXPECT_EQ(f.driver->start(), test_start);
  EXPECT_EQ(f.driver->end() - f.driver->start(), 1_s);
  // The server's clock starts when it writes TEST_START, half a round trip earlier.
  EXPECT_LT(t.server().start(), test_start);
  EXPECT_GT(t.server().start(), test_start - 1_ms);
  // ... and stops when it reads TEST_END, which follows the data queued ahead of it.
  EXPECT_GT(t.server().end(), f.driver->end());
  // The first data segment leaves after TEST_RUNNING, right behind TEST_START.
  for (const auto& s : t.to_server.seen) {
    if (s.src_port == t.stream_port(0) && s.payload > 37) {
      EXPECT_GT(s.time, test_start);
      EXPECT_LT(s.time, test_start + 1_ms);
      break;
    }
  }
}

TEST(Iperf3AppParallel, TwoStreamsSumToTheFlowTotals) {
  const ScenarioSpec spec = parse_scenario_text(scenario_yaml(", parallel: 2", "every: 1000000, packet: 999999", "2s"), "inline.yaml");
  const results::RunResult r = run_scenario(spec);
  ASSERT_EQ(r.flows_size(), 1);
  ASSERT_EQ(r.iperf3_size(), 1);
  const auto& flow = r.flows(0);
  const auto& test = r.iperf3(0);
  ASSERT_EQ(test.streams_size(), 2);
  EXPECT_NE(test.streams(0).local_port(), test.streams(1).local_port());
  EXPECT_NE(test.streams(0).local_port(), test.control_port());
  std::uint64_t received = 0;
  for (const auto& s : test.streams()) {
    ASSERT_EQ(s.intervals_size(), 2);
    std::uint64_t sent = 0;
    std::uint64_t read = 0;
    for (const auto& i : s.intervals()) {
      EXPECT_GT(i.bytes_received(), 0u);
      EXPECT_EQ(i.bytes_sent() % 1048576u, 0u);
      sent += i.bytes_sent();
      read += i.bytes_received();
    }
    EXPECT_EQ(sent, s.sender_bytes());
    EXPECT_EQ(read, s.receiver_bytes());
    EXPECT_DOUBLE_EQ(s.sender_seconds(), 2.0);
    EXPECT_GT(s.receiver_seconds(), 2.0);
    received += s.receiver_bytes();
  }
  // The flow's totals are the streams' sums; both streams share the link.
  EXPECT_EQ(flow.bytes_received(), received);
  EXPECT_GT(test.streams(0).receiver_bytes(), received / 4);
  EXPECT_GT(test.streams(1).receiver_bytes(), received / 4);
  EXPECT_NEAR(flow.receiver_mbps(),
              static_cast<double>(received) * 8 / test.streams(0).receiver_seconds() / 1e6, 1e-9);
  EXPECT_GT(flow.receiver_mbps(), 800.0);
}

TEST(Iperf3AppParallel, ReportShowsEveryStreamAndTheSum) {
  const ScenarioSpec spec = parse_scenario_text(scenario_yaml(", parallel: 2"), "inline.yaml");
  const results::RunResult r = run_scenario(spec);
  ASSERT_EQ(r.iperf3_size(), 1);
  const app::Iperf3Test test = app::iperf3_test_from_result(r.iperf3(0), r.seed());
  ASSERT_EQ(test.streams.size(), 2u);
  // Each stream also holds a temporary file for its buffer: sockets 5, 7, ...
  EXPECT_EQ(test.streams[0].socket, 5);
  EXPECT_EQ(test.streams[1].socket, 7);
  std::ostringstream text;
  app::write_iperf3_text(text, test, app::Iperf3Side::client);
  EXPECT_NE(text.str().find("[  7] local 10.0.0.1 port"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("[SUM]"), std::string::npos) << text.str();
}

TEST(Iperf3AppDeterminism, TwoRunsAreBitIdentical) {
  const ScenarioSpec spec =
      parse_scenario_text(scenario_yaml(", parallel: 2", "every: 50, packet: 0"), "inline.yaml");
  results::RunResult a = run_scenario(spec);
  results::RunResult b = run_scenario(spec);
  results::clear_machine_times(a);
  results::clear_machine_times(b);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  EXPECT_GT(a.filters(0).dropped(), 10u);
  EXPECT_GT(a.flows(0).bytes_received(), 0u);
}

TEST(Iperf3AppRule, DroppedControlDataIsRetransmitted) {
  // --packet 2: the third packet, the control connection's cookie, is dropped.
  TappedRun lossless(scenario_yaml());
  lossless.run();
  TappedRun t(scenario_yaml("", "every: 1000000, packet: 2"));
  t.run();
  ASSERT_EQ(t.b.filters.at(0).filter->dropped(), 1u);
  const auto& control = dynamic_cast<const tcp::FreeBsdTcpSender&>(t.client().control());
  EXPECT_EQ(control.stats().retransmitted_segments, 1u);
  EXPECT_EQ(control.stats().rto_count, 1u);
  // The exchange goes on once the retransmitted cookie arrives (FreeBSD's RTO:
  // 30 ms minimum plus 200 ms slop at hz=1000), and the test completes.
  EXPECT_TRUE(t.client().done());
  EXPECT_TRUE(t.server().done());
  const SimTime delay = t.client().start() - lossless.client().start();
  EXPECT_GT(delay, 200_ms);
  EXPECT_LT(delay, 240_ms);
  EXPECT_EQ(t.to_server.payloads(t.control_port(), 5201).front(), 37u);
  EXPECT_GT(t.server().counters(0).bytes_read, 0u);
}

}  // namespace
}  // namespace netsim
