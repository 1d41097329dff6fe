// Turns a validated ScenarioSpec into a ready-to-run Simulation.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netsim/app/iperf2_client.h"
#include "netsim/app/iperf2_server.h"
#include "netsim/app/iperf3_client.h"
#include "netsim/app/iperf3_reverse_client.h"
#include "netsim/app/iperf3_reverse_server.h"
#include "netsim/app/iperf3_server.h"
#include "netsim/app/ping_client.h"
#include "netsim/app/udp_sink.h"
#include "netsim/app/udp_source.h"
#include "netsim/filter/packet_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/hub.h"
#include "netsim/net/link.h"
#include "netsim/net/switch.h"
#include "netsim/net/vswitch.h"
#include "netsim/nic/gro_receive_nic.h"
#include "netsim/nic/ixgb_nic.h"
#include "netsim/nic/one_shot_rx_moderation.h"
#include "netsim/scenario/scenario_spec.h"
#include "netsim/tcp/freebsd/siftr.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/linux_tcp_receiver.h"
#include "netsim/topology/topology.h"

namespace netsim {

struct BuiltFilter {
  const FilterSpec* spec;
  PacketFilter* filter;
};

class NuttcpUdpFlow;
class NuttcpTcpFlow;

struct BuiltUdpFlow {
  const UdpFlowSpec* spec;
  UdpSource* source;
  UdpSink* sink;
  NuttcpUdpFlow* nuttcp = nullptr;  // app: nuttcp only
};

// One receive NIC: a host with a `nic:` block gets one per incoming link.
struct BuiltNic {
  const HostSpec* host;
  const LinkSpec* link;
  GroReceiveNic* nic;
  OneShotRxModeration* host_nic = nullptr;  // the physical NIC's moderation in front (host_int_rx_mod)
  IxgbNic* ixgb = nullptr;                  // driver: ixgb: its transmit path and bus, in front of `nic`
};

// Counters of one tcp flow over its measurement window [start, end). For a
// flow of several connections (iperf3 -P), sums over its data connections
// (cwnd: the sum of the windows; srtt: the mean).
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
  // The Linux receiver's ACKs by cause (TcpReceiverStats), to tell its 40 ms
  // delayed-ACK timer (HZ=250) from quickack mode.
  std::uint64_t receiver_delayed_acks = 0;   // sent by the delayed-ACK timer
  std::uint64_t receiver_quickack_acks = 0;  // sent because of quickack mode
  // How long the receiving application measured bytes_delivered over, when
  // that is not the flow's window (an iperf3 server stops at TEST_END's
  // arrival); 0 = the flow's window.
  SimTime receive_span = 0;
};

// The application of one tcp flow, as the runner sees it: a measurement
// window, counters (live until finish(), frozen after) and the end of the run.
class TcpFlowApp {
 public:
  virtual ~TcpFlowApp() = default;
  virtual TcpFlowCounters counters() const = 0;
  virtual SimTime start() const = 0;
  virtual SimTime end() const = 0;
  // The run ends: freeze the counters and stop writing. Idempotent.
  virtual void finish() = 0;
  virtual bool finished() const = 0;
};

// `app: bulk`: one connection that connects at `start` with unlimited data,
// and at `end` (min(stop, duration)) stops writing and freezes its counters
// (the connection itself goes on with what is buffered; nothing is counted).
class TcpFlowDriver final : public Component, public EventHandler, public TcpFlowApp {
 public:
  TcpFlowDriver(Simulation& sim, std::string name, tcp::TcpSendSocket& sender, tcp::TcpReceiveEndpoint& receiver,
                NodeId sender_host, SimTime start, SimTime end);
  const tcp::TcpSendSocket& sender() const { return sender_; }

  void handle_event(std::uint64_t tag) override;
  void finish() override;
  bool finished() const override { return frozen_.has_value(); }
  // Whether receiver connection `c` is this flow's: its peer is this key.
  bool owns(tcp::TcpReceiveEndpoint::ConnId c) const;
  // The receiver's peer_key (sender host, sender port) of this flow's connection.
  std::uint64_t receiver_peer_key() const;
  // In-order bytes handed to the receiving app on connection `c` (owned by this flow).
  void on_delivered(tcp::TcpReceiveEndpoint::ConnId c, std::uint64_t bytes);
  TcpFlowCounters counters() const override;
  SimTime start() const override { return start_; }
  SimTime end() const override { return end_; }

 private:
  enum Tag : std::uint64_t { kConnect = 1, kEnd = 2 };
  tcp::TcpSendSocket& sender_;
  tcp::TcpReceiveEndpoint& receiver_;
  NodeId sender_host_;
  SimTime start_;
  SimTime end_;
  tcp::TcpReceiveEndpoint::ConnId conn_ = -1;  // receiver side, once data arrived
  std::uint64_t delivered_ = 0;
  std::optional<TcpFlowCounters> frozen_;
};

struct BuiltTcpFlow {
  const TcpFlowSpec* spec;
  tcp::TcpSendSocket* sender;            // the (first) data connection
  std::vector<tcp::TcpSendSocket*> senders;  // every data connection (iperf3 -P: several)
  tcp::TcpReceiveEndpoint* receiver;  // shared by all flows to the same (host, dst_port); nullptr for iperf3 -R
  TcpFlowApp* driver;               // the flow's application: TcpFlowDriver, Iperf3TcpFlow, Iperf3ReverseTcpFlow or Iperf2TcpFlow
  app::Iperf3Client* iperf3_client = nullptr;  // app: iperf3 only
  app::Iperf3Server* iperf3_server = nullptr;
  app::Iperf3ReverseClient* iperf3_reverse_client = nullptr;  // app: iperf3 with reverse: true only
  app::Iperf3ReverseServer* iperf3_reverse_server = nullptr;
  app::Iperf2Client* iperf2_client = nullptr;  // app: iperf2 only
  app::Iperf2Server* iperf2_server = nullptr;
  NuttcpTcpFlow* nuttcp = nullptr;  // app: nuttcp only
  SimTime start = 0;  // the flow's actual start: spec start plus its start_jitter draw
};

struct BuiltSiftr {
  const HostSpec* host;
  tcp::Siftr* siftr;
};

struct BuiltPingFlow {
  const PingFlowSpec* spec;
  PingClient* client;
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
  std::vector<BuiltPingFlow> ping_flows;
  std::vector<BuiltNic> nics;  // hosts with a `nic:` block, in host then link order
  std::vector<BuiltSiftr> siftrs;  // hosts with a `siftr:` block, in host order
  std::vector<VSwitch*> vswitches;  // in spec order

  Node* node(const std::string& name) const;
};

// Topology only (no simulation objects): for `netsim topo` and validation.
Topology build_topology(const ScenarioSpec& spec);

// Builds the whole simulation. Throws ScenarioError (naming the element's
// file and line) for problems only visible once parts are combined, such as
// two flows bound to the same port of one host.
BuiltScenario build_scenario(const ScenarioSpec& spec);

}  // namespace netsim
