// The bytes of a packet as a capture on the wire shows them: an Ethernet II
// header, the IPv4 or IPv6 header, and the TCP (with its options), UDP or
// ICMP echo header, checksums filled in. Payload bytes are zeros (the
// simulation carries lengths, not data), so every checksum is exact for the
// frame as written even when the capture keeps only its first bytes.
//
// A packet's addresses are node ids; a WireAddressBook gives each node a
// MAC address (locally administered, 02:6e:73:ii:ii:ii from the id) and the
// IP address of its scenario entry.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "netsim/sim/packet.h"

namespace netsim {

struct WireAddress {
  std::array<std::uint8_t, 6> mac{};
  IpVersion ip_version = IpVersion::v4;
  std::array<std::uint8_t, 16> ip{};  // IPv4 in the first 4 bytes
};

class WireAddressBook {
 public:
  // Node `id` has IP address `address` (textual IPv4 or IPv6; empty for a
  // switch or hub, which only gets its MAC). Throws std::invalid_argument
  // for an address that does not parse.
  void add(NodeId id, const std::string& address);
  // The node's address; a node never added gets its MAC and 0.0.0.0.
  const WireAddress& at(NodeId id) const;

 private:
  std::vector<WireAddress> by_id_;
  WireAddress unknown_{};
};

// The MAC address netsim gives node `id`.
std::array<std::uint8_t, 6> node_mac(NodeId id);

inline constexpr std::uint32_t kEthernetHeaderBytes = 14;
// Largest header this encoder writes: Ethernet 14 + IPv6 40 + TCP 60.
inline constexpr std::size_t kMaxWireHeaderBytes = 114;

// Writes the frame's headers to `out` (at least kMaxWireHeaderBytes long)
// and returns their length; the frame's length on the wire (without preamble
// and FCS, as a capture reports it) is that plus p.payload_bytes, which for a
// well-formed packet is 14 + p.ip_bytes(). Lengths that do not fit a header field (an
// aggregate above 64 KB) are written as 65535.
std::size_t encode_wire_headers(const Packet& p, const WireAddressBook& book, std::uint8_t* out);

}  // namespace netsim
