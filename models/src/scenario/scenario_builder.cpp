#include "netsim/scenario/scenario_builder.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

#include "netsim/filter/filter_registry.h"
#include "netsim/filter/nth_drop_filter.h"
#include "netsim/filter/random_drop_filter.h"
#include "netsim/net/switch_flow_control.h"
#include "netsim/scenario/iperf2_tcp_flow.h"
#include "netsim/scenario/iperf3_reverse_tcp_flow.h"
#include "netsim/scenario/iperf3_tcp_flow.h"
#include "netsim/scenario/nuttcp_flow.h"
#include "netsim/tcp/freebsd/freebsd_tcp_receiver.h"
#include "netsim/tcp/freebsd_tcp_listener.h"
#include "netsim/tcp/linux/linux_tcp_sender.h"
#include "netsim/tcp/linux26/linux26_tcp_sender.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_registry.h"
#include "netsim/sim/key_table.h"
#include "netsim/sim/rng.h"
#include "netsim/sim/units.h"
#include "netsim/tcp/sender_report_fields.h"
#include "netsim/tcp/socket_buffer.h"

#include "flow_counters_sum.h"
#include "listener_dispatch.h"

namespace netsim {
namespace {

// The Linux 2.6 sender of a host with a `kernel:` (netsim/tcp/linux26): the
// flow's congestion control (BIC unless the flow names Reno), TSO, SACK and
// the send buffer the modern sender would have had.
tcp::lnx26::Linux26Config linux26_config(const HostSpec& h, const TcpFlowSpec& fl, const tcp::lnx::LinuxTcpConfig& lc) {
  tcp::lnx26::Linux26Config c;
  tcp::lnx26::parse_kernel_version(h.kernel, c.version);
  c.cc = fl.cc;
  c.sack = fl.sack;
  c.tso = fl.tso;
  c.sndbuf = lc.wmem_max;
  c.tso_win_divisor = h.tso_win_divisor;
  c.tso_defer_bound = h.tso_defer_bound;
  c.tso_cwnd_limited = h.tso_cwnd_limited;
  c.write_len = static_cast<std::uint32_t>(std::min<std::uint64_t>(fl.length, 1u << 30));
  return c;
}

// tc_adjprecision (sys/kern/kern_tc.c): the shift that turns an interval into
// the precision a callout may use, from kern.timecounter.alloweddeviation in
// percent (1 .. 100): t = (99 + p) / p, shift = fls(t + t / 2) - 1 (4 for 5%).
int timecounter_precision_shift(int percent) {
  const int t = (99 + percent) / percent;
  const int v = t + (t >> 1);
  int fls = 0;
  for (int x = v; x != 0; x >>= 1) ++fls;
  return fls - 1;
}


// Nodes get ids in a fixed order (hosts, switches, hubs, each in file order)
// so that ids, and hence every table and trace, are reproducible.
struct NodeIndex {
  std::map<std::string, NodeId> ids;
  std::vector<Topology::VertexInfo> vertices;
};

NodeIndex index_nodes(const ScenarioSpec& spec) {
  NodeIndex idx;
  auto add = [&idx](const std::string& name, NodeKind kind, std::string label) {
    idx.ids.emplace(name, static_cast<NodeId>(idx.vertices.size()));
    idx.vertices.push_back({name, kind, std::move(label)});
  };
  for (const auto& h : spec.hosts) add(h.name, NodeKind::host, h.address + " hz=" + std::to_string(h.hz));
  for (const auto& s : spec.switches) add(s.name, NodeKind::switch_, "buffer " + std::to_string(s.buffer_bytes) + "B");
  for (const auto& h : spec.hubs) add(h.name, NodeKind::hub, "hub " + format_rate(h.rate));
  for (const auto& v : spec.vswitches) add(v.name, NodeKind::vswitch, "ESXi vSwitch");
  return idx;
}

std::string link_label(const LinkSpec& l) { return format_rate(l.rate) + " " + format_duration(l.delay); }

ChannelConfig link_channel(const LinkSpec& l) {
  ChannelConfig c;
  c.rate = l.rate;
  c.delay = l.delay;
  c.mtu = static_cast<std::uint32_t>(l.mtu);
  c.framing_bytes = static_cast<std::uint32_t>(l.framing_bytes);
  if (l.queue_packets) c.limit_packets = static_cast<std::uint64_t>(*l.queue_packets);
  if (l.queue_bytes) c.limit_bytes = static_cast<std::uint64_t>(*l.queue_bytes);
  return c;
}

// A channel transmitted by a switch uses the switch's per-port buffer, one
// transmitted by a host the host's tx_buffer limits (if any); a transmitter
// with a clock offset (parts per million) sends that much faster or slower.
ChannelConfig channel_from(const ScenarioSpec& spec, const std::string& from, const LinkSpec& l,
                           const std::map<std::string, double>& clock_offset_ppm) {
  ChannelConfig c = link_channel(l);
  if (const auto it = clock_offset_ppm.find(from); it != clock_offset_ppm.end()) {
    const auto bps = c.rate.bps();
    c.rate = DataRate::bits_per_second(bps + std::llround(static_cast<double>(bps) * it->second * 1e-6));
  }
  for (const auto& s : spec.switches) {
    if (s.name != from) continue;
    c.limit_bytes = static_cast<std::uint64_t>(s.buffer_bytes);
    c.limit_packets.reset();
    if (s.buffer_packets) c.limit_packets = static_cast<std::uint64_t>(*s.buffer_packets);
  }
  for (const auto& h : spec.hosts) {
    if (h.name != from) continue;
    if (h.tx_buffer_bytes) c.limit_bytes = static_cast<std::uint64_t>(*h.tx_buffer_bytes);
    if (h.tx_buffer_packets) c.limit_packets = static_cast<std::uint64_t>(*h.tx_buffer_packets);
  }
  return c;
}

MatchRule match_rule(const MatchSpec& m) { return MatchRule{m.protocol, m.src_port, m.dst_port}; }

FlowControlConfig flow_control_config(const FlowControlSpec& f) {
  FlowControlConfig fc;
  fc.high_water_bytes = static_cast<std::uint64_t>(f.high_water);
  fc.low_water_bytes = static_cast<std::uint64_t>(f.low_water);
  fc.pause_quanta = static_cast<std::uint16_t>(f.pause_quanta);
  fc.send_xon = f.send_xon;
  fc.refresh = f.refresh;
  return fc;
}

// What a guest driver's defaults change on the receive path (docs/vmxnet3.md).
void apply_driver(const NicSpec& n, std::uint32_t mtu, GroReceiveNicConfig& c) {
  switch (n.driver) {
    case NicDriver::virtio:
      return;
    case NicDriver::vmx:
      // iflib_rxeof: software tcp_lro with IFCAP_LRO, no GRO either way.
      c.gro = false;
      c.merge_acks = false;
      c.tcp_lro = n.lro;
      c.lro = n.lro_config;
      // vmxnet3_mtu_set: head buffers sized by iflib from isc_max_frame_size
      // = MTU + 22 (iflib_get_mbuf_size_for: a cluster, MCLBYTES, when it
      // fits, else a page); body buffers one page (MJUMPAGESIZE) each.
      c.rx_head_buffer = n.rx_head_buffer != 0 ? n.rx_head_buffer : (mtu + 22 <= 2048 ? 2048u : 4096u);
      c.rx_body_buffer = n.rx_body_buffer;
      return;
    case NicDriver::vmxnet3:
      // vmxnet3_rq_rx_complete: with NETIF_F_LRO every skb goes up by
      // netif_receive_skb (device aggregates whole), else napi_gro_receive.
      if (n.lro) c.gro = false;
      return;
    case NicDriver::ixgb:
      // ixgb_clean_rx_irq hands every frame to netif_rx: no GRO (the
      // validator set gro off, the ring, RDTR and an unlimited pass).
      c.gro = false;
      return;
  }
}

IxgbNicConfig ixgb_config(const IxgbSpec& x) {
  IxgbNicConfig c;
  c.tso = x.tso;
  c.tx_descriptors = x.tx_descriptors;
  c.rx_descriptors = x.rx_descriptors;
  c.tx_int_delay = x.tx_int_delay * kIxgbDelayUnit;
  c.tx_int_delay_enable = x.tx_int_delay_enable;
  c.tx_queue_len = x.tx_queue_len;
  c.bus = x.bus;
  return c;
}

GroReceiveNicConfig nic_config(const NicSpec& n, std::uint32_t mtu) {
  GroReceiveNicConfig c;
  c.gro = n.gro;
  c.irq_delay = n.irq_delay;
  c.budget = n.budget;
  c.per_packet_cost = n.per_packet_cost;
  c.irq_min_interval = n.irq_min_interval;
  c.gro_flush_timeout = n.gro_flush_timeout;
  c.napi_defer_hard_irqs = n.napi_defer_hard_irqs;
  c.irq_jitter = n.irq_jitter;
  c.irq_jitter_shape =
      n.irq_jitter_shape == NicJitterShape::exponential ? JitterShape::exponential : JitterShape::uniform;
  c.idle_wake_delay = n.idle_wake_delay;
  c.idle_wake_jitter = n.idle_wake_jitter;
  c.idle_after = n.idle_after;
  c.merge_acks = n.merge_acks;
  c.ring_size = n.ring_size;
  c.rx_fifo_bytes = static_cast<std::uint64_t>(n.rx_fifo);
  if (n.flow_control) c.flow_control = flow_control_config(*n.flow_control);
  c.filter_position =
      n.filter_position == NicFilterPosition::after_gro ? GroFilterPosition::after_gro : GroFilterPosition::before_gro;
  apply_driver(n, mtu, c);
  return c;
}

// The smallest MTU of the links attached to `host` (the receiver advertises an MSS from it).
std::uint32_t host_mtu(const ScenarioSpec& spec, const std::string& host) {
  std::int64_t mtu = 65535;
  for (const auto& l : spec.links) {
    if (l.end_a == host || l.end_b == host) mtu = std::min(mtu, l.mtu);
  }
  return static_cast<std::uint32_t>(mtu);
}

tcp::FreeBsdTcpConfig sender_config(const ScenarioSpec& spec, const TcpFlowSpec& fl) {
  tcp::FreeBsdTcpConfig sc;
  sc.cc = fl.cc;
  sc.cc_modules = &registry_or_default(spec.registry).cc;
  sc.sack = fl.sack;
  sc.lrd = fl.lrd;
  sc.tso = fl.tso;
  sc.hostcache_ssthresh = fl.hostcache_ssthresh;
  return sc;
}

// start_jitter: a uniform draw in [0, start_jitter] from the flow's own stream.
SimTime flow_start(Simulation& sim, const TcpFlowSpec& fl) {
  SimTime start = fl.start;
  if (fl.start_jitter > 0) {
    Rng rng = sim.rng_stream("flow/" + fl.name);
    start += uniform_up_to(rng, fl.start_jitter);
  }
  return start;
}

// The name of iperf's -P data connection i: the first carries the flow's
// name, so traces name forward and reverse flows alike.
std::string stream_name(const TcpFlowSpec& fl, int i) {
  return i == 0 ? fl.name : fl.name + "/" + std::to_string(i + 1);
}

// The FreeBSD module behind a flow's cc (D46046 is a patched cc_cubic), as
// iperf3 reports it and -C names it.
std::string freebsd_cc_module(const std::string& cc) { return cc == "cubic_d46046" ? "cubic" : cc; }

// iperf3 -c -t -i -l (no -C: the caller adds it where it applies).
app::Iperf3ClientConfig iperf3_client_config(const ScenarioSpec& spec, const TcpFlowSpec& fl, SimTime start) {
  app::Iperf3ClientConfig cc;
  cc.start = start;
  cc.time = fl.time;
  cc.run_end = spec.duration;
  cc.interval = spec.interval;
  cc.blksize = fl.length;
  return cc;
}

// A receiving endpoint of `host`'s receive stack (HostSpec::receiver_os) on
// `port` with `connections` slots. The FreeBSD one runs the host's default
// TCP sysctls.
tcp::TcpReceiveEndpoint& add_receive_endpoint(Simulation& sim, const ScenarioSpec& spec, const std::string& name,
                                              Host& host, const HostSpec& hs, std::uint16_t port, int connections,
                                              std::uint64_t window = 0) {
  if (hs.receiver_os() == "freebsd") {
    tcp::FreeBsdTcpReceiverConfig fc;
    fc.port = port;
    fc.max_connections = std::max(fc.max_connections, connections);
    if (window > 0) {  // nuttcp -w: SO_RCVBUF, autosizing off
      fc.tcp.recvspace = static_cast<std::uint32_t>(tcp::setsockopt_buffer_bytes(tcp::SocketBufferOs::freebsd, false, window));
      fc.tcp.recvbuf_auto = false;
    }
    return sim.add<tcp::FreeBsdTcpReceiver>(name, host, fc);
  }
  tcp::LinuxTcpConfig rc;
  rc.port = port;
  rc.mtu = host_mtu(spec, hs.name);
  rc.max_connections = std::max(rc.max_connections, connections);
  if (window > 0) {  // nuttcp -w: SO_RCVBUF (doubled, locked): the window it offers
    const std::uint64_t rcvbuf = tcp::setsockopt_buffer_bytes(tcp::SocketBufferOs::linux, false, window);
    rc.rcv_wnd = static_cast<std::uint32_t>(tcp::linux_window_from_rcvbuf(rcvbuf));
    rc.initial_rcv_space = std::min(rc.initial_rcv_space, rc.rcv_wnd);
  }
  return sim.add<tcp::LinuxTcpReceiver>(name, host, rc);
}

// iperf3 -R: the client on `to` over receiving endpoints of its receive
// stack, each bound to its own ephemeral port and opening one connection
// (control first, then the -P data connections); the server on `from` over
// passive FreeBSD senders reserved on
// the listener for exactly those client ports. The data connections carry the
// flow's name (the first) as in the forward case, so traces name them alike.
BuiltTcpFlow build_reverse_iperf3(Simulation& sim, const ScenarioSpec& spec, const TcpFlowSpec& fl, Host& from,
                                  Host& to, tcp::FreeBsdTcpListener& listener) {
  const tcp::FreeBsdTcpConfig sc = sender_config(spec, fl);
  const SimTime start = flow_start(sim, fl);
  const HostSpec& to_spec = *std::find_if(spec.hosts.begin(), spec.hosts.end(),
                                          [&](const HostSpec& h) { return h.name == fl.to; });
  auto client_endpoint = [&](const std::string& name) -> tcp::TcpReceiveEndpoint& {
    return add_receive_endpoint(sim, spec, name, to, to_spec, to.ephemeral_port(), 1);
  };
  auto freebsd_endpoint = [&](const std::string& name, const tcp::TcpReceiveEndpoint& peer) -> tcp::FreeBsdTcpSender& {
    auto& tx = sim.add<tcp::FreeBsdTcpSender>(name, from, fl.dst_port, sc, tcp::FreeBsdTcpSender::passive);
    listener.add(tx, to.id(), peer.port());
    return tx;
  };
  tcp::TcpReceiveEndpoint& client_control = client_endpoint(fl.name + "/client-control");
  tcp::FreeBsdTcpSender& server_control = freebsd_endpoint(fl.name + "/control", client_control);
  std::vector<tcp::TcpReceiveEndpoint*> client_streams;
  std::vector<tcp::TcpSendSocket*> server_streams;
  for (int i = 0; i < fl.parallel; ++i) {
    const std::string name = stream_name(fl, i);
    client_streams.push_back(&client_endpoint(name + "/client"));
    server_streams.push_back(&freebsd_endpoint(name, *client_streams.back()));
  }
  const app::Iperf3ClientConfig cc = iperf3_client_config(spec, fl, start);
  auto& client = sim.add<app::Iperf3ReverseClient>(fl.name + "/iperf3-client", cc, from.id(), fl.dst_port,
                                                   client_control, client_streams);
  // The server's streams run the host's default congestion control (the
  // flow's cc); a -C from the Linux client is not modelled (see the client).
  auto& server = sim.add<app::Iperf3ReverseServer>(fl.name + "/iperf3-server", client.control_channel(), fl.length,
                                                   freebsd_cc_module(fl.cc), server_control,
                                                   server_streams);
  client.set_server_streams(server.data_streams());
  client.set_host_cpu(to.cpu());
  server.set_host_cpu(from.cpu(), true);  // a FreeBSD host
  auto& flow = sim.add<Iperf3ReverseTcpFlow>(fl.name + "/iperf3", client, server);
  BuiltTcpFlow built{&fl, server_streams.front(), server_streams, nullptr, &flow};
  built.iperf3_reverse_client = &client;
  built.iperf3_reverse_server = &server;
  built.start = start;
  return built;
}

}  // namespace

TcpFlowDriver::TcpFlowDriver(Simulation& sim, std::string name, tcp::TcpSendSocket& sender,
                             tcp::TcpReceiveEndpoint& receiver, NodeId sender_host, SimTime start, SimTime end)
    : Component(sim, std::move(name)),
      sender_(sender),
      receiver_(receiver),
      sender_host_(sender_host),
      start_(start),
      end_(end) {
  sim.schedule_at(start, this, kConnect);
  sim.schedule_at(end, this, kEnd);
}

void TcpFlowDriver::handle_event(std::uint64_t tag) {
  if (tag == kConnect) {
    if (finished()) return;
    sender_.set_unlimited_data(true);
    sender_.connect();
  } else if (tag == kEnd) {
    finish();
  }
}

bool TcpFlowDriver::owns(tcp::TcpReceiveEndpoint::ConnId c) const {
  return receiver_.peer(c) == sender_host_ && receiver_.peer_port(c) == sender_.local_port();
}

std::uint64_t TcpFlowDriver::receiver_peer_key() const { return peer_key(sender_host_, sender_.local_port()); }

void TcpFlowDriver::on_delivered(tcp::TcpReceiveEndpoint::ConnId c, std::uint64_t bytes) {
  if (finished()) return;
  conn_ = c;
  delivered_ += bytes;
}

TcpFlowCounters TcpFlowDriver::counters() const {
  if (frozen_) return *frozen_;
  TcpFlowCounters c;
  // A bulk sender sends no pure ACKs (its ACKs ride on data).
  const tcp::TcpSocketInfo info = sender_.info();
  c.data_segments_sent = info.data_segments_sent;
  c.bytes_sent = info.bytes_sent;
  c.bytes_acked = sender_.bytes_acked();
  tcp::fill_sender_report_fields(sender_, c);
  if (conn_ >= 0) scenario_internal::add_receiver_counters(c, receiver_.stats(conn_));
  c.bytes_delivered = delivered_;
  return c;
}

void TcpFlowDriver::finish() {
  if (finished()) return;
  frozen_ = counters();
  sender_.set_unlimited_data(false);
}

Node* BuiltScenario::node(const std::string& name) const {
  for (Node* n : nodes) {
    if (n->name() == name) return n;
  }
  return nullptr;
}

Topology build_topology(const ScenarioSpec& spec) {
  NodeIndex idx = index_nodes(spec);
  Topology topo;
  for (const auto& v : idx.vertices) topo.add_node(v);
  std::vector<int> next_port(idx.vertices.size(), 0);
  for (const auto& l : spec.links) {
    Topology::EdgeInfo e;
    e.name = l.name;
    e.node_a = idx.ids.at(l.end_a);
    e.node_b = idx.ids.at(l.end_b);
    e.port_at_a = next_port[e.node_a]++;
    e.port_at_b = next_port[e.node_b]++;
    e.label = link_label(l);
    topo.add_link(e);
  }
  return topo;
}

BuiltScenario build_scenario(const ScenarioSpec& spec) {
  BuiltScenario b;
  b.spec = &spec;
  b.sim = std::make_unique<Simulation>(spec.seed);
  b.sim->packets().set_limit(spec.max_packets);
  Simulation& sim = *b.sim;
  b.topology = build_topology(spec);
  NodeIndex idx = index_nodes(spec);

  for (const auto& h : spec.hosts) {
    Host& host = sim.add<Host>(h.name, idx.ids.at(h.name), h.address, h.ip_version, h.hz);
    host.set_cpu(h.cpu, h.cpu_layout);
    host.set_tx_backlog_limit(h.tx_backlog);
    if (h.vm_host_alloweddeviation && *h.vm_host_alloweddeviation > 0) {
      host.clock().set_late_shift(timecounter_precision_shift(*h.vm_host_alloweddeviation));
    }
    if (h.netem_delay > 0) host.set_netem(h.netem_delay, static_cast<std::uint32_t>(h.netem_limit));
    b.nodes.push_back(&host);
  }
  for (const auto& s : spec.switches) b.nodes.push_back(&sim.add<Switch>(s.name, idx.ids.at(s.name)));
  for (const auto& h : spec.hubs) {
    ChannelConfig medium;
    medium.rate = h.rate;
    medium.delay = 0;
    medium.mtu = 65535;
    medium.limit_bytes = static_cast<std::uint64_t>(h.buffer_bytes);
    b.nodes.push_back(&sim.add<Hub>(h.name, idx.ids.at(h.name), medium));
  }
  for (const auto& v : spec.vswitches) {
    b.vswitches.push_back(&sim.add<VSwitch>(v.name, idx.ids.at(v.name), v.cpu));
    b.nodes.push_back(b.vswitches.back());
  }
  // Each transmitter's clock offset, uniform in [-clock_ppm, +clock_ppm], from
  // its own stream: the same for a seed, independent of every other draw.
  std::map<std::string, double> clock_offset_ppm;
  const auto draw_clock = [&](const std::string& name, double ppm) {
    if (ppm <= 0) return;
    Rng rng = sim.rng_stream("clock/" + name);
    clock_offset_ppm.emplace(name, (2.0 * rng.uniform01() - 1.0) * ppm);
  };
  for (const auto& h : spec.hosts) draw_clock(h.name, h.clock_ppm);
  for (const auto& s : spec.switches) draw_clock(s.name, s.clock_ppm);
  for (const auto& l : spec.links) {
    Node& a = *b.nodes[idx.ids.at(l.end_a)];
    Node& z = *b.nodes[idx.ids.at(l.end_b)];
    b.links.push_back(&sim.add<Link>(l.name, a, z, channel_from(spec, l.end_a, l, clock_offset_ppm),
                                     channel_from(spec, l.end_b, l, clock_offset_ppm), l.eee));
  }
  auto tables = b.topology.forwarding_tables();
  for (Node* n : b.nodes) n->set_forwarding(tables[n->id()]);

  // Switches with 802.3x: each port's incoming channel, for the PAUSE frames out of it.
  for (const auto& s : spec.switches) {
    if (!s.flow_control) continue;
    auto* sw = static_cast<Switch*>(b.nodes[idx.ids.at(s.name)]);
    std::vector<Channel*> from_partner(static_cast<std::size_t>(sw->port_count()), nullptr);
    for (std::size_t i = 0; i < spec.links.size(); ++i) {
      const LinkSpec& l = spec.links[i];
      Link& link = *b.links[i];
      if (l.end_a == s.name) from_partner[static_cast<std::size_t>(link.port_at_a())] = &link.b_to_a();
      if (l.end_b == s.name) from_partner[static_cast<std::size_t>(link.port_at_b())] = &link.a_to_b();
    }
    sim.add<SwitchFlowControl>(s.name + "/flow-control", *sw, flow_control_config(*s.flow_control), from_partner);
  }

  // Receive NICs: interposed on every channel that delivers to a host with a `nic:` block.
  for (const auto& h : spec.hosts) {
    if (!h.nic) continue;
    auto* host = static_cast<Host*>(b.nodes[idx.ids.at(h.name)]);
    for (std::size_t i = 0; i < spec.links.size(); ++i) {
      const LinkSpec& l = spec.links[i];
      Link& link = *b.links[i];
      if (l.end_a != h.name && l.end_b != h.name) continue;
      const bool at_a = l.end_a == h.name;
      auto& nic = sim.add<GroReceiveNic>(h.name + "/nic/" + l.name, *host, at_a ? link.port_at_a() : link.port_at_b(),
                                         nic_config(*h.nic, static_cast<std::uint32_t>(l.mtu)));
      Channel& in = at_a ? link.b_to_a() : link.a_to_b();
      nic.attach(in);
      nic.enable_flow_control(at_a ? link.a_to_b() : link.b_to_a());
      OneShotRxModeration* host_nic = nullptr;
      if (h.nic->host_int_rx_mod > 0) {
        host_nic = &sim.add<OneShotRxModeration>(h.name + "/host-nic/" + l.name, h.nic->host_int_rx_mod,
                                                   h.nic->host_int_latency, h.nic->host_int_jitter);
        host_nic->attach(in);
      }
      IxgbNic* ixgb = nullptr;
      if (h.nic->driver == NicDriver::ixgb) {
        try {
          ixgb = &sim.add<IxgbNic>(h.name + "/ixgb/" + l.name, *host, at_a ? link.port_at_a() : link.port_at_b(), nic,
                                   at_a ? link.a_to_b() : link.b_to_a(), ixgb_config(h.nic->ixgb));
        } catch (const std::invalid_argument& e) {
          throw ScenarioError(h.loc, "hosts." + h.name + ".nic", e.what());
        }
        ixgb->attach(in);
        host->set_tso_frames(h.nic->ixgb.tso);
      }
      b.nics.push_back({&h, &l, &nic, host_nic, ixgb});
    }
  }

  // vNICs on a vSwitch: the guest's TSO frames go out whole, and a port
  // whose guest driver has LRO on (UPT1_F_LRO) gets them whole.
  for (std::size_t i = 0; i < spec.links.size(); ++i) {
    const LinkSpec& l = spec.links[i];
    for (const bool vswitch_at_a : {true, false}) {
      Node& v = *b.nodes[idx.ids.at(vswitch_at_a ? l.end_a : l.end_b)];
      if (v.kind() != NodeKind::vswitch) continue;
      const HostSpec& h = spec.hosts[idx.ids.at(vswitch_at_a ? l.end_b : l.end_a)];  // hosts have the first ids
      static_cast<Host*>(b.nodes[idx.ids.at(h.name)])->set_tso_frames(true);
      const bool lro = h.nic && h.nic->driver != NicDriver::virtio && h.nic->lro;
      static_cast<VSwitch&>(v).set_port_lro(vswitch_at_a ? b.links[i]->port_at_a() : b.links[i]->port_at_b(), lro);
    }
  }

  for (const auto& f : spec.filters) {
    if (f.type == FilterType::nth && f.every == 0) continue;  // every: none, no rule
    auto* host = static_cast<Host*>(b.nodes[idx.ids.at(f.host)]);
    PacketFilter* filter = nullptr;
    if (f.type == FilterType::nth) {
      filter = &sim.add<NthDropFilter>(f.name, match_rule(f.match), static_cast<std::uint32_t>(f.every),
                                       static_cast<std::uint32_t>(f.packet));
    } else if (f.type == FilterType::random) {
      filter = &sim.add<RandomDropFilter>(f.name, match_rule(f.match), f.probability);
    } else {
      // A type from the user's registry: its factory judges its own params.
      try {
        filter = &registry_or_default(spec.registry)
                      .filters.make(f.custom_type, sim, FilterArgs{f.name, match_rule(f.match), f.params});
      } catch (const std::invalid_argument& e) {
        throw ScenarioError(f.loc, "filters." + f.name, "filter type '" + f.custom_type + "': " + e.what());
      }
    }
    // An ingress rule on a host with a receive NIC runs in the NIC (at its filter_position), not in the host.
    bool on_nic = false;
    if (f.hook == FilterHook::ingress) {
      for (const BuiltNic& n : b.nics) {
        if (n.host->name != f.host) continue;
        n.nic->add_filter(filter);
        on_nic = true;
      }
    }
    if (!on_nic) host->add_filter(f.hook == FilterHook::ingress ? Hook::ingress : Hook::egress, filter);
    b.filters.push_back({&f, filter});
  }

  std::uint32_t flow_id = 0;
  for (const auto& fl : spec.udp_flows) {
    auto* from = static_cast<Host*>(b.nodes[idx.ids.at(fl.from)]);
    auto* to = static_cast<Host*>(b.nodes[idx.ids.at(fl.to)]);
    UdpSink* sink = nullptr;
    const bool linux_rx = spec.hosts[idx.ids.at(fl.to)].os == "linux";
    std::uint64_t rcvbuf = linux_rx ? kLinuxUdpRcvbufDefault : kFreeBsdUdpRecvspace;
    if (fl.app == "nuttcp" && fl.nuttcp.window > 0) {  // -w: SO_RCVBUF on the server's socket too
      rcvbuf = tcp::setsockopt_buffer_bytes(linux_rx ? tcp::SocketBufferOs::linux : tcp::SocketBufferOs::freebsd, false,
                                            fl.nuttcp.window);
    }
    try {
      sink = &sim.add<UdpSink>(fl.name + "/sink", *to, fl.dst_port, rcvbuf);
    } catch (const std::invalid_argument&) {
      throw ScenarioError(fl.loc, "traffic." + fl.name + ".dst_port",
                          "port " + std::to_string(fl.dst_port) + " on host '" + fl.to +
                              "' is already used by another flow");
    }
    UdpSourceConfig c;
    c.dst = to->id();
    c.src_port = fl.src_port;
    c.dst_port = fl.dst_port;
    c.payload_bytes = static_cast<std::uint32_t>(fl.payload_bytes);
    c.rate = fl.rate;
    c.start = fl.start;
    c.stop = fl.stop ? std::min(*fl.stop, spec.duration) : spec.duration;
    c.flow_id = flow_id++;
    c.send_buffer = static_cast<std::uint64_t>(fl.send_buffer);
    if (fl.app == "nuttcp") {
      // nuttcp -u: -l defaults to the largest power of 2 within the TCP MSS of
      // the control connection (IP, TCP and timestamp headers off the MTU).
      if (c.payload_bytes == 0) {
        const std::uint32_t mss = host_mtu(spec, fl.from) - (spec.hosts[idx.ids.at(fl.from)].address.find(':') != std::string::npos ? 40u : 20u) - 32u;
        c.payload_bytes = 1;
        while (c.payload_bytes * 2 <= mss) c.payload_bytes *= 2;
      }
      if (fl.nuttcp.window > 0) {  // -w: SO_SNDBUF
        const bool linux_tx = spec.hosts[idx.ids.at(fl.from)].os == "linux";
        c.send_buffer = tcp::setsockopt_buffer_bytes(linux_tx ? tcp::SocketBufferOs::linux : tcp::SocketBufferOs::freebsd,
                                                     true, fl.nuttcp.window);
      }
    }
    UdpSource* source = &sim.add<UdpSource>(fl.name, *from, c);
    BuiltUdpFlow built{&fl, source, sink};
    if (fl.app == "nuttcp") {
      NuttcpFlowConfig nc;
      nc.start = c.start;
      nc.time = std::max<SimTime>(0, c.stop - c.start);
      nc.interval = fl.nuttcp.interval;
      nc.run_end = spec.duration;
      nc.sender_host = from->id();
      nc.buffer_len = c.payload_bytes;
      nc.window = fl.nuttcp.window;
      nc.rate_mbps = c.rate ? c.rate->mbps_value() : 0.0;
      nc.version = fl.nuttcp.version;
      auto& flow = sim.add<NuttcpUdpFlow>(fl.name + "/nuttcp", nc, *source, *sink);
      flow.set_host_cpus(from->cpu(), to->cpu());
      built.nuttcp = &flow;
    }
    b.udp_flows.push_back(built);
  }

  // One echo service per pinged host; each ping process its own identifier.
  std::map<std::string, IcmpEchoResponder*> echo_services;
  std::uint16_t ping_ident = 0;
  for (const auto& fl : spec.ping_flows) {
    auto* from = static_cast<Host*>(b.nodes[idx.ids.at(fl.from)]);
    auto* to = static_cast<Host*>(b.nodes[idx.ids.at(fl.to)]);
    if (echo_services.count(fl.to) == 0) {
      echo_services[fl.to] = &sim.add<IcmpEchoResponder>(fl.to + "/icmp-echo", *to);
    }
    PingConfig c;
    c.dst = to->id();
    c.ident = ++ping_ident;
    c.data_bytes = static_cast<std::uint32_t>(fl.data_bytes);
    c.interval = fl.interval;
    c.count = fl.count;
    c.start = fl.start;
    c.stop = fl.stop ? std::min(*fl.stop, spec.duration) : spec.duration;
    c.flow_id = flow_id++;
    b.ping_flows.push_back({&fl, &sim.add<PingClient>(fl.name, *from, c)});
  }

  // One receiving endpoint (the host's receive stack) per distinct (host,
  // dst_port), created before any sender so that no sender takes its port as
  // an ephemeral one.
  struct Listener {
    tcp::TcpReceiveEndpoint* rx;
    std::shared_ptr<ListenerDispatch> apps;
  };
  std::map<std::pair<std::string, std::uint16_t>, Listener> listeners;
  for (const auto& fl : spec.tcp_flows) {
    if (fl.reverse) continue;  // iperf3 -R: the Linux side connects (from ephemeral ports)
    const auto key = std::make_pair(fl.to, fl.dst_port);
    if (listeners.count(key) != 0) continue;
    auto* to = static_cast<Host*>(b.nodes[idx.ids.at(fl.to)]);
    // Connection slots: one per bulk flow, control + -P data connections per
    // iperf3 flow, -P connections per iperf2 flow.
    // nuttcp: -N connections; its -w sets the listening socket's SO_RCVBUF
    // (the first nuttcp flow's to this port).
    int connections = 0;
    std::uint64_t window = 0;
    for (const TcpFlowSpec& o : spec.tcp_flows) {
      if (o.to != fl.to || o.dst_port != fl.dst_port || o.reverse) continue;
      connections += o.app == "iperf3" ? 1 + o.parallel : o.app == "iperf2" || o.app == "nuttcp" ? o.parallel : 1;
      if (o.app == "nuttcp" && window == 0) window = o.nuttcp.window;
    }
    tcp::TcpReceiveEndpoint* rx = nullptr;
    try {
      rx = &add_receive_endpoint(sim, spec, fl.to + "/tcp-" + std::to_string(fl.dst_port), *to,
                                 spec.hosts[idx.ids.at(fl.to)], fl.dst_port, connections, window);  // hosts have the first ids
    } catch (const std::invalid_argument&) {
      throw ScenarioError(fl.loc, "traffic." + fl.name + ".dst_port",
                          "tcp port " + std::to_string(fl.dst_port) + " on host '" + fl.to + "' is already in use");
    }
    // The listening endpoint hands each connection to the flow it belongs to.
    auto dispatch = std::make_shared<ListenerDispatch>(*rx);
    rx->set_on_accept([dispatch](tcp::TcpReceiveEndpoint::ConnId c) { dispatch->on_accept(c); });
    rx->set_on_data([dispatch](tcp::TcpReceiveEndpoint::ConnId c, std::uint64_t bytes) { dispatch->on_data(c, bytes); });
    listeners.emplace(key, Listener{rx, dispatch});
  }
  // iperf3 -R: one FreeBSD listener per distinct (from, dst_port), where the
  // iperf3 server runs; also created before any ephemeral port is taken.
  std::map<std::pair<std::string, std::uint16_t>, tcp::FreeBsdTcpListener*> freebsd_listeners;
  for (const auto& fl : spec.tcp_flows) {
    const auto key = std::make_pair(fl.from, fl.dst_port);
    if (!fl.reverse || freebsd_listeners.count(key) != 0) continue;
    if (spec.hosts[idx.ids.at(fl.from)].os == "linux") {  // hosts have the first ids
      throw ScenarioError(fl.loc, "traffic." + fl.name + ".reverse",
                          "host '" + fl.from + "' has os: linux, whose TCP sender has no passive open yet (iperf3 -R)");
    }
    auto* from = static_cast<Host*>(b.nodes[idx.ids.at(fl.from)]);
    try {
      freebsd_listeners[key] =
          &sim.add<tcp::FreeBsdTcpListener>(fl.from + "/tcp-" + std::to_string(fl.dst_port), *from, fl.dst_port);
    } catch (const std::invalid_argument&) {
      throw ScenarioError(fl.loc, "traffic." + fl.name + ".dst_port",
                          "tcp port " + std::to_string(fl.dst_port) + " on host '" + fl.from + "' is already in use");
    }
  }
  for (const auto& fl : spec.tcp_flows) {
    auto* from = static_cast<Host*>(b.nodes[idx.ids.at(fl.from)]);
    auto* to = static_cast<Host*>(b.nodes[idx.ids.at(fl.to)]);
    if (fl.reverse) {
      b.tcp_flows.push_back(build_reverse_iperf3(sim, spec, fl, *from, *to,
                                                 *freebsd_listeners.at(std::make_pair(fl.from, fl.dst_port))));
      continue;
    }
    const bool linux_sender = spec.hosts[idx.ids.at(fl.from)].os == "linux";  // hosts have the first ids
    Listener& l = listeners.at(std::make_pair(fl.to, fl.dst_port));
    tcp::FreeBsdTcpConfig sc = sender_config(spec, fl);
    tcp::lnx::LinuxTcpConfig lc;
    lc.cc = fl.cc;
    lc.sack = fl.sack;
    lc.tso = fl.tso;
    if (fl.app == "nuttcp" && fl.nuttcp.window > 0) {  // nuttcp -w: SO_SNDBUF, autotuning off
      lc.wmem_max = static_cast<std::uint32_t>(tcp::setsockopt_buffer_bytes(tcp::SocketBufferOs::linux, true, fl.nuttcp.window));
      sc.sendspace = static_cast<std::uint32_t>(tcp::setsockopt_buffer_bytes(tcp::SocketBufferOs::freebsd, true, fl.nuttcp.window));
      sc.sendbuf_auto = false;
    }
    const SimTime start = flow_start(sim, fl);
    // iperf's -P data connections: the first carries the flow's name.
    const HostSpec& from_spec = spec.hosts[idx.ids.at(fl.from)];
    auto add_sender = [&](const std::string& name) -> tcp::TcpSendSocket& {
      if (linux_sender && !from_spec.kernel.empty()) {
        return sim.add<tcp::lnx26::Linux26TcpSender>(name, *from, to->id(), fl.dst_port,
                                                     linux26_config(from_spec, fl, lc));
      }
      if (linux_sender) return sim.add<tcp::lnx::LinuxTcpSender>(name, *from, to->id(), fl.dst_port, lc);
      return sim.add<tcp::FreeBsdTcpSender>(name, *from, to->id(), fl.dst_port, sc);
    };
    auto add_streams = [&] {
      std::vector<tcp::TcpSendSocket*> streams;
      for (int i = 0; i < fl.parallel; ++i) streams.push_back(&add_sender(stream_name(fl, i)));
      return streams;
    };
    if (fl.app == "iperf2") {
      // iperf -c: -P data connections (the first carries the flow's name), no control connection.
      const std::vector<tcp::TcpSendSocket*> streams = add_streams();
      app::Iperf2ClientConfig cc;
      cc.start = start;
      cc.time = fl.time;
      cc.run_end = spec.duration;
      cc.interval = spec.interval;
      cc.write_len = fl.length;
      auto& client = sim.add<app::Iperf2Client>(fl.name + "/iperf2-client", cc, streams);
      app::Iperf2ServerConfig scfg;
      scfg.client = from->id();
      for (const tcp::TcpSendSocket* st : streams) scfg.stream_ports.push_back(st->local_port());
      scfg.interval = spec.interval;
      scfg.run_end = spec.duration;
      auto& server = sim.add<app::Iperf2Server>(fl.name + "/iperf2-server", *l.rx, scfg);
      client.set_read_counter([&server](int i) { return server.reads(i); });
      client.set_on_shutdown([&server](int i, std::uint64_t total) { server.set_eof(i, total); });
      server.set_on_close([&client](int i) { client.on_peer_close(i); });
      auto& flow = sim.add<Iperf2TcpFlow>(fl.name + "/iperf2", client, server);
      l.apps->iperf2_servers.push_back(&server);
      BuiltTcpFlow built{&fl, streams.front(), streams, l.rx, &flow};
      built.iperf2_client = &client;
      built.iperf2_server = &server;
      built.start = start;
      b.tcp_flows.push_back(built);
      continue;
    }
    if (fl.app == "nuttcp") {
      // nuttcp -t -N: the data connections (the first carries the flow's name);
      // the control connection (port 5000) is not modelled.
      const std::vector<tcp::TcpSendSocket*> streams = add_streams();
      NuttcpFlowConfig nc;
      nc.start = start;
      nc.time = fl.nuttcp.time;
      nc.interval = fl.nuttcp.interval;
      nc.run_end = spec.duration;
      nc.sender_host = from->id();
      nc.buffer_len = static_cast<std::uint32_t>(fl.length);
      nc.window = fl.nuttcp.window;
      nc.version = fl.nuttcp.version;
      auto& flow = sim.add<NuttcpTcpFlow>(fl.name + "/nuttcp", nc, streams, *l.rx);
      flow.set_host_cpus(from->cpu(), to->cpu());
      l.apps->nuttcp.push_back(&flow);
      BuiltTcpFlow built{&fl, streams.front(), streams, l.rx, &flow};
      built.nuttcp = &flow;
      built.start = start;
      b.tcp_flows.push_back(built);
      continue;
    }
    if (fl.app != "iperf3") {
      tcp::TcpSendSocket& tx = add_sender(fl.name);
      const SimTime end = fl.stop ? std::min(*fl.stop, spec.duration) : spec.duration;
      auto& driver = sim.add<TcpFlowDriver>(fl.name + "/driver", tx, *l.rx, from->id(), start, end);
      l.apps->drivers.push_back(&driver);
      BuiltTcpFlow built{&fl, &tx, {&tx}, l.rx, &driver};
      built.start = start;
      b.tcp_flows.push_back(built);
      continue;
    }
    // iperf3 -c: a control connection, then -P data connections (the first
    // one carries the flow's name), each with its own ephemeral port.
    tcp::TcpSendSocket& control = add_sender(fl.name + "/control");
    const std::vector<tcp::TcpSendSocket*> streams = add_streams();
    app::Iperf3ClientConfig cc = iperf3_client_config(spec, fl, start);
    cc.congestion = linux_sender ? fl.cc : freebsd_cc_module(fl.cc);  // -C names the sender's module
    auto& client = sim.add<app::Iperf3Client>(fl.name + "/iperf3-client", cc, control, streams);
    app::Iperf3ServerConfig scfg;
    scfg.client = from->id();
    scfg.control_port = control.local_port();
    for (const tcp::TcpSendSocket* st : streams) scfg.stream_ports.push_back(st->local_port());
    auto& server = sim.add<app::Iperf3Server>(fl.name + "/iperf3-server", *l.rx, client.control_channel(), scfg);
    client.set_server_streams(server.data_streams());
    client.set_host_cpu(from->cpu(), !linux_sender);  // FreeBSD: ithreads are not the process's time
    server.set_host_cpu(to->cpu());
    auto& flow = sim.add<Iperf3TcpFlow>(fl.name + "/iperf3", client, server);
    l.apps->iperf3_servers.push_back(&server);
    BuiltTcpFlow built{&fl, streams.front(), streams, l.rx, &flow, &client, &server};
    built.start = start;
    b.tcp_flows.push_back(built);
  }
  // SIFTR last: it finds every FreeBSD connection of its host, whichever app made it.
  for (const HostSpec& h : spec.hosts) {
    if (!h.siftr) continue;
    auto* host = static_cast<Host*>(b.nodes[idx.ids.at(h.name)]);
    auto& siftr = sim.add<tcp::Siftr>("siftr/" + h.name, *host, h.siftr->config);
    for (const auto& c : sim.components()) {
      const auto* t = dynamic_cast<const tcp::FreeBsdTcpSender*>(c.get());
      if (t == nullptr || &t->host() != host) continue;
      siftr.attach(*t, static_cast<const Host*>(b.nodes[t->peer()])->address());
    }
    b.siftrs.push_back({&h, &siftr});
  }
  return b;
}

}  // namespace netsim
