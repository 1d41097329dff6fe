// A full-duplex point-to-point link: two independent channels.
#pragma once

#include <optional>
#include <string>

#include "netsim/net/channel.h"
#include "netsim/net/low_power_idle.h"
#include "netsim/net/node.h"

namespace netsim {

class Link : public Component {
 public:
  // Attaches a new port on each end; the channel a->b delivers to b's new port.
  // With `eee`, Energy-Efficient Ethernet on both ends: direction 0 of the
  // low power idle state is a->b, direction 1 b->a.
  Link(Simulation& sim, std::string name, Node& a, Node& b, const ChannelConfig& a_to_b, const ChannelConfig& b_to_a,
       const std::optional<LowPowerIdleConfig>& eee = std::nullopt);

  Node& end_a() const { return a_; }
  Node& end_b() const { return b_; }
  Channel& a_to_b() { return a_to_b_; }
  Channel& b_to_a() { return b_to_a_; }
  const Channel& a_to_b() const { return a_to_b_; }
  const Channel& b_to_a() const { return b_to_a_; }
  int port_at_a() const { return port_a_; }
  int port_at_b() const { return port_b_; }

 private:
  Node& a_;
  Node& b_;
  int port_a_;
  int port_b_;
  Channel a_to_b_;
  Channel b_to_a_;
  std::optional<LowPowerIdle> lpi_;
};

}  // namespace netsim
