// An Ethernet hub: a repeater whose ports share one medium.
//
// A frame entering any port occupies the shared medium for its serialization
// time at the hub's rate, then leaves on every other port. All ports together
// therefore carry at most `rate` - that is what "a 1 Gbit/s hub" means, as
// opposed to a switch, which carries `rate` per output port.
//
// Contention: frames that find the medium busy wait in a FIFO per ingress
// port (standing in for the stations deferring to carrier sense). When the
// medium frees, the next frame comes from a port chosen uniformly at random
// among those with frames waiting, drawn from the hub's own random stream:
// the fair-on-average outcome of CSMA/CD backoff, without modelling
// collisions, jam signals or backoff time. A FIFO shared by all ports would
// instead phase-lock identical senders, the first port always winning.
//
// The repeat is store-and-forward, so a frame crossing the hub pays one extra
// serialization time on the outgoing link, where a real repeater forwards bit
// by bit. See docs/models.md.
#pragma once

#include <cstdint>
#include <vector>

#include "netsim/net/channel.h"
#include "netsim/net/node.h"
#include "netsim/sim/packet_queue.h"
#include "netsim/sim/rng.h"

namespace netsim {

class Hub final : public Node, public EventHandler {
 public:
  // `medium`: rate and framing of the shared medium; limit_bytes/limit_packets
  // bound each port's waiting frames (the frame on the medium not included).
  Hub(Simulation& sim, std::string name, NodeId id, const ChannelConfig& medium);

  void receive(Packet* p, int in_port) override;
  void handle_event(std::uint64_t tag) override;

  // Medium counters: sent = frames carried by the medium; dropped = frames
  // refused because their port's waiting room was full.
  const ChannelCounters& counters() const { return counters_; }
  std::uint64_t repeated() const { return repeated_; }

 private:
  void start_next();

  ChannelConfig medium_;
  Rng rng_;
  std::vector<PacketQueue> waiting_;  // per ingress port
  std::vector<int> contenders_;       // scratch, sized once per port count
  Packet* in_service_ = nullptr;
  ChannelCounters counters_;
  std::uint64_t repeated_ = 0;
};

}  // namespace netsim
