// What every TCP endpoint does the same way whatever its OS: a segment of a
// connection from the packet pool, its header, and the MSS the route's MTU allows.
#pragma once

#include <cstdint>
#include <functional>

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
// The per-connection fields every segment after the SYN carries: the
// cumulative ACK, the advertised window (already scaled down) and the
// timestamp option. Kept apart from seq/flags/payload so a sender builds it
// once per segment from its receive state.
struct AckFields {
  std::uint32_t ack = 0;
  std::uint32_t window = 0;
  bool timestamps = false;
  std::uint32_t ts_val = 0;
  std::uint32_t ts_ecr = 0;
};
// A non-SYN segment's header: `seq`, `flags` (kAck and any more),
// `payload_bytes` of data, the ACK fields, and the header length they give.
void fill_segment(Packet& p, std::uint32_t seq, std::uint8_t flags, std::uint32_t payload_bytes, const AckFields& a);
// Marks `p` as one GSO frame of `segments` segments of `mss` payload bytes,
// which a vNIC cuts (Host::tso_frames); one segment leaves it a plain segment.
void set_gso_frame(Packet& p, std::uint32_t segments, std::uint32_t mss);
// The new in-order bytes of a data segment from the peer (none if it is
// old or ahead of rcv_nxt), advancing `rcv_nxt` past them.
std::uint32_t accept_in_order_data(std::uint32_t& rcv_nxt, const Packet& p);
// The receive half of a sending socket: the peer's in-order data (an
// application's control messages), counted as it arrives and handed to the
// application only once the segment carrying it is processed and released,
// since the callback may write and send.
struct PeerDataIn {
  std::uint64_t received = 0;  // bytes_received()
  std::uint64_t pending = 0;   // arrived, not yet handed to the application
  std::function<void(std::uint64_t)> on_data;
  // Takes the segment's new in-order bytes, advancing `rcv_nxt`.
  void accept(std::uint32_t& rcv_nxt, const Packet& p) {
    const std::uint32_t n = accept_in_order_data(rcv_nxt, p);
    received += n;
    pending += n;
  }
  void hand_over() {
    if (pending == 0) return;
    const std::uint64_t n = pending;
    pending = 0;
    if (on_data) on_data(n);
  }
};
// The SYN-ACK that answers an active open with initial sequence `iss`.
inline bool is_syn_ack_for(const Packet& p, std::uint32_t iss) {
  constexpr std::uint8_t kSynAck = tcp_flags::kSyn | tcp_flags::kAck;
  return (p.tcp.flags & kSynAck) == kSynAck && p.tcp.ack == iss + 1;
}
// The route's MTU less the IP and TCP headers (1500 when there is no route).
std::uint32_t route_mss(const Host& host, NodeId peer);
// The MSS a stack assumes before the handshake and for a peer that sends no
// MSS option: 536 over IPv4 (FreeBSD's net.inet.tcp.mssdflt, Linux's
// TCP_MSS_DEFAULT), 1220 over IPv6 (the 1280-byte minimum MTU less 60 bytes
// of headers: FreeBSD's net.inet.tcp.v6mssdflt, Linux's IPv6 mss_clamp).
inline constexpr std::uint32_t default_mss(IpVersion v) { return v == IpVersion::v4 ? 536 : 1220; }

}  // namespace netsim::tcp
