// LinuxTcpReceiver driven by a scripted peer on another host (two hosts and a
// link, wired by hand). Expected ACKs are worked out by hand from the Linux
// 5.15 rules quoted in the comments.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/nic/gro_receive_nic.h"
#include "netsim/tcp/linux_tcp_receiver.h"

namespace netsim::tcp {
namespace {

using namespace netsim::literals;

constexpr std::uint16_t kPeerPort = 40000;
constexpr std::uint32_t kPeerIss = 5000;
constexpr std::uint32_t kBase = kPeerIss + 1;  // first data byte
constexpr std::uint32_t kMss = 1448;
constexpr std::uint32_t kRxIss = 0x10000000;   // LinuxTcpConfig::iss

std::uint32_t at(std::uint32_t k) { return kBase + k * kMss; }

// A scripted TCP peer: sends copies of template packets at given times and
// records everything it receives. It echoes the last TSval it saw.
struct Peer final : Endpoint, EventHandler {
  Simulation& sim;
  Host& host;
  std::uint16_t port;
  std::vector<Packet> tmpl;
  std::vector<std::pair<SimTime, Packet>> rx;
  std::uint32_t last_tsval = 0;
  std::uint32_t rx_iss = 0;  // the receiver's ISS, from its SYN-ACK
  Peer(Simulation& s, Host& h, std::uint16_t p) : sim(s), host(h), port(p) { h.bind(IpProtocol::tcp, p, this); }
  void deliver(Packet* p) override {
    rx.emplace_back(sim.now(), *p);
    if (p->tcp.ts_present) last_tsval = p->tcp.ts_val;
    if ((p->tcp.flags & tcp_flags::kSyn) != 0) rx_iss = p->tcp.seq;
    sim.packets().release(p);
  }
  void send_at(SimTime t, const Packet& p) {
    tmpl.push_back(p);
    sim.schedule_at(t, this, tmpl.size() - 1);
  }
  void handle_event(std::uint64_t tag) override {
    Packet* p = sim.packets().clone(tmpl[tag]);
    if (p->tcp.ts_present && (p->tcp.flags & tcp_flags::kSyn) == 0) p->tcp.ts_ecr = last_tsval;
    if ((p->tcp.flags & tcp_flags::kAck) != 0 && p->tcp.ack == 0) p->tcp.ack = rx_iss + 1;  // "ACK the SYN-ACK"
    host.send(p);
  }
  Packet base(std::uint8_t flags) const {
    Packet p;
    p.protocol = IpProtocol::tcp;
    p.dst = 1;
    p.src_port = port;
    p.dst_port = 5201;
    p.tcp.flags = flags;
    p.tcp.window = 1000;
    return p;
  }
  Packet syn(bool options = true) const {
    Packet p = base(tcp_flags::kSyn);
    p.tcp.seq = kPeerIss;
    if (options) {
      p.tcp.mss = 1460;
      p.tcp.wscale = 6;
      p.tcp.sack_permitted = true;
      p.tcp.ts_present = true;
      p.tcp.ts_val = 1000;
    }
    p.l4_header_bytes = kTcpHeaderBytes + p.tcp.option_bytes();
    return p;
  }
  // A segment of `len` bytes at sequence `seq` (ACK of the handshake), TSval `ts`.
  Packet data(std::uint32_t seq, std::uint32_t len, std::uint32_t ts = 2000, std::uint8_t extra = 0) const {
    Packet p = base(static_cast<std::uint8_t>(tcp_flags::kAck | extra));
    p.tcp.seq = seq;
    p.tcp.ack = 0;  // filled in at send time: the receiver's ISS + 1
    p.tcp.ts_present = true;
    p.tcp.ts_val = ts;
    p.l4_header_bytes = kTcpHeaderBytes + p.tcp.option_bytes();
    p.payload_bytes = len;
    return p;
  }
  std::size_t acks() const { return rx.size(); }
  const Packet& last() const { return rx.back().second; }
};

struct Net {
  Simulation sim{1};
  Host* a;
  Host* b;
  Link* link;
  LinuxTcpReceiver* rx;
  std::unique_ptr<Peer> peer;
  std::vector<SimTime> sent_at;  // receiver transmissions
  std::vector<LinuxTcpReceiver::ConnId> accepted;
  std::uint64_t delivered = 0;

  explicit Net(int hz_b = 250, std::uint32_t mtu = 1500, LinuxTcpConfig cfg = {}) {
    a = &sim.add<Host>("a", 0, "10.0.0.1", IpVersion::v4, 1000);
    b = &sim.add<Host>("b", 1, "10.0.0.2", IpVersion::v4, hz_b);
    ChannelConfig c;
    c.rate = 1_Gbps;
    c.delay = 10_us;
    c.mtu = mtu;
    link = &sim.add<Link>("a-b", *a, *b, c, c);
    a->set_forwarding({-1, 0});
    b->set_forwarding({0, -1});
    rx = &sim.add<LinuxTcpReceiver>("rx", *b, cfg);
    rx->set_on_transmit([this](LinuxTcpReceiver::ConnId, const Packet&) { sent_at.push_back(sim.now()); });
    rx->set_on_accept([this](LinuxTcpReceiver::ConnId c) { accepted.push_back(c); });
    rx->set_on_data([this](LinuxTcpReceiver::ConnId, std::uint64_t n) { delivered += n; });
    peer = std::make_unique<Peer>(sim, *a, kPeerPort);
  }
  // SYN at t, third ACK 300 us later; returns the connection.
  LinuxTcpReceiver::ConnId establish(SimTime t = 0) {
    peer->send_at(t, peer->syn());
    peer->send_at(t + 300_us, peer->data(kBase, 0));
    sim.run_until(t + 500_us);
    return rx->find(0, kPeerPort);
  }
  // n full segments k = first.., `gap` apart from t; returns the time after the last.
  SimTime segments(SimTime t, std::uint32_t first, std::uint32_t n, SimTime gap = 100_us) {
    for (std::uint32_t k = first; k < first + n; ++k, t += gap) peer->send_at(t, peer->data(at(k), kMss, 2000 + k));
    return t;
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sacks(const Packet& p) const {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> v;
    for (int i = 0; i < p.tcp.sack_block_count; ++i) v.emplace_back(p.tcp.sack_blocks[i].start, p.tcp.sack_blocks[i].end);
    return v;
  }
};

using Blocks = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

TEST(LinuxTcpReceiver, SynAckCarriesLinuxOptions) {
  Net net;
  net.peer->send_at(0, net.peer->syn());
  net.sim.run_until(200_us);
  ASSERT_EQ(net.peer->acks(), 1u);
  const Packet& sa = net.peer->last();
  EXPECT_EQ(sa.tcp.flags, tcp_flags::kSyn | tcp_flags::kAck);
  EXPECT_EQ(sa.tcp.seq, kRxIss);
  EXPECT_EQ(sa.tcp.ack, kPeerIss + 1);
  EXPECT_EQ(sa.tcp.mss, 1460);     // MTU 1500 - 20 - 20
  EXPECT_EQ(sa.tcp.wscale, 7);     // 6 MB tcp_rmem[2]
  EXPECT_TRUE(sa.tcp.sack_permitted);
  EXPECT_TRUE(sa.tcp.ts_present);
  EXPECT_EQ(sa.tcp.ts_ecr, 1000u);
  // 65536 rounded down to a multiple of 1448 (the MSS less the TS option).
  EXPECT_EQ(sa.tcp.window, 65160u);
  // MSS 4 + WS 4 + SACK-permitted sharing the timestamp word 12.
  EXPECT_EQ(sa.l4_header_bytes, 40u);
  EXPECT_EQ(sa.src_port, 5201);
  EXPECT_EQ(sa.dst_port, kPeerPort);
  EXPECT_EQ(sa.dst, 0u);
  EXPECT_EQ(net.rx->state(net.rx->find(0, kPeerPort)), LinuxTcpReceiver::State::syn_recv);
  // The third ACK establishes the connection.
  net.peer->send_at(300_us, net.peer->data(kBase, 0));
  net.sim.run_until(500_us);
  const auto c = net.rx->find(0, kPeerPort);
  ASSERT_GE(c, 0);
  EXPECT_EQ(net.rx->state(c), LinuxTcpReceiver::State::established);
  EXPECT_EQ(net.accepted, (std::vector<LinuxTcpReceiver::ConnId>{c}));
  EXPECT_EQ(net.rx->rcv_mss(c), 536u);  // tcp_initialize_rcv_mss: min(.., TCP_MSS_DEFAULT)
  EXPECT_GT(net.rx->srtt_us(c), 0u);
}

TEST(LinuxTcpReceiver, SynWithoutOptionsGetsOnlyMss) {
  Net net;
  net.peer->send_at(0, net.peer->syn(false));
  net.sim.run_until(200_us);
  ASSERT_EQ(net.peer->acks(), 1u);
  const Packet& sa = net.peer->last();
  EXPECT_EQ(sa.tcp.mss, 1460);
  EXPECT_EQ(sa.tcp.wscale, 0xff);
  EXPECT_FALSE(sa.tcp.sack_permitted);
  EXPECT_FALSE(sa.tcp.ts_present);
  EXPECT_EQ(sa.tcp.window, 64240u);  // 65536 rounded down to a multiple of 1460
  EXPECT_EQ(sa.l4_header_bytes, 24u);
}

TEST(LinuxTcpReceiver, QuickacksThenEverySecondFullSegment) {
  Net net;
  const auto c = net.establish();
  ASSERT_GE(c, 0);
  const std::size_t before = net.peer->acks();
  net.segments(1_ms, 0, 24);
  net.sim.run_until(5_ms);
  // Quickack: rcv_wnd / (2 * rcv_mss) capped at 16 -> one ACK per segment for
  // segments 0..15; then ACK when more than one rcv_mss is unacknowledged:
  // after segments 17, 19, 21, 23.
  ASSERT_EQ(net.peer->acks() - before, 20u);
  for (std::uint32_t k = 0; k < 16; ++k) EXPECT_EQ(net.peer->rx[before + k].second.tcp.ack, at(k + 1)) << k;
  for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(net.peer->rx[before + 16 + i].second.tcp.ack, at(18 + 2 * i)) << i;
  // TS.Recent is the TSval of the segment at rcv_wup (RFC 7323): the first of each pair.
  EXPECT_EQ(net.peer->rx[before + 16].second.tcp.ts_ecr, 2000u + 16u);
  EXPECT_EQ(net.peer->rx[before + 19].second.tcp.ts_ecr, 2000u + 22u);
  EXPECT_EQ(net.rx->quick(c), 0);
  EXPECT_EQ(net.rx->rcv_mss(c), kMss);
  EXPECT_FALSE(net.rx->delack_pending(c));
  const TcpReceiverStats& s = net.rx->stats(c);
  EXPECT_EQ(s.acks_sent, 20u);
  EXPECT_EQ(s.quickack_acks, 16u);
  EXPECT_EQ(s.segments_received, 24u);
  EXPECT_EQ(s.bytes_delivered, 24u * kMss);
  EXPECT_EQ(net.delivered, 24u * kMss);
  // The advertised window after the handshake: 6 MB >> 7.
  EXPECT_EQ(net.peer->last().tcp.window, 49152u);
}

TEST(LinuxTcpReceiver, DelayedAckFiresOnATickEdge40msLater) {
  Net net(250);
  const auto c = net.establish();
  net.segments(1_ms, 0, 16);  // quickack used up
  net.sim.run_until(5_ms);
  const std::size_t before = net.sent_at.size();
  const SimTime t0 = 10_ms;
  net.peer->send_at(t0, net.peer->data(at(16), kMss, 9));
  net.sim.run_until(100_ms);
  ASSERT_EQ(net.sent_at.size(), before + 1);
  // Arrival: 1538 bytes at 1 Gbit/s (12.304 us) + 10 us. ato = TCP_ATO_MIN =
  // HZ/25 = 10 jiffies; the timer fires at the edge where jiffies = now + 10.
  const SimTime arrival = t0 + 12'304_ns + 10_us;
  const TickClock& clk = net.b->clock();
  const SimTime expected = clk.time_of_tick(clk.ticks_at(arrival) + 10);
  EXPECT_EQ(net.sent_at.back(), expected);
  EXPECT_GT(expected - arrival, 36_ms);
  EXPECT_LE(expected - arrival, 40_ms);
  EXPECT_EQ(net.peer->last().tcp.ack, at(17));
  EXPECT_EQ(net.rx->stats(c).delayed_acks, 1u);
  // The delayed ACK missed: ato doubles (tcp_delack_timer_handler).
  EXPECT_EQ(net.rx->ato(c), 20);
}

TEST(LinuxTcpReceiver, DelayedAckAtHz1000) {
  Net net(1000);
  net.establish();
  net.segments(1_ms, 0, 16);
  net.sim.run_until(5_ms);
  const std::size_t before = net.sent_at.size();
  net.peer->send_at(10_ms, net.peer->data(at(16), kMss));
  net.sim.run_until(100_ms);
  ASSERT_EQ(net.sent_at.size(), before + 1);
  const SimTime arrival = 10_ms + 12'304_ns + 10_us;
  const TickClock& clk = net.b->clock();
  EXPECT_EQ(net.sent_at.back(), clk.time_of_tick(clk.ticks_at(arrival) + 40));
}

TEST(LinuxTcpReceiver, OutOfOrderAckImmediatelyWithSackBlocksMostRecentFirst) {
  Net net;
  const auto c = net.establish();
  net.segments(1_ms, 0, 16);
  net.sim.run_until(5_ms);
  const std::size_t before = net.peer->acks();
  // Holes at 16 and 20.
  net.peer->send_at(6_ms, net.peer->data(at(17), kMss));
  net.peer->send_at(7_ms, net.peer->data(at(19), kMss));
  net.peer->send_at(8_ms, net.peer->data(at(21), kMss));
  net.sim.run_until(9_ms);
  ASSERT_EQ(net.peer->acks() - before, 3u);
  const Packet& a1 = net.peer->rx[before].second;
  const Packet& a2 = net.peer->rx[before + 1].second;
  const Packet& a3 = net.peer->rx[before + 2].second;
  for (const Packet* p : {&a1, &a2, &a3}) EXPECT_EQ(p->tcp.ack, at(16));
  EXPECT_EQ(net.sacks(a1), (Blocks{{at(17), at(18)}}));
  EXPECT_EQ(net.sacks(a2), (Blocks{{at(19), at(20)}, {at(17), at(18)}}));
  EXPECT_EQ(net.sacks(a3), (Blocks{{at(21), at(22)}, {at(19), at(20)}, {at(17), at(18)}}));
  // Each ACK was sent the moment the segment arrived.
  EXPECT_EQ(net.sent_at[net.sent_at.size() - 1], 8_ms + 22'304_ns);
  EXPECT_EQ(a3.l4_header_bytes, 20u + 12u + 4u + 24u);

  // Segment 18 joins 17 and 19: the extended block moves to the front and
  // absorbs its neighbour. It is the 4th dupack for the same rcv_nxt, so SACK
  // compression holds it for min(1 ms, 5 % of the RTT).
  const std::size_t sent_before = net.sent_at.size();
  net.peer->send_at(10_ms, net.peer->data(at(18), kMss));
  net.sim.run_until(12_ms);
  ASSERT_EQ(net.peer->acks() - before, 4u);
  const Packet& a4 = net.peer->last();
  EXPECT_EQ(a4.tcp.ack, at(16));
  EXPECT_EQ(net.sacks(a4), (Blocks{{at(17), at(20)}, {at(21), at(22)}}));
  const SimTime arrival18 = 10_ms + 22'304_ns;
  ASSERT_EQ(net.sent_at.size(), sent_before + 1);
  EXPECT_GT(net.sent_at.back(), arrival18);
  EXPECT_LE(net.sent_at.back(), arrival18 + 1_ms);

  // Segment 16 fills the first hole: rcv_nxt jumps over 17..19, the ACK goes
  // at once (more than one MSS advanced) and keeps the block for 21.
  net.peer->send_at(13_ms, net.peer->data(at(16), kMss));
  net.sim.run_until(14_ms);
  EXPECT_EQ(net.peer->last().tcp.ack, at(20));
  EXPECT_EQ(net.sacks(net.peer->last()), (Blocks{{at(21), at(22)}}));
  // Segment 20 fills the last hole: ICSK_ACK_NOW, no SACK blocks left.
  net.peer->send_at(15_ms, net.peer->data(at(20), kMss));
  net.sim.run_until(16_ms);
  EXPECT_EQ(net.peer->acks() - before, 6u);
  EXPECT_EQ(net.peer->last().tcp.ack, at(22));
  EXPECT_EQ(net.peer->last().tcp.sack_block_count, 0);
  EXPECT_EQ(net.rx->ofo_ranges(c), 0u);
  const TcpReceiverStats& s = net.rx->stats(c);
  EXPECT_EQ(s.ofo_packets, 4u);
  EXPECT_EQ(s.sack_acks_sent, 5u);
  EXPECT_EQ(s.bytes_delivered, 22u * kMss);
}

TEST(LinuxTcpReceiver, FourthDupackOnwardIsCompressed) {
  LinuxTcpConfig cfg;
  cfg.comp_sack_slack = 200_us;  // hold the compressed ACK past the whole burst
  Net net(250, 1500, cfg);
  const auto c = net.establish();
  net.segments(1_ms, 0, 16);
  net.sim.run_until(5_ms);
  const std::size_t before = net.peer->acks();
  // Hole at 16; segments 17..26 arrive back to back.
  for (std::uint32_t k = 17; k <= 26; ++k) net.peer->send_at(6_ms, net.peer->data(at(k), kMss));
  net.sim.run_until(8_ms);
  // Three immediate dupacks (TCP_FASTRETRANS_THRESH), then one compressed
  // ACK for the remaining seven when the hrtimer fires: six are never sent.
  ASSERT_EQ(net.peer->acks() - before, 4u);
  EXPECT_EQ(net.sacks(net.peer->last()), (Blocks{{at(17), at(27)}}));
  EXPECT_EQ(net.rx->stats(c).compressed_acks, 6u);
}

TEST(LinuxTcpReceiver, DuplicateGetsDsackAndReentersQuickack) {
  Net net;
  const auto c = net.establish();
  net.segments(1_ms, 0, 20);
  net.sim.run_until(5_ms);
  EXPECT_EQ(net.rx->quick(c), 0);
  const std::size_t before = net.peer->acks();
  net.peer->send_at(6_ms, net.peer->data(at(3), kMss));  // spurious retransmission
  net.sim.run_until(7_ms);
  ASSERT_EQ(net.peer->acks() - before, 1u);
  EXPECT_EQ(net.peer->last().tcp.ack, at(20));
  EXPECT_EQ(net.sacks(net.peer->last()), (Blocks{{at(3), at(4)}}));
  EXPECT_EQ(net.rx->stats(c).dsack_acks_sent, 1u);
  EXPECT_EQ(net.rx->stats(c).duplicate_packets, 1u);
  // tcp_enter_quickack_mode(TCP_MAX_QUICKACKS) ran; one quick ACK used by this ACK.
  EXPECT_EQ(net.rx->quick(c), 15);

  // D-SACK for a duplicate of out-of-order data: the D-SACK block comes first,
  // followed by the SACK block that contains it (RFC 2883).
  net.peer->send_at(8_ms, net.peer->data(at(22), kMss));
  net.peer->send_at(9_ms, net.peer->data(at(22), kMss));
  net.sim.run_until(10_ms);
  EXPECT_EQ(net.sacks(net.peer->last()), (Blocks{{at(22), at(23)}, {at(22), at(23)}}));
  EXPECT_EQ(net.rx->stats(c).dsack_acks_sent, 2u);
}

TEST(LinuxTcpReceiver, AggregateOfTenSegmentsGetsOneAck) {
  Net net(250, 65535);  // the test link carries a GRO-sized packet as is
  const auto c = net.establish();
  net.segments(1_ms, 0, 16);
  net.sim.run_until(5_ms);
  const std::size_t before = net.peer->acks();
  Packet agg = net.peer->data(at(16), 10 * kMss, 3000);
  agg.segments = 10;
  net.peer->send_at(6_ms, agg);
  net.sim.run_until(7_ms);
  ASSERT_EQ(net.peer->acks() - before, 1u);
  EXPECT_EQ(net.peer->last().tcp.ack, at(26));
  EXPECT_EQ(net.peer->last().tcp.ts_ecr, 3000u);
  EXPECT_FALSE(net.rx->delack_pending(c));
  EXPECT_EQ(net.rx->stats(c).segments_received, 26u);
  EXPECT_EQ(net.rx->stats(c).packets_received, 17u);
  EXPECT_EQ(net.rx->rcv_mss(c), kMss);  // gso_size of the aggregate
}

TEST(LinuxTcpReceiver, TenWireSegmentsThroughGroNicGetOneAck) {
  Net net;
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 150_us;  // 10 frames of 12.304 us fit before the poll
  GroReceiveNic& nic = net.sim.add<GroReceiveNic>("nic", *net.b, net.link->port_at_b(), cfg);
  nic.attach(net.link->a_to_b());
  const auto c = net.establish();
  net.segments(1_ms, 0, 16, 300_us);  // one poll each
  net.sim.run_until(8_ms);
  const std::size_t before = net.peer->acks();
  for (std::uint32_t k = 16; k < 26; ++k) net.peer->send_at(10_ms, net.peer->data(at(k), kMss, 50));
  net.sim.run_until(11_ms);
  ASSERT_EQ(net.peer->acks() - before, 1u);
  EXPECT_EQ(net.peer->last().tcp.ack, at(26));
  EXPECT_EQ(nic.counters().max_aggregate_segments, 10u);
  EXPECT_EQ(net.rx->stats(c).segments_received, 26u);
}

TEST(LinuxTcpReceiver, ControlDataBothWaysWithRetransmitOnTimeout) {
  Net net;
  const auto c = net.establish();
  // The iperf3 cookie (37 bytes) from the peer: first data -> quickack.
  net.peer->send_at(1_ms, net.peer->data(kBase, 37, 2000, tcp_flags::kPush));
  net.sim.run_until(2_ms);
  EXPECT_EQ(net.delivered, 37u);
  EXPECT_EQ(net.peer->last().tcp.ack, kBase + 37);
  // The server writes one byte (a state change); the peer never ACKs it.
  const std::size_t before = net.peer->acks();
  ASSERT_TRUE(net.rx->send(c, 1));
  net.sim.run_until(3_ms);
  ASSERT_EQ(net.peer->acks() - before, 1u);
  EXPECT_EQ(net.peer->last().payload_bytes, 1u);
  EXPECT_EQ(net.peer->last().tcp.seq, kRxIss + 1);
  EXPECT_NE(net.peer->last().tcp.flags & tcp_flags::kPush, 0);
  // RTO = srtt + max(2 srtt, 200 ms) in jiffies: one retransmission by ~205 ms.
  net.sim.run_until(300_ms);
  EXPECT_EQ(net.rx->stats(c).retransmits, 1u);
  EXPECT_EQ(net.peer->last().tcp.seq, kRxIss + 1);
  // The peer ACKs it: nothing more is sent.
  net.peer->send_at(301_ms, [&] {
    Packet p = net.peer->data(kBase + 37, 0);
    p.tcp.ack = kRxIss + 2;
    return p;
  }());
  net.sim.run_until(2'000_ms);
  EXPECT_EQ(net.rx->stats(c).retransmits, 1u);
  EXPECT_EQ(net.rx->stats(c).data_segments_sent, 2u);
}

TEST(LinuxTcpReceiver, PeerFinThenCloseFreesTheSlot) {
  Net net;
  bool fin_seen = false;
  net.rx->set_on_peer_fin([&](LinuxTcpReceiver::ConnId) { fin_seen = true; });
  const auto c = net.establish();
  net.peer->send_at(1_ms, net.peer->data(kBase, 0, 2000, tcp_flags::kFin));
  net.sim.run_until(2_ms);
  EXPECT_TRUE(fin_seen);
  EXPECT_EQ(net.rx->state(c), LinuxTcpReceiver::State::close_wait);
  net.rx->close(c);
  net.sim.run_until(3_ms);
  const Packet& fin = net.peer->last();
  EXPECT_NE(fin.tcp.flags & tcp_flags::kFin, 0);
  EXPECT_EQ(fin.tcp.ack, kBase + 1);
  net.peer->send_at(4_ms, [&] {
    Packet p = net.peer->data(kBase + 1, 0);
    p.tcp.ack = kRxIss + 2;
    return p;
  }());
  net.sim.run_until(5_ms);
  EXPECT_EQ(net.rx->find(0, kPeerPort), -1);
  EXPECT_EQ(net.rx->state(c), LinuxTcpReceiver::State::closed);
}

TEST(LinuxTcpReceiver, TwoConnectionsOnOnePort) {
  Net net;
  Peer second(net.sim, *net.a, kPeerPort + 1);
  const auto c1 = net.establish();
  second.send_at(1_ms, second.syn());
  second.send_at(1_ms + 300_us, second.data(kBase, 0));
  net.sim.run_until(2_ms);
  const auto c2 = net.rx->find(0, kPeerPort + 1);
  ASSERT_GE(c1, 0);
  ASSERT_GE(c2, 0);
  EXPECT_NE(c1, c2);
  EXPECT_EQ(net.accepted.size(), 2u);
  second.send_at(3_ms, second.data(kBase, 100));
  net.peer->send_at(3_ms, net.peer->data(kBase, 200));
  net.sim.run_until(4_ms);
  EXPECT_EQ(net.rx->stats(c1).bytes_delivered, 200u);
  EXPECT_EQ(net.rx->stats(c2).bytes_delivered, 100u);
  EXPECT_EQ(net.rx->total_stats().bytes_delivered, 300u);
  EXPECT_EQ(second.last().dst_port, kPeerPort + 1);
}

}  // namespace
}  // namespace netsim::tcp
