// What `netsim lab` builds on the real kernel for one scenario cell: the
// namespaces, the veth pair, htb shaping, delay queues, iptables rules,
// offloads and the real traffic tools, derived from a ScenarioSpec.
//
// plan_lab_cell() honours the fields listed in docs/lab.md and rejects every
// other field that would change behaviour (a ScenarioError naming the file,
// line and field), so a cell never runs differently in the lab than the
// scenario says without being told. The plan is plain data; lab_commands.h
// turns it into commands, lab_rep_runner.h runs them.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "netsim/scenario/scenario_spec.h"

namespace netsim::lab {

// What the plan is checked against: this machine's kernel and tools.
struct LabEnvironment {
  int config_hz = 0;                       // CONFIG_HZ; 0 = unknown (hosts' hz then not checked)
  std::set<std::string> congestion_controls;  // net.ipv4.tcp_available_congestion_control; empty = unchecked
  std::string iptables = "iptables";       // iptables-legacy where present (NFQUEUE and statistic work there)
};

// One end of the veth pair: a scenario host in a namespace of its own.
struct LabEndpoint {
  std::string host;     // scenario host name
  std::string netns;    // namespace name
  std::string device;   // veth name inside the namespace
  std::string address;  // IPv4, from the scenario
};

struct LabLink {
  std::int64_t rate_bps = 0;       // htb rate and ceil, both directions
  std::int64_t overhead_bytes = 0; // framing_bytes minus the 14-byte header skb->len holds
  std::int64_t mtu = 1500;
  std::int64_t delay_us = 0;       // one way; each receiving namespace holds packets this long
  // htb leaf queue per direction: pfifo of packets or bfifo of bytes. The
  // model's default is an unlimited queue; the lab uses kUnlimitedPackets.
  std::optional<std::int64_t> queue_packets;
  std::optional<std::int64_t> queue_bytes;
  static constexpr std::int64_t kUnlimitedPackets = 100000;
};

// An iptables rule of a scenario filter: in `netns`, `iptables -A <args...>`.
struct LabRule {
  std::string filter;  // scenario filter name
  std::string netns;
  std::vector<std::string> args;  // after the iptables binary: -A CHAIN ... -j DROP
};

// A real traffic tool: the server in one namespace, the client in the other.
struct LabFlow {
  std::string name;
  std::string app;  // iperf3 | iperf2
  std::string client_netns, server_netns;
  std::string server_address;
  std::string data_receiver_netns;  // where the data goes (the server, or the client with -R)
  std::uint16_t port = 0;
  std::vector<std::string> server_argv, client_argv;
  std::string output_file;   // the client's report: iperf3.json / iperf2.txt (prefixed with the flow name when several)
  std::string output_format; // measurement format name (measure/measurement_file.h)
  double seconds = 0;        // the test's length: the client is given this plus a margin
};

struct LabCellPlan {
  LabEndpoint a, b;  // the link's end_a and end_b
  LabLink link;
  std::vector<LabRule> rules;  // in scenario order, appended before the delay rule of INPUT
  // Per namespace: `ethtool -K DEV feature on|off ...` and `sysctl -w k=v`.
  struct Settings {
    std::string netns, device;
    std::vector<std::string> ethtool;  // feature, value, feature, value, ...
    std::vector<std::string> sysctls;  // "net.ipv4.tcp_sack=0"
  };
  std::vector<Settings> settings;  // a then b
  std::vector<LabFlow> flows;
  std::string iptables;
  // The hosts that send data (for nstat/ss capture), as endpoint netns names.
  std::vector<std::string> data_sender_netns;
};

// Plans one cell. `tag` makes the namespace names unique ("netsim-lab-<tag>-<host>").
// Throws ScenarioError for a field the lab does not honour or cannot set.
LabCellPlan plan_lab_cell(const ScenarioSpec& spec, const LabEnvironment& env, const std::string& tag);

// The namespace prefix all lab namespaces share (netsim lab --clean removes them).
inline constexpr const char* kNetnsPrefix = "netsim-lab-";

}  // namespace netsim::lab
