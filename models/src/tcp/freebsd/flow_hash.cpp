#include "netsim/tcp/freebsd/flow_hash.h"

namespace netsim::tcp {

std::uint32_t hash32_buf(std::span<const std::uint8_t> buf, std::uint32_t hash) {
  for (const std::uint8_t b : buf) hash = hash * 33 + b;
  return hash;
}

std::uint32_t toeplitz_hash(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data) {
  std::uint32_t hash = 0;
  // The key window: 32 key bits, shifted left one bit per data bit, the next key bit coming in at the bottom.
  std::uint32_t v = (static_cast<std::uint32_t>(key[0]) << 24) | (static_cast<std::uint32_t>(key[1]) << 16) |
                    (static_cast<std::uint32_t>(key[2]) << 8) | key[3];
  for (std::size_t i = 0; i < data.size(); ++i) {
    for (int b = 0; b < 8; ++b) {
      if ((data[i] & (1u << (7 - b))) != 0) hash ^= v;
      v <<= 1;
      if (i + 4 < key.size() && (key[i + 4] & (1u << (7 - b))) != 0) v |= 1;
    }
  }
  return hash;
}

const std::array<std::uint8_t, 40>& mpath_entropy_key() {
  static constexpr std::array<std::uint8_t, 40> key = {
      0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
      0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
      0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
  };
  return key;
}

FiveTupleBytes rss_hash_input(const SiftrAddress& src, const SiftrAddress& dst, std::uint16_t src_port,
                              std::uint16_t dst_port) {
  FiveTupleBytes in;
  const std::size_t alen = src.family == IpVersion::v4 ? 4 : 16;
  std::size_t n = 0;
  for (std::size_t i = 0; i < alen; ++i) in.bytes[n++] = src.bytes[i];
  for (std::size_t i = 0; i < alen; ++i) in.bytes[n++] = dst.bytes[i];
  in.bytes[n++] = static_cast<std::uint8_t>(src_port >> 8);
  in.bytes[n++] = static_cast<std::uint8_t>(src_port);
  in.bytes[n++] = static_cast<std::uint8_t>(dst_port >> 8);
  in.bytes[n++] = static_cast<std::uint8_t>(dst_port);
  in.size = n;
  return in;
}

FiveTupleBytes software_hash_input(const SiftrAddress& src, const SiftrAddress& dst, std::uint16_t src_port,
                                   std::uint16_t dst_port, std::uint8_t proto) {
  FiveTupleBytes in = rss_hash_input(src, dst, src_port, dst_port);
  in.bytes[in.size] = proto;
  in.size += 4;  // proto and spare[3], zero
  return in;
}

}  // namespace netsim::tcp
