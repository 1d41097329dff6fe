// A packet as it moves through the simulation.
//
// Plain data, fixed size, recycled through a PacketPool: nothing on the
// per-packet path allocates. Addresses are node ids; the IP version only sets
// header sizes (20 vs 40 bytes) and what traces print.
#pragma once

#include <array>
#include <cstdint>

#include "netsim/sim/time.h"

namespace netsim {

using NodeId = std::uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

enum class IpVersion : std::uint8_t { v4 = 4, v6 = 6 };
// IANA protocol numbers: IPv4's protocol field, IPv6's next header.
enum class IpProtocol : std::uint8_t { icmp = 1, tcp = 6, udp = 17, icmpv6 = 58 };

inline constexpr std::uint32_t ip_header_bytes(IpVersion v) { return v == IpVersion::v4 ? 20 : 40; }
inline constexpr std::uint32_t kUdpHeaderBytes = 8;
inline constexpr std::uint32_t kIcmpHeaderBytes = 8;  // echo request/reply: type, code, checksum, id, seq (ICMPv6 too)
// The protocol that carries echo requests over an IP version: ICMP, or ICMPv6 (RFC 4443).
inline constexpr IpProtocol icmp_protocol(IpVersion v) { return v == IpVersion::v4 ? IpProtocol::icmp : IpProtocol::icmpv6; }
inline constexpr std::uint32_t kTcpHeaderBytes = 20;  // without options

// TCP header fields the models use (filled in by the TCP models).
namespace tcp_flags {
inline constexpr std::uint8_t kFin = 0x01;
inline constexpr std::uint8_t kSyn = 0x02;
inline constexpr std::uint8_t kRst = 0x04;
inline constexpr std::uint8_t kPush = 0x08;
inline constexpr std::uint8_t kAck = 0x10;
}  // namespace tcp_flags

struct SackBlock {
  std::uint32_t start = 0;
  std::uint32_t end = 0;
};

struct TcpSegmentInfo {
  std::uint32_t seq = 0;
  std::uint32_t ack = 0;
  std::uint32_t window = 0;        // as carried in the header (before scaling)
  std::uint8_t flags = 0;          // tcp_flags::*
  // Options. SYN-only options are meaningful only with kSyn.
  bool ts_present = false;
  bool sack_permitted = false;     // SYN
  std::uint8_t wscale = 0xff;      // SYN; 0xff: option absent
  std::uint16_t mss = 0;           // SYN; 0: option absent
  std::uint32_t ts_val = 0;
  std::uint32_t ts_ecr = 0;
  std::uint8_t sack_block_count = 0;
  std::array<SackBlock, 4> sack_blocks{};

  // Option bytes on the wire, padded to 32-bit words as stacks lay them out.
  std::uint32_t option_bytes() const {
    std::uint32_t n = 0;
    if ((flags & tcp_flags::kSyn) != 0) {
      if (mss != 0) n += 4;
      if (wscale != 0xff) n += 4;               // NOP + 3
      if (sack_permitted && !ts_present) n += 4;  // NOP NOP + 2 (else shares the TS word)
    }
    if (ts_present) n += 12;                    // NOP NOP + 10 (or SACK-permitted + 10)
    if (sack_block_count > 0) n += 4 + 8u * sack_block_count;  // NOP NOP + 2 + 8n
    return n;
  }
};

struct Packet {
  std::uint64_t id = 0;        // unique per simulation, for traces
  std::uint32_t flow_id = 0;   // application flow, for statistics
  NodeId src = kNoNode;
  NodeId dst = kNoNode;
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
  IpProtocol protocol = IpProtocol::udp;
  IpVersion ip_version = IpVersion::v4;
  std::uint16_t segments = 1;       // >1 for TSO/GRO aggregates
  // A TSO frame handed to a paravirtual vNIC whole (segments > 1): the
  // payload of each full segment (the MSS the guest put in the descriptor,
  // Linux's gso_size), which the hypervisor segments to; 0 otherwise.
  std::uint16_t seg_payload = 0;
  std::uint32_t l4_header_bytes = 0;
  std::uint32_t payload_bytes = 0;
  std::uint64_t app_seq = 0;        // application sequence number (UDP datagram index)
  SimTime created = 0;              // when the sender handed it to the network
  TcpSegmentInfo tcp{};
  std::int32_t hop_scratch = 0;     // free for the node currently holding the packet
  SimTime hop_time = 0;             // likewise (a host's CPU: when the packet's work ends)
  Packet* next = nullptr;           // intrusive FIFO link, owned by whoever holds the packet

  // Size of the IP datagram: what MTU limits and what filters count.
  std::uint32_t ip_bytes() const { return ip_header_bytes(ip_version) + l4_header_bytes + payload_bytes; }
};

}  // namespace netsim
