// The iperf2 application model (models/app: Iperf2Client, Iperf2Server) run
// from scenarios: the test header as the first data on each connection and
// the server's ack; what an nth rule on the server counts before the first
// bulk data segment; -t measured from the connect; writes and reads; -P;
// start_jitter; the report built from the results; determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "netsim/results/machine_times.h"
#include "netsim/app/iperf2_from_result.h"
#include "netsim/app/iperf2_protocol.h"
#include "netsim/app/iperf2_report.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/units.h"

namespace netsim {
namespace {

using namespace netsim::literals;

constexpr std::uint64_t kMiB = 1024 * 1024;

// ---------------------------------------------------------------------------
// The header

TEST(Iperf2AppProtocol, PlainTcpTestHeader) {
  // client_hdr_v1 (6 x int32) + client_hdrext (type, length, up/low flags,
  // version_u/l, reserved, tos, lRate, uRate, TCPWritePrefetch).
  EXPECT_EQ(app::kIperf2ClientHdrV1Bytes, 24u);
  EXPECT_EQ(app::kIperf2ClientHdrExtBytes, 36u);
  EXPECT_EQ(app::kIperf2TestHeaderBytes, 60u);
  // HEADER_EXTEND | HEADER_LEN_BIT | (60 << 1).
  EXPECT_EQ(app::iperf2_plain_tcp_flags(), 0x40010078u);
  EXPECT_EQ(app::iperf2_header_length(app::iperf2_plain_tcp_flags()), 60u);
  // HEADER_EXTEND without HEADER_VERSION2: the listener answers with
  // client_test_ack, 28 bytes without its timestamps.
  EXPECT_TRUE(app::iperf2_server_acks_header(app::iperf2_plain_tcp_flags()));
  EXPECT_FALSE(app::iperf2_server_acks_header(app::kIperf2HeaderExtend | app::kIperf2HeaderVersion2));
  EXPECT_EQ(app::kIperf2HeaderAckBytes, 28u);
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

// A client c and an iperf2 server s on one 1 Gbit/s link (100 us each way,
// plus s's 20 us receive interrupt delay); an nth rule for port 5001 on s's
// NIC, after GRO as in T2's receiver. The defaults drop nothing.
std::string scenario_yaml(const std::string& flow_extra = "", const std::string& rule = "every: 1000000, packet: 999999",
                          const std::string& time = "1s", const std::string& duration = "3s") {
  return "name: iperf2-app\n"
         "duration: " +
         duration +
         "\n"
         "interval: 500ms\n"
         "hosts:\n"
         "  c: { address: 10.0.0.1, hz: 1000 }\n"
         "  s: { address: 10.0.0.2, hz: 250, nic: { irq_delay: 20us } }\n"
         "links:\n"
         "  c-s: { ends: [c, s], rate: 1Gbps, delay: 100us }\n"
         "filters:\n"
         "  drop: { host: s, type: nth, " +
         rule +
         ", match: { protocol: tcp, dst_port: 5001 } }\n"
         "traffic:\n"
         "  t: { type: tcp, app: iperf2, from: c, to: s, time: " +
         time + ", length: 1MiB, cc: newreno" + flow_extra + " }\n";
}

// A built scenario with taps: on s's NIC after the rule (what the rule let
// through, in its order) and on c's ingress (what the server sent).
struct TappedRun {
  explicit TappedRun(const std::string& yaml)
      : spec(parse_scenario_text(yaml, "inline.yaml")),
        b(build_scenario(spec)),
        to_server(*b.sim, "tap-s"),
        to_client(*b.sim, "tap-c") {
    b.nics.at(0).nic->add_filter(&to_server);
    static_cast<Host*>(b.node("c"))->add_filter(Hook::ingress, &to_client);
  }
  void run() { b.sim->run_until(spec.duration); }
  const app::Iperf2Client& client() const { return *b.tcp_flows.at(0).iperf2_client; }
  const app::Iperf2Server& server() const { return *b.tcp_flows.at(0).iperf2_server; }
  std::uint16_t port(int i) const { return client().stream(i).local_port(); }

  ScenarioSpec spec;
  BuiltScenario b;
  RecordingTap to_server;
  RecordingTap to_client;
};

TEST(Iperf2AppWire, HeaderIsTheFirstDataAndTheServerAcksIt) {
  TappedRun t(scenario_yaml());
  t.run();
  EXPECT_EQ(t.spec.tcp_flows.at(0).dst_port, 5001);  // iperf2's default port
  // Client -> server: the 60-byte header, pushed, then the data.
  const auto data = t.to_server.payloads(t.port(0), 5001);
  ASSERT_GT(data.size(), 2u);
  EXPECT_EQ(data[0], app::kIperf2TestHeaderBytes);
  EXPECT_GT(data[1], app::kIperf2TestHeaderBytes);
  for (const auto& s : t.to_server.seen) {
    if (s.src_port == t.port(0) && s.payload > 0) {
      EXPECT_NE(s.flags & tcp_flags::kPush, 0);
      break;
    }
  }
  // Server -> client: the 28-byte client_test_ack and nothing else.
  EXPECT_EQ(t.to_client.payloads(5001, t.port(0)), (std::vector<std::uint32_t>{app::kIperf2HeaderAckBytes}));
  EXPECT_TRUE(t.server().header_acked(0));
  // The server counted the header as one read of 60 bytes (bin 0).
  EXPECT_GE(t.server().reads(0).bins[0], 1u);
}

// The packets the rule sees, in order, up to the first bulk data segment, as
// hand-worked from iperf2 and FreeBSD: the SYN (dropped by --packet 0), its
// retry after FreeBSD's initial RTO of 1 s, the handshake's ACK (FreeBSD
// acknowledges a SYN-ACK at once), the header; then data.
TEST(Iperf2AppRule, CountBeforeTheFirstDataSegment) {
  TappedRun t(scenario_yaml("", "every: 1000000, packet: 0"));
  t.run();
  const std::uint16_t p = t.port(0);
  const std::uint8_t kS = tcp_flags::kSyn;
  const std::uint8_t kA = tcp_flags::kAck;
  const std::uint8_t kAP = tcp_flags::kAck | tcp_flags::kPush;
  struct Expect {
    std::uint8_t flags;
    std::uint32_t payload;
  };
  const std::vector<Expect> expected{
      // 1 (dropped, not seen here): the SYN
      {kS, 0},    // 2: its retry
      {kA, 0},    // 3: the handshake's ACK
      {kAP, 60},  // 4: the test header
  };
  ASSERT_GT(t.to_server.seen.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("packet " + std::to_string(i + 2));
    EXPECT_EQ(t.to_server.seen[i].src_port, p);
    EXPECT_EQ(t.to_server.seen[i].flags, expected[i].flags);
    EXPECT_EQ(t.to_server.seen[i].payload, expected[i].payload);
  }
  // 5: the first bulk data segment (a GRO aggregate of whole segments).
  const auto& first_data = t.to_server.seen[expected.size()];
  EXPECT_EQ(first_data.src_port, p);
  EXPECT_GT(first_data.payload, app::kIperf2TestHeaderBytes);
  EXPECT_EQ(first_data.payload % 1448, 0u);
  EXPECT_GT(t.to_server.seen[0].time, 990_ms);  // the retry, 1000 ticks after the first SYN
  EXPECT_LT(t.to_server.seen[0].time, 1001_ms);
  // So the rule counted 4 packets before the first data segment (the dropped
  // SYN included), where iperf3's exchange gives 10: no control connection,
  // no cookies, no parameters.
  const PacketFilter& rule = *t.b.filters.at(0).filter;
  EXPECT_EQ(rule.dropped(), 1u);
  EXPECT_EQ(rule.matched(), t.to_server.seen.size() + 1);
}

TEST(Iperf2AppRule, ParallelStreamsConnectTogetherThenSendTheirHeaders) {
  TappedRun t(scenario_yaml(", parallel: 2"));
  t.run();
  // Both SYNs at the same instant, both ACKs, then (after the connect
  // barrier) both headers, before any data.
  ASSERT_GT(t.to_server.seen.size(), 6u);
  std::vector<std::uint32_t> first6;
  std::set<std::uint16_t> ports;
  for (std::size_t i = 0; i < 6; ++i) {
    first6.push_back(t.to_server.seen[i].payload);
    ports.insert(t.to_server.seen[i].src_port);
  }
  EXPECT_EQ(first6, (std::vector<std::uint32_t>{0, 0, 0, 0, 60, 60}));
  EXPECT_EQ(ports, (std::set<std::uint16_t>{t.port(0), t.port(1)}));
  EXPECT_EQ(t.to_server.seen[0].flags, tcp_flags::kSyn);
  EXPECT_EQ(t.to_server.seen[1].flags, tcp_flags::kSyn);
  EXPECT_EQ(t.client().connect_info(0).connect_start, t.client().connect_info(1).connect_start);
  // The clock starts for both when the later of the two is connected.
  EXPECT_EQ(t.client().start(),
            std::max(t.client().connect_info(0).connected, t.client().connect_info(1).connected));
}

TEST(Iperf2AppWindow, TimeIsMeasuredFromTheConnect) {
  TappedRun t(scenario_yaml());
  t.run();
  const app::Iperf2Client& c = t.client();
  ASSERT_TRUE(c.test_ended());
  // The clock starts when connect() returns, i.e. at the handshake, and the
  // header leaves at that instant.
  EXPECT_EQ(c.start(), c.connect_info(0).connected);
  EXPECT_GT(c.connect_info(0).connected - c.connect_info(0).connect_start, 200_us);  // one RTT
  EXPECT_LT(c.connect_info(0).connected - c.connect_info(0).connect_start, 300_us);
  for (const auto& s : t.to_server.seen) {
    if (s.src_port == t.port(0) && s.payload == 60) {
      EXPECT_GT(s.time, c.start());
      EXPECT_LT(s.time, c.start() + 200_us);
      break;
    }
  }
  // The last write started before start + 1 s and completed after it; the
  // report ends when the server has read everything.
  EXPECT_GT(c.shutdown_time(0), c.start() + 1_s);
  EXPECT_LT(c.shutdown_time(0), c.start() + 1_s + 50_ms);
  EXPECT_GE(c.end(), c.shutdown_time(0));
  EXPECT_EQ(c.end(), t.server().close_time(0));
  EXPECT_EQ(c.total(0).end, c.end());
  const BuiltTcpFlow& f = t.b.tcp_flows.at(0);
  EXPECT_EQ(f.driver->start(), c.start());
  EXPECT_EQ(f.driver->end(), c.end());
  // The server read exactly what the client wrote.
  EXPECT_EQ(t.server().reads(0).bytes, c.total(0).bytes_written);
}

TEST(Iperf2AppWrites, WriteCountIsBytesOverLength) {
  const results::RunResult r = run_scenario(parse_scenario_text(scenario_yaml("", "every: 50, packet: 20", "2s"), "inline.yaml"));
  ASSERT_EQ(r.iperf2_size(), 1);
  const auto& test = r.iperf2(0);
  ASSERT_EQ(test.streams_size(), 1);
  const auto& s = test.streams(0);
  EXPECT_GT(s.client_total().retransmits(), 0u);
  // Every interval holds whole 1 MiB writes; the first also the 60-byte header.
  ASSERT_GE(s.intervals_size(), 4);
  std::uint64_t bytes = 0;
  std::uint64_t writes = 0;
  std::uint64_t retransmits = 0;
  for (int k = 0; k < s.intervals_size(); ++k) {
    const auto& i = s.intervals(k);
    EXPECT_EQ(i.bytes_sent(), i.writes() * kMiB + (k == 0 ? 60u : 0u)) << k;
    bytes += i.bytes_sent();
    writes += i.writes();
    retransmits += i.retransmits();
  }
  EXPECT_EQ(bytes, s.client_total().bytes_sent());
  EXPECT_EQ(writes, s.client_total().writes());
  EXPECT_EQ(retransmits, s.client_total().retransmits());
  EXPECT_EQ(s.client_total().writes(), s.client_total().bytes_sent() / kMiB);
  EXPECT_EQ(s.client_total().bytes_sent(), s.client_total().writes() * kMiB + 60);
  EXPECT_GT(s.client_total().writes(), 100u);  // ~500 Mbit/s for 2 s with 2% loss
  // The server read all of it: its intervals sum to its total; every read is
  // counted in one bin, none larger than the 128 KiB read buffer.
  EXPECT_EQ(s.server_total().bytes_received(), s.client_total().bytes_sent());
  std::uint64_t read = 0;
  for (const auto& i : s.server_intervals()) read += i.bytes_received();
  EXPECT_EQ(read, s.server_total().bytes_received());
  std::uint64_t binned = 0;
  for (std::uint64_t n : s.server_total().read_bins()) binned += n;
  EXPECT_EQ(binned, s.server_total().reads());
  EXPECT_GE(s.server_total().reads(), s.server_total().bytes_received() / test.read_len());
  // The flow's receiver counts are the server's.
  EXPECT_EQ(r.flows(0).bytes_received(), s.server_total().bytes_received());
}

TEST(Iperf2AppServer, ReadsAreWhatArrivedAtMostTheReadLength) {
  TappedRun t(scenario_yaml());
  t.run();
  const app::Iperf2ReadCounters& r = t.server().reads(0);
  EXPECT_EQ(t.server().read_len(), 131072u);
  // Each delivery (one per GRO aggregate here) is one read: as many reads as
  // data packets after the rule, the header's included.
  std::uint64_t data_packets = 0;
  for (const auto& s : t.to_server.seen) data_packets += s.src_port == t.port(0) && s.payload > 0 ? 1 : 0;
  EXPECT_EQ(r.reads, data_packets);
  // A lossless 1 Gbit/s path with 20 us interrupt latency: small aggregates,
  // all in the first bin (1 .. 16 KiB).
  EXPECT_EQ(r.bins[0], r.reads);
}

TEST(Iperf2AppParallel, TwoStreamsSumToTheFlowTotals) {
  const results::RunResult r =
      run_scenario(parse_scenario_text(scenario_yaml(", parallel: 2", "every: 1000000, packet: 999999", "2s"), "inline.yaml"));
  ASSERT_EQ(r.iperf2_size(), 1);
  const auto& test = r.iperf2(0);
  ASSERT_EQ(test.streams_size(), 2);
  std::uint64_t received = 0;
  std::uint64_t sent = 0;
  for (const auto& s : test.streams()) {
    EXPECT_DOUBLE_EQ(s.start_s(), test.start_s());
    EXPECT_GT(s.server_total().bytes_received(), 20 * kMiB);
    received += s.server_total().bytes_received();
    sent += s.client_total().bytes_sent();
  }
  EXPECT_EQ(received, sent);
  EXPECT_EQ(r.flows(0).bytes_received(), received);
  // The report: each stream, a [SUM] line per interval, the [SUM] final line.
  std::ostringstream text;
  app::write_iperf2_text(text, app::iperf2_test_from_result(test), app::Iperf2Side::client);
  EXPECT_NE(text.str().find("(2 flows)"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("[  2] 0.0000-0.5000 sec"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("[SUM] 0.0000-0.5000 sec"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("[ CT] final connect times"), std::string::npos) << text.str();
}

TEST(Iperf2AppReport, ClientAndServerTextFromTheResults) {
  const results::RunResult r = run_scenario(parse_scenario_text(scenario_yaml(), "inline.yaml"));
  ASSERT_EQ(r.iperf2_size(), 1);
  const app::Iperf2Test test = app::iperf2_test_from_result(r.iperf2(0));
  ASSERT_EQ(test.streams.size(), 1u);
  EXPECT_EQ(test.write_len, kMiB);
  EXPECT_EQ(test.streams[0].client_init.mss, 1460u);   // FreeBSD's t_maxseg
  EXPECT_EQ(test.streams[0].server_init.mss, 1448u);   // Linux's mss_cache, without the timestamps
  EXPECT_GT(test.streams[0].connect_time_ms, 0.2);
  EXPECT_LT(test.streams[0].connect_time_ms, 0.3);
  std::ostringstream client;
  app::write_iperf2_text(client, test, app::Iperf2Side::client);
  EXPECT_NE(client.str().find("Client connecting to 10.0.0.2, TCP port 5001"), std::string::npos) << client.str();
  EXPECT_NE(client.str().find("[  1] 0.0000-0.5000 sec"), std::string::npos) << client.str();
  EXPECT_NE(client.str().find("[  1] 0.5000-1.0000 sec"), std::string::npos) << client.str();
  EXPECT_NE(client.str().find("[  1] 0.0000-1.0"), std::string::npos) << client.str();
  std::ostringstream server;
  app::write_iperf2_text(server, test, app::Iperf2Side::server);
  EXPECT_NE(server.str().find("(peer 2.1.8)"), std::string::npos) << server.str();
  EXPECT_NE(server.str().find("Reads=Dist"), std::string::npos) << server.str();
}

// ---------------------------------------------------------------------------
// start_jitter

SimTime connect_time(const std::string& yaml, std::uint64_t seed) {
  const ScenarioSpec spec = parse_scenario_text(yaml, "inline.yaml", {Override{"seed", std::to_string(seed)}});
  BuiltScenario b = build_scenario(spec);
  b.sim->run_until(50_ms);
  return b.tcp_flows.at(0).iperf2_client->connect_info(0).connect_start;
}

TEST(Iperf2AppStartJitter, DrawsDifferPerSeedStayInRangeAndRepeat) {
  const std::string yaml = scenario_yaml(", start: 10ms, start_jitter: 5ms");
  std::set<SimTime> starts;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const SimTime t = connect_time(yaml, seed);
    EXPECT_GE(t, 10_ms) << seed;
    EXPECT_LE(t, 15_ms) << seed;
    EXPECT_EQ(t, connect_time(yaml, seed)) << seed;  // same seed, same draw
    starts.insert(t);
  }
  EXPECT_GT(starts.size(), 15u);  // picosecond draws: practically all different
  // The built flow records its start; with no jitter it is the spec's start.
  const ScenarioSpec spec = parse_scenario_text(scenario_yaml(", start: 10ms"), "inline.yaml");
  const BuiltScenario b = build_scenario(spec);
  EXPECT_EQ(b.tcp_flows.at(0).start, 10_ms);
}

TEST(Iperf2AppStartJitter, AppliesToEveryTcpAppAndIsValidated) {
  // A bulk flow's SYN leaves at its jittered start as well.
  const std::string bulk = scenario_yaml(", start: 10ms, start_jitter: 5ms");
  std::string yaml = bulk;
  yaml.replace(yaml.find("app: iperf2"), 11, "app: bulk  ");
  const ScenarioSpec spec = parse_scenario_text(yaml, "inline.yaml");
  const BuiltScenario b = build_scenario(spec);
  EXPECT_GE(b.tcp_flows.at(0).start, 10_ms);
  EXPECT_LE(b.tcp_flows.at(0).start, 15_ms);
  // start + start_jitter must lie within the run.
  try {
    parse_scenario_text(scenario_yaml(", start: 1s, start_jitter: 2s"), "inline.yaml");
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field, "traffic.t.start_jitter");
    EXPECT_NE(std::string(e.what()).find("start + start_jitter (3s) must be before the end of the run"),
              std::string::npos)
        << e.what();
  }
}

// ---------------------------------------------------------------------------
// Determinism

TEST(Iperf2AppDeterminism, TwoRunsAreBitIdentical) {
  const ScenarioSpec spec =
      parse_scenario_text(scenario_yaml(", parallel: 2, start_jitter: 1ms", "every: 50, packet: 0"), "inline.yaml");
  results::RunResult a = run_scenario(spec);
  results::RunResult b = run_scenario(spec);
  results::clear_machine_times(a);
  results::clear_machine_times(b);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  EXPECT_GT(a.filters(0).dropped(), 10u);
  EXPECT_GT(a.flows(0).bytes_received(), 0u);
}

}  // namespace
}  // namespace netsim
