// iptables `-m statistic --mode random --probability p -j DROP`.
//
// As in xt_statistic: the probability is stored as round(p * 2^31) and a
// packet matches when a 31-bit random number is below it. The random numbers
// come from the filter's own stream, so other components' draws do not move.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "netsim/filter/packet_filter.h"
#include "netsim/sim/rng.h"

namespace netsim {

class RandomDropFilter final : public PacketFilter {
 public:
  RandomDropFilter(Simulation& sim, std::string name, MatchRule match, double probability)
      : PacketFilter(sim, name, match), rng_(sim.rng_stream("filter/" + name)) {
    if (!(probability >= 0.0 && probability <= 1.0)) throw std::invalid_argument("drop probability must be in [0, 1]");
    threshold_ = static_cast<std::uint32_t>(std::llround(probability * 2147483648.0));
  }

  const char* type_name() const override { return "random"; }

 protected:
  bool decide_drop(const Packet&) override {
    return static_cast<std::uint32_t>(rng_.next_u64() >> 33) < threshold_;
  }

 private:
  Rng rng_;
  std::uint32_t threshold_ = 0;
};

}  // namespace netsim
