// The commands that build and tear down a lab cell (ip, tc, ethtool, sysctl,
// iptables), as argv vectors, from a LabCellPlan. Pure functions: what runs
// is visible, testable without root, and logged per repetition.
#pragma once

#include <string>
#include <vector>

#include "netsim/lab/lab_cell_plan.h"

namespace netsim::lab {

using Command = std::vector<std::string>;

// The htb rate that gives MTU-sized frames the link's wire rate with its
// framing (see lab_commands.cpp for why the overhead is not a size table).
std::int64_t htb_rate_bps(const LabLink& link);

// argv prefixed with `ip netns exec NETNS`.
Command in_netns(const std::string& netns, Command argv);

// Namespaces, the veth pair (created inside the namespaces, never in the
// host's), addresses, MTU, htb at htb_rate_bps and the leaf FIFO,
// offloads, sysctls, then the scenario's iptables rules. The delay rules
// come separately (delay_rule_commands) because their daemons must be bound
// first, and after the filters so that a dropped packet is never delayed.
std::vector<Command> setup_commands(const LabCellPlan& plan);

// For each namespace that receives over a link with delay > 0: the NFQUEUE
// rule on INPUT, queue 0, --queue-bypass (packets pass undelayed while no
// daemon is bound, never dropped).
std::vector<Command> delay_rule_commands(const LabCellPlan& plan);

// netsim-nfq-delay for `netns` (stats to `stats_file`); `daemon` is its path.
Command delay_daemon_command(const LabCellPlan& plan, const std::string& netns, const std::string& daemon,
                             const std::string& stats_file);

// `ip netns del` of both namespaces (which removes the veth pair, the
// qdiscs and the rules with them).
std::vector<Command> teardown_commands(const LabCellPlan& plan);

// One line per command, shell-quoted, for commands.log.
std::string command_text(const Command& c);

}  // namespace netsim::lab
