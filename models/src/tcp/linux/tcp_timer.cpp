// Ported behaviour (own code, no source text) from Linux 6.18:
// net/ipv4/tcp_timer.c tcp_retransmit_timer (the RTO backoff),
// net/ipv4/tcp_output.c tcp_schedule_loss_probe (timeout arithmetic),
// include/net/tcp.h tcp_rto_delta_us. See docs/linux-sender.md.
#include "netsim/tcp/linux/tcp_timer.h"

#include <algorithm>

#include "netsim/tcp/linux/tcp_input.h"

namespace netsim::tcp::lnx {

std::uint32_t tcp_retransmit_timer_backoff(LinuxTcpSock& tp) {
  tp.icsk_backoff++;
  tp.icsk_retransmits++;
  tp.icsk_rto = std::min(tp.icsk_rto << 1, TCP_RTO_MAX(tp.clock.hz));
  return tp.icsk_rto;
}

std::int64_t tcp_rto_delta_us(const LinuxTcpSock& tp, std::uint64_t head_xmit_us) {
  const std::uint64_t rto_time_stamp_us = head_xmit_us + jiffies_to_usecs(tp.icsk_rto, tp.clock.hz);
  return static_cast<std::int64_t>(rto_time_stamp_us) - static_cast<std::int64_t>(tp.clock.mstamp_us);
}

std::uint32_t tcp_loss_probe_timeout(const LinuxTcpSock& tp, std::int64_t rto_delta_us) {
  std::uint32_t timeout;
  if (tp.srtt_us) {
    std::uint32_t timeout_us = tp.srtt_us >> 2;  // 2 * srtt
    timeout_us += tp.packets_out == 1 ? tcp_rto_min_us(tp) : TCP_TIMEOUT_MIN_US;
    timeout = usecs_to_jiffies(timeout_us, tp.clock.hz);
  } else {
    timeout = TCP_TIMEOUT_INIT(tp.clock.hz);
  }
  if (rto_delta_us > 0) {
    timeout = std::min(timeout, usecs_to_jiffies(static_cast<std::uint32_t>(rto_delta_us), tp.clock.hz));
  }
  return timeout;
}

}  // namespace netsim::tcp::lnx
