// The FreeBSD sender's handling of data from its peer (the iperf3 server's
// control messages): delivered to set_on_data in order, and acknowledged by
// FreeBSD's delayed ACK (tcp_input.c DELAY_ACK / TF_DELACK, TT_DELACK of
// TCPTV_DELACK = hz/25 ticks): one segment waits for the timer, a second one
// while it runs is ACKed at once, and anything the application sends first
// carries the ACK.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "netsim/filter/packet_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/linux_tcp_receiver.h"
#include "two_host_link.h"

namespace netsim::tcp {
namespace {

using namespace netsim::literals;

// Records what the FreeBSD side sends (on the Linux host's ingress).
class Tap final : public PacketFilter {
 public:
  struct Seen {
    SimTime time;
    std::uint32_t payload;
    std::uint32_t ack;
  };
  explicit Tap(Simulation& sim) : PacketFilter(sim, "tap", MatchRule{IpProtocol::tcp, {}, 5201}) {}
  const char* type_name() const override { return "tap"; }
  std::vector<Seen> seen;

 protected:
  bool decide_drop(const Packet& p) override {
    seen.push_back({sim().now(), p.payload_bytes, p.tcp.ack});
    return false;
  }
};

// A FreeBSD client and a Linux server 100 us apart, connected; the server
// writes to the client on request.
struct Peers {
  Simulation sim{5};
  Host* a;
  Host* b;
  FreeBsdTcpSender* client;
  LinuxTcpReceiver* server;
  Tap* tap;
  LinuxTcpReceiver::ConnId conn = -1;
  std::vector<std::uint64_t> delivered;

  explicit Peers(int hz, bool delayed_ack = true) {
    std::tie(a, b) = two_host_link(sim, hz);
    server = &sim.add<LinuxTcpReceiver>("server", *b, LinuxTcpConfig{});
    server->set_on_accept([this](LinuxTcpReceiver::ConnId id) { conn = id; });
    FreeBsdTcpConfig cfg;
    cfg.delayed_ack = delayed_ack;
    client = &sim.add<FreeBsdTcpSender>("client", *a, b->id(), 5201, cfg);
    client->set_on_data([this](std::uint64_t n) { delivered.push_back(n); });
    tap = &sim.add<Tap>();
    b->add_filter(Hook::ingress, tap);
    client->connect();
    sim.run_until(10_ms);
    tap->seen.clear();
  }
  // Pure ACKs the client sent at or after `t`.
  std::vector<SimTime> acks_after(SimTime t) const {
    std::vector<SimTime> out;
    for (const Tap::Seen& s : tap->seen) {
      if (s.time >= t && s.payload == 0) out.push_back(s.time);
    }
    return out;
  }
};

TEST(FreeBsdDelayedAck, OneSegmentWaitsForTheDelackTimer) {
  for (int hz : {1000, 100}) {
    SCOPED_TRACE(hz);
    Peers p(hz);
    ASSERT_GE(p.conn, 0);
    const SimTime sent = p.sim.now();
    p.server->send(p.conn, 1);
    p.sim.run_until(sent + 1_ms);
    EXPECT_EQ(p.delivered, (std::vector<std::uint64_t>{1}));
    EXPECT_EQ(p.client->bytes_received(), 1u);
    EXPECT_TRUE(p.client->delack_pending());
    EXPECT_TRUE(p.acks_after(sent).empty());
    p.sim.run_until(sent + 100_ms);
    const auto acks = p.acks_after(sent);
    ASSERT_EQ(acks.size(), 1u);
    // Arrival ~100.5 us after `sent`; TT_DELACK of hz/25 ticks fires after
    // 39-40 ms at hz=1000, 30-40 ms at hz=100; the ACK takes 100.5 us back.
    const SimTime delay = acks[0] - sent - 201_us;
    EXPECT_GE(delay, hz == 1000 ? 39_ms : 30_ms);
    EXPECT_LE(delay, 40_ms);
    EXPECT_FALSE(p.client->delack_pending());
  }
}

TEST(FreeBsdDelayedAck, SecondSegmentIsAckedAtOnce) {
  Peers p(1000);
  const SimTime sent = p.sim.now();
  p.server->send(p.conn, 1);
  p.server->send(p.conn, 1);
  p.sim.run_until(sent + 100_ms);
  EXPECT_EQ(p.delivered, (std::vector<std::uint64_t>{1, 1}));
  const auto acks = p.acks_after(sent);
  ASSERT_EQ(acks.size(), 1u);  // the second segment's, which also stops the timer
  EXPECT_LT(acks[0] - sent, 1_ms);
}

TEST(FreeBsdDelayedAck, ApplicationReplyCarriesTheAck) {
  Peers p(1000);
  p.client->set_on_data([&p](std::uint64_t) { p.client->write(10); });
  const SimTime sent = p.sim.now();
  p.server->send(p.conn, 1);
  p.sim.run_until(sent + 1_ms);
  EXPECT_FALSE(p.client->delack_pending());  // the reply stopped TT_DELACK
  p.sim.run_until(sent + 500_ms);
  EXPECT_TRUE(p.acks_after(sent).empty());
  ASSERT_FALSE(p.tap->seen.empty());
  EXPECT_EQ(p.tap->seen.front().payload, 10u);
  // The reply acknowledged the server's byte: it was never resent.
  EXPECT_EQ(p.server->stats(p.conn).retransmits, 0u);
}

TEST(FreeBsdDelayedAck, DisabledAcksAtOnce) {
  Peers p(1000, /*delayed_ack=*/false);
  const SimTime sent = p.sim.now();
  p.server->send(p.conn, 1);
  p.sim.run_until(sent + 100_ms);
  const auto acks = p.acks_after(sent);
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_LT(acks[0] - sent, 1_ms);
}

}  // namespace
}  // namespace netsim::tcp
