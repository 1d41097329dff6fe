// Ported behaviour (own code, no source text) of Linux 2.6.13/2.6.14
// net/ipv4/tcp_cong.c: tcp_reno_cong_avoid, tcp_reno_ssthresh,
// tcp_reno_min_cwnd; and the undo fallback of tcp_undo_cwr
// (net/ipv4/tcp_input.c) for a module without undo_cwnd.
//
// Read: the 2.6.13 hook signatures and the tcp_reno declarations in a
// 2.6.13 include/net/tcp.h (index id 1586820249). No stored copy of the
// 2.6.13 or 2.6.14 tcp_cong.c body was found; the bodies follow the same
// functions of later tcp_cong.c copies (index ids 154089156, 35598017:
// ssthresh max(cwnd >> 1, 2), min_cwnd ssthresh / 2, the counting
// increase on snd_cwnd_cnt) without the ABC branch, which arrived with
// sysctl_tcp_abc in 2.6.15, and with 2.6.13's explicit
// `in_flight < snd_cwnd` gate (tcp_is_cwnd_limited came later). The
// gate and the slow start are the same as in the 2.6.13-era tcp_bic.c
// read at pkunz/linux-2.6-trimedia@25125ca6 (index id 11462798145).
#include "netsim/tcp/linux26/tcp_reno26.h"

#include <algorithm>

namespace netsim::tcp::lnx26 {

void tcp_reno_cong_avoid(Tcp26Sock& tp, std::uint32_t /*ack*/, std::uint32_t /*rtt*/, std::uint32_t in_flight,
                         int /*flag*/) {
  if (in_flight < tp.snd_cwnd) return;

  if (tp.snd_cwnd <= tp.snd_ssthresh) {
    // Slow start: one segment per ACK.
    if (tp.snd_cwnd < tp.snd_cwnd_clamp) tp.snd_cwnd++;
  } else if (tp.snd_cwnd_cnt >= tp.snd_cwnd) {
    // Congestion avoidance: one segment per snd_cwnd ACKs.
    if (tp.snd_cwnd < tp.snd_cwnd_clamp) tp.snd_cwnd++;
    tp.snd_cwnd_cnt = 0;
  } else {
    tp.snd_cwnd_cnt++;
  }
}

std::uint32_t tcp_reno_ssthresh(const Tcp26Sock& tp) { return std::max(tp.snd_cwnd >> 1U, 2U); }

std::uint32_t tcp_reno_min_cwnd(const Tcp26Sock& tp) { return tp.snd_ssthresh / 2; }

std::uint32_t Tcp26Reno::undo_cwnd(Tcp26Sock& tp) { return std::max(tp.snd_cwnd, tp.snd_ssthresh << 1); }

}  // namespace netsim::tcp::lnx26
