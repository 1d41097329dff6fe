// TSO sizing of net/ipv4/tcp_output.c (Linux 6.18): how many MSS one
// GSO/TSO skb carries, from the pacing rate (about 1 ms of data,
// sk_pacing_shift 10) plus a share of gso_max_size that shrinks with
// min_rtt (net.ipv4.tcp_tso_rtt_log = 9: halves every 512 us).
#pragma once

#include <cstdint>

#include "netsim/tcp/linux/tcp_sock.h"

namespace netsim::tcp::lnx {

struct TsoSysctls {
  std::uint32_t tcp_min_tso_segs = 2;  // net.ipv4.tcp_min_tso_segs
  std::uint8_t tcp_tso_rtt_log = 9;    // net.ipv4.tcp_tso_rtt_log
};

std::uint32_t tcp_tso_autosize(const LinuxTcpSock& tp, std::uint32_t mss_now, std::uint32_t min_tso_segs,
                               const TsoSysctls& sysctls = {});
// tcp_tso_segs(): autosize with tcp_min_tso_segs, at most sk_gso_max_segs.
std::uint32_t tcp_tso_segs(const LinuxTcpSock& tp, std::uint32_t mss_now, const TsoSysctls& sysctls = {});

}  // namespace netsim::tcp::lnx
