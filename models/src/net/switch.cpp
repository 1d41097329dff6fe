#include "netsim/net/switch.h"

namespace netsim {

void Switch::receive(Packet* p, int in_port) {
  const int out = next_port(p->dst);
  if (out < 0 || out == in_port) {
    ++unroutable_;
    sim().packets().release(p);
    return;
  }
  ++forwarded_;
  p->hop_scratch = in_port;  // ingress accounting (SwitchFlowControl) reads it while the frame is buffered
  port(out).send(p);  // tail drop, if any, is counted by the channel
}

}  // namespace netsim
