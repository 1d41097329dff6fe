// A T1 cell in C++, without a scenario file: a FreeBSD sender (kern.hz 1000,
// NewReno) and a Linux receiver with a switch between them, 1 Gbit/s links,
// the receiver dropping every 100th TCP packet to port 5201 as
//   iptables -A INPUT -p tcp --dport 5201 -m statistic --mode nth --every 100 --packet 0 -j DROP
// does, and an iperf3 -t 3 transfer. Prints the receiver's throughput and the
// sender's retransmits.
//
// This is the shape of scenarios/t1-loss-resilience.yaml without its testbed
// model (no virtualized NICs, no calibrated delays), so its numbers are not
// the table's.
#include <iostream>

#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/scenario/topology_builder.h"

int main() {
  using namespace netsim;
  using namespace netsim::literals;

  TopologyBuilder cell("t1-cell");
  cell.duration(5_s);  // the control connection's setup, iperf3's 3 s and a margin
  cell.add_host("sender", "192.168.1.10", {{"os", "freebsd"}, {"hz", 1000}});
  cell.add_host("receiver", "192.168.1.20", {{"os", "linux"}});
  cell.add_switch("switch");
  cell.add_link("sender-switch", "sender", "switch", 1_Gbps, {{"delay", "10us"}});
  cell.add_link("switch-receiver", "switch", "receiver", 1_Gbps, {{"delay", "10us"}});
  cell.add_filter("drop", "receiver", "nth",
                  {{"hook", "ingress"}, {"every", 100}, {"packet", 0}, {"match.protocol", "tcp"},
                   {"match.dst_port", 5201}});
  cell.add_flow("iperf3", "tcp", "sender", "receiver",
                {{"app", "iperf3"}, {"time", "3s"}, {"length", "1MiB"}, {"dst_port", 5201}, {"cc", "newreno"}});

  try {
    const results::RunResult run = run_scenario(cell.build());
    if (!run.error().empty()) {
      std::cerr << "t1-cell: " << run.error() << "\n";
      return 1;
    }
    const results::FlowStats& flow = run.flows(0);
    std::cout << "t1-cell: newreno, hz 1000, every 100\n"
              << "throughput " << flow.receiver_mbps() << " Mbit/s\n"
              << "retransmits " << flow.retransmits() << "\n"
              << "dropped by the rule " << run.filters(0).dropped() << " of " << run.filters(0).matched() << "\n";
  } catch (const ScenarioError& e) {
    std::cerr << e.what() << "\n";  // names this file and the line of the offending call
    return 1;
  }
  return 0;
}
