// The flow hashes SIFTR computes: hash32_buf (1.2.4's flow-table key) and
// the software Toeplitz hash of the connection's 5-tuple (1.3.0's flow id
// when the inpcb has none), with the work each one does, for the CPU model.
//
// Ported (own code, no source text) from
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814:
//     sys/sys/hash.h         hash32_buf (HASHSTEP: hash * 33 + byte)
//     sys/net/toeplitz.c     toeplitz_hash
//     sys/netinet/in_fib.c   fib4_calc_software_hash (struct _hash_5tuple_ipv4, 16 bytes)
//     sys/netinet6/in6_fib.c fib6_calc_software_hash (struct _hash_5tuple_ipv6, 40 bytes)
//     sys/net/route/mpath_ctl.c  mpath_entropy_key (the default 40-byte key)
// Without `options RSS`, net/route.h maps fib{4,6}_calc_packet_hash to these.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "netsim/tcp/freebsd/siftr_record.h"

namespace netsim::tcp {

inline constexpr std::uint32_t HASHINIT = 5381;  // sys/hash.h

// hash32_buf(buf, len, hash): hash = hash * 33 + byte, byte by byte.
std::uint32_t hash32_buf(std::span<const std::uint8_t> buf, std::uint32_t hash);

// toeplitz_hash(keylen, key, datalen, data): for every data bit that is set,
// XOR in the 32 key bits starting at that bit's position.
std::uint32_t toeplitz_hash(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data);

// MPATH_ENTROPY_KEY_LEN bytes of mpath_entropy_key (the well-known RSS key).
const std::array<std::uint8_t, 40>& mpath_entropy_key();

// M_HASHTYPE_* values (sys/mbuf.h) SIFTR logs as flowtype.
inline constexpr std::uint32_t M_HASHTYPE_HASHPROP = 0x80;
inline constexpr std::uint32_t M_HASHTYPE_RSS_TCP_IPV4 = M_HASHTYPE_HASHPROP | 2;  // 130
inline constexpr std::uint32_t M_HASHTYPE_RSS_TCP_IPV6 = M_HASHTYPE_HASHPROP | 4;  // 132
inline constexpr std::uint32_t M_HASHTYPE_OPAQUE = 63;

// A hash input: up to the 40 bytes of struct _hash_5tuple_ipv6.
struct FiveTupleBytes {
  std::array<std::uint8_t, 40> bytes{};
  std::size_t size = 0;
  std::span<const std::uint8_t> span() const { return {bytes.data(), size}; }
};

// What an RSS NIC hashes for a received TCP segment (M_HASHTYPE_RSS_TCP_IPV4/6):
// source and destination address, source and destination port (network
// order); 12 bytes for IPv4, 36 for IPv6.
FiveTupleBytes rss_hash_input(const SiftrAddress& src, const SiftrAddress& dst, std::uint16_t src_port,
                              std::uint16_t dst_port);

// What fib{4,6}_calc_software_hash hash (its hash type is
// M_HASHTYPE_OPAQUE): the RSS 4-tuple, then protocol and zero padding; 16
// bytes for IPv4, 40 for IPv6. `src` is the local end (the inpcb's laddr),
// as SIFTR passes it. The key is mpath_entropy_key.
FiveTupleBytes software_hash_input(const SiftrAddress& src, const SiftrAddress& dst, std::uint16_t src_port,
                                   std::uint16_t dst_port, std::uint8_t proto);

}  // namespace netsim::tcp
