// Anything a channel can deliver a packet to.
#pragma once

#include "netsim/sim/packet.h"

namespace netsim {

class PacketReceiver {
 public:
  // Takes ownership of `p`; `port` is the receiver's port the packet came in on.
  virtual void receive(Packet* p, int port) = 0;

 protected:
  ~PacketReceiver() = default;
};

}  // namespace netsim
