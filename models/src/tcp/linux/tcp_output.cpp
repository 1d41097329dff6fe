// Ported behaviour (own code, no source text) from Linux 6.18
// net/ipv4/tcp_output.c: tcp_tso_autosize, tcp_tso_segs. See docs/linux-sender.md.
#include "netsim/tcp/linux/tcp_output.h"

#include <algorithm>

namespace netsim::tcp::lnx {

std::uint32_t tcp_tso_autosize(const LinuxTcpSock& tp, std::uint32_t mss_now, std::uint32_t min_tso_segs,
                               const TsoSysctls& sysctls) {
  std::uint64_t bytes = tp.sk_pacing_rate >> tp.sk_pacing_shift;
  // Small RTTs get big TSO packets regardless of the rate (fewer ACKs and interrupts).
  const std::uint32_t r = tcp_min_rtt(tp) >> sysctls.tcp_tso_rtt_log;
  if (r < 32) bytes += tp.sk_gso_max_size >> r;
  bytes = std::min<std::uint64_t>(bytes, tp.sk_gso_max_size);
  return std::max(static_cast<std::uint32_t>(bytes / mss_now), min_tso_segs);
}

std::uint32_t tcp_tso_segs(const LinuxTcpSock& tp, std::uint32_t mss_now, const TsoSysctls& sysctls) {
  return std::min(tcp_tso_autosize(tp, mss_now, sysctls.tcp_min_tso_segs, sysctls), tp.sk_gso_max_segs);
}

}  // namespace netsim::tcp::lnx
