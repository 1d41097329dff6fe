// Something that sees packets at a point of the path without taking them:
// a capture file, a counter. Told during the packet's passage; the packet is
// only valid for the call.
#pragma once

#include <vector>

#include "netsim/sim/packet.h"
#include "netsim/sim/time.h"

namespace netsim {

class PacketTap {
 public:
  // `at`: the time the packet is at the point (usually now).
  virtual void on_packet(const Packet& p, SimTime at) = 0;

 protected:
  ~PacketTap() = default;
};

// The taps at one point of a host or NIC (not owned). Without any, a packet
// passing the point costs one branch.
class PacketTaps {
 public:
  void add(PacketTap* t) { taps_.push_back(t); }
  void pass(const Packet& p, SimTime at) const {
    if (!taps_.empty()) [[unlikely]] {
      for (PacketTap* t : taps_) t->on_packet(p, at);
    }
  }

 private:
  std::vector<PacketTap*> taps_;
};

}  // namespace netsim
