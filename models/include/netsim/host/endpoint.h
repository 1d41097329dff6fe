// A transport endpoint bound to a host port (a socket, in effect).
#pragma once

#include "netsim/sim/packet.h"

namespace netsim {

class Endpoint {
 public:
  // Takes ownership of `p`.
  virtual void deliver(Packet* p) = 0;

 protected:
  ~Endpoint() = default;
};

}  // namespace netsim
