#include "netsim/capture/wire_frame.h"

#include <arpa/inet.h>

#include <algorithm>
#include <stdexcept>

namespace netsim {
namespace {

constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
constexpr std::uint8_t kTtl = 64;
constexpr std::uint32_t kMaxTcpOptionBytes = 40;
// TCP option kinds (RFC 9293, 7323, 2018).
constexpr std::uint8_t kOptNop = 1;
constexpr std::uint8_t kOptMss = 2;
constexpr std::uint8_t kOptWscale = 3;
constexpr std::uint8_t kOptSackPermitted = 4;
constexpr std::uint8_t kOptSack = 5;
constexpr std::uint8_t kOptTimestamp = 8;

void put16(std::uint8_t* at, std::uint32_t v) {
  at[0] = static_cast<std::uint8_t>(v >> 8);
  at[1] = static_cast<std::uint8_t>(v);
}
void put32(std::uint8_t* at, std::uint32_t v) {
  put16(at, v >> 16);
  put16(at + 2, v & 0xffff);
}
std::uint16_t clamp16(std::uint64_t v) { return static_cast<std::uint16_t>(std::min<std::uint64_t>(v, 0xffff)); }

// One's-complement sum of 16-bit big-endian words (RFC 1071), not yet folded.
std::uint64_t sum_words(const std::uint8_t* data, std::size_t n) {
  std::uint64_t s = 0;
  for (std::size_t i = 0; i + 1 < n; i += 2) s += (std::uint32_t{data[i]} << 8) | data[i + 1];
  if ((n & 1) != 0) s += std::uint32_t{data[n - 1]} << 8;
  return s;
}
std::uint16_t fold(std::uint64_t s) {
  while ((s >> 16) != 0) s = (s & 0xffff) + (s >> 16);
  return static_cast<std::uint16_t>(~s & 0xffff);
}

// The pseudo-header's contribution to a TCP, UDP or ICMPv6 checksum.
std::uint64_t pseudo_header_sum(IpVersion v, const WireAddress& src, const WireAddress& dst, std::uint8_t proto,
                                std::uint32_t l4_length) {
  const std::size_t n = v == IpVersion::v4 ? 4 : 16;
  std::uint64_t s = sum_words(src.ip.data(), n) + sum_words(dst.ip.data(), n) + proto;
  s += (l4_length >> 16) + (l4_length & 0xffff);
  return s;
}

// TCP options as the stacks lay them out; returns their length (a multiple of 4).
std::uint32_t write_tcp_options(const TcpSegmentInfo& t, std::uint8_t* o) {
  std::uint32_t n = 0;
  const auto timestamp = [&](bool after_sack_permitted) {
    if (after_sack_permitted) {
      o[n++] = kOptSackPermitted;
      o[n++] = 2;
    } else {
      o[n++] = kOptNop;
      o[n++] = kOptNop;
    }
    o[n++] = kOptTimestamp;
    o[n++] = 10;
    put32(o + n, t.ts_val);
    put32(o + n + 4, t.ts_ecr);
    n += 8;
  };
  if ((t.flags & tcp_flags::kSyn) != 0) {
    if (t.mss != 0) {
      o[n++] = kOptMss;
      o[n++] = 4;
      put16(o + n, t.mss);
      n += 2;
    }
    if (t.ts_present) timestamp(t.sack_permitted);
    if (t.wscale != 0xff) {
      o[n++] = kOptNop;
      o[n++] = kOptWscale;
      o[n++] = 3;
      o[n++] = t.wscale;
    }
    if (t.sack_permitted && !t.ts_present) {
      o[n++] = kOptNop;
      o[n++] = kOptNop;
      o[n++] = kOptSackPermitted;
      o[n++] = 2;
    }
  } else if (t.ts_present) {
    timestamp(false);
  }
  // SACK blocks, as many as fit in the 40 option bytes (a stack sends no more).
  const std::uint32_t room = n + 4 <= kMaxTcpOptionBytes ? (kMaxTcpOptionBytes - n - 4) / 8 : 0;
  const std::uint32_t blocks = std::min<std::uint32_t>(t.sack_block_count, std::min<std::uint32_t>(room, 4));
  if (blocks > 0) {
    o[n++] = kOptNop;
    o[n++] = kOptNop;
    o[n++] = kOptSack;
    o[n++] = static_cast<std::uint8_t>(2 + 8 * blocks);
    for (std::uint32_t i = 0; i < blocks; ++i) {
      put32(o + n, t.sack_blocks[i].start);
      put32(o + n + 4, t.sack_blocks[i].end);
      n += 8;
    }
  }
  return n;
}

}  // namespace

std::array<std::uint8_t, 6> node_mac(NodeId id) {
  // 02: locally administered, unicast; 6e:73 is "ns".
  return {0x02, 0x6e, 0x73, static_cast<std::uint8_t>(id >> 16), static_cast<std::uint8_t>(id >> 8),
          static_cast<std::uint8_t>(id)};
}

void WireAddressBook::add(NodeId id, const std::string& address) {
  if (by_id_.size() <= id) {
    const std::size_t from = by_id_.size();
    by_id_.resize(id + 1);
    for (std::size_t i = from; i < by_id_.size(); ++i) by_id_[i].mac = node_mac(static_cast<NodeId>(i));
  }
  WireAddress& a = by_id_[id];
  a.ip.fill(0);
  if (address.empty()) return;
  if (inet_pton(AF_INET, address.c_str(), a.ip.data()) == 1) {
    a.ip_version = IpVersion::v4;
  } else if (inet_pton(AF_INET6, address.c_str(), a.ip.data()) == 1) {
    a.ip_version = IpVersion::v6;
  } else {
    throw std::invalid_argument("not an IPv4 or IPv6 address: '" + address + "'");
  }
}

const WireAddress& WireAddressBook::at(NodeId id) const { return id < by_id_.size() ? by_id_[id] : unknown_; }

std::size_t encode_wire_headers(const Packet& p, const WireAddressBook& book, std::uint8_t* out) {
  const WireAddress& src = book.at(p.src);
  const WireAddress& dst = book.at(p.dst);
  const bool v4 = p.ip_version == IpVersion::v4;

  // Ethernet II. Every node of a scenario shares one L2 segment (switches
  // and hubs forward frames), so the frame carries the end hosts' MACs.
  std::copy(dst.mac.begin(), dst.mac.end(), out);
  std::copy(src.mac.begin(), src.mac.end(), out + 6);
  put16(out + 12, v4 ? kEtherTypeIpv4 : kEtherTypeIpv6);
  std::uint8_t* ip = out + kEthernetHeaderBytes;
  const std::uint32_t ip_header = ip_header_bytes(p.ip_version);
  std::uint8_t* l4 = ip + ip_header;

  const auto proto = static_cast<std::uint8_t>(p.protocol);
  std::uint32_t l4_header = 0;
  if (p.protocol == IpProtocol::tcp) {
    const std::uint32_t options = write_tcp_options(p.tcp, l4 + 20);
    l4_header = 20 + options;
    put16(l4, p.src_port);
    put16(l4 + 2, p.dst_port);
    put32(l4 + 4, p.tcp.seq);
    put32(l4 + 8, p.tcp.ack);
    l4[12] = static_cast<std::uint8_t>((l4_header / 4) << 4);
    l4[13] = p.tcp.flags;
    put16(l4 + 14, clamp16(p.tcp.window));
    put16(l4 + 16, 0);
    put16(l4 + 18, 0);  // urgent pointer
  } else if (p.protocol == IpProtocol::udp) {
    l4_header = kUdpHeaderBytes;
    put16(l4, p.src_port);
    put16(l4 + 2, p.dst_port);
    put16(l4 + 4, clamp16(std::uint64_t{kUdpHeaderBytes} + p.payload_bytes));
    put16(l4 + 6, 0);
  } else {
    // Echo request or reply: the responder's side is port 0 (IcmpEchoResponder::kPort),
    // the client's port its identifier.
    l4_header = kIcmpHeaderBytes;
    const bool request = p.dst_port == 0;
    const bool icmpv6 = p.protocol == IpProtocol::icmpv6;
    l4[0] = icmpv6 ? (request ? 128 : 129) : (request ? 8 : 0);
    l4[1] = 0;
    put16(l4 + 2, 0);
    put16(l4 + 4, request ? p.src_port : p.dst_port);
    put16(l4 + 6, static_cast<std::uint32_t>(p.app_seq & 0xffff));
  }
  const std::uint64_t l4_length = std::uint64_t{l4_header} + p.payload_bytes;

  if (v4) {
    ip[0] = 0x45;
    ip[1] = 0;
    put16(ip + 2, clamp16(ip_header + l4_length));
    put16(ip + 4, static_cast<std::uint32_t>(p.id & 0xffff));
    put16(ip + 6, 0x4000);  // DF: path MTU discovery, as both stacks send
    ip[8] = kTtl;
    ip[9] = proto;
    put16(ip + 10, 0);
    std::copy_n(src.ip.begin(), 4, ip + 12);
    std::copy_n(dst.ip.begin(), 4, ip + 16);
    put16(ip + 10, fold(sum_words(ip, 20)));
  } else {
    put32(ip, 0x60000000);
    put16(ip + 4, clamp16(l4_length));
    ip[6] = proto;
    ip[7] = kTtl;
    std::copy(src.ip.begin(), src.ip.end(), ip + 8);
    std::copy(dst.ip.begin(), dst.ip.end(), ip + 24);
  }

  // The payload is zeros: the checksum covers the pseudo-header and the header only.
  const std::uint32_t length16 = clamp16(l4_length);
  std::uint16_t check = 0;
  if (p.protocol == IpProtocol::icmp) {
    check = fold(sum_words(l4, l4_header));  // ICMPv4 has no pseudo-header
  } else {
    check = fold(pseudo_header_sum(p.ip_version, src, dst, proto, v4 ? length16 : static_cast<std::uint32_t>(l4_length)) +
                 sum_words(l4, l4_header));
    if (check == 0 && p.protocol == IpProtocol::udp) check = 0xffff;  // 0 means "no checksum" in UDP
  }
  put16(l4 + (p.protocol == IpProtocol::tcp ? 16 : p.protocol == IpProtocol::udp ? 6 : 2), check);
  return kEthernetHeaderBytes + ip_header + l4_header;
}

}  // namespace netsim
