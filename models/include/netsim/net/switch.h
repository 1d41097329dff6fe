// A store-and-forward Ethernet switch with static forwarding.
//
// Each output port is the switch-side channel of a link; its occupancy limit
// is the per-port packet buffer (tail drop when full). The builder applies
// the buffer to those channels. Forwarding needs no MAC learning: tables
// come from shortest paths over the topology.
#pragma once

#include <cstdint>

#include "netsim/net/node.h"

namespace netsim {

class Switch final : public Node {
 public:
  Switch(Simulation& sim, std::string name, NodeId id) : Node(sim, std::move(name), id, NodeKind::switch_) {}

  void receive(Packet* p, int in_port) override;

  std::uint64_t forwarded() const { return forwarded_; }
  std::uint64_t unroutable() const { return unroutable_; }

 private:
  std::uint64_t forwarded_ = 0;
  std::uint64_t unroutable_ = 0;
};

}  // namespace netsim
