// Pieces of net/ipv4/tcp_input.c (Linux 6.18) that work on the connection
// state alone: the RTT estimator and RTO (tcp_rtt_estimator, tcp_set_rto),
// Proportional Rate Reduction (tcp_init_cwnd_reduction,
// tcp_cwnd_reduction, tcp_end_cwnd_reduction) and the pacing rate
// (tcp_update_pacing_rate). The sender's ACK path calls them as
// tcp_ack / tcp_fastretrans_alert do.
#pragma once

#include <cstdint>

#include "netsim/tcp/linux/tcp_congestion_ops.h"
#include "netsim/tcp/linux/tcp_sock.h"

namespace netsim::tcp::lnx {

// tcp_ack() flags the functions here read.
inline constexpr int FLAG_SND_UNA_ADVANCED = 0x400;

// tcp_rto_min_us(): the route's rto_min or TCP_RTO_MIN, in microseconds.
inline std::uint32_t tcp_rto_min_us(const LinuxTcpSock& tp) { return jiffies_to_usecs(tp.icsk_rto_min, tp.clock.hz); }

// Jacobson/Karels with Linux's twists: a falling RTT moves mdev with gain
// 1/32 instead of 1/4, and rttvar is the per-RTT maximum of mdev, at least
// rto_min (so RTO >= srtt + 200 ms).
void tcp_rtt_estimator(LinuxTcpSock& tp, long mrtt_us);
// icsk_rto = usecs_to_jiffies(srtt + rttvar), at most TCP_RTO_MAX.
void tcp_set_rto(LinuxTcpSock& tp);

// Entering CWR or Recovery: ssthresh from the module, PRR counters reset.
void tcp_init_cwnd_reduction(LinuxTcpSock& tp, TcpCongestionOps& ca);
// PRR (RFC 6937) with the slow-start reduction bound (PRR-SSRB):
// cwnd = in_flight + sndcnt.
void tcp_cwnd_reduction(LinuxTcpSock& tp, int newly_acked_sacked, int newly_lost, int flag);
// Leaving CWR or Recovery: cwnd = ssthresh (unless undone), CA_EVENT_COMPLETE_CWR.
void tcp_end_cwnd_reduction(LinuxTcpSock& tp, TcpCongestionOps& ca);

// net.ipv4.tcp_pacing_ss_ratio / tcp_pacing_ca_ratio (percent).
struct PacingRatios {
  std::uint32_t ss = 200;
  std::uint32_t ca = 120;
};
// sk_pacing_rate = ratio * mss * max(cwnd, packets_out) / srtt, in bytes per second.
void tcp_update_pacing_rate(LinuxTcpSock& tp, const PacingRatios& ratios = {});

}  // namespace netsim::tcp::lnx
