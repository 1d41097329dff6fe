// IPv6 MSS and header sizes: every TCP model over a 1500-byte IPv6 path
// against the same path over IPv4 (40- instead of 20-byte IP header, 1220
// instead of 536 as the MSS without an MSS option), the TSO burst limit with
// its 40-byte header, and wire frames of the sizes the headers add up to.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/tcp/freebsd_tcp_listener.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/linux/linux_tcp_sender.h"
#include "netsim/tcp/linux_tcp_receiver.h"
#include "two_host_link.h"

namespace netsim::tcp {
namespace {

using namespace netsim::literals;

struct Frame {
  SimTime t;
  IpVersion ip_version;
  std::uint8_t flags;
  std::uint16_t mss;
  std::uint32_t payload;
  std::uint32_t ip_bytes;
};

// What a host hands to its interface.
class FrameLog final : public PacketTap {
 public:
  void on_packet(const Packet& p, SimTime at) override {
    frames.push_back({at, p.ip_version, p.tcp.flags, p.tcp.mss, p.payload_bytes, p.ip_bytes()});
  }
  std::uint16_t syn_mss() const {
    for (const Frame& f : frames) {
      if ((f.flags & tcp_flags::kSyn) != 0) return f.mss;
    }
    return 0;
  }
  std::vector<Frame> frames;
};

// A peer whose SYN and SYN-ACK carry no MSS option (timestamps, window
// scale and SACK-permitted as offered), so that the other end falls back to
// its default MSS. It completes the handshake and then only listens.
class NoMssPeer final : public Component, public Endpoint {
 public:
  NoMssPeer(Simulation& sim, Host& host, std::uint16_t port) : Component(sim, "no-mss-peer"), host_(host), port_(port) {
    host.bind(IpProtocol::tcp, port, this);
  }
  void send_syn(NodeId dst, std::uint16_t dst_port) {
    TcpSegmentInfo th;
    th.seq = 7000;
    th.flags = tcp_flags::kSyn;
    th.window = 65535;
    th.wscale = 7;
    th.sack_permitted = true;
    th.ts_present = true;
    th.ts_val = 1;
    send(dst, dst_port, th);
  }
  void deliver(Packet* p) override {
    const TcpSegmentInfo in = p->tcp;
    const NodeId peer = p->src;
    const std::uint16_t peer_port = p->src_port;
    sim().packets().release(p);
    TcpSegmentInfo th;
    th.window = 65535 >> 7;
    th.ts_present = in.ts_present;
    th.ts_val = 2;
    th.ts_ecr = in.ts_val;
    if (in.flags == tcp_flags::kSyn) {
      th.flags = tcp_flags::kSyn | tcp_flags::kAck;
      th.seq = 5000;
      th.ack = in.seq + 1;
      th.window = 65535;
      th.wscale = 7;
      th.sack_permitted = in.sack_permitted;
    } else if (in.flags == (tcp_flags::kSyn | tcp_flags::kAck)) {
      th.flags = tcp_flags::kAck;
      th.seq = in.ack;
      th.ack = in.seq + 1;
    } else {
      return;
    }
    send(peer, peer_port, th);
  }

 private:
  void send(NodeId dst, std::uint16_t dst_port, const TcpSegmentInfo& th) {
    Packet* r = sim().packets().alloc();
    r->dst = dst;
    r->protocol = IpProtocol::tcp;
    r->src_port = port_;
    r->dst_port = dst_port;
    r->tcp = th;
    r->l4_header_bytes = kTcpHeaderBytes + r->tcp.option_bytes();
    host_.send(r);
  }
  Host& host_;
  std::uint16_t port_;
};

struct Sizes {
  std::uint32_t t_maxseg;
  std::uint32_t maxseg;
  std::uint16_t sender_syn_mss;
  std::uint16_t receiver_syn_mss;
  std::uint32_t receiver_mss_cache;
  std::uint32_t largest_payload;
  std::uint32_t largest_frame;
  std::uint64_t full_frames;
  std::uint64_t data_frames;
  bool family_kept;
};

// FreeBSD sender (a) -> Linux receiver (b): 300 ms of bulk data, what each
// host sends logged.
struct BulkTransfer {
  BulkTransfer(IpVersion v, const LinuxTcpConfig& rc, const FreeBsdTcpConfig& sc, const HostCpuCosts& cpu_a = {})
      : hosts(two_host_link(sim, 1000, v)) {
    Host& a = *hosts.first;
    Host& b = *hosts.second;
    a.set_cpu(cpu_a);
    a.add_tap(TapPoint::egress, &out_a);
    b.add_tap(TapPoint::egress, &out_b);
    rx = &sim.add<LinuxTcpReceiver>("server", b, rc);
    tx = &sim.add<FreeBsdTcpSender>("client", a, b.id(), 5201, sc);
    tx->set_unlimited_data(true);
    tx->connect();
    sim.run_until(300_ms);
  }
  FrameLog out_a;
  FrameLog out_b;
  Simulation sim{3};
  std::pair<Host*, Host*> hosts;
  LinuxTcpReceiver* rx = nullptr;
  FreeBsdTcpSender* tx = nullptr;
};

Sizes freebsd_to_linux(IpVersion v, bool timestamps) {
  LinuxTcpConfig rc;
  rc.timestamps = timestamps;
  FreeBsdTcpConfig sc;
  sc.timestamps = timestamps;
  const BulkTransfer run(v, rc, sc);
  const FrameLog& out_a = run.out_a;
  const FrameLog& out_b = run.out_b;
  const FreeBsdTcpSender& tx = *run.tx;
  const LinuxTcpReceiver& rx = *run.rx;
  const Host* a = run.hosts.first;
  Sizes s{};
  s.t_maxseg = tx.tcpcb().t_maxseg;
  s.maxseg = tx.tcpcb().maxseg;
  s.sender_syn_mss = out_a.syn_mss();
  s.receiver_syn_mss = out_b.syn_mss();
  const auto conn = rx.find(a->id(), tx.local_port());
  s.receiver_mss_cache = conn >= 0 ? rx.mss_cache(conn) : 0;
  s.family_kept = true;
  for (const Frame& f : out_a.frames) {
    s.family_kept = s.family_kept && f.ip_version == v;
    if (f.payload == 0) continue;
    ++s.data_frames;
    s.largest_payload = std::max(s.largest_payload, f.payload);
    s.largest_frame = std::max(s.largest_frame, f.ip_bytes);
    if (f.ip_bytes == 1500) ++s.full_frames;
  }
  for (const Frame& f : out_b.frames) s.family_kept = s.family_kept && f.ip_version == v;
  return s;
}

// A 1500-byte path with timestamps: t_maxseg (and both SYNs' MSS, the
// Linux advmss) is 1500 - ip_header - 20; 12 bytes of timestamp option per
// segment leave t_maxseg - 12 of payload in a frame of 1500 IP bytes.
void expect_sizes_with_timestamps(IpVersion v, std::uint32_t ip_header, std::uint32_t t_maxseg) {
  const Sizes s = freebsd_to_linux(v, true);
  EXPECT_EQ(t_maxseg, 1500 - ip_header - 20);
  EXPECT_EQ(s.sender_syn_mss, t_maxseg);
  EXPECT_EQ(s.receiver_syn_mss, t_maxseg);
  EXPECT_EQ(s.t_maxseg, t_maxseg);
  EXPECT_EQ(s.maxseg, t_maxseg - 12);
  EXPECT_EQ(s.receiver_mss_cache, t_maxseg - 12);
  EXPECT_EQ(s.largest_payload, t_maxseg - 12);
  EXPECT_EQ(s.largest_frame, (t_maxseg - 12) + 12 + 20 + ip_header);
  EXPECT_TRUE(s.family_kept);
  // Bulk data goes in full frames.
  EXPECT_GT(s.data_frames, 1000u);
  EXPECT_GT(s.full_frames, s.data_frames * 9 / 10);
}

TEST(Ipv6MssAndHeaderSizes, FreeBsdSenderToLinuxReceiverWithTimestamps) {
  // IPv6: 1440, payload 1428 + 12 + 20 + 40 = 1500; IPv4: 1460, 1448 + 12 + 20 + 20.
  expect_sizes_with_timestamps(IpVersion::v6, 40, 1440);
  expect_sizes_with_timestamps(IpVersion::v4, 20, 1460);
}

TEST(Ipv6MssAndHeaderSizes, FreeBsdSenderToLinuxReceiverWithoutTimestamps) {
  const Sizes v6 = freebsd_to_linux(IpVersion::v6, false);
  EXPECT_EQ(v6.t_maxseg, 1440u);
  EXPECT_EQ(v6.maxseg, 1440u);
  EXPECT_EQ(v6.receiver_mss_cache, 1440u);
  EXPECT_EQ(v6.largest_frame, 1440u + 20u + 40u);
  const Sizes v4 = freebsd_to_linux(IpVersion::v4, false);
  EXPECT_EQ(v4.maxseg, 1460u);
  EXPECT_EQ(v4.largest_frame, 1460u + 20u + 20u);
}

TEST(Ipv6MssAndHeaderSizes, LinuxSenderToLinuxReceiver) {
  // tcp_sync_mss: mss_cache = 1500 - ip_header - 20 - 12 (timestamps); GSO
  // cuts its bursts into frames of exactly 1500 IP bytes.
  for (IpVersion v : {IpVersion::v6, IpVersion::v4}) {
    SCOPED_TRACE(v == IpVersion::v6 ? "IPv6" : "IPv4");
    const std::uint32_t ip_header = v == IpVersion::v6 ? 40 : 20;
    Simulation sim(3);
    auto [a, b] = two_host_link(sim, 1000, v);
    FrameLog out_a;
    a->add_tap(TapPoint::egress, &out_a);
    sim.add<LinuxTcpReceiver>("server", *b, LinuxTcpConfig{});
    auto& tx = sim.add<lnx::LinuxTcpSender>("client", *a, b->id(), 5201, lnx::LinuxTcpConfig{});
    tx.set_unlimited_data(true);
    tx.connect();
    sim.run_until(100_ms);
    EXPECT_EQ(out_a.syn_mss(), 1500 - ip_header - 20);
    EXPECT_EQ(tx.info().mss, 1500 - ip_header - 20 - 12);
    std::uint32_t largest = 0;
    for (const Frame& f : out_a.frames) largest = std::max(largest, f.ip_bytes);
    EXPECT_EQ(largest, 1500u);
  }
}

// The most wire segments of one TSO burst: a host CPU that takes 50 us per
// packet handed to the driver (and nothing per segment) makes each burst
// pass the egress point at one instant, and lets ACKs pile up meanwhile so
// that bursts grow to their limit.
std::size_t largest_tso_burst(IpVersion v, std::uint32_t tso_max_bytes) {
  HostCpuCosts costs;
  costs.tx_packet = 50_us;
  FreeBsdTcpConfig sc;
  sc.tso_max_bytes = tso_max_bytes;
  const BulkTransfer run(v, LinuxTcpConfig{}, sc, costs);
  const FrameLog& out_a = run.out_a;
  std::map<SimTime, std::size_t> per_instant;
  for (const Frame& f : out_a.frames) {
    if (f.payload > 0) ++per_instant[f.t];
  }
  std::size_t most = 0;
  for (const auto& [t, n] : per_instant) most = std::max(most, n);
  return most;
}

TEST(Ipv6MssAndHeaderSizes, TsoBurstLeavesRoomForTheFortyByteHeader) {
  // tcp_output: a burst's payload is at most if_hw_tsomax - hdrlen, hdrlen =
  // 40 + 20 + 12 over IPv6 (20 + 20 + 12 over IPv4), cut to whole segments.
  EXPECT_EQ(largest_tso_burst(IpVersion::v6, 10 * 1428 + 72), 10u);
  EXPECT_EQ(largest_tso_burst(IpVersion::v6, 10 * 1428 + 71), 9u);
  EXPECT_EQ(largest_tso_burst(IpVersion::v4, 10 * 1448 + 52), 10u);
  EXPECT_EQ(largest_tso_burst(IpVersion::v4, 10 * 1448 + 51), 9u);
}

// Runs `check(v, default MSS)` over IPv6 and over IPv4, each in a simulation of its own.
template <typename Check>
void over_both_families(Check check) {
  for (IpVersion v : {IpVersion::v6, IpVersion::v4}) {
    SCOPED_TRACE(v == IpVersion::v6 ? "IPv6" : "IPv4");
    Simulation sim(3);
    auto [a, b] = two_host_link(sim, 1000, v);
    check(sim, *a, *b, v == IpVersion::v6 ? 1220u : 536u);
  }
}

// tcp_mss_update with no offer: the default, less the timestamps per segment.
void expect_established_with_default_mss(Simulation& sim, const FreeBsdTcpSender& tcp, std::uint32_t dflt) {
  sim.run_until(10_ms);
  ASSERT_EQ(tcp.state(), FreeBsdTcpSender::State::established);
  EXPECT_EQ(tcp.tcpcb().t_maxseg, dflt);
  EXPECT_EQ(tcp.tcpcb().maxseg, dflt - 12);
}

TEST(Ipv6MssAndHeaderSizes, FreeBsdSenderDefaultMssIs1220OverIpv6) {
  over_both_families([](Simulation& sim, Host& a, Host& b, std::uint32_t dflt) {
    NoMssPeer peer(sim, b, 5201);
    auto& tx = sim.add<FreeBsdTcpSender>("client", a, b.id(), 5201, FreeBsdTcpConfig{});
    // tcp_newtcpcb: tcp_mssdflt or tcp_v6mssdflt until the handshake.
    EXPECT_EQ(tx.tcpcb().t_maxseg, dflt);
    tx.connect();
    expect_established_with_default_mss(sim, tx, dflt);
  });
}

TEST(Ipv6MssAndHeaderSizes, FreeBsdSyncacheDefaultMssIs1220OverIpv6) {
  over_both_families([](Simulation& sim, Host& a, Host& b, std::uint32_t dflt) {
    auto& listener = sim.add<FreeBsdTcpListener>("listener", a, 5201);
    auto& server = sim.add<FreeBsdTcpSender>("server", a, 5201, FreeBsdTcpConfig{}, FreeBsdTcpSender::passive);
    NoMssPeer peer(sim, b, 40000);
    listener.add(server, b.id(), 40000);
    peer.send_syn(a.id(), 5201);
    expect_established_with_default_mss(sim, server, dflt);
  });
}

TEST(Ipv6MssAndHeaderSizes, LinuxReceiverDefaultMssIs1220OverIpv6) {
  // Passive open (tcp_conn_request: af_ops->mss_clamp), the SYN without MSS.
  over_both_families([](Simulation& sim, Host& a, Host& b, std::uint32_t dflt) {
    auto& rx = sim.add<LinuxTcpReceiver>("server", b, LinuxTcpConfig{});
    NoMssPeer peer(sim, a, 40000);
    peer.send_syn(b.id(), 5201);
    sim.run_until(10_ms);
    const auto conn = rx.find(a.id(), 40000);
    ASSERT_GE(conn, 0);
    EXPECT_EQ(rx.mss_cache(conn), dflt - 12);
  });
}

TEST(Ipv6MssAndHeaderSizes, LinuxSenderDefaultMssIs1220OverIpv6) {
  // Active open (tcp_v6_connect sets mss_clamp), the SYN-ACK without MSS.
  over_both_families([](Simulation& sim, Host& a, Host& b, std::uint32_t dflt) {
    NoMssPeer peer(sim, b, 5201);
    auto& tx = sim.add<lnx::LinuxTcpSender>("client", a, b.id(), 5201, lnx::LinuxTcpConfig{});
    EXPECT_EQ(tx.info().mss, dflt);
    tx.connect();
    sim.run_until(10_ms);
    EXPECT_EQ(tx.info().mss, dflt - 12);
  });
}

}  // namespace
}  // namespace netsim::tcp
