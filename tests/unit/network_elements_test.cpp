// Links, switches, hubs, hosts and filters, wired by hand (no YAML).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

#include "netsim/app/udp_sink.h"
#include "netsim/app/udp_source.h"
#include "netsim/filter/nth_drop_filter.h"
#include "netsim/filter/random_drop_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/hub.h"
#include "netsim/net/link.h"
#include "netsim/net/switch.h"
#include "netsim/topology/topology.h"

namespace netsim {
namespace {

using namespace netsim::literals;

struct ArrivalLog final : PacketReceiver {
  Simulation* sim = nullptr;
  std::vector<SimTime> times;
  std::vector<std::uint64_t> ids;
  void receive(Packet* p, int) override {
    times.push_back(sim->now());
    ids.push_back(p->id);
    sim->packets().release(p);
  }
};

Packet* make_packet(Simulation& sim, std::uint32_t ip_bytes) {
  Packet* p = sim.packets().alloc();
  p->protocol = IpProtocol::udp;
  p->l4_header_bytes = kUdpHeaderBytes;
  p->payload_bytes = ip_bytes - 20 - kUdpHeaderBytes;
  return p;
}

TEST(Channel, SerializationPlusPropagation) {
  Simulation sim(1);
  ArrivalLog log;
  log.sim = &sim;
  ChannelConfig c;
  c.rate = 1_Gbps;
  c.delay = 5_us;
  Channel ch(sim, "a", "b", c, &log, 0);
  EXPECT_TRUE(ch.send(make_packet(sim, 1500)));
  EXPECT_TRUE(ch.send(make_packet(sim, 1500)));
  sim.run();
  // 1500 + 38 framing bytes at 1 Gbit/s = 12.304 us per frame, back to back.
  EXPECT_EQ(log.times, (std::vector<SimTime>{17'304_ns, 29'608_ns}));
  EXPECT_EQ(ch.counters().packets_sent, 2u);
  EXPECT_EQ(ch.counters().bytes_sent, 3000u);
  EXPECT_EQ(ch.counters().busy_time, 24'608_ns);
  EXPECT_EQ(sim.packets().in_use(), 0u);
}

TEST(Channel, TailDropCountsFrameInService) {
  Simulation sim(1);
  ArrivalLog log;
  log.sim = &sim;
  ChannelConfig c;
  c.limit_packets = 2;
  Channel ch(sim, "a", "b", c, &log, 0);
  std::vector<bool> accepted;
  for (int i = 0; i < 4; ++i) accepted.push_back(ch.send(make_packet(sim, 1000)));
  EXPECT_EQ(accepted, (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(ch.counters().packets_dropped, 2u);
  EXPECT_EQ(ch.counters().bytes_dropped, 2000u);
  EXPECT_EQ(ch.counters().max_queue_packets, 2u);
  sim.run();
  EXPECT_EQ(log.times.size(), 2u);
  // After the first frame left the wire a new one fits again.
  EXPECT_TRUE(ch.send(make_packet(sim, 1000)));
}

TEST(Channel, ByteLimitAndMtu) {
  Simulation sim(1);
  ArrivalLog log;
  log.sim = &sim;
  ChannelConfig c;
  c.limit_bytes = 2500;
  Channel ch(sim, "a", "b", c, &log, 0);
  EXPECT_TRUE(ch.send(make_packet(sim, 1500)));
  EXPECT_FALSE(ch.send(make_packet(sim, 1500)));  // 3000 > 2500
  EXPECT_TRUE(ch.send(make_packet(sim, 1000)));   // exactly 2500
  EXPECT_FALSE(ch.send(make_packet(sim, 1501)));  // over the MTU
  EXPECT_EQ(ch.counters().mtu_drops, 1u);
  EXPECT_EQ(ch.counters().packets_dropped, 1u);
  sim.run();
  EXPECT_EQ(sim.packets().in_use(), 0u);
}

std::vector<int> drop_pattern(PacketFilter& f, int n) {
  Packet p;
  p.protocol = IpProtocol::tcp;
  p.dst_port = 5201;
  std::vector<int> dropped;
  for (int k = 1; k <= n; ++k) {
    if (f.should_drop(p)) dropped.push_back(k);
  }
  return dropped;
}

TEST(NthDropFilter, PacketZeroDropsFirstThenEveryNth) {
  Simulation sim(1);
  NthDropFilter f(sim, "nth", MatchRule{}, 100, 0);
  // As on a real Linux kernel: 1-based packets 1, 101, 201, ...
  EXPECT_EQ(drop_pattern(f, 350), (std::vector<int>{1, 101, 201, 301}));
  EXPECT_EQ(f.matched(), 350u);
  EXPECT_EQ(f.dropped(), 4u);
}

TEST(NthDropFilter, PhaseFollowsPacketOption) {
  Simulation sim(1);
  NthDropFilter every3_p2(sim, "a", MatchRule{}, 3, 2);
  EXPECT_EQ(drop_pattern(every3_p2, 10), (std::vector<int>{3, 6, 9}));
  NthDropFilter every3_p1(sim, "b", MatchRule{}, 3, 1);
  EXPECT_EQ(drop_pattern(every3_p1, 10), (std::vector<int>{2, 5, 8}));
  NthDropFilter every1(sim, "c", MatchRule{}, 1, 0);
  EXPECT_EQ(drop_pattern(every1, 3), (std::vector<int>{1, 2, 3}));
  EXPECT_THROW(NthDropFilter(sim, "d", MatchRule{}, 3, 3), std::invalid_argument);
}

TEST(NthDropFilter, OnlyMatchingPacketsAdvanceTheCounter) {
  Simulation sim(1);
  MatchRule m;
  m.protocol = IpProtocol::tcp;
  m.dst_port = 5201;
  NthDropFilter f(sim, "nth", m, 2, 0);
  Packet match;
  match.protocol = IpProtocol::tcp;
  match.dst_port = 5201;
  Packet other = match;
  other.dst_port = 22;
  Packet udp = match;
  udp.protocol = IpProtocol::udp;
  std::vector<bool> d;
  for (const Packet* p : {&match, &other, &udp, &match, &match, &other, &match}) d.push_back(f.should_drop(*p));
  EXPECT_EQ(d, (std::vector<bool>{true, false, false, false, true, false, false}));
  EXPECT_EQ(f.matched(), 4u);
  EXPECT_EQ(f.dropped(), 2u);
}

TEST(RandomDropFilter, ExtremesRateAndStreamIndependence) {
  Simulation sim(5);
  RandomDropFilter never(sim, "never", MatchRule{}, 0.0);
  RandomDropFilter always(sim, "always", MatchRule{}, 1.0);
  EXPECT_TRUE(drop_pattern(never, 1000).empty());
  EXPECT_EQ(drop_pattern(always, 1000).size(), 1000u);
  RandomDropFilter quarter(sim, "quarter", MatchRule{}, 0.25);
  const auto pattern = drop_pattern(quarter, 100000);
  EXPECT_NEAR(static_cast<double>(pattern.size()), 25000.0, 600.0);
  // Same seed and name: same drops, whatever other filters exist.
  Simulation sim2(5);
  RandomDropFilter extra(sim2, "extra", MatchRule{}, 0.5);
  drop_pattern(extra, 77);
  RandomDropFilter quarter2(sim2, "quarter", MatchRule{}, 0.25);
  EXPECT_EQ(drop_pattern(quarter2, 100000), pattern);
  EXPECT_THROW(RandomDropFilter(sim, "bad", MatchRule{}, 1.5), std::invalid_argument);
}

// a -- sw -- b, plus c hanging off the switch.
struct SwitchedNet {
  Simulation sim{1};
  Topology topo;
  Host* a;
  Host* b;
  Host* c;
  Switch* sw;
  SwitchedNet(DataRate bottleneck = 1_Gbps, std::optional<std::uint64_t> buffer_bytes = std::nullopt) {
    a = &sim.add<Host>("a", 0, "10.0.0.1", IpVersion::v4, 1000);
    b = &sim.add<Host>("b", 1, "10.0.0.2", IpVersion::v4, 1000);
    c = &sim.add<Host>("c", 2, "fd00::3", IpVersion::v6, 100);
    sw = &sim.add<Switch>("sw", 3);
    for (const char* n : {"a", "b", "c", "sw"}) topo.add_node({n, NodeKind::host, ""});
    ChannelConfig fast;
    fast.delay = 1_us;
    ChannelConfig slow = fast;
    slow.rate = bottleneck;
    slow.limit_bytes = buffer_bytes;
    connect(*a, *sw, fast, fast);
    connect(*sw, *b, slow, fast);
    connect(*sw, *c, fast, fast);
    auto tables = topo.forwarding_tables();
    for (Node* n : std::vector<Node*>{a, b, c, sw}) n->set_forwarding(tables[n->id()]);
  }
  void connect(Node& x, Node& y, const ChannelConfig& xy, const ChannelConfig& yx) {
    Link& l = sim.add<Link>(x.name() + "-" + y.name(), x, y, xy, yx);
    Topology::EdgeInfo e;
    e.name = l.name();
    e.node_a = x.id();
    e.node_b = y.id();
    e.port_at_a = l.port_at_a();
    e.port_at_b = l.port_at_b();
    topo.add_link(e);
  }
};

TEST(Topology, ShortestPathForwarding) {
  SwitchedNet net;
  // The topology vertices were added with kind host for all; fix the switch kind
  // does not matter for the tables toward hosts a, b, c (ids 0..2).
  EXPECT_EQ(net.a->next_port(1), 0);
  EXPECT_EQ(net.sw->next_port(0), 0);
  EXPECT_EQ(net.sw->next_port(1), 1);
  EXPECT_EQ(net.sw->next_port(2), 2);
  EXPECT_EQ(net.topo.path(0, 1), (std::vector<NodeId>{0, 3, 1}));
  EXPECT_TRUE(net.topo.connected(0, 2));
  std::ostringstream dot;
  net.topo.write_dot(dot, "t");
  EXPECT_NE(dot.str().find("a[label=\"a\""), std::string::npos) << dot.str();
  EXPECT_NE(dot.str().find("a--sw [label=\"a-sw\""), std::string::npos) << dot.str();
}

TEST(Topology, DisconnectedNodesHaveNoRoute) {
  Topology t;
  for (const char* n : {"x", "y", "z"}) t.add_node({n, NodeKind::host, ""});
  Topology::EdgeInfo e;
  e.node_a = 0;
  e.node_b = 1;
  e.port_at_a = 0;
  e.port_at_b = 0;
  t.add_link(e);
  EXPECT_FALSE(t.connected(0, 2));
  EXPECT_TRUE(t.path(0, 2).empty());
  EXPECT_EQ(t.forwarding_tables()[0][2], -1);
  EXPECT_EQ(t.forwarding_tables()[0][1], 0);
}

TEST(Host, UdpEndToEndThroughSwitchWithHostCounters) {
  SwitchedNet net;
  UdpSink& sink = net.sim.add<UdpSink>("sink", *net.b, 5001);
  UdpSourceConfig cfg;
  cfg.dst = net.b->id();
  cfg.rate = DataRate::mbps(100);
  cfg.stop = 1_ms;
  UdpSource& src = net.sim.add<UdpSource>("src", *net.a, cfg);
  // A stray datagram to a port nobody listens on.
  UdpSourceConfig stray = cfg;
  stray.dst_port = 9;
  stray.stop = 1_ns;
  net.sim.add<UdpSource>("stray", *net.a, stray);
  net.sim.run();
  // 1472-byte payloads at 100 Mbit/s: one every 117.76 us, 9 in [0, 1 ms).
  EXPECT_EQ(src.packets_sent(), 9u);
  EXPECT_EQ(sink.packets_received(), 9u);
  EXPECT_EQ(net.b->counters().no_listener, 1u);
  EXPECT_EQ(net.sim.packets().in_use(), 0u);
  EXPECT_GE(src.config().src_port, 49152);
}

TEST(Switch, BottleneckQueueTailDrops) {
  // 1 Gbit/s in, 100 Mbit/s out, 15 KB buffer: the switch port overflows.
  SwitchedNet net(DataRate::mbps(100), 15'000);
  UdpSink& sink = net.sim.add<UdpSink>("sink", *net.b, 5001);
  UdpSourceConfig cfg;
  cfg.dst = net.b->id();
  cfg.stop = 10_ms;  // full rate
  UdpSource& src = net.sim.add<UdpSource>("src", *net.a, cfg);
  net.sim.run();
  const Channel& out = net.sw->port(1);
  EXPECT_GT(out.counters().packets_dropped, 0u);
  EXPECT_LE(out.counters().max_queue_bytes, 15'000u);
  EXPECT_EQ(src.packets_sent(), sink.packets_received() + out.counters().packets_dropped);
  // The bottleneck ran flat out once the queue built: ~100 Mbit/s of frames.
  EXPECT_NEAR(static_cast<double>(sink.packets_received()), 10e-3 * 100e6 / (1538 * 8), 10.0);
}

// Records the events of one queue in order, with the occupancy after each.
struct QueueLog final : QueueObserver {
  struct Entry {
    QueueEvent event;
    std::uint64_t packets;
    std::uint64_t bytes;
  };
  std::vector<Entry> entries;
  void on_queue_change(const Channel& ch, QueueEvent e, const Packet&) override {
    entries.push_back({e, ch.occupancy_packets(), ch.occupancy_bytes()});
  }
  // Per arriving frame, in arrival order: accepted (true) or tail-dropped.
  std::vector<bool> accepted() const {
    std::vector<bool> out;
    for (const Entry& x : entries) {
      if (x.event != QueueEvent::dequeue) out.push_back(x.event == QueueEvent::enqueue);
    }
    return out;
  }
};

// 16 frames of 1500 IP bytes leave a back to back at 1 Gbit/s (1538 bytes on
// the wire: 12.304 us each) and reach the switch after 1 us, frame k when its
// last bit is in: at (k+1) x 12.304 + 1 us. The port toward b sends at
// 80 Mbit/s (153.8 us per frame), so frame 0, in service from 13.304 us,
// leaves the buffer at 167.104 us; frame 1 at 320.904 us.
std::vector<bool> sixteen_frames_into_slow_port(std::optional<std::uint64_t> limit_packets,
                                                std::optional<std::uint64_t> limit_bytes, QueueLog& log) {
  SwitchedNet net(DataRate::mbps(80));
  net.sw->port(1).set_limits(limit_packets, limit_bytes);
  net.sw->port(1).add_observer(&log);
  for (int k = 0; k < 16; ++k) {
    Packet* p = make_packet(net.sim, 1500);
    p->src = net.a->id();
    p->dst = net.b->id();
    p->dst_port = 9;  // nobody listens: b counts it and frees it
    EXPECT_TRUE(net.a->port(0).send(p));
  }
  net.sim.run();
  EXPECT_EQ(net.sim.packets().in_use(), 0u);
  return log.accepted();
}

TEST(Switch, ByteLimitDropsExactlyWhenFull) {
  // 10 000 bytes hold six 1500-byte frames (9000), not seven (10 500):
  // frames 0-5 fit, 6-12 arrive (up to 160.952 us) before frame 0 leaves and
  // are dropped, 13 (173.256 us) takes frame 0's place, 14 and 15 (185.56,
  // 197.864 us) come before frame 1 leaves and are dropped.
  QueueLog log;
  const std::vector<bool> accepted = sixteen_frames_into_slow_port(std::nullopt, 10'000, log);
  std::vector<bool> expected(16, false);
  for (int k : {0, 1, 2, 3, 4, 5, 13}) expected[static_cast<std::size_t>(k)] = true;
  EXPECT_EQ(accepted, expected);
  // Every drop found the buffer at six frames; the peak was six frames.
  std::uint64_t peak = 0;
  for (const auto& x : log.entries) {
    if (x.event == QueueEvent::drop) {
      EXPECT_EQ(x.bytes, 9000u);
    }
    peak = std::max(peak, x.bytes);
  }
  EXPECT_EQ(peak, 9000u);
}

TEST(Switch, PacketLimitDropsExactlyWhenFull) {
  // Four frames at most, whatever their bytes: 0-3 fit, 4-12 are dropped,
  // 13 fits once frame 0 has left, 14 and 15 are dropped.
  QueueLog log;
  const std::vector<bool> accepted = sixteen_frames_into_slow_port(4, std::nullopt, log);
  std::vector<bool> expected(16, false);
  for (int k : {0, 1, 2, 3, 13}) expected[static_cast<std::size_t>(k)] = true;
  EXPECT_EQ(accepted, expected);
  EXPECT_EQ(log.entries.back().event, QueueEvent::dequeue);
  EXPECT_EQ(log.entries.back().packets, 0u);  // all five delivered in the end
}

TEST(Hub, PortsShareOneMediumAndFramesReachEveryPort) {
  Simulation sim(1);
  Host& a = sim.add<Host>("a", 0, "10.0.0.1", IpVersion::v4, 1000);
  Host& b = sim.add<Host>("b", 1, "10.0.0.2", IpVersion::v4, 1000);
  Host& c = sim.add<Host>("c", 2, "10.0.0.3", IpVersion::v4, 1000);
  ChannelConfig medium;
  medium.limit_bytes = 100'000;  // per port: overflows within 10 ms of 2:1 overload
  Hub& hub = sim.add<Hub>("hub", 3, medium);
  Topology topo;
  for (const char* n : {"a", "b", "c"}) topo.add_node({n, NodeKind::host, ""});
  topo.add_node({"hub", NodeKind::hub, ""});
  for (Host* h : {&a, &b, &c}) {
    Link& l = sim.add<Link>(h->name() + "-hub", *h, hub, ChannelConfig{}, ChannelConfig{});
    Topology::EdgeInfo e;
    e.node_a = h->id();
    e.node_b = hub.id();
    e.port_at_a = l.port_at_a();
    e.port_at_b = l.port_at_b();
    topo.add_link(e);
  }
  auto tables = topo.forwarding_tables();
  for (Node* n : std::vector<Node*>{&a, &b, &c, &hub}) n->set_forwarding(tables[n->id()]);
  UdpSink& sink = sim.add<UdpSink>("sink", c, 5001);
  UdpSourceConfig cfg;
  cfg.dst = c.id();
  cfg.stop = 10_ms;
  sim.add<UdpSource>("from-a", a, cfg);
  sim.add<UdpSource>("from-b", b, cfg);
  sim.run_until(10_ms);
  // Two senders at 1 Gbit/s each, one shared 1 Gbit/s medium: c gets ~1 Gbit/s in total.
  const double frames_per_10ms = 10e-3 * 1e9 / (1538 * 8);
  EXPECT_NEAR(static_cast<double>(sink.packets_received()), frames_per_10ms, 0.02 * frames_per_10ms);
  EXPECT_GT(hub.counters().packets_dropped, 0u);
  // Frames to c are repeated to b (from a) and to a (from b) too, and discarded there.
  EXPECT_GT(a.counters().not_for_us, 0u);
  EXPECT_GT(b.counters().not_for_us, 0u);
}

TEST(Host, BindConflictAndEgressFilter) {
  SwitchedNet net;
  UdpSink& sink = net.sim.add<UdpSink>("sink", *net.b, 5001);
  EXPECT_THROW(net.sim.add<UdpSink>("sink2", *net.b, 5001), std::invalid_argument);
  MatchRule m;
  m.protocol = IpProtocol::udp;
  NthDropFilter& f = net.sim.add<NthDropFilter>("egress-nth", m, 2, 0);
  net.a->add_filter(Hook::egress, &f);
  UdpSourceConfig cfg;
  cfg.dst = net.b->id();
  cfg.rate = DataRate::mbps(100);
  cfg.stop = 1_ms;
  net.sim.add<UdpSource>("src", *net.a, cfg);
  net.sim.run();
  EXPECT_EQ(f.matched(), 9u);
  EXPECT_EQ(f.dropped(), 5u);  // packets 1, 3, 5, 7, 9
  EXPECT_EQ(sink.packets_received(), 4u);
  EXPECT_EQ(net.a->counters().filtered_egress, 5u);
}

}  // namespace
}  // namespace netsim
