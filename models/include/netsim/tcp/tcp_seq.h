// TCP sequence-number arithmetic (32-bit modular sequence space).
//
// Follows (behaviour and names; no source text copied):
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814
//       sys/netinet/tcp_seq.h   SEQ_LT, SEQ_LEQ, SEQ_GT, SEQ_GEQ, SEQ_MIN, SEQ_MAX
//
// a and b are compared by the sign of the 32-bit difference (a - b) read as a
// signed int, so the comparison is correct while the two values are less than
// 2^31 apart, including across the wrap from 0xffffffff to 0. C++20 defines the
// unsigned-to-signed conversion as modular, which is exactly FreeBSD's (int)
// cast on amd64.
#pragma once

#include <cstdint>

namespace netsim::tcp {

using tcp_seq = std::uint32_t;

constexpr std::int32_t seq_diff(tcp_seq a, tcp_seq b) { return static_cast<std::int32_t>(a - b); }

constexpr bool SEQ_LT(tcp_seq a, tcp_seq b) { return seq_diff(a, b) < 0; }
constexpr bool SEQ_LEQ(tcp_seq a, tcp_seq b) { return seq_diff(a, b) <= 0; }
constexpr bool SEQ_GT(tcp_seq a, tcp_seq b) { return seq_diff(a, b) > 0; }
constexpr bool SEQ_GEQ(tcp_seq a, tcp_seq b) { return seq_diff(a, b) >= 0; }
constexpr tcp_seq SEQ_MIN(tcp_seq a, tcp_seq b) { return SEQ_LT(a, b) ? a : b; }
constexpr tcp_seq SEQ_MAX(tcp_seq a, tcp_seq b) { return SEQ_GT(a, b) ? a : b; }

static_assert(SEQ_LT(0xfffffff0u, 0x10u) && SEQ_GT(0x10u, 0xfffffff0u));
static_assert(SEQ_LEQ(5u, 5u) && SEQ_GEQ(5u, 5u) && !SEQ_LT(5u, 5u) && !SEQ_GT(5u, 5u));
static_assert(SEQ_MIN(0xffffff00u, 0x100u) == 0xffffff00u && SEQ_MAX(0xffffff00u, 0x100u) == 0x100u);

}  // namespace netsim::tcp
