// CUBIC module, stock and D46046; see cubic.h for the FreeBSD files, commits
// and review followed (cc_cubic.c @ 00d3b744 stock, @ e8130f15 patched).
#include "netsim/cc/cubic.h"

#include <climits>

#include "cc_internal.h"
#include "netsim/cc/newreno.h"

namespace netsim::cc {
namespace {

constexpr detail::HystartBits kHystartBits{CUBICFLAG_HYSTART_ENABLED, CUBICFLAG_HYSTART_IN_CSS};

// A loss or ECN mark ends HyStart++ for good (until after_idle).
void hystart_off(CubicData& d) {
  if (d.flags & CUBICFLAG_HYSTART_ENABLED) {
    d.flags &= ~CUBICFLAG_HYSTART_ENABLED;
    d.flags &= ~CUBICFLAG_HYSTART_IN_CSS;
  }
}

}  // namespace

void cubic_record_rtt(CcVar& ccv, CubicData& cubic_data) {
  const Tcpcb& tp = *ccv.tp;
  if (tp.t_rttupdated < CUBIC_MIN_RTT_SAMPLES) return;  // srtt not trusted yet
  const std::uint32_t t_srtt_usecs = tcp_get_srtt(tp, TCP_TMR_GRANULARITY_USEC);
  // int min_rtt_usecs compared with the uint32_t sample: unsigned compare.
  if (t_srtt_usecs < static_cast<std::uint32_t>(cubic_data.min_rtt_usecs) ||
      cubic_data.min_rtt_usecs == TCPTV_SRTTBASE) {
    // The smallest RTT is one unshifted tick of the ticks timer: tick >> 5
    // (312 us at hz = 100, 31 us at hz = 1000).
    cubic_data.min_rtt_usecs =
        static_cast<int>(kern::max(static_cast<u_int>(tick_usecs(tp) >> TCP_RTT_SHIFT), t_srtt_usecs));
    // Prime mean_rtt (1 after cb_init) until post_recovery computes one.
    if (cubic_data.min_rtt_usecs > cubic_data.mean_rtt_usecs) cubic_data.mean_rtt_usecs = cubic_data.min_rtt_usecs;
  }
  cubic_data.sum_rtt_usecs += t_srtt_usecs;
  cubic_data.epoch_ack_count = kern::wrap_add(cubic_data.epoch_ack_count, 1);
}

void cubic_does_slow_start(CcVar& ccv, CubicData& cubic_data) {
  Tcpcb& tp = *ccv.tp;
  const u_int cw = tp.snd_cwnd;
  u_int incr = tp.t_maxseg;
  cubic_data.flags |= CUBICFLAG_IN_SLOWSTART;
  const std::uint16_t abc_val = detail::abc_value(ccv);
  detail::hystart_css_entry_check(ccv, cubic_data, cubic_data.flags, kHystartBits);
  // Unlike NewReno, no rfc3465 test: CUBIC's slow start always byte-counts.
  incr = detail::abc_slow_start_incr(ccv, abc_val);
  if (cubic_data.flags & CUBICFLAG_HYSTART_IN_CSS) incr /= tp.sysctl.hystart_css_growth_div;
  if (incr > 0) tp.snd_cwnd = kern::min(cw + incr, detail::max_window(tp));
}

int Cubic::cb_init(CcVar& ccv) {
  data_ = CubicData{};  // M_ZERO
  data_.t_epoch = ccv.tp->ticks;
  data_.min_rtt_usecs = TCPTV_SRTTBASE;
  data_.mean_rtt_usecs = 1;
  data_.flags = CUBICFLAG_HYSTART_ENABLED;
  detail::hystart_init(data_);
  ccv.cc_data = &data_;
  return 0;
}

void Cubic::conn_init(CcVar& ccv) {
  // A sane W_max from the start (matters when the host cache seeds ssthresh).
  data_.W_max = ccv.tp->snd_cwnd;
}

void Cubic::ack_received(CcVar& ccv, ccsignal_t type) {
  Tcpcb& tp = *ccv.tp;
  CubicData& d = data_;
  cubic_record_rtt(ccv, d);

  if (type == CC_ACK && !IN_RECOVERY(tp.t_flags) && (ccv.flags & CCF_CWND_LIMITED)) {
    // Slow start also while no RTT sample has been recorded (min_rtt unset).
    if (tp.snd_cwnd <= tp.snd_ssthresh || d.min_rtt_usecs == TCPTV_SRTTBASE) {
      cubic_does_slow_start(ccv, d);
      return;
    }
    if (d.flags & CUBICFLAG_HYSTART_IN_CSS) {
      // Slipped into congestion avoidance with CSS active: HyStart++ is done.
      d.flags &= ~CUBICFLAG_HYSTART_IN_CSS;
      d.flags &= ~CUBICFLAG_HYSTART_ENABLED;
    }
    if ((d.flags & CUBICFLAG_RTO_EVENT) && (d.flags & CUBICFLAG_IN_SLOWSTART)) {
      // First CA ACK after the slow start that followed an RTO (RFC 8312
      // 4.7): the epoch restarts at the current cwnd with K = 0.
      d.flags &= ~(CUBICFLAG_RTO_EVENT | CUBICFLAG_IN_SLOWSTART);
      d.W_max = tp.snd_cwnd;
      d.t_epoch = tp.ticks;
      d.K = 0;
    } else if (d.flags & (CUBICFLAG_IN_SLOWSTART | CUBICFLAG_IN_APPLIMIT)) {
      // First CA ACK after slow start or an app-limited period: the epoch
      // restarts now (the clock is `ticks`), K from W_max in t_maxseg units.
      d.flags &= ~(CUBICFLAG_IN_SLOWSTART | CUBICFLAG_IN_APPLIMIT);
      d.t_epoch = tp.ticks;
      d.K = cubic_k(d.W_max / tp.t_maxseg);
    }
    // Time since the epoch started, in whole ticks: 0, tick, 2 * tick, ...
    // (int arithmetic; a negative value means ticks wrapped).
    int usecs_since_epoch = kern::wrap_mul(kern::wrap_sub(tp.ticks, d.t_epoch), tick_usecs(tp));
    if (usecs_since_epoch < 0) {
      usecs_since_epoch = INT_MAX;  // drag t_epoch along
      d.t_epoch = kern::wrap_sub(tp.ticks, INT_MAX);
    }
    cubic_ca_update(ccv, usecs_since_epoch);
    // Before the first congestion event keep raising W_max with cwnd (e.g.
    // when the host cache put ssthresh low).
    if ((d.flags & CUBICFLAG_CONG_EVENT) == 0 && d.W_max < tp.snd_cwnd) {
      d.W_max = tp.snd_cwnd;
      d.K = cubic_k(d.W_max / tp.t_maxseg);
    }
  } else if (type == CC_ACK && !IN_RECOVERY(tp.t_flags) && !(ccv.flags & CCF_CWND_LIMITED)) {
    d.flags |= CUBICFLAG_IN_APPLIMIT;
  }
}

void Cubic::cubic_ca_update(CcVar& ccv, int usecs_since_epoch) {
  Tcpcb& tp = *ccv.tp;
  CubicData& d = data_;
  // Stock: the RFC 8312 AIMD line, driven by the tick clock and mean_rtt.
  const unsigned long W_est = tf_cwnd(usecs_since_epoch, d.mean_rtt_usecs, d.W_max, tp.t_maxseg);
  // The cubic curve, evaluated one mean RTT ahead.
  const unsigned long W_cubic =
      cubic_cwnd(kern::wrap_add(usecs_since_epoch, d.mean_rtt_usecs), d.W_max, tp.t_maxseg, d.K, tp.hz);
  // The wrapper's ABC flag is not used by stock CUBIC: discard it.
  ccv.flags &= ~CCF_ABC_SENTAWND;
  if (W_cubic < W_est) {
    // TCP-friendly region: follow W_est, never shrinking cwnd.
    if (tp.snd_cwnd < W_est) tp.snd_cwnd = static_cast<std::uint32_t>(kern::ulmin(W_est, INT_MAX));
  } else if (tp.snd_cwnd < W_cubic) {
    // Concave or convex region: follow W_cubic, never shrinking cwnd.
    tp.snd_cwnd = static_cast<std::uint32_t>(kern::ulmin(W_cubic, INT_MAX));
  }
}

void CubicD46046::cubic_ca_update(CcVar& ccv, int usecs_since_epoch) {
  Tcpcb& tp = *ccv.tp;
  CubicData& d = data_;
  // D46046: NewReno's byte-counted AIMD is the TCP-friendly estimate. This
  // consumes CCF_ABC_SENTAWND (so there is no explicit clear below).
  const unsigned long W_est = tf_cwnd_d46046(ccv);
  const unsigned long W_cubic =
      cubic_cwnd(kern::wrap_add(usecs_since_epoch, d.mean_rtt_usecs), d.W_max, tp.t_maxseg, d.K, tp.hz);
  if (W_cubic < W_est) {
    // TCP-friendly region (W_est >= cwnd by construction); remember it for
    // the next multiplicative decrease.
    tp.snd_cwnd = static_cast<std::uint32_t>(kern::ulmin(W_est, INT_MAX));
    d.flags |= CUBICFLAG_IN_TF;
  } else if (tp.snd_cwnd < W_cubic) {
    tp.snd_cwnd = static_cast<std::uint32_t>(kern::ulmin(W_cubic, INT_MAX));
    d.flags &= ~CUBICFLAG_IN_TF;
  }
}

void Cubic::after_idle(CcVar& ccv) {
  Tcpcb& tp = *ccv.tp;
  CubicData& d = data_;
  d.W_max = kern::ulmax(d.W_max, tp.snd_cwnd);
  d.K = cubic_k(d.W_max / tp.t_maxseg);
  if ((d.flags & CUBICFLAG_HYSTART_ENABLED) == 0) {
    // Re-arm HyStart++ after an idle period.
    d.flags &= ~CUBICFLAG_HYSTART_IN_CSS;
    d.flags |= CUBICFLAG_HYSTART_ENABLED;
  }
  newreno_cc_after_idle(ccv);
  d.t_epoch = tp.ticks;
}

void Cubic::cong_signal(CcVar& ccv, ccsignal_t type) {
  Tcpcb& tp = *ccv.tp;
  CubicData& d = data_;
  const std::uint32_t mss = tcp_fixed_maxseg(tp);

  switch (type) {
    case CC_NDUPACK:
      hystart_off(d);
      if (!IN_FASTRECOVERY(tp.t_flags)) {
        if (!IN_CONGRECOVERY(tp.t_flags)) {
          ssthresh_update(ccv, mss);
          d.flags |= CUBICFLAG_CONG_EVENT;
          d.t_epoch = tp.ticks;
          d.K = cubic_k(d.W_max / mss);  // note: W_max in tcp_fixed_maxseg units here
        }
        ENTER_RECOVERY(tp.t_flags);
      }
      break;

    case CC_ECN:
      hystart_off(d);
      if (!IN_CONGRECOVERY(tp.t_flags)) {
        ssthresh_update(ccv, mss);
        d.flags |= CUBICFLAG_CONG_EVENT;
        d.t_epoch = tp.ticks;
        d.K = cubic_k(d.W_max / mss);
        tp.snd_cwnd = tp.snd_ssthresh;
        ENTER_CONGRECOVERY(tp.t_flags);
      }
      break;

    case CC_RTO:
      // RFC 8312 4.7.
      if (tp.t_rxtshift == 1) {
        // Only the first RTO saves the state an RTO_ERR would restore.
        d.undo_t_epoch = d.t_epoch;
        d.undo_cwnd_epoch = d.cwnd_epoch;
        d.undo_W_est = d.W_est;
        d.undo_cwnd_prior = d.cwnd_prior;
        d.undo_W_max = d.W_max;
        d.undo_K = d.K;
        const std::uint32_t pipe = detail::rto_pipe(tp);
        // max(2, ((min(snd_wnd, pipe) * 179) >> 8) / mss) * mss; max() takes u_int.
        const std::uint64_t segs =
            ((static_cast<std::uint64_t>(kern::min(tp.snd_wnd, pipe)) * CUBIC_BETA) >> CUBIC_SHIFT) / mss;
        tp.snd_ssthresh = kern::max(2, static_cast<u_int>(segs)) * mss;
      }
      d.flags |= CUBICFLAG_CONG_EVENT | CUBICFLAG_RTO_EVENT;
      d.undo_W_max = d.W_max;
      tp.snd_cwnd = mss;
      break;

    case CC_RTO_ERR:
      d.flags &= ~(CUBICFLAG_CONG_EVENT | CUBICFLAG_RTO_EVENT);
      d.K = d.undo_K;
      d.cwnd_prior = d.undo_cwnd_prior;
      d.W_max = d.undo_W_max;
      d.W_est = d.undo_W_est;
      d.cwnd_epoch = d.undo_cwnd_epoch;
      d.t_epoch = d.undo_t_epoch;
      break;

    default:
      break;
  }
}

void Cubic::post_recovery(CcVar& ccv) {
  Tcpcb& tp = *ccv.tp;
  CubicData& d = data_;
  if (IN_FASTRECOVERY(tp.t_flags)) {
    // int in C: compared with the uint32_t ssthresh as unsigned.
    const int pipe = detail::post_recovery_pipe(ccv);
    if (static_cast<u_int>(pipe) < tp.snd_ssthresh) {
      // Little in flight: do not burst; at least 2 * t_maxseg (RFC 6582).
      tp.snd_cwnd = kern::max(static_cast<u_int>(pipe), tp.t_maxseg) + tp.t_maxseg;
    } else {
      // cwnd = max(0.7 * W_max, 2 * t_maxseg); max() truncates to u_int.
      tp.snd_cwnd = kern::max(static_cast<u_int>((static_cast<std::uint64_t>(d.W_max) * CUBIC_BETA) >> CUBIC_SHIFT),
                              2 * tp.t_maxseg);
    }
  }
  // mean_rtt = the average srtt over the ACKs of the epoch that just ended.
  if (d.epoch_ack_count > 0 && d.sum_rtt_usecs >= d.epoch_ack_count)
    d.mean_rtt_usecs = static_cast<int>(d.sum_rtt_usecs / d.epoch_ack_count);
  d.epoch_ack_count = 0;
  d.sum_rtt_usecs = 0;
}

void Cubic::newround(CcVar& ccv, std::uint32_t round_cnt) {
  detail::hystart_newround(ccv, data_, data_.flags, kHystartBits, round_cnt);
}

void Cubic::rttsample(CcVar& ccv, std::uint32_t usec_rtt, std::uint32_t rxtcnt, std::uint32_t fas) {
  detail::hystart_rttsample(ccv, data_, data_.flags, kHystartBits, usec_rtt, rxtcnt, fas);
}

}  // namespace netsim::cc
