#include "netsim/tcp/tcp_segment.h"

namespace netsim::tcp {

Packet* new_tcp_segment(Simulation& sim, NodeId peer, std::uint16_t local_port, std::uint16_t peer_port) {
  Packet* p = sim.packets().alloc();
  p->dst = peer;
  p->protocol = IpProtocol::tcp;
  p->src_port = local_port;
  p->dst_port = peer_port;
  return p;
}

void fill_syn(Packet& p, std::uint32_t iss, const SynOptions& o) {
  p.tcp.seq = iss;
  p.tcp.flags = tcp_flags::kSyn;
  p.tcp.window = 65535;
  p.tcp.mss = o.mss;
  p.tcp.wscale = o.wscale;
  p.tcp.sack_permitted = o.sack_permitted;
  p.tcp.ts_present = o.timestamps;
  p.tcp.ts_val = o.ts_val;
  p.l4_header_bytes = kTcpHeaderBytes + p.tcp.option_bytes();
}

std::uint32_t route_mss(const Host& host, NodeId peer) {
  const Channel* out = host.route(peer);
  const std::uint32_t mtu = out != nullptr ? out->config().mtu : 1500;
  return mtu - ip_header_bytes(host.ip_version()) - kTcpHeaderBytes;
}

}  // namespace netsim::tcp
