// An Ethernet hub: a repeater whose ports share one medium.
//
// A frame entering any port occupies the shared medium for its serialization
// time at the hub's rate, then leaves on every other port. All ports together
// therefore carry at most `rate` - that is what "a 1 Gbit/s hub" means, as
// opposed to a switch, which carries `rate` per output port.
//
// Simplifications (see docs/models.md): no CSMA/CD collisions or backoff -
// contending frames wait in a FIFO for the medium (ideal arbitration); and the
// repeat is store-and-forward, so a frame crossing the hub pays one extra
// serialization time on the outgoing link, where a real repeater forwards bit
// by bit.
#pragma once

#include <cstdint>

#include "netsim/net/channel.h"
#include "netsim/net/node.h"

namespace netsim {

class Hub final : public Node {
 public:
  // `medium` sets the shared rate and the buffer of frames waiting for it.
  Hub(Simulation& sim, std::string name, NodeId id, const ChannelConfig& medium);

  void receive(Packet* p, int in_port) override;

  const Channel& medium() const { return medium_; }
  std::uint64_t repeated() const { return repeated_; }

 private:
  // Receives frames back from the medium and repeats them to the other ports.
  struct MediumExit final : PacketReceiver {
    Hub* hub = nullptr;
    void receive(Packet* p, int port) override;
  };

  MediumExit exit_;
  Channel medium_;
  std::uint64_t repeated_ = 0;
};

}  // namespace netsim
