// The handshakes of an iperf3 -R connection: the Linux endpoint's active open
// (SYN options, SYN retransmission with TCP_TIMEOUT_INIT and backoff) and the
// FreeBSD passive open (syncache SYN-ACK options, duplicate SYN, syncache
// timer, the tcpcb once established). Two hosts on one 1 Gbit/s link.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "netsim/filter/packet_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/tcp/freebsd_tcp_listener.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/linux_tcp_receiver.h"
#include "netsim/tcp/tcp_option_layout.h"

namespace netsim {
namespace {

using namespace netsim::literals;

struct Seen {
  SimTime time;
  TcpSegmentInfo tcp;
  std::uint32_t l4_header_bytes;
  std::uint32_t payload;
};

// Records what passes a hook and drops what `drop` selects.
class Tap final : public PacketFilter {
 public:
  Tap(Simulation& sim, std::string name, std::function<bool(const Packet&)> drop)
      : PacketFilter(sim, std::move(name), MatchRule{}), drop_(std::move(drop)) {}
  const char* type_name() const override { return "tap"; }
  std::vector<Seen> seen;

 protected:
  bool decide_drop(const Packet& p) override {
    seen.push_back({sim().now(), p.tcp, p.l4_header_bytes, p.payload_bytes});
    return drop_ && drop_(p);
  }

 private:
  std::function<bool(const Packet&)> drop_;
};

bool is_syn(const Packet& p) { return (p.tcp.flags & (tcp_flags::kSyn | tcp_flags::kAck)) == tcp_flags::kSyn; }
bool is_syn_ack(const Packet& p) {
  return (p.tcp.flags & (tcp_flags::kSyn | tcp_flags::kAck)) == (tcp_flags::kSyn | tcp_flags::kAck);
}

// When the SYN-ACKs passed a tap.
std::vector<SimTime> syn_ack_times(const Tap& tap) {
  std::vector<SimTime> times;
  for (const Seen& s : tap.seen) {
    if (s.tcp.flags == (tcp_flags::kSyn | tcp_flags::kAck)) times.push_back(s.time);
  }
  return times;
}

// client (Linux) <-> server (FreeBSD, listening on 5201), 100 us one way.
struct Pair {
  explicit Pair(int linux_hz = 1000, int freebsd_hz = 1000, tcp::LinuxTcpConfig rc = {})
      : sim(5),
        client_host(sim.add<Host>("client", 0, "10.0.0.2", IpVersion::v4, linux_hz)),
        server_host(sim.add<Host>("server", 1, "10.0.0.1", IpVersion::v4, freebsd_hz)) {
    ChannelConfig c;
    c.delay = 100_us;
    sim.add<Link>("wire", client_host, server_host, c, c);
    client_host.set_forwarding({-1, 0});
    server_host.set_forwarding({0, -1});
    rc.port = client_host.ephemeral_port();
    rc.max_connections = 1;
    client = &sim.add<tcp::LinuxTcpReceiver>("client-tcp", client_host, rc);
    listener = &sim.add<tcp::FreeBsdTcpListener>("listener", server_host, 5201);
    server = &sim.add<tcp::FreeBsdTcpSender>("server-tcp", server_host, 5201, tcp::FreeBsdTcpConfig{},
                                             tcp::FreeBsdTcpSender::passive);
    listener->add(*server, client_host.id(), rc.port);
  }
  // Taps on the client's egress and ingress.
  Tap& tap_out(std::function<bool(const Packet&)> drop = {}) {
    Tap& t = sim.add<Tap>("out", std::move(drop));
    client_host.add_filter(Hook::egress, &t);
    return t;
  }
  Tap& tap_server_out() {
    Tap& t = sim.add<Tap>("server-out", std::function<bool(const Packet&)>{});
    server_host.add_filter(Hook::egress, &t);
    return t;
  }
  Tap& tap_in(std::function<bool(const Packet&)> drop = {}) {
    Tap& t = sim.add<Tap>("in", std::move(drop));
    client_host.add_filter(Hook::ingress, &t);
    return t;
  }
  void connect_at(SimTime t) {
    sim.run_until(t);
    connect_tick = client_host.clock().ticks();
    conn = client->connect(server_host.id(), 5201);
  }
  // When a timer armed `n` ticks after the connect fires (hosts' tick clocks have a phase).
  SimTime client_tick_time(std::int64_t n) { return client_host.clock().time_of_tick(connect_tick + n); }

  Simulation sim;
  Host& client_host;
  Host& server_host;
  tcp::LinuxTcpReceiver* client = nullptr;
  tcp::FreeBsdTcpListener* listener = nullptr;
  tcp::FreeBsdTcpSender* server = nullptr;
  tcp::LinuxTcpReceiver::ConnId conn = -1;
  std::int64_t connect_tick = 0;
};

TEST(TcpReverseHandshake, LinuxSynCarriesLinuxOptionsInLinuxOrder) {
  Pair p;
  Tap& out = p.tap_out();
  p.connect_at(0);
  p.sim.run_until(10_ms);
  ASSERT_GE(out.seen.size(), 1u);
  const Seen& syn = out.seen.front();
  EXPECT_EQ(syn.tcp.flags, tcp_flags::kSyn);
  EXPECT_EQ(syn.tcp.mss, 1460);
  EXPECT_EQ(syn.tcp.wscale, 7);
  EXPECT_TRUE(syn.tcp.sack_permitted);
  EXPECT_TRUE(syn.tcp.ts_present);
  EXPECT_EQ(syn.tcp.ts_ecr, 0u);
  EXPECT_EQ(syn.tcp.window, 64240u);  // 65536 rounded down to 1460-byte segments
  EXPECT_EQ(syn.l4_header_bytes, 40u);
  EXPECT_EQ(tcp::linux_syn_option_layout(syn.tcp).describe(), "mss,sackOK,TS,nop,wscale");
  EXPECT_EQ(p.client->stats(p.conn).syns_sent, 1u);

  // Without timestamps SACK-permitted gets its own word before the window scale.
  tcp::LinuxTcpConfig no_ts;
  no_ts.timestamps = false;
  Pair q(1000, 1000, no_ts);
  Tap& out2 = q.tap_out();
  q.connect_at(0);
  q.sim.run_until(10_ms);
  ASSERT_GE(out2.seen.size(), 1u);
  EXPECT_EQ(out2.seen.front().l4_header_bytes, 32u);
  EXPECT_EQ(tcp::linux_syn_option_layout(out2.seen.front().tcp).describe(), "mss,nop,nop,sackOK,nop,wscale");
}

TEST(TcpReverseHandshake, DroppedSynIsResentAfterOneSecondThenTwoMore) {
  Pair p;
  int syns = 0;
  Tap& out = p.tap_out([&syns](const Packet& pk) { return is_syn(pk) && ++syns <= 2; });
  p.connect_at(0);
  p.sim.run_until(5_s);
  std::vector<SimTime> syn_times;
  for (const Seen& s : out.seen) {
    if (s.tcp.flags == tcp_flags::kSyn) syn_times.push_back(s.time);
  }
  ASSERT_EQ(syn_times.size(), 3u);
  EXPECT_EQ(syn_times[0], 0);
  EXPECT_EQ(syn_times[1], p.client_tick_time(1000));  // TCP_TIMEOUT_INIT: 1000 jiffies at HZ 1000
  EXPECT_EQ(syn_times[2], p.client_tick_time(3000));  // backed off to 2 s
  EXPECT_GT(syn_times[1], 999_ms);
  EXPECT_EQ(syn_times[2] - syn_times[1], 2_s);
  EXPECT_EQ(p.client->state(p.conn), tcp::LinuxTcpReceiver::State::established);
  EXPECT_EQ(p.server->state(), tcp::FreeBsdTcpSender::State::established);
  EXPECT_EQ(p.client->stats(p.conn).syns_sent, 3u);
}

TEST(TcpReverseHandshake, FreeBsdSynAckCarriesFreeBsdOptionsInFreeBsdOrder) {
  Pair p;
  Tap& out = p.tap_out();
  Tap& in = p.tap_in();
  p.connect_at(0);
  p.sim.run_until(10_ms);
  ASSERT_GE(in.seen.size(), 1u);
  const Seen& sa = in.seen.front();
  EXPECT_EQ(sa.tcp.flags, tcp_flags::kSyn | tcp_flags::kAck);
  EXPECT_EQ(sa.tcp.ack, out.seen.front().tcp.seq + 1);
  EXPECT_EQ(sa.tcp.mss, 1460);
  EXPECT_EQ(sa.tcp.wscale, 6);  // sb_max 2 MB
  EXPECT_TRUE(sa.tcp.sack_permitted);
  EXPECT_TRUE(sa.tcp.ts_present);
  EXPECT_EQ(sa.tcp.ts_ecr, out.seen.front().tcp.ts_val);  // sc_tsreflect
  EXPECT_EQ(sa.tcp.window, 65535u);
  EXPECT_EQ(sa.l4_header_bytes, 40u);
  EXPECT_EQ(tcp::freebsd_syn_option_layout(sa.tcp).describe(), "mss,nop,wscale,sackOK,TS");
  EXPECT_EQ(p.server->stats().syn_acks_sent, 1u);
}

TEST(TcpReverseHandshake, DuplicateSynGetsAnImmediateSynAck) {
  // Linux at HZ 250 connects at 5 ms: its SYN timer fires 250 jiffies after
  // the connect's jiffy. FreeBSD (hz 1000) arms the syncache timer 1000
  // ticks after the SYN's arrival tick, which here is later than the
  // duplicate SYN's arrival (checked below): the duplicate comes first and is
  // answered at once, which also restarts the syncache timer.
  Pair p(250, 1000);
  int synacks = 0;
  p.tap_in([&synacks](const Packet& pk) { return is_syn_ack(pk) && ++synacks == 1; });
  Tap& out = p.tap_out();
  Tap& server_out = p.tap_server_out();
  p.connect_at(5_ms);
  p.sim.run_until(3_s);
  std::vector<SimTime> syn_times, synack_times;
  for (const Seen& s : out.seen) {
    if (s.tcp.flags == tcp_flags::kSyn) syn_times.push_back(s.time);
  }
  for (const Seen& s : server_out.seen) {
    if (s.tcp.flags == (tcp_flags::kSyn | tcp_flags::kAck)) synack_times.push_back(s.time);
  }
  ASSERT_EQ(syn_times.size(), 2u);
  EXPECT_EQ(syn_times[0], 5_ms);
  EXPECT_EQ(syn_times[1], p.client_tick_time(250));  // TCP_TIMEOUT_INIT at HZ 250
  ASSERT_EQ(synack_times.size(), 2u);
  const SimTime one_way = synack_times[0] - syn_times[0];  // SYN-ACK sent on the SYN's arrival
  EXPECT_EQ(synack_times[1], syn_times[1] + one_way);     // at once on the duplicate
  const TickClock& bsd = p.server_host.clock();
  EXPECT_GT(bsd.time_of_tick(bsd.ticks_at(synack_times[0]) + 1000), synack_times[1])
      << "the syncache timer would have fired first";
  EXPECT_EQ(p.server->stats().duplicate_syns, 1u);
  EXPECT_EQ(p.server->stats().syn_ack_retransmits, 0u);
  EXPECT_EQ(p.server->state(), tcp::FreeBsdTcpSender::State::established);
  EXPECT_EQ(p.client->state(p.conn), tcp::LinuxTcpReceiver::State::established);
}

// Only the client's first SYN reaches the server (its retries are lost) and
// the server's first `lost` SYN-ACKs are lost on the way back; runs until
// `until` and returns when the server sent its SYN-ACKs.
std::vector<SimTime> syn_acks_with_losses(Pair& p, int lost, SimTime until) {
  auto synacks = std::make_shared<int>(0);
  auto syns = std::make_shared<int>(0);
  p.tap_in([synacks, lost](const Packet& pk) { return is_syn_ack(pk) && ++*synacks <= lost; });
  p.tap_out([syns](const Packet& pk) { return is_syn(pk) && ++*syns >= 2; });
  Tap& server_out = p.tap_server_out();
  p.connect_at(0);
  p.sim.run_until(until);
  return syn_ack_times(server_out);
}

TEST(TcpReverseHandshake, SyncacheTimerResendsAfterOneSecondThenBacksOffWithSlop) {
  // Only the first SYN reaches the server and its first two SYN-ACKs are
  // lost: syncache_timeout waits tcp_rexmit_initial (1000 ticks) after the
  // SYN's arrival tick before the first resend, then TCPT_RANGESET(1000 x
  // tcp_backoff[1]) = 2000 + 200 ticks of slop before the second. A SYN-ACK
  // sent more than once leaves the connection with a one-segment initial
  // window (syncache_socket: snd_cwnd = 1).
  Pair p;
  const std::vector<SimTime> synack_times = syn_acks_with_losses(p, 2, 3500_ms);
  ASSERT_EQ(synack_times.size(), 3u);
  const TickClock& bsd = p.server_host.clock();
  EXPECT_EQ(synack_times[1], bsd.time_of_tick(bsd.ticks_at(synack_times[0]) + 1000));
  EXPECT_EQ(synack_times[2], bsd.time_of_tick(bsd.ticks_at(synack_times[1]) + 2200));
  EXPECT_EQ(p.server->stats().syn_ack_retransmits, 2u);
  EXPECT_EQ(p.server->stats().duplicate_syns, 0u);
  ASSERT_EQ(p.server->state(), tcp::FreeBsdTcpSender::State::established);
  EXPECT_EQ(p.server->tcpcb().snd_cwnd, 1448u);
}

// The client's first SYN is lost. With timestamps the retransmitted SYN's
// RTT comes from the SYN-ACK's echo (1 ms on the 1 ms clock; __tcp_set_rto:
// srtt + max(rttvar, TCP_RTO_MIN) = 1 + 200 jiffies at HZ 1000);
// without them there is no sample (Karn) and tcp_init_metrics falls back to
// TCP_TIMEOUT_FALLBACK, 3 s (RFC 6298 5.7).
TEST(TcpReverseHandshake, RetransmittedSynWithoutTimestampsFallsBackToThreeSeconds) {
  for (bool timestamps : {true, false}) {
    SCOPED_TRACE(timestamps);
    tcp::LinuxTcpConfig rc;
    rc.timestamps = timestamps;
    Pair p(1000, 1000, rc);
    int syns = 0;
    p.tap_out([&syns](const Packet& pk) { return is_syn(pk) && ++syns == 1; });
    p.connect_at(0);
    p.sim.run_until(1100_ms);
    ASSERT_EQ(p.client->state(p.conn), tcp::LinuxTcpReceiver::State::established);
    EXPECT_EQ(p.client->rto_jiffies(p.conn), timestamps ? 201 : 3000);
  }
}

TEST(TcpReverseHandshake, EstablishedServerSendsFullSizedSegments) {
  Pair p;
  Tap& in = p.tap_in();
  p.connect_at(0);
  p.sim.run_until(5_ms);
  ASSERT_EQ(p.server->state(), tcp::FreeBsdTcpSender::State::established);
  ASSERT_EQ(p.client->state(p.conn), tcp::LinuxTcpReceiver::State::established);
  const tcp::Tcpcb& tp = p.server->tcpcb();
  EXPECT_EQ(tp.t_maxseg, 1460u);
  EXPECT_EQ(tp.maxseg, 1448u);  // less the timestamp option
  EXPECT_EQ(tp.snd_scale, 7);   // the client's window scale
  EXPECT_EQ(tp.snd_wnd, 6291456u);  // the handshake ACK's window: the model's full 6 MB, scaled by 7
  EXPECT_GT(p.server->srtt_usecs(), 0u);
  EXPECT_EQ(p.client->mss_cache(p.conn), 1448u);
  std::uint64_t delivered = 0;
  p.client->set_on_data([&delivered](tcp::LinuxTcpReceiver::ConnId, std::uint64_t n) { delivered += n; });
  p.server->write(30000);  // within the 32 KB send buffer
  p.sim.run_until(50_ms);
  EXPECT_EQ(delivered, 30000u);
  std::uint32_t max_payload = 0;
  for (const Seen& s : in.seen) max_payload = std::max(max_payload, s.payload);
  EXPECT_EQ(max_payload, 1448u);
  EXPECT_EQ(p.server->bytes_acked(), 30000u);
}

}  // namespace
}  // namespace netsim
