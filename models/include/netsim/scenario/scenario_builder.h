// Turns a validated ScenarioSpec into a ready-to-run Simulation.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netsim/app/udp_sink.h"
#include "netsim/app/udp_source.h"
#include "netsim/filter/packet_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/hub.h"
#include "netsim/net/link.h"
#include "netsim/net/switch.h"
#include "netsim/nic/gro_receive_nic.h"
#include "netsim/scenario/scenario_spec.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/linux_tcp_receiver.h"
#include "netsim/topology/topology.h"

namespace netsim {

struct BuiltFilter {
  const FilterSpec* spec;
  PacketFilter* filter;
};

struct BuiltUdpFlow {
  const UdpFlowSpec* spec;
  UdpSource* source;
  UdpSink* sink;
};

// One receive NIC: a host with a `nic:` block gets one per incoming link.
struct BuiltNic {
  const HostSpec* host;
  const LinkSpec* link;
  GroReceiveNic* nic;
};

// Counters of one tcp flow over its measurement window [start, end).
struct TcpFlowCounters {
  std::uint64_t data_segments_sent = 0;  // sender: segments without SYNs, retransmissions included
  std::uint64_t bytes_sent = 0;          // sender: payload bytes, retransmissions included
  std::uint64_t bytes_acked = 0;         // sender: cumulatively acknowledged
  std::uint64_t retransmits = 0;         // sender: retransmitted segments
  std::uint64_t rto_count = 0;
  std::uint64_t recovery_episodes = 0;
  std::uint32_t cwnd = 0;                // bytes
  std::uint32_t srtt_us = 0;
  std::uint64_t segments_received = 0;   // receiver: wire segments of this connection
  std::uint64_t bytes_delivered = 0;     // receiver: in order to the application
};

// Runs one tcp flow like `iperf3 -c`: connects at `start` with unlimited data,
// and at `end` (min(stop, duration)) stops writing and freezes its counters
// (the connection itself goes on with what is buffered; nothing is counted).
class TcpFlowDriver final : public Component, public EventHandler {
 public:
  TcpFlowDriver(Simulation& sim, std::string name, tcp::FreeBsdTcpSender& sender, tcp::LinuxTcpReceiver& receiver,
                NodeId sender_host, SimTime start, SimTime end);
  // iperf3 timing: connect `control` at `start`, the data connection once the
  // control one is up, and measure `test_time` from the data connection's
  // establishment (capped at `run_end`). Until then the window is empty.
  void use_iperf3_timing(tcp::FreeBsdTcpSender& control, SimTime test_time, SimTime run_end);
  // iperf3 reporting: sample the sender (and the server's reads) every
  // `interval` from the test start (0: no intervals); the client writes
  // `block` bytes per write(), and counts a write when it has completed.
  void report_iperf3(SimTime interval, std::uint64_t block);
  struct Iperf3Sample {
    SimTime start = 0;  // absolute simulated times
    SimTime end = 0;
    std::uint64_t bytes_sent = 0;
    std::uint64_t bytes_received = 0;
    std::uint64_t retransmits = 0;
    std::uint32_t snd_cwnd = 0;
    std::uint32_t snd_wnd = 0;
    std::uint32_t rtt_us = 0;
    std::uint32_t rttvar_us = 0;
  };
  const std::vector<Iperf3Sample>& iperf3_samples() const { return samples_; }
  // Bytes of completed application writes (whole blocks) so far.
  std::uint64_t app_bytes_written() const;
  // Completed-write bytes within the test window (frozen at finish()).
  std::uint64_t app_bytes_sent() const { return (finished() ? frozen_written_ : app_bytes_written()) - written_at_start_; }
  const tcp::FreeBsdTcpSender* control() const { return control_; }
  const tcp::FreeBsdTcpSender& sender() const { return sender_; }

  void handle_event(std::uint64_t tag) override;
  // Freezes the counters and stops the application writing. Idempotent.
  void finish();
  bool finished() const { return frozen_.has_value(); }
  // Whether receiver connection `c` is this flow's.
  bool owns(tcp::LinuxTcpReceiver::ConnId c) const;
  // In-order bytes handed to the receiving app on connection `c` (owned by this flow).
  void on_delivered(tcp::LinuxTcpReceiver::ConnId c, std::uint64_t bytes);
  // Live until finish(), frozen after.
  TcpFlowCounters counters() const;
  SimTime start() const { return start_; }
  SimTime end() const { return end_; }

 private:
  enum Tag : std::uint64_t { kConnect = 1, kEnd = 2, kSample = 3 };
  void take_sample(SimTime now);
  tcp::FreeBsdTcpSender& sender_;
  tcp::LinuxTcpReceiver& receiver_;
  NodeId sender_host_;
  SimTime start_;
  SimTime end_;
  tcp::LinuxTcpReceiver::ConnId conn_ = -1;  // receiver side, once data arrived
  std::uint64_t delivered_ = 0;
  std::optional<TcpFlowCounters> frozen_;
  tcp::FreeBsdTcpSender* control_ = nullptr;
  // iperf3 reporting
  SimTime sample_interval_ = 0;
  std::uint64_t block_ = 1;
  std::uint64_t written_at_start_ = 0;
  std::uint64_t frozen_written_ = 0;
  std::vector<Iperf3Sample> samples_;
  Iperf3Sample last_;  // counters at the previous sample
};

struct BuiltTcpFlow {
  const TcpFlowSpec* spec;
  tcp::FreeBsdTcpSender* sender;
  tcp::LinuxTcpReceiver* receiver;  // shared by all flows to the same (host, dst_port)
  TcpFlowDriver* driver;
};

// Everything a run needs, owned together. The spec must outlive it.
struct BuiltScenario {
  const ScenarioSpec* spec = nullptr;
  std::unique_ptr<Simulation> sim;
  Topology topology;
  std::vector<Node*> nodes;  // indexed by NodeId
  std::vector<Link*> links;  // in spec order
  std::vector<BuiltFilter> filters;
  std::vector<BuiltUdpFlow> udp_flows;
  std::vector<BuiltTcpFlow> tcp_flows;
  std::vector<BuiltNic> nics;  // hosts with a `nic:` block, in host then link order

  Node* node(const std::string& name) const;
};

// Topology only (no simulation objects): for `netsim topo` and validation.
Topology build_topology(const ScenarioSpec& spec);

// Builds the whole simulation. Throws ScenarioError (naming the element's
// file and line) for problems only visible once parts are combined, such as
// two flows bound to the same port of one host.
BuiltScenario build_scenario(const ScenarioSpec& spec);

}  // namespace netsim
