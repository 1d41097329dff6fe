// What every TCP endpoint does the same way whatever its OS: a segment of a
// connection from the packet pool, and the MSS the route's MTU allows.
#pragma once

#include <cstdint>

#include "netsim/host/host.h"
#include "netsim/sim/packet.h"

namespace netsim::tcp {

// A TCP segment from `sim`'s pool, addressed; the caller fills the header and payload.
Packet* new_tcp_segment(Simulation& sim, NodeId peer, std::uint16_t local_port, std::uint16_t peer_port);
// The options of an active open's SYN (sequence `iss`, an unscaled 65535
// window, MSS, window scale, SACK-permitted, timestamps) and its header length.
struct SynOptions {
  std::uint16_t mss = 0;
  std::uint8_t wscale = 0xff;
  bool sack_permitted = false;
  bool timestamps = false;
  std::uint32_t ts_val = 0;
};
void fill_syn(Packet& p, std::uint32_t iss, const SynOptions& o);
// The route's MTU less the IP and TCP headers (1500 when there is no route).
std::uint32_t route_mss(const Host& host, NodeId peer);
// The MSS a stack assumes before the handshake and for a peer that sends no
// MSS option: 536 over IPv4 (FreeBSD's net.inet.tcp.mssdflt, Linux's
// TCP_MSS_DEFAULT), 1220 over IPv6 (the 1280-byte minimum MTU less 60 bytes
// of headers: FreeBSD's net.inet.tcp.v6mssdflt, Linux's IPv6 mss_clamp).
inline constexpr std::uint32_t default_mss(IpVersion v) { return v == IpVersion::v4 ? 536 : 1220; }

}  // namespace netsim::tcp
