#include "netsim/scenario/scenario_builder.h"

#include <map>
#include <stdexcept>

#include "netsim/filter/nth_drop_filter.h"
#include "netsim/filter/random_drop_filter.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/sim/units.h"

namespace netsim {
namespace {

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

// A channel transmitted by a switch uses the switch's per-port buffer.
ChannelConfig channel_from(const ScenarioSpec& spec, const std::string& from, const LinkSpec& l) {
  ChannelConfig c = link_channel(l);
  for (const auto& s : spec.switches) {
    if (s.name != from) continue;
    c.limit_bytes = static_cast<std::uint64_t>(s.buffer_bytes);
    c.limit_packets.reset();
    if (s.buffer_packets) c.limit_packets = static_cast<std::uint64_t>(*s.buffer_packets);
  }
  return c;
}

MatchRule match_rule(const MatchSpec& m) { return MatchRule{m.protocol, m.src_port, m.dst_port}; }

}  // namespace

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
  Simulation& sim = *b.sim;
  b.topology = build_topology(spec);
  NodeIndex idx = index_nodes(spec);

  for (const auto& h : spec.hosts) {
    b.nodes.push_back(&sim.add<Host>(h.name, idx.ids.at(h.name), h.address, h.ip_version, h.hz));
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
  for (const auto& l : spec.links) {
    Node& a = *b.nodes[idx.ids.at(l.end_a)];
    Node& z = *b.nodes[idx.ids.at(l.end_b)];
    b.links.push_back(
        &sim.add<Link>(l.name, a, z, channel_from(spec, l.end_a, l), channel_from(spec, l.end_b, l)));
  }
  auto tables = b.topology.forwarding_tables();
  for (Node* n : b.nodes) n->set_forwarding(tables[n->id()]);

  for (const auto& f : spec.filters) {
    auto* host = static_cast<Host*>(b.nodes[idx.ids.at(f.host)]);
    PacketFilter* filter = nullptr;
    if (f.type == FilterType::nth) {
      filter = &sim.add<NthDropFilter>(f.name, match_rule(f.match), static_cast<std::uint32_t>(f.every),
                                       static_cast<std::uint32_t>(f.packet));
    } else {
      filter = &sim.add<RandomDropFilter>(f.name, match_rule(f.match), f.probability);
    }
    host->add_filter(f.hook == FilterHook::ingress ? Hook::ingress : Hook::egress, filter);
    b.filters.push_back({&f, filter});
  }

  std::uint32_t flow_id = 0;
  for (const auto& fl : spec.udp_flows) {
    auto* from = static_cast<Host*>(b.nodes[idx.ids.at(fl.from)]);
    auto* to = static_cast<Host*>(b.nodes[idx.ids.at(fl.to)]);
    UdpSink* sink = nullptr;
    try {
      sink = &sim.add<UdpSink>(fl.name + "/sink", *to, fl.dst_port);
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
    UdpSource* source = &sim.add<UdpSource>(fl.name, *from, c);
    b.udp_flows.push_back({&fl, source, sink});
  }
  return b;
}

}  // namespace netsim
