// The FreeBSD receiver (FreeBsdTcpReceiver over FreeBsdTcpSender's receive
// side): segments handed to it as from a peer, what it sends observed with
// set_on_transmit. DELAY_ACK, out-of-order data and SACK blocks, D-SACK,
// hole fill, t_segqlen, the advertised window and its autotuning; then bulk
// transfers from a FreeBSD and a Linux sender, with a drop rule.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "netsim/filter/nth_drop_filter.h"
#include "netsim/filter/packet_filter.h"
#include "netsim/host/host.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/tcp/linux_tcp_receiver.h"
#include "netsim/tcp/freebsd/freebsd_tcp_receiver.h"
#include "netsim/tcp/freebsd/tcp_receive.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/linux/linux_tcp_sender.h"
#include "netsim/tcp/tcp_segment.h"
#include "two_host_link.h"

namespace netsim::tcp {
namespace {

using namespace netsim::literals;

constexpr std::uint16_t kPeerPort = 40000;
constexpr std::uint32_t kIrs = 1000;
constexpr std::uint32_t kMss = 1448;  // payload per segment with timestamps

// The receiver's TSval as it reaches the peer (the SYN-ACK's included), for
// the peer's echo.
class TsTap final : public PacketFilter {
 public:
  explicit TsTap(Simulation& sim) : PacketFilter(sim, "tap", MatchRule{IpProtocol::tcp, {}, kPeerPort}) {}
  const char* type_name() const override { return "tap"; }
  std::uint32_t last_ts_val = 0;

 protected:
  bool decide_drop(const Packet& p) override {
    last_ts_val = p.tcp.ts_val;
    return false;
  }
};

// A FreeBSD receiver on host a (kern.hz as given) and a scripted peer on b:
// the handshake done, segments injected, the receiver's output recorded.
struct Rx {
  Simulation sim{7};
  Host* a;
  Host* b;
  FreeBsdTcpReceiver* rx;
  std::vector<Packet> out;  // everything the receiver sent after the handshake
  std::vector<SimTime> out_time;
  TsTap* tap = nullptr;
  std::vector<std::uint64_t> read;
  TcpReceiveEndpoint::ConnId conn = -1;
  std::uint32_t iss = 0;
  std::uint32_t ts = 100;

  explicit Rx(int hz, FreeBsdTcpConfig cfg = {}) {
    std::tie(a, b) = two_host_link(sim, hz);
    FreeBsdTcpReceiverConfig rc;
    rc.port = 5201;
    rc.max_connections = 2;
    rc.tcp = cfg;
    rx = &sim.add<FreeBsdTcpReceiver>("rx", *a, rc);
    rx->set_on_accept([this](TcpReceiveEndpoint::ConnId c) { conn = c; });
    rx->set_on_data([this](TcpReceiveEndpoint::ConnId, std::uint64_t n) { read.push_back(n); });
    rx->set_on_transmit([this](TcpReceiveEndpoint::ConnId, const Packet& p) {
      out.push_back(p);
      out_time.push_back(sim.now());
    });
    tap = &sim.add<TsTap>();
    b->add_filter(Hook::ingress, tap);
    Packet* syn = segment(kIrs - 1, 0, tcp_flags::kSyn);
    syn->tcp.mss = 1460;
    syn->tcp.wscale = 7;
    syn->tcp.sack_permitted = true;
    syn->tcp.ts_ecr = 0;
    rx->deliver(syn);
    const TcpReceiveEndpoint::ConnId c = rx->find(b->id(), kPeerPort);
    iss = rx->connection(c).tcpcb().snd_una;
    sim.run_until(1_ms);
    Packet* ack = segment(kIrs, 0, tcp_flags::kAck);
    rx->deliver(ack);
    EXPECT_TRUE(out.empty()) << "the handshake's ACK needs no answer";
    clear();
  }
  void clear() {
    out.clear();
    out_time.clear();
  }
  const FreeBsdTcpSender& tcb() const { return rx->connection(conn); }
  // A segment from the peer: seq, payload, flags, `segs` wire segments (an LRO aggregate if > 1).
  Packet* segment(std::uint32_t seq, std::uint32_t len, std::uint8_t flags, std::uint16_t segs = 1) {
    Packet* p = new_tcp_segment(sim, a->id(), kPeerPort, 5201);
    p->src = b->id();
    p->tcp.seq = seq;
    p->tcp.ack = iss + 1;
    p->tcp.flags = flags;
    p->tcp.window = 65535;
    p->tcp.ts_present = true;
    p->tcp.ts_val = ++ts;
    p->tcp.ts_ecr = tap != nullptr ? tap->last_ts_val : 0;
    p->payload_bytes = len;
    p->segments = segs;
    p->l4_header_bytes = kTcpHeaderBytes + p->tcp.option_bytes();
    return p;
  }
  // Data [kIrs + off, kIrs + off + len) arrives now.
  void data(std::uint32_t off, std::uint32_t len, std::uint16_t segs = 1) {
    rx->deliver(segment(kIrs + off, len, tcp_flags::kAck, segs));
  }
  std::uint32_t rel(std::uint32_t seq) const { return seq - kIrs; }
};

TEST(FreeBsdTcpReceiver, DelayedAckTimerIsTcptvDelackTicks) {
  for (int hz : {1000, 100}) {
    SCOPED_TRACE(hz);
    Rx r(hz);
    ASSERT_GE(r.conn, 0);
    const SimTime t0 = r.sim.now();
    r.data(0, kMss);
    EXPECT_TRUE(r.out.empty());
    EXPECT_TRUE(r.tcb().delack_pending());
    r.sim.run_until(t0 + 100_ms);
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.rel(r.out[0].tcp.ack), kMss);
    // TT_DELACK = TCPTV_DELACK = hz/25 ticks, armed from the last tick edge:
    // 39-40 ms at hz=1000 (40 ticks), 30-40 ms at hz=100 (4 ticks).
    const SimTime waited = r.out_time[0] - t0;
    EXPECT_GE(waited, hz == 1000 ? 39_ms : 30_ms);
    EXPECT_LE(waited, 40_ms);
    EXPECT_EQ(r.rx->stats(r.conn).delayed_acks, 1u);
  }
}

TEST(FreeBsdTcpReceiver, EverySecondFullSegmentIsAckedAtOnce) {
  Rx r(100);
  for (std::uint32_t i = 0; i < 6; ++i) r.data(i * kMss, kMss);
  ASSERT_EQ(r.out.size(), 3u);  // segments 2, 4, 6
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(r.rel(r.out[k].tcp.ack), (2 * k + 2) * kMss);
  EXPECT_FALSE(r.tcb().delack_pending());
  EXPECT_EQ(r.read.size(), 6u);
}

TEST(FreeBsdTcpReceiver, EchoIsTheFirstUnacknowledgedSegmentsTimestamp) {
  Rx r(1000);
  r.data(0, kMss);  // TSval 102 (the handshake ACK had 101), ACK delayed
  const std::uint32_t first = r.ts;
  r.data(kMss, kMss);  // beyond last_ack_sent: TS.Recent stays
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.out[0].tcp.ts_ecr, first);
}

TEST(FreeBsdTcpReceiver, SegmentLongerThanMaxsegIsAckedAtOnce) {
  Rx r(100);
  // An LRO aggregate of four segments: tlen > t_maxseg, no delayed ACK.
  r.data(0, 4 * kMss, 4);
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.rel(r.out[0].tcp.ack), 4 * kMss);
  EXPECT_FALSE(r.tcb().delack_pending());
  EXPECT_EQ(r.rx->stats(r.conn).segments_received, 4u);
  EXPECT_EQ(r.rx->stats(r.conn).packets_received, 1u);
}

TEST(FreeBsdTcpReceiver, OutOfOrderDataIsAckedAtOnceWithSackBlocksNewestFirst) {
  Rx r(1000);
  r.data(0, kMss);  // delayed
  r.clear();
  // Holes before each of four blocks: [2,3) [4,5) [6,7) [8,9) in segments.
  for (std::uint32_t k : {2u, 4u, 6u, 8u}) r.data(k * kMss, kMss);
  ASSERT_EQ(r.out.size(), 4u);
  for (const Packet& p : r.out) EXPECT_EQ(r.rel(p.tcp.ack), kMss);
  // The first ACK: one block; then the newest block first.
  EXPECT_EQ(r.out[0].tcp.sack_block_count, 1);
  EXPECT_EQ(r.rel(r.out[1].tcp.sack_blocks[0].start), 4 * kMss);
  EXPECT_EQ(r.rel(r.out[1].tcp.sack_blocks[1].start), 2 * kMss);
  // Four blocks kept, three fit beside the timestamps (tcp_addoptions).
  const Packet& last = r.out[3];
  EXPECT_EQ(r.tcb().tcpcb().rcv_numsacks, 4);
  EXPECT_EQ(last.tcp.sack_block_count, 3);
  EXPECT_EQ(r.rel(last.tcp.sack_blocks[0].start), 8 * kMss);
  EXPECT_EQ(r.rel(last.tcp.sack_blocks[1].start), 6 * kMss);
  EXPECT_EQ(r.rel(last.tcp.sack_blocks[2].start), 4 * kMss);
  EXPECT_EQ(last.l4_header_bytes, kTcpHeaderBytes + 12 + 4 + 24);
  EXPECT_EQ(r.tcb().tcpcb().t_segqlen, 4);
  EXPECT_EQ(r.rx->stats(r.conn).ofo_packets, 4u);
  EXPECT_EQ(tcp_sack_blocks_that_fit(true), 3);
  EXPECT_EQ(tcp_sack_blocks_that_fit(false), 4);
}

TEST(FreeBsdTcpReceiver, AdjacentOutOfOrderSegmentsShareOneQueueEntry) {
  Rx r(1000);
  r.data(2 * kMss, kMss);
  r.data(3 * kMss, kMss);
  EXPECT_EQ(r.tcb().tcpcb().t_segqlen, 1);
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_EQ(r.out[1].tcp.sack_block_count, 1);
  EXPECT_EQ(r.rel(r.out[1].tcp.sack_blocks[0].start), 2 * kMss);
  EXPECT_EQ(r.rel(r.out[1].tcp.sack_blocks[0].end), 4 * kMss);
}

TEST(FreeBsdTcpReceiver, DuplicateDataIsReportedWithDsack) {
  Rx r(1000);
  r.data(0, kMss);
  r.data(kMss, kMss);  // ACKed
  r.clear();
  r.data(0, kMss);  // entirely old
  ASSERT_EQ(r.out.size(), 1u);
  const Packet& p = r.out[0];
  EXPECT_EQ(r.rel(p.tcp.ack), 2 * kMss);
  ASSERT_EQ(p.tcp.sack_block_count, 1);
  EXPECT_EQ(r.rel(p.tcp.sack_blocks[0].start), 0u);
  EXPECT_EQ(r.rel(p.tcp.sack_blocks[0].end), kMss);
  EXPECT_EQ(r.tcb().tcpcb().rcv_numsacks, 0) << "a D-SACK block is sent once";
  EXPECT_EQ(r.rx->stats(r.conn).dsack_acks_sent, 1u);
  EXPECT_EQ(r.rx->stats(r.conn).duplicate_packets, 1u);
}

TEST(FreeBsdTcpReceiver, DuplicateOfQueuedDataGetsDsackThenItsBlock) {
  Rx r(1000);
  r.data(2 * kMss, 2 * kMss, 2);
  r.clear();
  r.data(2 * kMss, kMss);
  ASSERT_EQ(r.out.size(), 1u);
  const Packet& p = r.out[0];
  ASSERT_EQ(p.tcp.sack_block_count, 2);
  EXPECT_EQ(r.rel(p.tcp.sack_blocks[0].start), 2 * kMss);  // D-SACK: the duplicate
  EXPECT_EQ(r.rel(p.tcp.sack_blocks[0].end), 3 * kMss);
  EXPECT_EQ(r.rel(p.tcp.sack_blocks[1].start), 2 * kMss);  // the block it lies in
  EXPECT_EQ(r.rel(p.tcp.sack_blocks[1].end), 4 * kMss);
}

TEST(FreeBsdTcpReceiver, HoleFillIsAckedAtOnceAndRcvNxtJumps) {
  Rx r(1000);
  r.data(kMss, 3 * kMss, 3);
  r.data(5 * kMss, kMss);
  EXPECT_EQ(r.tcb().tcpcb().t_segqlen, 2);
  r.clear();
  r.read.clear();
  r.data(0, kMss);  // fills the first hole
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.rel(r.out[0].tcp.ack), 4 * kMss);
  EXPECT_EQ(r.tcb().tcpcb().t_segqlen, 1);
  ASSERT_EQ(r.out[0].tcp.sack_block_count, 1);  // the block above the remaining hole
  EXPECT_EQ(r.rel(r.out[0].tcp.sack_blocks[0].start), 5 * kMss);
  EXPECT_EQ(r.read, (std::vector<std::uint64_t>{4 * kMss}));
  r.clear();
  r.data(4 * kMss, kMss);  // the last hole
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.rel(r.out[0].tcp.ack), 6 * kMss);
  EXPECT_EQ(r.out[0].tcp.sack_block_count, 0);
  EXPECT_EQ(r.tcb().tcpcb().t_segqlen, 0);
}

TEST(FreeBsdTcpReceiver, DataCarryingSackBlocksIsShortenedToFitTheMtu) {
  Rx r(1000);
  r.data(2 * kMss, kMss);  // a hole: one SACK block stays in the report
  r.clear();
  ASSERT_TRUE(r.rx->send(r.conn, 3000));
  ASSERT_FALSE(r.out.empty());
  for (const Packet& p : r.out) {
    EXPECT_EQ(p.tcp.sack_block_count, 1);
    EXPECT_LE(p.ip_bytes(), 1500u);
  }
  EXPECT_EQ(r.out[0].payload_bytes, kMss - 12) << "t_maxseg less the timestamps and one block";
}

TEST(FreeBsdTcpReceiver, ReassemblyQueueIsLimitedBySegmentsOfTheBuffer) {
  FreeBsdTcpConfig cfg;
  cfg.recvspace = 8 * 1460;  // queue limit: hiwat / t_maxseg + 1 = 9 entries
  cfg.recvbuf_auto = false;
  Rx r(1000, cfg);
  for (std::uint32_t k = 0; k < 12; ++k) r.data((2 * k + 1) * 100, 50);
  EXPECT_EQ(r.tcb().tcpcb().t_segqlen, 9);
  EXPECT_EQ(r.rx->stats(r.conn).ofo_drops, 3u);
}

TEST(FreeBsdTcpReceiver, WindowIsTheBuffersFreeSpaceRoundedToTheScale) {
  Rx r(1000);
  // tcp_mss rounded recvspace 65536 up to 45 * 1460; wscale 6 (the default offer).
  EXPECT_EQ(r.tcb().receive_buffer_hiwat(), 65700u);
  EXPECT_EQ(r.tcb().rcv_scale(), 6);
  r.data(0, 4 * kMss, 4);  // ACKed at once, before the application reads
  ASSERT_EQ(r.out.size(), 1u);
  const std::uint32_t free_space = 65700 - 4 * kMss;
  EXPECT_EQ(r.out[0].tcp.window, (free_space + 63) / 64);
  EXPECT_EQ(r.tcb().receive_buffer_used(), 0u) << "read at once";
}

TEST(FreeBsdTcpReceiver, ZeroWindowThenWindowUpdateAfterTheRead) {
  FreeBsdTcpConfig cfg;
  cfg.recvbuf_auto = false;
  Rx r(1000, cfg);
  // An aggregate that fills the buffer: the ACK says window 0 (free space
  // below a segment and a quarter of the buffer); the read opens it and
  // tcp_output sends a window update.
  r.data(0, 65700, 45);
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_EQ(r.out[0].tcp.window, 0u);
  EXPECT_EQ(r.out[1].tcp.window, 65728u / 64);
  EXPECT_EQ(r.out[1].tcp.ack, r.out[0].tcp.ack);
  EXPECT_EQ(r.tcb().stats().window_updates, 1u);
}

TEST(FreeBsdTcpReceiver, AutotuningGrowsTheBufferByHalfPerStep) {
  Rx r(100);
  std::uint32_t off = 0;
  std::vector<std::uint32_t> sizes{r.tcb().receive_buffer_hiwat()};
  // A stream of 44-segment aggregates, two per millisecond (about 10 Gbit/s),
  // for 300 ms: more than 3/8 of the buffer arrives in every 10 ms tick.
  for (int ms = 0; ms < 300; ++ms) {
    for (int k = 0; k < 2; ++k) {
      r.data(off, 44 * kMss, 44);
      off += 44 * kMss;
    }
    r.sim.run_until(r.sim.now() + 1_ms);
    if (r.tcb().receive_buffer_hiwat() != sizes.back()) sizes.push_back(r.tcb().receive_buffer_hiwat());
  }
  // 65700 * 1.5^n up to the last size sbreserve accepts (2 MB * 2048/2304).
  const std::vector<std::uint32_t> want{65700, 98550, 147825, 221737, 332605, 498907, 748360, 1122540, 1683810};
  EXPECT_EQ(sizes, want);
  EXPECT_FALSE(r.tcb().receive_buffer_autosize()) << "2 MB refused: autotuning stops";
}

// Bulk transfer to a FreeBSD receiver over 1 Gbit/s, 100 us: from a
// FreeBSD or a Linux sender, every 300th packet to the receiver dropped.
struct Bulk {
  double mbps = 0;
  TcpReceiverStats rx;
  std::uint64_t recoveries = 0;
  std::uint64_t drops = 0;
};

Bulk run_bulk(bool linux_sender, SimTime duration) {
  Simulation sim(3);
  auto [a, b] = two_host_link(sim, 100);
  FreeBsdTcpReceiverConfig rc;
  auto& rx = sim.add<FreeBsdTcpReceiver>("rx", *a, rc);
  MatchRule m;
  m.protocol = IpProtocol::tcp;
  m.dst_port = 5201;
  auto& rule = sim.add<NthDropFilter>("nth", m, 300, 299);
  a->add_filter(Hook::ingress, &rule);
  TcpSendSocket* tx = nullptr;
  if (linux_sender) {
    tx = &sim.add<lnx::LinuxTcpSender>("tx", *b, a->id(), 5201, lnx::LinuxTcpConfig{});
  } else {
    tx = &sim.add<FreeBsdTcpSender>("tx", *b, a->id(), 5201, FreeBsdTcpConfig{});
  }
  tx->set_unlimited_data(true);
  tx->connect();
  sim.run_until(duration);
  Bulk r;
  r.mbps = static_cast<double>(rx.total_stats().bytes_delivered) * 8 / to_seconds(duration) / 1e6;
  r.rx = rx.total_stats();
  r.recoveries = tx->info().recovery_episodes;
  r.drops = rule.dropped();
  return r;
}

TEST(FreeBsdTcpReceiver, BulkFromFreeBsdAndLinuxRecoversWithSack) {
  for (bool linux_sender : {false, true}) {
    SCOPED_TRACE(linux_sender ? "linux -> freebsd" : "freebsd -> freebsd");
    const Bulk r = run_bulk(linux_sender, 2_s);
    EXPECT_GT(r.drops, 10u);
    EXPECT_GT(r.mbps, 300.0);
    EXPECT_GT(r.rx.sack_acks_sent, 0u);
    EXPECT_GT(r.rx.ofo_packets, 0u);
    EXPECT_GT(r.recoveries, 0u);
    // Deterministic.
    const Bulk again = run_bulk(linux_sender, 2_s);
    EXPECT_EQ(again.rx.bytes_delivered, r.rx.bytes_delivered);
  }
}

// Through the scenario runner: iperf3 (-P 2), iperf2 and iperf3 -R with a
// FreeBSD `to`, and a Linux sender, each flow alone on the path for 300 ms.
TEST(FreeBsdTcpReceiver, ScenarioAppsRunOnAFreeBsdReceivingHost) {
  const ScenarioSpec spec =
      load_scenario(std::string(NETSIM_SOURCE_DIR) + "/tests/data/scenarios/good/freebsd_receiver.yaml");
  {
    BuiltScenario b = build_scenario(spec);
    for (const BuiltTcpFlow& f : b.tcp_flows) {
      if (f.receiver != nullptr) {
        EXPECT_NE(dynamic_cast<FreeBsdTcpReceiver*>(f.receiver), nullptr) << f.spec->name;
      }
    }
  }
  const results::RunResult r = run_scenario(spec);
  ASSERT_EQ(r.flows_size(), 4);
  for (const auto& f : r.flows()) {
    SCOPED_TRACE(f.name());
    EXPECT_GT(f.receiver_mbps(), 800.0);
  }
}

// A host without `os` still receives with the Linux receiver (as before the
// FreeBSD receiver existed); `os: freebsd` or `os: linux` picks the stack.
TEST(FreeBsdTcpReceiver, ReceiveStackFollowsAnExplicitOs) {
  for (const char* os : {"", ", os: freebsd", ", os: linux"}) {
    SCOPED_TRACE(os);
    const ScenarioSpec spec = parse_scenario_text(std::string("name: os\nduration: 10ms\nhosts:\n"
                                                              "  a: { address: 10.0.0.1 }\n  b: { address: 10.0.0.2") +
                                                      os + " }\nlinks:\n  a-b: { ends: [a, b], rate: 1Gbps }\n"
                                                           "traffic:\n  t: { type: tcp, from: a, to: b }\n",
                                                  "inline.yaml");
    BuiltScenario b = build_scenario(spec);
    const bool freebsd = std::string(os) == ", os: freebsd";
    EXPECT_EQ(dynamic_cast<FreeBsdTcpReceiver*>(b.tcp_flows[0].receiver) != nullptr, freebsd);
    EXPECT_EQ(dynamic_cast<LinuxTcpReceiver*>(b.tcp_flows[0].receiver) != nullptr, !freebsd);
  }
}

}  // namespace
}  // namespace netsim::tcp
