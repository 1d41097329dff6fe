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
enum class IpProtocol : std::uint8_t { tcp = 6, udp = 17 };

inline constexpr std::uint32_t ip_header_bytes(IpVersion v) { return v == IpVersion::v4 ? 20 : 40; }
inline constexpr std::uint32_t kUdpHeaderBytes = 8;
inline constexpr std::uint32_t kTcpHeaderBytes = 20;  // without options

// Room for the TCP fields the models need (filled in by the TCP models).
struct TcpSegmentInfo {
  std::uint32_t seq = 0;
  std::uint32_t ack = 0;
  std::uint32_t window = 0;
  std::uint16_t flags = 0;
  std::uint16_t option_bytes = 0;
  std::uint32_t ts_val = 0;
  std::uint32_t ts_ecr = 0;
  std::uint8_t sack_block_count = 0;
  std::array<std::array<std::uint32_t, 2>, 4> sack_blocks{};
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
  std::uint32_t l4_header_bytes = 0;
  std::uint32_t payload_bytes = 0;
  std::uint64_t app_seq = 0;        // application sequence number (UDP datagram index)
  SimTime created = 0;              // when the sender handed it to the network
  TcpSegmentInfo tcp{};
  std::int32_t hop_scratch = 0;     // free for the node currently holding the packet
  Packet* next = nullptr;           // intrusive FIFO link, owned by whoever holds the packet

  // Size of the IP datagram: what MTU limits and what filters count.
  std::uint32_t ip_bytes() const { return ip_header_bytes(ip_version) + l4_header_bytes + payload_bytes; }
};

}  // namespace netsim
