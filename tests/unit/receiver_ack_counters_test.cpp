// The Linux receiver's ACKs by cause (delayed-ACK timer, quickack mode) per
// tcp flow: a hand-checked connection through the bulk driver, and FlowStats
// of scenario runs of every app kind carrying the per-connection counters.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "netsim/app/iperf2_server.h"
#include "netsim/app/iperf3_reverse_client.h"
#include "netsim/app/iperf3_server.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/units.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/linux_tcp_receiver.h"
#include "two_host_link.h"

namespace netsim {
namespace {

using namespace netsim::literals;

constexpr std::uint32_t kMss = 1448;  // 1500 - 20 (IP) - 20 (TCP) - 12 (timestamps)

// FreeBSD host a (kern.hz 1000) sends to the Linux receiver on b (HZ 250)
// through a bulk TcpFlowDriver; the test writes the data itself.
struct DriverNet {
  Simulation sim{1};
  tcp::LinuxTcpReceiver* rx = nullptr;
  tcp::FreeBsdTcpSender* tx = nullptr;
  TcpFlowDriver* driver = nullptr;
  std::vector<SimTime> acks_at;  // the receiver's pure ACKs

  explicit DriverNet(const tcp::LinuxTcpConfig& rcfg = {}) {
    auto [a, b] = two_host_link(sim, 1000);
    rx = &sim.add<tcp::LinuxTcpReceiver>("rx", *b, rcfg);
    tcp::FreeBsdTcpConfig scfg;
    scfg.tso = false;  // one wire segment per packet: each ACK decision is per segment
    tx = &sim.add<tcp::FreeBsdTcpSender>("tx", *a, b->id(), 5201, scfg);
    // The driver's window [10 s, 20 s) lies after the test: it never connects
    // or fills the buffer (it would write without end); the test writes exact amounts.
    driver = &sim.add<TcpFlowDriver>("flow", *tx, *rx, a->id(), 10_s, 20_s);
    rx->set_on_data([this](tcp::LinuxTcpReceiver::ConnId c, std::uint64_t n) {
      if (driver->owns(c)) driver->on_delivered(c, n);
    });
    rx->set_on_transmit([this](tcp::LinuxTcpReceiver::ConnId, const Packet& p) {
      if (p.payload_bytes == 0 && (p.tcp.flags & tcp_flags::kSyn) == 0) acks_at.push_back(sim.now());
    });
  }
};

// 16 segments, then a lone one 20 ms later; returns the flow's counters
// before the lone segment and at 190 ms (before FreeBSD's RTO: >= 200 ms of slop).
std::pair<TcpFlowCounters, TcpFlowCounters> sixteen_then_one(DriverNet& net) {
  net.tx->connect();
  net.sim.run_until(1_ms);
  EXPECT_EQ(net.tx->write(16 * kMss), 16u * kMss);
  net.sim.run_until(20_ms);
  const TcpFlowCounters first = net.driver->counters();
  EXPECT_EQ(net.tx->write(kMss), kMss);  // at 20 ms
  net.sim.run_until(190_ms);
  EXPECT_EQ(net.tx->stats().rto_count, 0u);
  return {first, net.driver->counters()};
}

// The first data puts Linux in quickack mode for 16 ACKs (TCP_MAX_QUICKACKS;
// the 6 MB window allows more); a full segment alone is not "more than one
// MSS", so each of the 16 is ACKed because of quickack mode. The 17th, 20 ms
// later (less than the RTO: no new quickack credit), carries PSH (FreeBSD
// sets it on the segment that empties the send buffer), so Linux ACKs it
// once the app has read it (tcp_cleanup_rbuf): neither cause.
TEST(ReceiverAckCounters, QuickacksThenAPushedSegmentAckedOnRead) {
  DriverNet net;
  const auto [first, c] = sixteen_then_one(net);
  EXPECT_EQ(first.segments_received, 16u);
  EXPECT_EQ(first.receiver_quickack_acks, 16u);
  EXPECT_EQ(first.receiver_delayed_acks, 0u);
  EXPECT_EQ(c.segments_received, 17u);
  EXPECT_EQ(c.bytes_delivered, 17u * kMss);
  EXPECT_EQ(c.receiver_quickack_acks, 16u);
  EXPECT_EQ(c.receiver_delayed_acks, 0u);
  ASSERT_EQ(net.acks_at.size(), 17u);
  EXPECT_LT(net.acks_at.back(), 21_ms);  // at arrival (20 ms + 12.3 us + 100 us)
}

// Without the read-side ACK the lone segment waits for the delayed-ACK timer:
// ato = TCP_ATO_MIN = HZ/25 = 10 jiffies, 36-40 ms at HZ=250. Exactly one
// delayed ACK, and the flow's counters are the connection's.
TEST(ReceiverAckCounters, LoneSegmentAfterQuickackGetsOneDelayedAck) {
  tcp::LinuxTcpConfig rcfg;
  rcfg.ack_on_read = false;
  DriverNet net(rcfg);
  const auto [first, c] = sixteen_then_one(net);
  EXPECT_EQ(first.receiver_quickack_acks, 16u);
  EXPECT_EQ(first.receiver_delayed_acks, 0u);
  EXPECT_EQ(c.segments_received, 17u);
  EXPECT_EQ(c.receiver_quickack_acks, 16u);
  EXPECT_EQ(c.receiver_delayed_acks, 1u);
  ASSERT_EQ(net.acks_at.size(), 17u);
  const SimTime arrival = 20_ms + 12'304_ns + 100_us;  // 1538 bytes at 1 Gbit/s, 100 us
  EXPECT_GT(net.acks_at.back() - arrival, 36_ms);
  EXPECT_LE(net.acks_at.back() - arrival, 40_ms);
  const tcp::LinuxTcpReceiver::ConnId conn = net.rx->find(0, net.tx->local_port());
  ASSERT_GE(conn, 0);
  EXPECT_EQ(net.rx->stats(conn).delayed_acks, c.receiver_delayed_acks);
  EXPECT_EQ(net.rx->stats(conn).quickack_acks, c.receiver_quickack_acks);
}

// Sum of TcpReceiverStats fields over a flow's receiving connections.
struct AckSums {
  std::uint64_t delayed = 0;
  std::uint64_t quick = 0;
  std::uint64_t pure_acks = 0;  // acks_sent: pure ACKs of any cause
  void add(const tcp::TcpReceiverStats& s) {
    delayed += s.delayed_acks;
    quick += s.quickack_acks;
    pure_acks += s.acks_sent;
  }
};

const std::string kBulk = std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml";

// The shipped bulk scenario (Linux receiver behind GRO, every 100th packet
// after GRO dropped): the flow's counters are its connection's, no more ACKs than the
// receiver sent, quickack used (slow start begins in it), frozen at the
// window's end, and the run's FlowStats carry them.
TEST(ReceiverAckCounters, ShippedBulkRunIsConsistent) {
  const ScenarioSpec spec = load_scenario(kBulk, {parse_override("duration=3s")});
  BuiltScenario b = build_scenario(spec);
  ASSERT_EQ(b.tcp_flows.size(), 1u);
  const BuiltTcpFlow& f = b.tcp_flows[0];
  std::uint64_t ack_packets = 0;  // ACK-carrying packets the receiver sent within the window
  f.receiver->set_on_transmit([&](tcp::LinuxTcpReceiver::ConnId, const Packet& p) {
    if ((p.tcp.flags & tcp_flags::kAck) != 0 && !f.driver->finished()) ++ack_packets;
  });
  b.sim->run_until(spec.duration);
  f.driver->finish();
  const TcpFlowCounters c = f.driver->counters();
  const tcp::LinuxTcpReceiver::ConnId conn = f.receiver->find(b.node(f.spec->from)->id(), f.sender->local_port());
  ASSERT_GE(conn, 0);
  const tcp::TcpReceiverStats& s = f.receiver->stats(conn);
  EXPECT_EQ(c.receiver_delayed_acks, s.delayed_acks);
  EXPECT_EQ(c.receiver_quickack_acks, s.quickack_acks);
  EXPECT_GT(c.receiver_quickack_acks, 0u);
  EXPECT_LE(c.receiver_delayed_acks + c.receiver_quickack_acks, s.acks_sent);
  EXPECT_LE(s.acks_sent, ack_packets);
  b.sim->run_until(spec.duration + 100_ms);
  EXPECT_EQ(f.driver->counters().receiver_quickack_acks, c.receiver_quickack_acks);
  EXPECT_EQ(f.driver->counters().receiver_delayed_acks, c.receiver_delayed_acks);

  const results::RunResult r = run_scenario(spec);
  ASSERT_EQ(r.flows_size(), 1);
  EXPECT_EQ(r.flows(0).receiver_delayed_acks(), c.receiver_delayed_acks);
  EXPECT_EQ(r.flows(0).receiver_quickack_acks(), c.receiver_quickack_acks);
}

struct AppCase {
  const char* name;
  std::vector<std::string> overrides;
};

void PrintTo(const AppCase& c, std::ostream* os) { *os << c.name; }

class ReceiverAckCountersByApp : public ::testing::TestWithParam<AppCase> {};

// A flow of two data connections over a 300 kbit/s link: a segment takes
// 41 ms on the wire, longer than the receiver's 40 ms ACK timer, so the timer
// fires. The flow's counters sum its data connections' (iperf3's control
// connection, on the same listening endpoint, left out), whichever side runs
// the Linux receiver.

TEST_P(ReceiverAckCountersByApp, FlowSumsItsDataConnections) {
  const std::string yaml =
      "name: acks\n"
      "duration: 3s\n"
      "hosts:\n"
      "  a: { address: 10.0.0.1, hz: 1000 }\n"
      "  b: { address: 10.0.0.2, hz: 250 }\n"
      "links:\n"
      "  a-b: { ends: [a, b], rate: 300Kbps, delay: 1ms }\n"
      "traffic:\n"
      "  t: { type: tcp, from: a, to: b, parallel: 2, time: 2s, length: 8KB }\n";
  std::vector<Override> overrides;
  for (const std::string& o : GetParam().overrides) overrides.push_back(parse_override(o));
  const ScenarioSpec spec = parse_scenario_text(yaml, "inline.yaml", overrides);
  BuiltScenario b = build_scenario(spec);
  const BuiltTcpFlow& f = b.tcp_flows.at(0);
  // The data connections' own counters, live.
  auto data_sums = [&f] {
    AckSums sums;
    if (f.iperf3_server != nullptr) {
      for (int i = 0; i < f.iperf3_server->stream_count(); ++i) {
        sums.add(f.receiver->stats(f.iperf3_server->stream_connection(i)));
      }
    } else if (f.iperf3_reverse_client != nullptr) {
      const app::Iperf3ReverseClient& client = *f.iperf3_reverse_client;
      for (int i = 0; i < client.stream_count(); ++i) {
        sums.add(client.stream(i).stats(client.data_streams().connection(static_cast<std::size_t>(i))));
      }
    } else {
      for (int i = 0; i < f.iperf2_server->stream_count(); ++i) sums.add(f.iperf2_server->connection_stats(i));
    }
    return sums;
  };
  ASSERT_TRUE(f.iperf3_server != nullptr || f.iperf3_reverse_client != nullptr || f.iperf2_server != nullptr);
  // Late in the test (the queue has grown to ~1 s, so the timer has fired),
  // before anything is frozen: exactly the data connections' sums.
  b.sim->run_until(1800_ms);
  const AckSums mid = data_sums();
  const TcpFlowCounters live = f.driver->counters();
  EXPECT_GT(mid.delayed, 0u);
  EXPECT_EQ(live.receiver_delayed_acks, mid.delayed);
  EXPECT_EQ(live.receiver_quickack_acks, mid.quick);
  EXPECT_GE(live.receiver_quickack_acks, 2u) << "each data connection starts in quickack mode";
  EXPECT_LE(live.receiver_delayed_acks + live.receiver_quickack_acks, mid.pure_acks);
  if (f.iperf3_server != nullptr) {
    // The control connection (same endpoint) has such ACKs of its own, not the flow's.
    const tcp::TcpReceiverStats& cs = f.receiver->stats(f.iperf3_server->control_connection());
    EXPECT_GT(cs.delayed_acks + cs.quickack_acks, 0u);
  }
  b.sim->run_until(spec.duration);
  f.driver->finish();
  const TcpFlowCounters c = f.driver->counters();
  // Frozen when the receiving app stops (TEST_END, iperf2's end of file):
  // at most the connections' final counts.
  const AckSums end = data_sums();
  EXPECT_GE(c.receiver_delayed_acks, live.receiver_delayed_acks);
  EXPECT_LE(c.receiver_delayed_acks, end.delayed);
  EXPECT_LE(c.receiver_quickack_acks, end.quick);

  const results::RunResult r = run_scenario(spec);
  ASSERT_EQ(r.flows_size(), 1);
  EXPECT_EQ(r.flows(0).receiver_delayed_acks(), c.receiver_delayed_acks);
  EXPECT_EQ(r.flows(0).receiver_quickack_acks(), c.receiver_quickack_acks);
}

INSTANTIATE_TEST_SUITE_P(Apps, ReceiverAckCountersByApp,
                         ::testing::Values(AppCase{"iperf3", {"traffic.t.app=iperf3"}},
                                           AppCase{"iperf3_reverse", {"traffic.t.app=iperf3", "traffic.t.reverse=true"}},
                                           AppCase{"iperf2", {"traffic.t.app=iperf2"}}),
                         [](const ::testing::TestParamInfo<AppCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace netsim
