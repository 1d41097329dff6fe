// A network node: something with ports that receives packets and forwards or consumes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netsim/net/channel.h"
#include "netsim/net/packet_receiver.h"
#include "netsim/sim/packet.h"
#include "netsim/sim/simulation.h"

namespace netsim {

enum class NodeKind { host, switch_, hub, vswitch };

class Node : public Component, public PacketReceiver {
 public:
  Node(Simulation& sim, std::string name, NodeId id, NodeKind kind) : Component(sim, std::move(name)), id_(id), kind_(kind) {}

  NodeId id() const { return id_; }
  NodeKind kind() const { return kind_; }

  // Ports are added as links attach; each port owns no queue itself, it
  // transmits through the outgoing channel of its link.
  int add_port(Channel* outgoing) {
    ports_.push_back(outgoing);
    return static_cast<int>(ports_.size()) - 1;
  }
  int port_count() const { return static_cast<int>(ports_.size()); }
  Channel& port(int i) const { return *ports_[static_cast<std::size_t>(i)]; }

  // Next-hop port per destination node id (-1: unreachable). Filled from the topology.
  void set_forwarding(std::vector<int> table) { forwarding_ = std::move(table); }
  int next_port(NodeId dst) const {
    return dst < forwarding_.size() ? forwarding_[dst] : -1;
  }

 private:
  NodeId id_;
  NodeKind kind_;
  std::vector<Channel*> ports_;
  std::vector<int> forwarding_;
};

}  // namespace netsim
