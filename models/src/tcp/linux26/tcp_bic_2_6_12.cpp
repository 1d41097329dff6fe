// Ported behaviour (own code, no source text) of Linux 2.6.12's built-in
// congestion control: net/ipv4/tcp_input.c reno_cong_avoid and
// bictcp_cwnd, init_bictcp, the cwnd floor of tcp_cwnd_down and the
// restore of tcp_undo_cwr; include/net/tcp.h tcp_recalc_ssthresh and the
// BICTCP_* constants.
//
// Read: no stored 2.6.12 copy of either file was found. Followed 2.6.11:
//  - include/net/tcp.h at pwanbul/linux-2.6.11@5b831ca4c3f046b4ad8bbb4e092bad43ece745a9
//    (index id 10211678583): BICTCP_BETA_SCALE 1024, BICTCP_MAX_INCREMENT 32,
//    BICTCP_FUNC_OF_MIN_INCR 11, BICTCP_B 4, tcp_recalc_ssthresh with the
//    beta (819/1024) form of the BIC branch;
//  - net/ipv4/tcp_input.c, an annotated 2.6.11 copy (index id 568210917):
//    sysctl defaults (tcp_bic 1, fast_convergence 1, low_window 14,
//    beta 819), bictcp_cwnd, reno_cong_avoid (no cwnd-limited test: tcp_ack
//    calls it only when prior_in_flight >= snd_cwnd), init_bictcp (called at
//    the end of tcp_enter_frto_loss only), tcp_cwnd_down (limit
//    snd_ssthresh / 2 when Westwood is off) and tcp_undo_cwr;
// plus the one BIC change between 2.6.11 and 2.6.12, "[TCP]: BIC not
// binary searching correctly" (2.6.11 stable review, index id 39839148679),
// whose only hunk makes tcp_undo_cwr restore max(snd_cwnd, last_max_cwnd)
// under BIC. Vegas and Westwood (sysctls off by default) are not ported.
#include "netsim/tcp/linux26/tcp_bic_2_6_12.h"

#include <algorithm>

namespace netsim::tcp::lnx26 {

namespace {
std::uint32_t u(int v) { return static_cast<std::uint32_t>(v); }  // C's int -> u32 conversion
}  // namespace

Tcp26Bic2612::Tcp26Bic2612(bool bic, BicSysctl2612 sysctl) : bic_(bic), sysctl_(sysctl) {}

void Tcp26Bic2612::init(Tcp26Sock& /*tp*/) { bictcp_ = BicTcp2612{}; }

std::uint32_t Tcp26Bic2612::bictcp_cwnd(Tcp26Sock& tp) {
  if (!bic_) return tp.snd_cwnd;  // original Reno

  const std::uint32_t now = tp.jiffies;
  if (bictcp_.last_cwnd == tp.snd_cwnd && static_cast<std::int32_t>(now - bictcp_.last_stamp) <= (tp.hz >> 5))
    return bictcp_.cnt;

  bictcp_.last_cwnd = tp.snd_cwnd;
  bictcp_.last_stamp = now;

  const std::uint32_t cwnd = tp.snd_cwnd;
  const std::uint32_t last_max = bictcp_.last_max_cwnd;
  if (cwnd <= u(sysctl_.sysctl_tcp_bic_low_window)) {
    bictcp_.cnt = cwnd;  // Reno below low_window
  } else if (cwnd < last_max) {
    // Binary search towards last_max_cwnd.
    const std::uint32_t dist = (last_max - cwnd) / BICTCP_B;
    if (dist > BICTCP_MAX_INCREMENT)
      bictcp_.cnt = cwnd / BICTCP_MAX_INCREMENT;
    else if (dist <= 1U)
      bictcp_.cnt = cwnd * BICTCP_FUNC_OF_MIN_INCR / BICTCP_B;
    else
      bictcp_.cnt = cwnd / dist;
  } else {
    // At or above last_max_cwnd: slow probing, then linear.
    if (cwnd < last_max + BICTCP_B)
      bictcp_.cnt = cwnd * BICTCP_FUNC_OF_MIN_INCR / BICTCP_B;
    else if (cwnd < last_max + BICTCP_MAX_INCREMENT * (BICTCP_B - 1))
      bictcp_.cnt = cwnd * (BICTCP_B - 1) / (cwnd - last_max);
    else
      bictcp_.cnt = cwnd / BICTCP_MAX_INCREMENT;
  }
  return bictcp_.cnt;
}

void Tcp26Bic2612::cong_avoid(Tcp26Sock& tp, std::uint32_t /*ack*/, std::uint32_t /*rtt*/,
                              std::uint32_t /*in_flight*/, int /*good*/) {
  if (tp.snd_cwnd <= tp.snd_ssthresh) {
    if (tp.snd_cwnd < tp.snd_cwnd_clamp) tp.snd_cwnd++;  // slow start
  } else if (tp.snd_cwnd_cnt >= bictcp_cwnd(tp)) {
    if (tp.snd_cwnd < tp.snd_cwnd_clamp) tp.snd_cwnd++;
    tp.snd_cwnd_cnt = 0;
  } else {
    tp.snd_cwnd_cnt++;
  }
  tp.snd_cwnd_stamp = tp.jiffies;
}

std::uint32_t Tcp26Bic2612::ssthresh(Tcp26Sock& tp) {
  if (bic_) {
    if (sysctl_.sysctl_tcp_bic_fast_convergence && tp.snd_cwnd < bictcp_.last_max_cwnd)
      bictcp_.last_max_cwnd =
          (tp.snd_cwnd * (BICTCP_BETA_SCALE + u(sysctl_.sysctl_tcp_bic_beta))) / (2 * BICTCP_BETA_SCALE);
    else
      bictcp_.last_max_cwnd = tp.snd_cwnd;

    if (tp.snd_cwnd > u(sysctl_.sysctl_tcp_bic_low_window))
      return std::max((tp.snd_cwnd * u(sysctl_.sysctl_tcp_bic_beta)) / BICTCP_BETA_SCALE, 2U);
  }
  return std::max(tp.snd_cwnd >> 1U, 2U);
}

std::uint32_t Tcp26Bic2612::min_cwnd(const Tcp26Sock& tp) { return tp.snd_ssthresh / 2; }

std::uint32_t Tcp26Bic2612::undo_cwnd(Tcp26Sock& tp) {
  if (bic_) return std::max(tp.snd_cwnd, bictcp_.last_max_cwnd);
  return std::max(tp.snd_cwnd, tp.snd_ssthresh << 1);
}

}  // namespace netsim::tcp::lnx26
