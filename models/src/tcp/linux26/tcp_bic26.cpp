// Ported behaviour (own code, no source text) of Linux 2.6.13 and 2.6.14
// net/ipv4/tcp_bic.c: bictcp_reset, bictcp_init, bictcp_update,
// bictcp_low_utilization, bictcp_cong_avoid, bictcp_recalc_ssthresh,
// bictcp_undo_cwnd, bictcp_min_cwnd, bictcp_state, bictcp_acked.
//
// Read: no stored copy of the exact 2.6.13 or 2.6.14 file was found. The
// text followed is the nearest one stored, pkunz/linux-2.6-trimedia@
// 25125ca6cbd577d263d248487c01121324d31493 net/ipv4/tcp_bic.c (index id
// 11462798145): 2.6.14's inet_csk form of the module, still with the
// low-utilization detector, the min_cwnd hook, delayed_ack/pkts_acked and
// the `in_flight < snd_cwnd` gate, but with max_increment 16. Two stable
// patches fix the version differences:
//  - "[TCP]: BIC coding bug in Linux 2.6.13" (linux-2.6.13.y, index id
//    43012581328): 2.6.13 computed the cnt for last_max_cwnd + B <= cwnd <
//    last_max_cwnd + max_increment*(B-1) as `(cwnd*(B-1)) / cwnd -
//    last_max_cwnd` (missing parentheses); the fix, already in Linus' tree
//    when queued for stable on 2005-10-07, is in 2.6.14. KernelVersion
//    v2_6_13 reproduces the bug with its u32 wrap-around.
//  - "tcp: BIC max increment too large" (against linux-2.6.14.1, index id
//    11030943803): max_increment was 32 in 2.6.13/2.6.14 (the diff context
//    also shows low_utilization_threshold 153 there).
// The 2.6.13 hook signatures (struct tcp_sock *tp, pkts_acked, min_cwnd)
// are those of the 2.6.13 include/net/tcp.h (index id 1586820249).
#include "netsim/tcp/linux26/tcp_bic26.h"

#include <algorithm>

namespace netsim::tcp::lnx26 {

namespace {
std::uint32_t u(int v) { return static_cast<std::uint32_t>(v); }  // C's int -> u32 conversion
}  // namespace

Tcp26Bic::Tcp26Bic(KernelVersion version, BicParams26 params) : version_(version), params_(params) {}

void Tcp26Bic::bictcp_reset() { ca_ = BicTcp26{}; }

void Tcp26Bic::init(Tcp26Sock& tp) {
  bictcp_reset();
  if (params_.initial_ssthresh) tp.snd_ssthresh = u(params_.initial_ssthresh);
}

void Tcp26Bic::bictcp_update(const Tcp26Sock& tp, std::uint32_t cwnd) {
  const std::uint32_t now = tp.jiffies;
  if (ca_.last_cwnd == cwnd && static_cast<std::int32_t>(now - ca_.last_time) <= tp.hz / 32) return;

  ca_.last_cwnd = cwnd;
  ca_.last_time = now;

  if (ca_.epoch_start == 0) ca_.epoch_start = now;  // the epoch begins

  // Reno-like below low_window: one segment per cwnd ACKs.
  if (cwnd <= u(params_.low_window)) {
    ca_.cnt = cwnd;
    return;
  }

  const std::uint32_t max_inc = u(params_.max_increment);
  const std::uint32_t smooth = u(params_.smooth_part);
  if (cwnd < ca_.last_max_cwnd) {
    // Binary search towards last_max_cwnd.
    const std::uint32_t dist = (ca_.last_max_cwnd - cwnd) / BICTCP_B;
    if (dist > max_inc)
      ca_.cnt = cwnd / max_inc;  // linear increase, max_increment per RTT
    else if (dist <= 1U)
      ca_.cnt = (cwnd * smooth) / BICTCP_B;
    else
      ca_.cnt = cwnd / dist;
  } else {
    // At or above last_max_cwnd: slow probing, then linear.
    if (cwnd < ca_.last_max_cwnd + BICTCP_B) {
      ca_.cnt = (cwnd * smooth) / BICTCP_B;
    } else if (cwnd < ca_.last_max_cwnd + max_inc * (BICTCP_B - 1)) {
      if (version_ == KernelVersion::v2_6_13)
        ca_.cnt = (cwnd * (BICTCP_B - 1)) / cwnd - ca_.last_max_cwnd;  // 2.6.13's precedence bug, kept
      else
        ca_.cnt = (cwnd * (BICTCP_B - 1)) / (cwnd - ca_.last_max_cwnd);
    } else {
      ca_.cnt = cwnd / max_inc;
    }
  }

  // In slow start (no loss yet) or at very low utilization: at least 5% per RTT.
  if (ca_.loss_cwnd == 0 || (cwnd > ca_.loss_cwnd && ca_.low_utilization)) {
    if (ca_.cnt > 20) ca_.cnt = 20;
  }

  ca_.cnt = (ca_.cnt << ACK_RATIO_SHIFT) / ca_.delayed_ack;
  if (ca_.cnt == 0) ca_.cnt = 1;
}

void Tcp26Bic::bictcp_low_utilization(const Tcp26Sock& tp, int flag) {
  const std::uint32_t now = tp.jiffies;
  const auto notlow = [this] {
    ca_.low_utilization = 0;
    ca_.low_utilization_start = 0;
  };

  // No timestamp, a sample right after recovery, or an ACK of no new data.
  if (!(tp.rx_opt.saw_tstamp && tp.rx_opt.rcv_tsecr) || now < ca_.epoch_start + u(tp.hz) || flag == 0) {
    ca_.last_delay = 0;
    notlow();
    return;
  }

  const std::uint32_t delay = ca_.last_delay << 3;  // srtt's scale
  ca_.last_delay = now - tp.rx_opt.rcv_tsecr;
  if (delay == 0) {
    notlow();
    return;
  }

  if (ca_.delay_min == 0 || ca_.delay_min > delay) {
    ca_.delay_min = ca_.delay_max = delay;
    notlow();
    return;
  }

  if (ca_.delay_max < delay) ca_.delay_max = delay;

  const std::uint32_t dist = ca_.delay_max - ca_.delay_min;
  if (dist <= ca_.delay_min >> 6 ||
      tp.srtt - ca_.delay_min >= (dist * u(params_.low_utilization_threshold)) >> 10) {
    notlow();
    return;
  }

  if (ca_.low_utilization_start == 0) {
    ca_.low_utilization = 0;
    ca_.low_utilization_start = now;
  } else if (static_cast<std::int32_t>(now - ca_.low_utilization_start) > params_.low_utilization_period * tp.hz) {
    ca_.low_utilization = 1;
  }
}

void Tcp26Bic::cong_avoid(Tcp26Sock& tp, std::uint32_t /*ack*/, std::uint32_t /*rtt*/, std::uint32_t in_flight,
                          int good) {
  bictcp_low_utilization(tp, good);

  if (in_flight < tp.snd_cwnd) return;  // the module's cwnd-limited gate

  if (tp.snd_cwnd <= tp.snd_ssthresh) {
    if (tp.snd_cwnd < tp.snd_cwnd_clamp) tp.snd_cwnd++;
  } else {
    bictcp_update(tp, tp.snd_cwnd);
    if (tp.snd_cwnd_cnt >= ca_.cnt) {
      if (tp.snd_cwnd < tp.snd_cwnd_clamp) tp.snd_cwnd++;
      tp.snd_cwnd_cnt = 0;
    } else {
      tp.snd_cwnd_cnt++;
    }
  }
}

std::uint32_t Tcp26Bic::ssthresh(Tcp26Sock& tp) {
  ca_.epoch_start = 0;  // the epoch ends

  // Guard against a delay_max sampled too high.
  if (ca_.delay_min > 0 && ca_.delay_max > ca_.delay_min)
    ca_.delay_max = ca_.delay_min + ((ca_.delay_max - ca_.delay_min) * 90) / 100;

  // W_max, lowered further when fast convergence sees a loss below it.
  if (tp.snd_cwnd < ca_.last_max_cwnd && params_.fast_convergence)
    ca_.last_max_cwnd = (tp.snd_cwnd * (BICTCP_BETA_SCALE + u(params_.beta))) / (2 * BICTCP_BETA_SCALE);
  else
    ca_.last_max_cwnd = tp.snd_cwnd;

  ca_.loss_cwnd = tp.snd_cwnd;

  if (tp.snd_cwnd <= u(params_.low_window)) return std::max(tp.snd_cwnd >> 1U, 2U);
  return std::max((tp.snd_cwnd * u(params_.beta)) / BICTCP_BETA_SCALE, 2U);
}

std::uint32_t Tcp26Bic::undo_cwnd(Tcp26Sock& tp) { return std::max(tp.snd_cwnd, ca_.last_max_cwnd); }

std::uint32_t Tcp26Bic::min_cwnd(const Tcp26Sock& tp) { return tp.snd_ssthresh; }

void Tcp26Bic::set_state(Tcp26Sock& /*tp*/, std::uint8_t new_state) {
  if (new_state == TCP_CA_Loss) bictcp_reset();
}

void Tcp26Bic::pkts_acked(Tcp26Sock& tp, std::uint32_t cnt) {
  // delayed_ack += cnt - delayed_ack / 16 (u32): a 1/16-weight average of
  // packets per ACK << ACK_RATIO_SHIFT, updated only in Open.
  if (cnt > 0 && tp.ca_state == TCP_CA_Open) {
    cnt -= ca_.delayed_ack >> ACK_RATIO_SHIFT;
    ca_.delayed_ack += cnt;
  }
}

}  // namespace netsim::tcp::lnx26
