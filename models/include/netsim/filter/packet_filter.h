// A rule on a host's ingress or egress hook that may drop packets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "netsim/sim/packet.h"
#include "netsim/sim/simulation.h"

namespace netsim {

// Which packets a rule considers, as iptables' -p / --sport / --dport do.
struct MatchRule {
  std::optional<IpProtocol> protocol;
  std::optional<std::uint16_t> src_port;
  std::optional<std::uint16_t> dst_port;

  bool matches(const Packet& p) const {
    if (protocol && p.protocol != *protocol) return false;
    if (src_port && p.src_port != *src_port) return false;
    if (dst_port && p.dst_port != *dst_port) return false;
    return true;
  }
};

class PacketFilter : public Component {
 public:
  PacketFilter(Simulation& sim, std::string name, MatchRule match) : Component(sim, std::move(name)), match_(match) {}

  // True when the packet must be dropped. Counts matches and drops.
  bool should_drop(const Packet& p) {
    if (!match_.matches(p)) return false;
    ++matched_;
    if (!decide_drop(p)) return false;
    ++dropped_;
    return true;
  }

  std::uint64_t matched() const { return matched_; }
  std::uint64_t dropped() const { return dropped_; }
  const MatchRule& match() const { return match_; }
  virtual const char* type_name() const = 0;

 protected:
  // Called for matching packets only.
  virtual bool decide_drop(const Packet& p) = 0;

 private:
  MatchRule match_;
  std::uint64_t matched_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace netsim
