// Ported behaviour (own code, no source text) from Linux 6.18
// net/ipv4/tcp_input.c: tcp_rtt_estimator, tcp_set_rto (with
// include/net/tcp.h __tcp_set_rto, tcp_bound_rto), tcp_init_cwnd_reduction,
// tcp_cwnd_reduction, tcp_end_cwnd_reduction, tcp_update_pacing_rate.
// See docs/linux-sender.md.
#include "netsim/tcp/linux/tcp_input.h"

#include <algorithm>

namespace netsim::tcp::lnx {

void tcp_rtt_estimator(LinuxTcpSock& tp, long mrtt_us) {
  long m = mrtt_us;
  std::uint32_t srtt = tp.srtt_us;
  if (srtt != 0) {
    m -= static_cast<long>(srtt >> 3);  // error against the old estimate
    srtt = static_cast<std::uint32_t>(static_cast<long>(srtt) + m);  // srtt = 7/8 srtt + 1/8 sample
    if (m < 0) {
      m = -m;
      m -= static_cast<long>(tp.mdev_us >> 2);
      // A falling RTT must not inflate mdev as much as a rising one.
      if (m > 0) m >>= 3;
    } else {
      m -= static_cast<long>(tp.mdev_us >> 2);
    }
    tp.mdev_us = static_cast<std::uint32_t>(static_cast<long>(tp.mdev_us) + m);
    if (tp.mdev_us > tp.mdev_max_us) {
      tp.mdev_max_us = tp.mdev_us;
      if (tp.mdev_max_us > tp.rttvar_us) tp.rttvar_us = tp.mdev_max_us;
    }
    // Once per RTT rttvar decays toward the period's maximum mdev.
    if (after(tp.snd_una, tp.rtt_seq)) {
      if (tp.mdev_max_us < tp.rttvar_us) tp.rttvar_us -= (tp.rttvar_us - tp.mdev_max_us) >> 2;
      tp.rtt_seq = tp.snd_nxt;
      tp.mdev_max_us = tcp_rto_min_us(tp);
    }
  } else {
    srtt = static_cast<std::uint32_t>(m << 3);
    tp.mdev_us = static_cast<std::uint32_t>(m << 1);
    tp.rttvar_us = std::max(tp.mdev_us, tcp_rto_min_us(tp));
    tp.mdev_max_us = tp.rttvar_us;
    tp.rtt_seq = tp.snd_nxt;
  }
  tp.srtt_us = std::max(1u, srtt);
}

void tcp_set_rto(LinuxTcpSock& tp) {
  tp.icsk_rto = usecs_to_jiffies((tp.srtt_us >> 3) + tp.rttvar_us, tp.clock.hz);
  tp.icsk_rto = std::min(tp.icsk_rto, TCP_RTO_MAX(tp.clock.hz));  // tcp_bound_rto
}

void tcp_init_cwnd_reduction(LinuxTcpSock& tp, TcpCongestionOps& ca) {
  tp.high_seq = tp.snd_nxt;
  tp.tlp_high_seq = 0;
  tp.snd_cwnd_cnt = 0;
  tp.prior_cwnd = tcp_snd_cwnd(tp);
  tp.prr_delivered = 0;
  tp.prr_out = 0;
  tp.snd_ssthresh = ca.ssthresh(tp);
}

void tcp_cwnd_reduction(LinuxTcpSock& tp, int newly_acked_sacked, int newly_lost, int flag) {
  int sndcnt = 0;
  const int delta = static_cast<int>(tp.snd_ssthresh) - static_cast<int>(tcp_packets_in_flight(tp));
  if (newly_acked_sacked <= 0 || tp.prior_cwnd == 0) return;
  tp.prr_delivered += static_cast<std::uint32_t>(newly_acked_sacked);
  if (delta < 0) {
    // Proportional part: ssthresh/prior_cwnd of what was delivered, rounded up.
    const std::uint64_t dividend =
        static_cast<std::uint64_t>(tp.snd_ssthresh) * tp.prr_delivered + tp.prior_cwnd - 1;
    sndcnt = static_cast<int>(static_cast<std::uint32_t>(dividend / tp.prior_cwnd) - tp.prr_out);
  } else {
    // Slow-start reduction bound: grow back toward ssthresh by what was delivered.
    sndcnt = static_cast<int>(std::max(tp.prr_delivered - tp.prr_out, static_cast<std::uint32_t>(newly_acked_sacked)));
    if ((flag & FLAG_SND_UNA_ADVANCED) && !newly_lost) sndcnt++;
    sndcnt = std::min(delta, sndcnt);
  }
  // The first ACK of recovery always lets the fast retransmit out.
  sndcnt = std::max(sndcnt, tp.prr_out ? 0 : 1);
  tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + static_cast<std::uint32_t>(sndcnt));
}

void tcp_end_cwnd_reduction(LinuxTcpSock& tp, TcpCongestionOps& ca) {
  if (tp.snd_ssthresh < TCP_INFINITE_SSTHRESH && (tp.icsk_ca_state == TCP_CA_CWR || tp.undo_marker)) {
    tcp_snd_cwnd_set(tp, tp.snd_ssthresh);
    tp.snd_cwnd_stamp = tp.clock.jiffies;
  }
  ca.cwnd_event(tp, TcpCaEvent::CA_EVENT_COMPLETE_CWR);
}

void tcp_update_pacing_rate(LinuxTcpSock& tp, const PacingRatios& ratios) {
  // mss * 8 * 10^4: with the ratio in percent and srtt << 3 this is bytes/s.
  std::uint64_t rate = static_cast<std::uint64_t>(tp.mss_cache) * ((1000000 / 100) << 3);
  rate *= tcp_snd_cwnd(tp) < tp.snd_ssthresh / 2 ? ratios.ss : ratios.ca;
  rate *= std::max(tcp_snd_cwnd(tp), tp.packets_out);
  if (tp.srtt_us) rate /= tp.srtt_us;
  tp.sk_pacing_rate = std::min(rate, tp.sk_max_pacing_rate);
}

}  // namespace netsim::tcp::lnx
