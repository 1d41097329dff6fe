#include "netsim/net/link.h"

#include <utility>

namespace netsim {

Link::Link(Simulation& sim, std::string name, Node& a, Node& b, const ChannelConfig& a_to_b,
           const ChannelConfig& b_to_a, const std::optional<LowPowerIdleConfig>& eee)
    : Component(sim, std::move(name)),
      a_(a),
      b_(b),
      port_a_(a.port_count()),
      port_b_(b.port_count()),
      a_to_b_(sim, a.name(), b.name(), a_to_b, &b, port_b_),
      b_to_a_(sim, b.name(), a.name(), b_to_a, &a, port_a_) {
  a.add_port(&a_to_b_);
  b.add_port(&b_to_a_);
  if (eee) {
    lpi_.emplace(*eee);
    a_to_b_.set_low_power_idle(&*lpi_, 0);
    b_to_a_.set_low_power_idle(&*lpi_, 1);
  }
}

}  // namespace netsim
