// The FreeBSD sender's persist timer: tcp_setpersist's interval arithmetic,
// and a receiver whose application stops reading, so that its window closes;
// the sender then probes the zero window with one byte per persist timeout
// (tcp_timer_persist, TF_FORCEDATA) until a window update opens it.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/tcp_rtt.h"
#include "two_host_link.h"

namespace netsim::tcp {
namespace {

using namespace netsim::literals;

TEST(TcpPersistTicks, HandComputedIntervals) {
  const TcpTimerParams p1000 = TcpTimerParams::for_hz(1000);
  Tcpcb tp;
  tp.t_srtt = 32;    // 1 tick
  tp.t_rttvar = 16;  // 1 tick
  // t = ((32 >> 2) + 16) >> 1 = 12 ticks; 12 * backoff + 200 slop, at least 5000.
  tp.t_rxtshift = 0;
  EXPECT_EQ(tcp_persist_ticks(tp, p1000), 5000);
  tp.t_rxtshift = 8;  // backoff 256: 3072 + 200
  EXPECT_EQ(tcp_persist_ticks(tp, p1000), 5000);
  tp.t_rxtshift = 9;  // backoff 512: 6144 + 200
  EXPECT_EQ(tcp_persist_ticks(tp, p1000), 6344);
  tp.t_rxtshift = 12;  // the table stays at 512
  EXPECT_EQ(tcp_persist_ticks(tp, p1000), 6344);
  // srtt 100 ticks, rttvar 50: t = (800 + 800) >> 1 = 800; x 128 = 102400 -> capped at 60 s.
  tp.t_srtt = 3200;
  tp.t_rttvar = 800;
  tp.t_rxtshift = 7;
  EXPECT_EQ(tcp_persist_ticks(tp, p1000), 60000);
  tp.t_rxtshift = 2;  // x 4 = 3200 + 200
  EXPECT_EQ(tcp_persist_ticks(tp, p1000), 5000);
  tp.t_rxtshift = 3;  // x 8 = 6400 + 200
  EXPECT_EQ(tcp_persist_ticks(tp, p1000), 6600);
  // hz=100: persmin 500, persmax 6000, slop 20 ticks.
  const TcpTimerParams p100 = TcpTimerParams::for_hz(100);
  tp.t_srtt = 7;  // the hz=100 floor on a LAN (7/32 tick)
  tp.t_rttvar = 16;
  tp.t_rxtshift = 12;  // t = (1 + 16) >> 1 = 8; 8 * 512 + 20 = 4116 ticks
  EXPECT_EQ(tcp_persist_ticks(tp, p100), 4116);
  tp.t_rxtshift = 0;
  EXPECT_EQ(tcp_persist_ticks(tp, p100), 500);
}

// A receiver with a `buffer`-byte socket buffer whose application reads
// nothing until `read_at`, then everything once (and sends a window update).
// In-window data is accepted, anything beyond the window dropped; every
// segment is acknowledged with the free space as the window (scale 0).
class StalledReader final : public Component, public Endpoint, public EventHandler {
 public:
  StalledReader(Simulation& sim, Host& host, std::uint16_t port, std::uint32_t buffer, SimTime read_at)
      : Component(sim, "reader"), host_(host), port_(port), buffer_(buffer) {
    host.bind(IpProtocol::tcp, port, this);
    sim.schedule_at(read_at, this, 0);
  }
  void deliver(Packet* p) override {
    const TcpSegmentInfo th = p->tcp;
    peer_ = p->src;
    peer_port_ = p->src_port;
    const std::uint32_t len = p->payload_bytes;
    sim().packets().release(p);
    if ((th.flags & tcp_flags::kSyn) != 0) {
      rcv_nxt_ = th.seq + 1;
      Packet* r = reply(th);
      r->tcp.flags = tcp_flags::kSyn | tcp_flags::kAck;
      r->tcp.seq = 1000;
      r->tcp.mss = 1460;
      r->tcp.wscale = 0;
      r->tcp.sack_permitted = th.sack_permitted;
      send(r);
      return;
    }
    if (len == 0) return;
    const std::uint32_t space = buffer_ - unread_;
    if (len == 1 && space == 0) probes.push_back(sim().now());
    if (th.seq == rcv_nxt_) {
      const std::uint32_t take = std::min(len, space);
      rcv_nxt_ += take;
      unread_ += take;
      received += take;
    }
    Packet* r = reply(th);
    if (buffer_ == unread_ && zero_window_at == 0) zero_window_at = sim().now();
    send(r);
  }
  void handle_event(std::uint64_t) override {
    unread_ = 0;  // the application reads everything
    opened_at = sim().now();
    TcpSegmentInfo th;
    th.ts_present = true;
    th.ts_val = last_ts_val_;
    send(reply(th));  // window update
  }
  std::vector<SimTime> probes;  // arrival times of 1-byte probes into a zero window
  SimTime zero_window_at = 0;   // the first ACK that closed the window
  SimTime opened_at = 0;
  std::uint64_t received = 0;   // bytes accepted

 private:
  Packet* reply(const TcpSegmentInfo& th) {
    if (th.ts_present) last_ts_val_ = th.ts_val;
    Packet* r = sim().packets().alloc();
    r->dst = peer_;
    r->protocol = IpProtocol::tcp;
    r->src_port = port_;
    r->dst_port = peer_port_;
    r->tcp.flags = tcp_flags::kAck;
    r->tcp.seq = 1001;
    r->tcp.ack = rcv_nxt_;
    r->tcp.window = static_cast<std::uint16_t>(buffer_ - unread_);
    r->tcp.ts_present = th.ts_present;
    r->tcp.ts_val = static_cast<std::uint32_t>(sim().now() / kPicosPerMilli);
    r->tcp.ts_ecr = th.ts_val;
    return r;
  }
  void send(Packet* r) {
    r->l4_header_bytes = kTcpHeaderBytes + r->tcp.option_bytes();
    host_.send(r);
  }

  Host& host_;
  std::uint16_t port_;
  std::uint32_t buffer_;
  std::uint32_t unread_ = 0;
  std::uint32_t rcv_nxt_ = 0;
  std::uint32_t last_ts_val_ = 0;
  NodeId peer_ = kNoNode;
  std::uint16_t peer_port_ = 0;
};

struct StalledPair {
  Simulation sim{5};
  Host* a;
  Host* b;
  StalledReader* rx;
  FreeBsdTcpSender* tx;
  StalledPair(int hz, std::uint32_t buffer, SimTime read_at) {
    std::tie(a, b) = two_host_link(sim, hz);
    rx = &sim.add<StalledReader>(*b, 5201, buffer, read_at);
    tx = &sim.add<FreeBsdTcpSender>("tx", *a, b->id(), 5201, FreeBsdTcpConfig{});
    tx->set_unlimited_data(true);
  }
};

TEST(FreeBsdPersist, ZeroWindowIsProbedEveryPersistIntervalUntilItOpens) {
  for (int hz : {100, 1000}) {
    SCOPED_TRACE(hz);
    const std::uint32_t buffer = 20 * 1448;  // whole segments: the window closes exactly
    StalledPair n(hz, buffer, 12_s);
    int persist_samples = 0;
    n.tx->set_trace([&persist_samples](const TcpTraceSample& t) {
      if (t.event == TcpTraceSample::Event::persist) ++persist_samples;
    });
    n.tx->connect();
    n.sim.run_until(11_s);
    // The window closed within the first milliseconds and stayed closed.
    ASSERT_GT(n.rx->zero_window_at, 0);
    EXPECT_LT(n.rx->zero_window_at, 10_ms);
    EXPECT_EQ(n.rx->received, buffer);
    EXPECT_TRUE(n.tx->persist_pending());
    EXPECT_EQ(n.tx->stats().rto_count, 0u);
    // Two probes: 5 s (persmin) after the zero-window ACK reached the sender,
    // rounded up to its tick, and 5 s after that. Each is one byte, answered
    // by a zero window, and not counted as a retransmission.
    ASSERT_EQ(n.rx->probes.size(), 2u);
    EXPECT_EQ(n.tx->stats().window_probes, 2u);
    EXPECT_EQ(n.tx->stats().persist_timeouts, 2u);
    EXPECT_EQ(persist_samples, 2);  // --trace-tcp's "persist" rows
    EXPECT_EQ(n.tx->stats().retransmitted_segments, 0u);
    EXPECT_EQ(n.tx->stats().retransmitted_packs, 0u);
    const SimTime tick = kPicosPerSecond / hz;
    const SimTime first = n.rx->probes[0] - n.rx->zero_window_at;  // two one-way trips later
    EXPECT_GE(first, 5_s + 200_us - tick);
    EXPECT_LE(first, 5_s + 202_us);
    EXPECT_EQ(n.rx->probes[1] - n.rx->probes[0], 5_s);
    EXPECT_EQ(n.tx->tcpcb().snd_nxt, n.tx->tcpcb().snd_una);      // persisting: snd_nxt at the window's edge
    EXPECT_EQ(n.tx->tcpcb().snd_max, n.tx->tcpcb().snd_una + 1);  // the probe's byte
    // The application reads at 12 s: the window update restarts the
    // transfer at once, and the buffer fills and closes again.
    n.sim.run_until(12_s + 5_ms);
    EXPECT_EQ(n.rx->opened_at, 12_s);
    EXPECT_EQ(n.rx->received, 2u * buffer);
    EXPECT_EQ(n.rx->probes.size(), 2u);
    EXPECT_TRUE(n.tx->persist_pending());
    EXPECT_EQ(n.tx->stats().rto_count, 0u);
    // The first burst after the update starts below snd_max (the probe's
    // byte), so tcp_output counts it as a retransmission: one TSO burst of
    // the restarted window (after_idle: the initial 10 segments), which
    // t_sndrexmitpack (iperf3's Retr) counts once.
    EXPECT_EQ(n.tx->stats().retransmitted_segments, 10u);
    EXPECT_EQ(n.tx->stats().retransmitted_packs, 1u);
  }
}

}  // namespace
}  // namespace netsim::tcp
