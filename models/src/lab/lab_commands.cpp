#include "netsim/lab/lab_commands.h"

#include "netsim/sweep/slurm_script.h"

namespace netsim::lab {
namespace {

void shape(std::vector<Command>& out, const LabCellPlan& p, const LabEndpoint& e) {
  const LabLink& k = p.link;
  const std::string rate = std::to_string(htb_rate_bps(k)) + "bit";
  out.push_back(in_netns(e.netns, {"tc", "qdisc", "add", "dev", e.device, "root", "handle", "1:", "htb", "default", "1"}));
  out.push_back(in_netns(e.netns, {"tc", "class", "add", "dev", e.device, "parent", "1:", "classid", "1:1", "htb",
                                   "rate", rate, "ceil", rate, "quantum", "60000"}));
  if (k.queue_bytes) {
    out.push_back(in_netns(e.netns, {"tc", "qdisc", "add", "dev", e.device, "parent", "1:1", "handle", "10:", "bfifo",
                                     "limit", std::to_string(*k.queue_bytes)}));
  } else {
    out.push_back(in_netns(e.netns, {"tc", "qdisc", "add", "dev", e.device, "parent", "1:1", "handle", "10:", "pfifo",
                                     "limit", std::to_string(k.queue_packets.value_or(LabLink::kUnlimitedPackets))}));
  }
}

}  // namespace

std::int64_t htb_rate_bps(const LabLink& k) {
  // TCP hands the qdisc GSO skbs even with gso off (the device segments them
  // in software after dequeue), and htb charges a size table's overhead once
  // per skb, not per segment. So the framing is folded into the rate instead:
  // htb counts an MTU frame as mtu + 14 bytes, the wire carries mtu + 14 +
  // overhead, and rate * (mtu + 14) / (mtu + 14 + overhead) gives MTU frames
  // the wire's frame rate. Smaller frames (ACKs) get a little more than the
  // wire would give them.
  const std::int64_t counted = k.mtu + 14;
  return k.rate_bps / (counted + k.overhead_bytes) * counted +
         k.rate_bps % (counted + k.overhead_bytes) * counted / (counted + k.overhead_bytes);
}

Command in_netns(const std::string& netns, Command argv) {
  Command c{"ip", "netns", "exec", netns};
  c.insert(c.end(), argv.begin(), argv.end());
  return c;
}

std::vector<Command> setup_commands(const LabCellPlan& p) {
  std::vector<Command> out;
  out.push_back({"ip", "netns", "add", p.a.netns});
  out.push_back({"ip", "netns", "add", p.b.netns});
  out.push_back({"ip", "link", "add", p.a.device, "netns", p.a.netns, "type", "veth", "peer", "name", p.b.device,
                 "netns", p.b.netns});
  for (const LabEndpoint* e : {&p.a, &p.b}) {
    // /30 holds both ends; the peer is on-link, nothing is routed anywhere else.
    out.push_back(in_netns(e->netns, {"ip", "addr", "add", e->address + "/30", "dev", e->device}));
    out.push_back(in_netns(e->netns, {"ip", "link", "set", e->device, "mtu", std::to_string(p.link.mtu)}));
    out.push_back(in_netns(e->netns, {"ip", "link", "set", "lo", "up"}));
    out.push_back(in_netns(e->netns, {"ip", "link", "set", e->device, "up"}));
  }
  for (const LabCellPlan::Settings& s : p.settings) {
    Command eth{"ethtool", "-K", s.device};
    eth.insert(eth.end(), s.ethtool.begin(), s.ethtool.end());
    out.push_back(in_netns(s.netns, eth));
    for (const std::string& kv : s.sysctls) out.push_back(in_netns(s.netns, {"sysctl", "-q", "-w", kv}));
  }
  shape(out, p, p.a);
  shape(out, p, p.b);
  for (const LabRule& r : p.rules) {
    Command c{p.iptables};
    c.insert(c.end(), r.args.begin(), r.args.end());
    out.push_back(in_netns(r.netns, c));
  }
  return out;
}

std::vector<Command> delay_rule_commands(const LabCellPlan& p) {
  std::vector<Command> out;
  if (p.link.delay_us <= 0) return out;
  for (const LabEndpoint* e : {&p.a, &p.b}) {
    out.push_back(in_netns(e->netns, {p.iptables, "-A", "INPUT", "-i", e->device, "-j", "NFQUEUE", "--queue-num", "0",
                                      "--queue-bypass"}));
  }
  return out;
}

Command delay_daemon_command(const LabCellPlan& p, const std::string& netns, const std::string& daemon,
                             const std::string& stats_file) {
  return in_netns(netns, {daemon, "--queue", "0", "--delay-us", std::to_string(p.link.delay_us), "--stats-file",
                          stats_file});
}

std::vector<Command> teardown_commands(const LabCellPlan& p) {
  return {{"ip", "netns", "del", p.a.netns}, {"ip", "netns", "del", p.b.netns}};
}

std::string command_text(const Command& c) {
  std::string s;
  for (const std::string& a : c) s += (s.empty() ? "" : " ") + sweep::shell_quote(a);
  return s;
}

}  // namespace netsim::lab
