#include "netsim/net/hub.h"

namespace netsim {

Hub::Hub(Simulation& sim, std::string name, NodeId id, const ChannelConfig& medium)
    : Node(sim, name, id, NodeKind::hub), medium_(sim, name, name + "/medium", medium, &exit_, -1) {
  exit_.hub = this;
}

void Hub::receive(Packet* p, int in_port) {
  // The medium hands the frame back without its ingress port: keep it in the packet.
  p->hop_scratch = in_port;
  medium_.send(p);
}

void Hub::MediumExit::receive(Packet* p, int) {
  const int in_port = p->hop_scratch;
  Packet* original = p;
  // Every other port gets a copy; the original goes to the last one.
  int last = -1;
  for (int i = 0; i < hub->port_count(); ++i) {
    if (i != in_port) last = i;
  }
  for (int i = 0; i < hub->port_count(); ++i) {
    if (i == in_port) continue;
    Packet* out = (i == last) ? original : hub->sim().packets().clone(*original);
    ++hub->repeated_;
    hub->port(i).send(out);
  }
  if (last < 0) hub->sim().packets().release(original);
}

}  // namespace netsim
