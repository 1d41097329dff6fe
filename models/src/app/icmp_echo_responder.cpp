#include "netsim/app/icmp_echo_responder.h"

namespace netsim {

IcmpEchoResponder::IcmpEchoResponder(Simulation& sim, std::string name, Host& host)
    : Component(sim, std::move(name)), host_(host) {
  host.bind(icmp_protocol(host.ip_version()), kPort, this);
}

void IcmpEchoResponder::deliver(Packet* p) {
  // The request itself becomes the reply, as icmp_reflect turns the mbuf
  // around: same payload, addresses swapped, the identifier as destination.
  const NodeId requester = p->src;
  const std::uint16_t ident = p->src_port;
  const std::uint64_t seq = p->app_seq;
  const std::uint32_t flow = p->flow_id;
  const std::uint32_t data = p->payload_bytes;
  sim().packets().release(p);

  Packet* r = sim().packets().alloc();
  r->flow_id = flow;
  r->dst = requester;
  r->protocol = icmp_protocol(host_.ip_version());
  r->src_port = kPort;
  r->dst_port = ident;
  r->l4_header_bytes = kIcmpHeaderBytes;
  r->payload_bytes = data;
  r->app_seq = seq;
  ++replies_;
  host_.send(r);
}

}  // namespace netsim
