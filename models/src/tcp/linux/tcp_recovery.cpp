// Ported behaviour (own code, no source text) from Linux 6.18
// net/ipv4/tcp_recovery.c: tcp_rack_reo_wnd, tcp_rack_skb_timeout,
// tcp_rack_advance, tcp_rack_update_reo_wnd, and the reorder-timer
// arithmetic of tcp_rack_mark_lost. See docs/linux-sender.md.
#include "netsim/tcp/linux/tcp_recovery.h"

#include <algorithm>

namespace netsim::tcp::lnx {

std::uint32_t tcp_rack_reo_wnd(const LinuxTcpSock& tp, int sysctl_tcp_recovery) {
  if (!tp.reord_seen) {
    // No reordering seen: be aggressive in recovery, or once the dupack threshold is met.
    if (tp.icsk_ca_state >= TCP_CA_Recovery) return 0;
    if (tp.sacked_out >= tp.reordering && !(sysctl_tcp_recovery & TCP_RACK_NO_DUPTHRESH)) return 0;
  }
  // min_rtt (a path property) rather than srtt (queues, delayed ACKs).
  return std::min((tcp_min_rtt(tp) >> 2) * tp.rack.reo_wnd_steps, tp.srtt_us >> 3);
}

std::int32_t tcp_rack_skb_timeout(const LinuxTcpSock& tp, std::uint64_t xmit_us, std::uint32_t reo_wnd) {
  return static_cast<std::int32_t>(tp.rack.rtt_us + reo_wnd - tcp_stamp_us_delta(tp.clock.mstamp_us, xmit_us));
}

void tcp_rack_advance(LinuxTcpSock& tp, std::uint8_t sacked, std::uint32_t end_seq, std::uint64_t xmit_us) {
  const std::uint32_t rtt_us = tcp_stamp_us_delta(tp.clock.mstamp_us, xmit_us);
  // An RTT below min_rtt on a retransmitted skb is the original's ACK, not the retransmission's.
  if (rtt_us < tcp_min_rtt(tp) && (sacked & TCPCB_RETRANS)) return;
  tp.rack.advanced = true;
  tp.rack.rtt_us = rtt_us;
  // tcp_skb_sent_after: later send time, or the same time and a later end_seq.
  if (xmit_us > tp.rack.mstamp || (xmit_us == tp.rack.mstamp && after(end_seq, tp.rack.end_seq))) {
    tp.rack.mstamp = xmit_us;
    tp.rack.end_seq = end_seq;
  }
}

void tcp_rack_update_reo_wnd(LinuxTcpSock& tp, std::uint32_t prior_delivered, int sysctl_tcp_recovery) {
  if ((sysctl_tcp_recovery & TCP_RACK_STATIC_REO_WND) || !prior_delivered) return;
  // A DSACK within an RTT of the last adjustment does not count again.
  if (before(prior_delivered, tp.rack.last_delivered)) tp.rack.dsack_seen = false;
  if (tp.rack.dsack_seen) {
    tp.rack.reo_wnd_steps = static_cast<std::uint8_t>(std::min<std::uint32_t>(0xFF, tp.rack.reo_wnd_steps + 1u));
    tp.rack.dsack_seen = false;
    tp.rack.last_delivered = tp.delivered;
    tp.rack.reo_wnd_persist = TCP_RACK_RECOVERY_THRESH;
  } else if (!tp.rack.reo_wnd_persist) {
    tp.rack.reo_wnd_steps = 1;
  }
}

}  // namespace netsim::tcp::lnx
