// Timer arithmetic of net/ipv4/tcp_timer.c, net/ipv4/tcp_output.c and
// include/net/inet_connection_sock.h (Linux 6.18), in jiffies of the
// host's CONFIG_HZ: RTO backoff on expiry, the time left to the RTO of the
// head skb, and the tail-loss-probe timeout.
#pragma once

#include <cstdint>

#include "netsim/tcp/linux/tcp_sock.h"

namespace netsim::tcp::lnx {

// inet_csk_rto_backoff(): icsk_rto << icsk_backoff, at most max_when.
inline std::uint32_t inet_csk_rto_backoff(const LinuxTcpSock& tp, std::uint32_t max_when) {
  const std::uint64_t when = static_cast<std::uint64_t>(tp.icsk_rto) << tp.icsk_backoff;
  return static_cast<std::uint32_t>(when < max_when ? when : max_when);
}

// The RTO update of tcp_retransmit_timer() for an established connection
// (no thin-stream linear timeouts): backoff++, retransmits++, rto doubled
// up to TCP_RTO_MAX. Returns the timer to arm, in jiffies.
std::uint32_t tcp_retransmit_timer_backoff(LinuxTcpSock& tp);

// tcp_rto_delta_us(): microseconds until the RTO of the head skb sent at
// `head_xmit_us` (negative when overdue).
std::int64_t tcp_rto_delta_us(const LinuxTcpSock& tp, std::uint64_t head_xmit_us);

// The timeout tcp_schedule_loss_probe() arms, in jiffies: 2 srtt plus
// rto_min with one packet out (a delayed ACK) or 2 ms otherwise; TCP_TIMEOUT_INIT
// without an RTT sample; never later than the RTO. `rto_delta_us` is
// jiffies_to_usecs(icsk_rto) when the RTO is being advanced, else tcp_rto_delta_us.
std::uint32_t tcp_loss_probe_timeout(const LinuxTcpSock& tp, std::int64_t rto_delta_us);

}  // namespace netsim::tcp::lnx
