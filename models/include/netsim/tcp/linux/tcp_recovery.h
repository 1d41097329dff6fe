// RACK (RFC 8985) as net/ipv4/tcp_recovery.c (Linux 6.18) keeps it: the
// reordering window and its DSACK-driven growth, the per-skb timeout, and
// the advance of the most recently delivered transmission.
#pragma once

#include <cstdint>

#include "netsim/tcp/linux/tcp_sock.h"

namespace netsim::tcp::lnx {

// net.ipv4.tcp_recovery bits (default TCP_RACK_LOSS_DETECTION).
inline constexpr int TCP_RACK_LOSS_DETECTION = 0x1;
inline constexpr int TCP_RACK_STATIC_REO_WND = 0x2;
inline constexpr int TCP_RACK_NO_DUPTHRESH = 0x4;
inline constexpr std::uint8_t TCP_RACK_RECOVERY_THRESH = 16;
// TCPCB_RETRANS: the skb was retransmitted (sacked flags).
inline constexpr std::uint8_t TCPCB_SACKED_RETRANS = 0x02;
inline constexpr std::uint8_t TCPCB_EVER_RETRANS = 0x80;
inline constexpr std::uint8_t TCPCB_RETRANS = TCPCB_SACKED_RETRANS | TCPCB_EVER_RETRANS;

// reo_wnd in us: 0 when no reordering was seen and recovery runs or the
// dupack threshold is met; else min(min_rtt / 4 * steps, srtt).
std::uint32_t tcp_rack_reo_wnd(const LinuxTcpSock& tp, int sysctl_tcp_recovery = TCP_RACK_LOSS_DETECTION);
// Remaining time (us) before an skb sent at `xmit_us` counts as lost.
std::int32_t tcp_rack_skb_timeout(const LinuxTcpSock& tp, std::uint64_t xmit_us, std::uint32_t reo_wnd);
// An skb (re)sent at `xmit_us` ending at `end_seq` was delivered.
void tcp_rack_advance(LinuxTcpSock& tp, std::uint8_t sacked, std::uint32_t end_seq, std::uint64_t xmit_us);
// Per ACK: a DSACK grows reo_wnd by one step (at most once per RTT) and
// keeps it for 16 recoveries; otherwise it returns to one step.
void tcp_rack_update_reo_wnd(LinuxTcpSock& tp, std::uint32_t prior_delivered,
                             int sysctl_tcp_recovery = TCP_RACK_LOSS_DETECTION);
// The reorder timer after tcp_rack_detect_loss found a waiting skb: jiffies.
inline std::uint32_t tcp_rack_reo_timeout_jiffies(const LinuxTcpSock& tp, std::uint32_t timeout_us) {
  return usecs_to_jiffies(timeout_us + TCP_TIMEOUT_MIN_US, tp.clock.hz);
}

}  // namespace netsim::tcp::lnx
