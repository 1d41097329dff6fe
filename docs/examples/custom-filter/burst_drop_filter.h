// A packet filter in the user's code: of every `every` matching packets it
// drops the first `burst`, a burst loss that iptables' statistic match cannot
// express. A filter is a PacketFilter (netsim/filter/packet_filter.h): the
// base class applies the match rule and counts; decide_drop sees the
// matching packets only.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "netsim/filter/packet_filter.h"

class BurstDropFilter final : public netsim::PacketFilter {
 public:
  BurstDropFilter(netsim::Simulation& sim, std::string name, netsim::MatchRule match, std::uint64_t every,
                  std::uint64_t burst)
      : PacketFilter(sim, std::move(name), match), every_(every), burst_(burst) {
    if (every == 0 || burst > every) throw std::invalid_argument("needs every >= 1 and burst <= every");
  }

  const char* type_name() const override { return "burst"; }  // the results' filter type

 protected:
  bool decide_drop(const netsim::Packet&) override { return seen_++ % every_ < burst_; }

 private:
  std::uint64_t every_;
  std::uint64_t burst_;
  std::uint64_t seen_ = 0;
};
