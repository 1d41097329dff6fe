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

void fill_segment(Packet& p, std::uint32_t seq, std::uint8_t flags, std::uint32_t payload_bytes, const AckFields& a) {
  p.tcp.seq = seq;
  p.tcp.ack = a.ack;
  p.tcp.flags = flags;
  p.tcp.window = a.window;
  p.tcp.ts_present = a.timestamps;
  p.tcp.ts_val = a.ts_val;
  p.tcp.ts_ecr = a.ts_ecr;
  p.payload_bytes = payload_bytes;
  p.l4_header_bytes = kTcpHeaderBytes + p.tcp.option_bytes();
}

void set_gso_frame(Packet& p, std::uint32_t segments, std::uint32_t mss) {
  if (segments <= 1) return;
  p.segments = static_cast<std::uint16_t>(segments);
  p.seg_payload = static_cast<std::uint16_t>(mss);
}

std::uint32_t accept_in_order_data(std::uint32_t& rcv_nxt, const Packet& p) {
  const auto todrop = static_cast<std::int32_t>(rcv_nxt - p.tcp.seq);
  if (todrop < 0 || todrop >= static_cast<std::int32_t>(p.payload_bytes)) return 0;
  const std::uint32_t n = p.payload_bytes - static_cast<std::uint32_t>(todrop);
  rcv_nxt += n;
  return n;
}

std::uint32_t route_mss(const Host& host, NodeId peer) {
  const Channel* out = host.route(peer);
  const std::uint32_t mtu = out != nullptr ? out->config().mtu : 1500;
  return mtu - ip_header_bytes(host.ip_version()) - kTcpHeaderBytes;
}

}  // namespace netsim::tcp
