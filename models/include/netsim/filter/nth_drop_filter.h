// iptables `-m statistic --mode nth --every N --packet P -j DROP`.
//
// Mirrors xt_statistic (kernel) and libxt_statistic (userspace) exactly:
// userspace stores every as N-1 and initialises the counter to
// (N-1) - P; for each matching packet the kernel advances the counter,
// wrapping from N-1 to 0, and the rule matches when the new value is 0.
// Hence with P = 0 the very first matching packet is dropped, then packets
// N+1, 2N+1, ... (1-based): packet k is dropped when k = P+1 (mod N).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "netsim/filter/packet_filter.h"

namespace netsim {

class NthDropFilter final : public PacketFilter {
 public:
  NthDropFilter(Simulation& sim, std::string name, MatchRule match, std::uint32_t every, std::uint32_t packet)
      : PacketFilter(sim, std::move(name), match), every_minus_one_(every - 1), count_(every - 1 - packet) {
    if (every < 1 || packet >= every) throw std::invalid_argument("nth filter needs every >= 1 and 0 <= packet < every");
  }

  const char* type_name() const override { return "nth"; }
  std::uint32_t every() const { return every_minus_one_ + 1; }

 protected:
  bool decide_drop(const Packet&) override {
    count_ = (count_ == every_minus_one_) ? 0 : count_ + 1;
    return count_ == 0;
  }

 private:
  std::uint32_t every_minus_one_;
  std::uint32_t count_;
};

}  // namespace netsim
