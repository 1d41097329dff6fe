// Something that sees packets at a point of the path without taking them:
// a capture file, a counter. Told during the packet's passage; the packet is
// only valid for the call.
#pragma once

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

}  // namespace netsim
