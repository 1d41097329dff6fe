// The FreeBSD sender against a scripted SACK receiver: handshake, slow start,
// fast retransmit after three dupacks, lost retransmission -> LRD or RTO.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "netsim/filter/packet_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/topology/topology.h"
#include "two_host_link.h"

namespace netsim::tcp {
namespace {

using namespace netsim::literals;

// Answers the SYN, then ACKs every data segment at once with SACK blocks
// (most recent first) for out-of-order data: enough to drive the sender's
// loss recovery deterministically.
class ScriptedReceiver final : public Component, public Endpoint {
 public:
  ScriptedReceiver(Simulation& sim, std::string name, Host& host, std::uint16_t port)
      : Component(sim, std::move(name)), host_(host) {
    host.bind(IpProtocol::tcp, port, this);
  }
  void deliver(Packet* p) override {
    const TcpSegmentInfo th = p->tcp;
    const NodeId peer = p->src;
    const std::uint16_t peer_port = p->src_port;
    const std::uint16_t port = p->dst_port;
    const std::uint32_t len = p->payload_bytes;
    sim().packets().release(p);
    Packet* r = sim().packets().alloc();
    r->dst = peer;
    r->protocol = IpProtocol::tcp;
    r->src_port = port;
    r->dst_port = peer_port;
    r->tcp.window = 65535;
    r->tcp.ts_present = th.ts_present;
    r->tcp.ts_val = static_cast<std::uint32_t>(sim().now() / kPicosPerMilli);
    r->tcp.ts_ecr = th.ts_val;
    if ((th.flags & tcp_flags::kSyn) != 0) {
      rcv_nxt_ = th.seq + 1;
      r->tcp.flags = tcp_flags::kSyn | tcp_flags::kAck;
      r->tcp.seq = 1000;
      r->tcp.ack = rcv_nxt_;
      r->tcp.mss = 1460;
      r->tcp.wscale = 7;
      r->tcp.sack_permitted = th.sack_permitted;
    } else {
      if (len > 0) {
        ++data_segments;
        if (th.seq == rcv_nxt_) {
          rcv_nxt_ += len;
          // Pull in any out-of-order ranges now contiguous.
          std::sort(ooo_.begin(), ooo_.end(), [](const SackBlock& a, const SackBlock& b) { return a.start < b.start; });
          for (auto it = ooo_.begin(); it != ooo_.end();) {
            if (static_cast<std::int32_t>(it->start - rcv_nxt_) <= 0) {
              if (static_cast<std::int32_t>(it->end - rcv_nxt_) > 0) rcv_nxt_ = it->end;
              it = ooo_.erase(it);
            } else {
              ++it;
            }
          }
        } else if (static_cast<std::int32_t>(th.seq - rcv_nxt_) > 0) {
          bool merged = false;
          for (auto& b : ooo_) {
            if (b.end == th.seq) {
              b.end += len;
              merged = true;
              last_ = b;
            }
          }
          if (!merged) {
            ooo_.push_back({th.seq, th.seq + len});
            last_ = ooo_.back();
          }
        }
      }
      r->tcp.flags = tcp_flags::kAck;
      r->tcp.seq = 1001;
      r->tcp.ack = rcv_nxt_;
      // The block holding the latest segment first, then the others.
      if (th.sack_block_count == 0 && !ooo_.empty()) {
        std::vector<SackBlock> blocks;
        for (const auto& b : ooo_) {
          if (b.start == last_.start) blocks.insert(blocks.begin(), b); else blocks.push_back(b);
        }
        r->tcp.sack_block_count = static_cast<std::uint8_t>(std::min<std::size_t>(3, blocks.size()));
        for (int i = 0; i < r->tcp.sack_block_count; ++i) r->tcp.sack_blocks[i] = blocks[i];
      }
      ++acks_sent;
    }
    r->l4_header_bytes = kTcpHeaderBytes + r->tcp.option_bytes();
    host_.send(r);
  }
  std::uint32_t rcv_nxt() const { return rcv_nxt_; }
  int data_segments = 0;
  int acks_sent = 0;

 private:
  Host& host_;
  std::uint32_t rcv_nxt_ = 0;
  std::vector<SackBlock> ooo_;
  SackBlock last_;
};

// Drops the transmissions of chosen data segments (by order of first sight
// of their sequence number), `times` times each.
class DropSegments final : public PacketFilter {
 public:
  DropSegments(Simulation& sim, std::vector<int> indices, int times)
      : PacketFilter(sim, "drop-segments", MatchRule{IpProtocol::tcp, std::nullopt, 5201}),
        indices_(std::move(indices)), times_(times) {}
  const char* type_name() const override { return "test"; }
  std::vector<SimTime> drop_times;

 protected:
  bool decide_drop(const Packet& p) override {
    if (p.payload_bytes == 0) return false;
    auto it = std::find(seen_.begin(), seen_.end(), p.tcp.seq);
    int index = static_cast<int>(it - seen_.begin());
    if (it == seen_.end()) seen_.push_back(p.tcp.seq);
    if (std::find(indices_.begin(), indices_.end(), index) == indices_.end()) return false;
    if (dropped_[index]++ >= times_) return false;
    drop_times.push_back(sim().now());
    return true;
  }

 private:
  std::vector<int> indices_;
  int times_;
  std::vector<std::uint32_t> seen_;
  std::map<int, int> dropped_;
};

struct Pair {
  Simulation sim{3};
  Host* a;
  Host* b;
  ScriptedReceiver* rx;
  FreeBsdTcpSender* tx;
  explicit Pair(int hz, const std::string& cc = "newreno", bool lrd = true, bool small_buffer = false) {
    std::tie(a, b) = two_host_link(sim, hz);
    rx = &sim.add<ScriptedReceiver>("rx", *b, 5201);
    FreeBsdTcpConfig cfg;
    cfg.cc = cc;
    cfg.lrd = lrd;
    if (small_buffer) cfg.sendbuf_auto = false;  // 33580 bytes in flight at most: no standing queue
    tx = &sim.add<FreeBsdTcpSender>("tx", *a, b->id(), 5201, cfg);
    tx->set_unlimited_data(true);
  }
};

TEST(FreeBsdTcpSender, HandshakeNegotiatesOptionsAndInitialWindow) {
  Pair n(1000);
  n.tx->connect();
  n.sim.run_until(250_us);  // SYN-ACK back after ~2 x 100 us
  ASSERT_EQ(n.tx->state(), FreeBsdTcpSender::State::established);
  EXPECT_EQ(n.tx->tcpcb().t_maxseg, 1460u);
  EXPECT_EQ(n.tx->tcpcb().maxseg, 1448u);
  // IW = min(10 * 1448, max(2 * 1448, 14600)) = 14480 bytes (the SIFTR sample's cwnd).
  EXPECT_EQ(n.tx->tcpcb().snd_cwnd, 14480u);
  EXPECT_EQ(n.tx->tcpcb().snd_scale, 7);
  // The first flight is ten full segments in one TSO burst.
  EXPECT_EQ(n.tx->stats().segments_sent, 1u + 10u);
}

// cc_conn_init takes ssthresh from the host cache (not below 2 * maxseg):
// slow start ends there, with no loss.
TEST(FreeBsdTcpSender, AHostCacheEntryGivesTheInitialSsthresh) {
  for (auto [cached, expect] : {std::pair{100000u, 100000u}, {1000u, 2u * 1448u}, {0u, 1073725440u}}) {
    Simulation sim{3};
    auto [a, b] = two_host_link(sim, 1000);
    sim.add<ScriptedReceiver>("rx", *b, 5201);
    FreeBsdTcpConfig cfg;
    cfg.hostcache_ssthresh = cached;
    auto& tx = sim.add<FreeBsdTcpSender>("tx", *a, b->id(), 5201, cfg);
    tx.connect();
    sim.run_until(250_us);
    ASSERT_EQ(tx.state(), FreeBsdTcpSender::State::established);
    EXPECT_EQ(tx.tcpcb().snd_ssthresh, expect) << cached;
    EXPECT_EQ(tx.tcpcb().snd_cwnd, 14480u) << cached;  // the initial window either way
  }
}

TEST(FreeBsdTcpSender, LossFreeTransferIsLimitedByTheLink) {
  Pair n(1000);
  n.tx->connect();
  n.sim.run_until(100_ms);
  EXPECT_EQ(n.tx->stats().retransmitted_segments, 0u);
  EXPECT_EQ(n.tx->stats().rto_count, 0u);
  // 1 Gbit/s minus framing: 1448 payload bytes per 1538 wire bytes.
  const double mbps = static_cast<double>(n.tx->bytes_acked()) * 8 / 0.1 / 1e6;
  EXPECT_GT(mbps, 800.0);
  EXPECT_LT(mbps, 1000.0 * 1448 / 1538);
}

TEST(FreeBsdTcpSender, SingleLossFastRetransmitAfterThreeDupacks) {
  Pair n(1000);
  auto& drop = n.sim.add<DropSegments>(std::vector<int>{30}, 1);
  n.b->add_filter(Hook::ingress, &drop);
  n.tx->connect();
  n.sim.run_until(200_ms);
  ASSERT_EQ(drop.drop_times.size(), 1u);
  EXPECT_EQ(n.tx->stats().recovery_episodes, 1u);
  EXPECT_EQ(n.tx->stats().retransmitted_segments, 1u);
  EXPECT_EQ(n.tx->stats().rto_count, 0u);
  EXPECT_GE(n.tx->stats().dupacks, 3u);
  // NewReno: ssthresh = max(cwnd * 50 / (100 * 1448), 2) * 1448, a multiple of 1448.
  EXPECT_EQ(n.tx->tcpcb().snd_ssthresh % 1448, 0u);
  EXPECT_FALSE(cc::IN_RECOVERY(n.tx->tcpcb().t_flags));
}

TEST(FreeBsdTcpSender, LostRetransmissionIsFoundByLrdWithoutRto) {
  Pair n(1000, "newreno", /*lrd=*/true);
  auto& drop = n.sim.add<DropSegments>(std::vector<int>{30}, 2);  // original and first retransmission
  n.b->add_filter(Hook::ingress, &drop);
  n.tx->connect();
  n.sim.run_until(200_ms);
  EXPECT_EQ(drop.drop_times.size(), 2u);
  EXPECT_EQ(n.tx->stats().lrd_events, 1u);
  EXPECT_EQ(n.tx->stats().rto_count, 0u);
  EXPECT_EQ(n.tx->stats().retransmitted_segments, 2u);
}

TEST(FreeBsdTcpSender, LostRetransmissionWithoutLrdWaitsForTheRto) {
  for (int hz : {100, 1000}) {
    Pair n(hz, "newreno", /*lrd=*/false);
    auto& drop = n.sim.add<DropSegments>(std::vector<int>{30}, 2);
    n.b->add_filter(Hook::ingress, &drop);
    n.tx->connect();
    n.sim.run_until(600_ms);
    ASSERT_EQ(drop.drop_times.size(), 2u) << hz;
    EXPECT_EQ(n.tx->stats().lrd_events, 0u);
    EXPECT_EQ(n.tx->stats().rto_count, 1u) << hz;
    // The RTO resends the retained hole once more: fast retransmit + RTO.
    EXPECT_EQ(n.tx->stats().retransmitted_segments, 2u) << hz;
    EXPECT_FALSE(cc::IN_RECOVERY(n.tx->tcpcb().t_flags)) << hz;
  }
}

TEST(FreeBsdTcpSender, SrttIsTickGranular) {
  Pair n100(100, "newreno", true, true), n1000(1000, "newreno", true, true);
  n100.tx->connect();
  n1000.tx->connect();
  n100.sim.run_until(500_ms);
  n1000.sim.run_until(500_ms);
  // 0.2-0.5 ms path: at hz=100 every sample is 1 tick and srtt sinks to its
  // 7/32 tick floor, 2.1875 ms; at hz=1000 samples are 1 or 2 ticks.
  EXPECT_EQ(n100.tx->tcpcb().t_srtt, 7);
  EXPECT_EQ(n100.tx->srtt_usecs(), 2187u);
  EXPECT_LT(n1000.tx->srtt_usecs(), 2000u);
}

}  // namespace
}  // namespace netsim::tcp
