#include "netsim/lab/lab_cell_plan.h"

#include <arpa/inet.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "netsim/scenario/scenario_loader.h"

namespace netsim::lab {
namespace {

// Where `path` ("hosts.sender.clock_ppm") is written: the --set override
// that gave it, else its line in the scenario file, else `fallback` (the
// element's own position; the value may come from a default or an include).
SourceLoc field_loc(const ScenarioSpec& spec, const std::string& path, const SourceLoc& fallback) {
  for (const Override& o : spec.overrides) {
    if (o.key == path) return SourceLoc{std::string(kOverrideSource), 0, 0};
  }
  try {
    YAML::Node node = YAML::LoadFile(spec.file);
    std::stringstream parts(path);
    std::string part;
    while (std::getline(parts, part, '.')) {
      if (!node.IsMap() || !node[part]) return fallback;
      node = node[part];
    }
    return SourceLoc{spec.file, node.Mark().line + 1, node.Mark().column + 1};
  } catch (const YAML::Exception&) {
    return fallback;
  }
}

class Checker {
 public:
  explicit Checker(const ScenarioSpec& spec) : spec_(spec) {}
  [[noreturn]] void fail(const std::string& path, const SourceLoc& element, const std::string& why) const {
    const SourceLoc loc = field_loc(spec_, path, element);
    std::string override_text;
    for (const Override& o : spec_.overrides) {
      if (o.key == path) override_text = format_override(o);
    }
    throw ScenarioError(loc, path, "netsim lab: " + why, override_text);
  }
  // A field the lab cannot reproduce: allowed only at its default.
  template <class T>
  void default_only(const std::string& path, const SourceLoc& element, const T& value, const T& def,
                    const std::string& why) const {
    if (!(value == def)) fail(path, element, why);
  }

 private:
  const ScenarioSpec& spec_;
};

bool in_benchmark_range(const std::string& address) {
  in_addr a{};
  if (inet_pton(AF_INET, address.c_str(), &a) != 1) return false;
  const std::uint32_t v = ntohl(a.s_addr);
  return (v & 0xFFFE0000u) == 0xC6120000u;  // 198.18.0.0/15
}

std::string seconds_text(SimTime t) {
  std::ostringstream s;
  s << static_cast<double>(t) / static_cast<double>(kPicosPerSecond);
  return s.str();
}

void check_host(const Checker& c, const HostSpec& h, const LabEnvironment& env) {
  const std::string p = "hosts." + h.name;
  if (h.ip_version != IpVersion::v4) c.fail(p + ".address", h.loc, "IPv6 hosts are not supported in the lab yet");
  if (!in_benchmark_range(h.address))
    c.fail(p + ".address", h.loc,
           "address " + h.address + " is outside 198.18.0.0/15, the benchmarking range the lab uses");
  if (env.config_hz != 0 && h.hz != env.config_hz)
    c.fail(p + ".hz", h.loc,
           "hz " + std::to_string(h.hz) + " but this kernel runs CONFIG_HZ=" + std::to_string(env.config_hz) +
               "; the lab cannot change it (set hz: " + std::to_string(env.config_hz) + ")");
  const HostSpec d;
  c.default_only(p + ".clock_ppm", h.loc, h.clock_ppm, d.clock_ppm, "clock tolerance cannot be set on veth");
  c.default_only(p + ".vm_host_alloweddeviation", h.loc, h.vm_host_alloweddeviation, d.vm_host_alloweddeviation,
                 "the lab runs no VM");
  c.default_only(p + ".netem_delay", h.loc, h.netem_delay, d.netem_delay,
                 "this kernel has no sch_netem; give the delay on the link (links.*.delay)");
  c.default_only(p + ".tx_buffer_bytes", h.loc, h.tx_buffer_bytes, d.tx_buffer_bytes,
                 "host transmit queue limits are not mapped; use links.*.queue.packets or queue.bytes");
  c.default_only(p + ".tx_buffer_packets", h.loc, h.tx_buffer_packets, d.tx_buffer_packets,
                 "host transmit queue limits are not mapped; use links.*.queue.packets or queue.bytes");
  if (h.cpu.any()) c.fail(p + ".cpu", h.loc, "CPU costs are the model's; the lab's CPU is the real one");
  if (h.nic) {
    const NicSpec& n = *h.nic;
    const NicSpec dn;
    const std::string q = p + ".nic";
    const std::string model_only = "a model-only NIC timing knob; the lab's veth has no such setting";
    if (n.filter_position != NicFilterPosition::after_gro)
      c.fail(q + ".filter_position", h.loc, "iptables INPUT sees packets after GRO: only after_gro exists in the lab");
    c.default_only(q + ".irq_delay", h.loc, n.irq_delay, dn.irq_delay, model_only);
    c.default_only(q + ".budget", h.loc, n.budget, dn.budget, model_only);
    c.default_only(q + ".per_packet_cost", h.loc, n.per_packet_cost, dn.per_packet_cost, model_only);
    c.default_only(q + ".irq_min_interval", h.loc, n.irq_min_interval, dn.irq_min_interval, model_only);
    c.default_only(q + ".irq_jitter", h.loc, n.irq_jitter, dn.irq_jitter, model_only);
    c.default_only(q + ".idle_wake_delay", h.loc, n.idle_wake_delay, dn.idle_wake_delay, model_only);
    c.default_only(q + ".idle_wake_jitter", h.loc, n.idle_wake_jitter, dn.idle_wake_jitter, model_only);
    c.default_only(q + ".merge_acks", h.loc, n.merge_acks, dn.merge_acks, "FreeBSD tcp_lro has no Linux equivalent");
    c.default_only(q + ".ring_size", h.loc, n.ring_size, dn.ring_size, model_only);
    c.default_only(q + ".rx_fifo", h.loc, n.rx_fifo, dn.rx_fifo, model_only);
    if (n.flow_control) c.fail(q + ".flow_control", h.loc, "veth has no 802.3x flow control");
    if (n.driver != NicDriver::virtio) c.fail(q + ".driver", h.loc, "the lab runs no VM (vmx and vmxnet3 are vNICs)");
    c.default_only(q + ".host_int_rx_mod", h.loc, n.host_int_rx_mod, dn.host_int_rx_mod, "the lab runs no VM");
    c.default_only(q + ".host_int_latency", h.loc, n.host_int_latency, dn.host_int_latency, "the lab runs no VM");
    c.default_only(q + ".host_int_jitter", h.loc, n.host_int_jitter, dn.host_int_jitter, "the lab runs no VM");
    c.default_only(q + ".gro_flush_timeout", h.loc, n.gro_flush_timeout, dn.gro_flush_timeout,
                   "not mapped onto veth yet");
    c.default_only(q + ".napi_defer_hard_irqs", h.loc, n.napi_defer_hard_irqs, dn.napi_defer_hard_irqs,
                   "not mapped onto veth yet");
  }
}

LabLink plan_link(const Checker& c, const LinkSpec& l) {
  const std::string p = "links." + l.name;
  if (l.eee) c.fail(p + ".eee", l.loc, "veth has no Energy-Efficient Ethernet");
  if (l.queue_packets && l.queue_bytes)
    c.fail(p + ".queue.bytes", l.loc, "the lab's htb leaf is one FIFO: give queue.packets or queue.bytes, not both");
  if (l.framing_bytes < 14) c.fail(p + ".framing", l.loc, "must count at least the 14-byte Ethernet header");
  if (l.mtu < 576 || l.mtu > 65535) c.fail(p + ".mtu", l.loc, "veth takes an MTU from 576 to 65535 here");
  if (l.delay % kPicosPerMicro != 0) c.fail(p + ".delay", l.loc, "the delay daemon works in whole microseconds");
  LabLink k;
  k.rate_bps = l.rate.bps();
  k.overhead_bytes = l.framing_bytes - 14;
  k.mtu = l.mtu;
  k.delay_us = l.delay / kPicosPerMicro;
  k.queue_packets = l.queue_packets;
  k.queue_bytes = l.queue_bytes;
  return k;
}

const char* protocol_name(IpProtocol p) {
  switch (p) {
    case IpProtocol::tcp: return "tcp";
    case IpProtocol::udp: return "udp";
    case IpProtocol::icmp: return "icmp";
    case IpProtocol::icmpv6: return "icmpv6";
  }
  return "all";
}

LabRule plan_rule(const Checker& c, const FilterSpec& f, const std::string& netns) {
  const std::string p = "filters." + f.name;
  if (f.type == FilterType::custom) {
    c.fail(p + ".type", f.loc, "filter type '" + f.custom_type + "' is the program's own and has no iptables rule");
  }
  LabRule r;
  r.filter = f.name;
  r.netns = netns;
  r.args = {"-A", f.hook == FilterHook::ingress ? "INPUT" : "OUTPUT"};
  if (f.match.protocol) r.args.insert(r.args.end(), {"-p", protocol_name(*f.match.protocol)});
  if ((f.match.src_port || f.match.dst_port) &&
      !(f.match.protocol == IpProtocol::tcp || f.match.protocol == IpProtocol::udp))
    c.fail(p + ".match", f.loc, "iptables matches ports only with protocol tcp or udp");
  if (f.match.src_port) r.args.insert(r.args.end(), {"--sport", std::to_string(*f.match.src_port)});
  if (f.match.dst_port) r.args.insert(r.args.end(), {"--dport", std::to_string(*f.match.dst_port)});
  r.args.insert(r.args.end(), {"-m", "statistic"});
  if (f.type == FilterType::nth) {
    r.args.insert(r.args.end(), {"--mode", "nth", "--every", std::to_string(f.every), "--packet",
                                 std::to_string(f.packet)});
  } else {
    std::ostringstream prob;
    prob.precision(11);
    prob << f.probability;
    r.args.insert(r.args.end(), {"--mode", "random", "--probability", prob.str()});
  }
  r.args.insert(r.args.end(), {"-j", "DROP"});
  return r;
}

LabFlow plan_flow(const Checker& c, const TcpFlowSpec& t, const LabEndpoint& from, const LabEndpoint& to,
                  const LabEnvironment& env, SimTime interval, bool several) {
  const std::string p = "traffic." + t.name;
  const TcpFlowSpec d;
  if (t.app != "iperf3" && t.app != "iperf2")
    c.fail(p + ".app", t.loc, "app: " + t.app + " has no real tool; the lab runs iperf3 and iperf2 flows");
  if (t.start != 0) c.fail(p + ".start", t.loc, "lab flows start together at the beginning of the run");
  c.default_only(p + ".start_jitter", t.loc, t.start_jitter, d.start_jitter, "lab flows start together");
  if (t.stop) c.fail(p + ".stop", t.loc, "the lab measures the tool's whole test (time:)");
  if (t.time % kPicosPerSecond != 0)
    c.fail(p + ".time", t.loc, "iperf -t takes whole seconds");
  if (!env.congestion_controls.empty() && env.congestion_controls.count(t.cc) == 0) {
    std::string have;
    for (const auto& n : env.congestion_controls) have += (have.empty() ? "" : ", ") + n;
    c.fail(p + ".cc", t.loc, "this kernel offers " + have + ", not " + t.cc);
  }
  LabFlow f;
  f.name = t.name;
  f.app = t.app;
  f.port = t.dst_port;
  f.seconds = static_cast<double>(t.time / kPicosPerSecond);
  // iperf3 -R: the client runs on the data receiver, the server on the sender.
  const LabEndpoint& client = t.reverse ? to : from;
  const LabEndpoint& server = t.reverse ? from : to;
  f.client_netns = client.netns;
  f.server_netns = server.netns;
  f.server_address = server.address;
  f.data_receiver_netns = to.netns;
  const std::string secs = std::to_string(t.time / kPicosPerSecond);
  const std::string prefix = several ? t.name + "-" : "";
  if (t.app == "iperf3") {
    f.server_argv = {"iperf3", "-s", "-1", "-B", server.address, "-p", std::to_string(t.dst_port)};
    f.client_argv = {"iperf3", "-c", server.address, "-B", client.address, "-p", std::to_string(t.dst_port),
                     "-t", secs, "-l", std::to_string(t.length), "-P", std::to_string(t.parallel), "-C", t.cc, "-J"};
    if (interval > 0) f.client_argv.insert(f.client_argv.end(), {"-i", seconds_text(interval)});
    if (t.reverse) f.client_argv.push_back("-R");
    f.output_file = prefix + "iperf3.json";
    f.output_format = "iperf3-json";
  } else {
    if (t.reverse) c.fail(p + ".reverse", t.loc, "reverse is an iperf3 option");
    f.server_argv = {"iperf", "-s", "-B", server.address, "-p", std::to_string(t.dst_port)};
    f.client_argv = {"iperf", "-c", server.address, "-B", client.address, "-p", std::to_string(t.dst_port),
                     "-t", secs, "-l", std::to_string(t.length), "-P", std::to_string(t.parallel), "-Z", t.cc,
                     "-e"};
    if (interval > 0) f.client_argv.insert(f.client_argv.end(), {"-i", seconds_text(interval)});
    f.output_file = prefix + "iperf2.txt";
    f.output_format = "iperf2";
  }
  return f;
}

}  // namespace

LabCellPlan plan_lab_cell(const ScenarioSpec& spec, const LabEnvironment& env, const std::string& tag) {
  const Checker c(spec);
  const SourceLoc top{spec.file, 1, 1};
  if (!spec.switches.empty()) c.fail("switches." + spec.switches.front().name, spec.switches.front().loc,
                                     "the lab joins two hosts by one veth pair; switches are not built");
  if (!spec.hubs.empty())
    c.fail("hubs." + spec.hubs.front().name, spec.hubs.front().loc, "the lab has no shared medium");
  if (!spec.vswitches.empty())
    c.fail("vswitches." + spec.vswitches.front().name, spec.vswitches.front().loc, "the lab runs no VM");
  if (spec.hosts.size() != 2) c.fail("hosts", top, "the lab runs exactly two hosts joined by one link");
  if (spec.links.size() != 1) c.fail("links", top, "the lab runs exactly one link between the two hosts");
  if (!spec.udp_flows.empty())
    c.fail("traffic." + spec.udp_flows.front().name, spec.udp_flows.front().loc, "UDP flows are not run in the lab yet");
  if (!spec.ping_flows.empty())
    c.fail("traffic." + spec.ping_flows.front().name, spec.ping_flows.front().loc, "ping flows are not run in the lab yet");
  if (spec.tcp_flows.empty()) c.fail("traffic", top, "the lab needs at least one iperf3 or iperf2 flow");

  const LinkSpec& link = spec.links.front();
  auto host_named = [&](const std::string& name) -> const HostSpec& {
    for (const HostSpec& h : spec.hosts) {
      if (h.name == name) return h;
    }
    c.fail("links." + link.name + ".ends", link.loc, "end " + name + " is not a host");
  };
  const HostSpec& ha = host_named(link.end_a);
  const HostSpec& hb = host_named(link.end_b);
  for (const HostSpec& h : spec.hosts) check_host(c, h, env);
  if (ha.address == hb.address) c.fail("hosts." + hb.name + ".address", hb.loc, "both hosts have one address");

  LabCellPlan plan;
  plan.iptables = env.iptables;
  plan.a = {ha.name, kNetnsPrefix + tag + "-a", "veth-a", ha.address};
  plan.b = {hb.name, kNetnsPrefix + tag + "-b", "veth-b", hb.address};
  plan.link = plan_link(c, link);
  auto endpoint_of = [&](const std::string& host) -> const LabEndpoint& {
    return host == plan.a.host ? plan.a : plan.b;
  };

  for (const FilterSpec& f : spec.filters) {
    if (f.type == FilterType::nth && f.every == 0) continue;  // every: none
    plan.rules.push_back(plan_rule(c, f, endpoint_of(f.host).netns));
  }

  // Offloads. Sender TSO/GSO: with tso: false both are off, so every wire
  // segment is its own skb from TCP to the receiver (veth carries GSO skbs
  // unsegmented, so GSO alone would still deliver 64 KB packets). Receiver
  // GRO: the receiving host's nic.gro (veth GRO runs in NAPI). Hosts
  // without a nic: GRO off, as the model delivers such packets one by one.
  std::map<std::string, std::optional<bool>> tso;  // by host: nullopt = sends no data
  for (const TcpFlowSpec& t : spec.tcp_flows) {
    auto& v = tso[t.from];
    if (v && *v != t.tso)
      c.fail("traffic." + t.name + ".tso", t.loc, "flows from one host must agree on tso (one veth, one setting)");
    v = t.tso;
  }
  for (const LabEndpoint* e : {&plan.a, &plan.b}) {
    const HostSpec& h = e->host == ha.name ? ha : hb;
    LabCellPlan::Settings s{e->netns, e->device, {}, {}};
    const bool t = tso[e->host].value_or(false);
    const bool gro = h.nic ? h.nic->gro : false;
    s.ethtool = {"tso", t ? "on" : "off", "gso", t ? "on" : "off", "gro", gro ? "on" : "off"};
    if (tso[e->host]) plan.data_sender_netns.push_back(e->netns);
    plan.settings.push_back(std::move(s));
  }
  for (const TcpFlowSpec& t : spec.tcp_flows) {
    if (t.from == t.to || (t.from != ha.name && t.from != hb.name) || (t.to != ha.name && t.to != hb.name))
      c.fail("traffic." + t.name, t.loc, "a lab flow goes from one of the two hosts to the other");
    const HostSpec& sender = t.from == ha.name ? ha : hb;
    if (sender.os != "linux")
      c.fail("hosts." + sender.name + ".os", sender.loc,
             "the lab's kernel is Linux; a flow's sender must be os: linux (this host sends " + t.name + ")");
    LabCellPlan::Settings& s = plan.settings[t.from == ha.name ? 0 : 1];
    const std::string sack = std::string("net.ipv4.tcp_sack=") + (t.sack ? "1" : "0");
    if (std::find(s.sysctls.begin(), s.sysctls.end(), sack) == s.sysctls.end()) {
      if (!s.sysctls.empty()) c.fail("traffic." + t.name + ".sack", t.loc, "flows from one host must agree on sack");
      s.sysctls.push_back(sack);
    }
    plan.flows.push_back(plan_flow(c, t, endpoint_of(t.from), endpoint_of(t.to), env, spec.interval,
                                   spec.tcp_flows.size() > 1));
    for (std::size_t i = 0; i + 1 < plan.flows.size(); ++i) {
      if (plan.flows[i].server_netns == plan.flows.back().server_netns && plan.flows[i].port == plan.flows.back().port)
        c.fail("traffic." + t.name + ".dst_port", t.loc,
               "flow " + plan.flows[i].name + " already has its server on port " + std::to_string(t.dst_port));
    }
  }
  return plan;
}

}  // namespace netsim::lab
