// Pieces shared by the NewReno and CUBIC ports (private to models/src/cc).
//
// FreeBSD repeats this logic in cc.c, cc_newreno.c and cc_cubic.c (commits as
// in newreno.h and cubic.h); the copies are identical apart from the name of
// the module's flag word, so here they are written once.
#pragma once

#include <cstdint>

#include "netsim/cc/cc_var.h"
#include "netsim/tcp/tcp_var.h"

namespace netsim::cc::detail {

// TCP_MAXWIN << snd_scale (an int expression in C).
inline u_int max_window(const Tcpcb& tp) { return static_cast<u_int>(TCP_MAXWIN << tp.snd_scale); }

// abc_l_var, or the per-connection value with CCF_USE_LOCAL_ABC (a uint16_t in C).
inline std::uint16_t abc_value(const CcVar& ccv) {
  if (ccv.flags & CCF_USE_LOCAL_ABC) return ccv.labc;
  return static_cast<std::uint16_t>(ccv.tp->sysctl.tcp_abc_l_var);
}

// ABC slow-start increment: min(bytes_this_ack, nsegs * abc * t_maxseg), or
// min(bytes_this_ack, t_maxseg) when resending after an RTO (snd_nxt was
// pulled back, so snd_nxt != snd_max). The C product is int; computing it in
// u_int gives the same bits, and min() takes u_int anyway.
inline u_int abc_slow_start_incr(const CcVar& ccv, std::uint16_t abc_val) {
  const Tcpcb& tp = *ccv.tp;
  const u_int bytes = static_cast<u_int>(ccv.bytes_this_ack);
  if (tp.snd_nxt == tp.snd_max) return kern::min(bytes, static_cast<u_int>(ccv.nsegs) * abc_val * tp.t_maxseg);
  return kern::min(bytes, tp.t_maxseg);
}

// pipe as the RTO code of cc.c / cc_newreno.c / cc_cubic.c computes it (uint32_t):
// tcp_compute_pipe() with sack.revised, else snd_max - snd_fack + sack_bytes_rexmit.
inline std::uint32_t rto_pipe(const Tcpcb& tp) {
  if (tp.sysctl.tcp_do_newsack) return static_cast<std::uint32_t>(tcp_compute_pipe(tp));
  return tp.snd_max - tp.snd_fack + static_cast<std::uint32_t>(tp.sackhint.sack_bytes_rexmit);
}

// pipe as the post_recovery hooks compute it (int): tcp_compute_pipe() with
// sack.revised, else snd_max - curack.
inline int post_recovery_pipe(const CcVar& ccv) {
  const Tcpcb& tp = *ccv.tp;
  if (tp.sysctl.tcp_do_newsack) return tcp_compute_pipe(tp);
  return static_cast<int>(tp.snd_max - ccv.curack);
}

// The module's HyStart++ flag bits (CC_NEWRENO_HYSTART_* or CUBICFLAG_HYSTART_*).
struct HystartBits {
  std::uint32_t enabled;
  std::uint32_t in_css;
};

// Slow-start check: with CCF_HYSTART_ALLOWED, HyStart++ enabled and not yet in
// CSS, enter CSS when this round's minimum RTT exceeds the last round's by
// rtt_thresh = clamp(last / 8, minrtt_thresh, maxrtt_thresh).
template <class Data>
void hystart_css_entry_check(const CcVar& ccv, Data& d, std::uint32_t& flags, HystartBits bits) {
  const CcSysctls& sys = ccv.tp->sysctl;
  if (!((ccv.flags & CCF_HYSTART_ALLOWED) && (flags & bits.enabled) && (flags & bits.in_css) == 0)) return;
  if (d.css_rttsample_count >= sys.hystart_n_rttsamples && d.css_current_round_minrtt != 0xffffffff &&
      d.css_lastround_minrtt != 0xffffffff) {
    std::uint32_t rtt_thresh = d.css_lastround_minrtt >> 3;
    if (rtt_thresh < sys.hystart_minrtt_thresh) rtt_thresh = sys.hystart_minrtt_thresh;
    if (rtt_thresh > sys.hystart_maxrtt_thresh) rtt_thresh = sys.hystart_maxrtt_thresh;
    if (d.css_current_round_minrtt >= d.css_lastround_minrtt + rtt_thresh) {
      flags |= bits.in_css;
      d.css_fas_at_css_entry = d.css_lowrtt_fas;
      d.css_baseline_minrtt = d.css_current_round_minrtt;
      d.css_entered_at_round = d.css_current_round;
    }
  }
}

// The newround hook (RACK/BBR only).
template <class Data>
void hystart_newround(CcVar& ccv, Data& d, std::uint32_t& flags, HystartBits bits, std::uint32_t round_cnt) {
  Tcpcb& tp = *ccv.tp;
  d.css_lastround_minrtt = d.css_current_round_minrtt;
  d.css_current_round_minrtt = 0xffffffff;
  d.css_rttsample_count = 0;
  d.css_current_round = round_cnt;
  if ((flags & bits.in_css) && (round_cnt - d.css_entered_at_round) >= tp.sysctl.hystart_css_rounds) {
    // CSS has lasted css_rounds rounds: on to congestion avoidance.
    if (ccv.flags & CCF_HYSTART_CAN_SH_CWND) {
      if (ccv.flags & CCF_HYSTART_CONS_SSTH)
        tp.snd_ssthresh = (d.css_lowrtt_fas + d.css_fas_at_css_entry) / 2;
      else
        tp.snd_ssthresh = d.css_lowrtt_fas;
      tp.snd_cwnd = d.css_fas_at_css_entry;
      d.css_entered_at_round = round_cnt;
    } else {
      tp.snd_ssthresh = tp.snd_cwnd;
      flags &= ~bits.in_css;
      flags &= ~bits.enabled;
    }
  }
}

// The rttsample hook (RACK/BBR only).
template <class Data>
void hystart_rttsample(const CcVar& ccv, Data& d, std::uint32_t& flags, HystartBits bits, std::uint32_t usec_rtt,
                       std::uint32_t rxtcnt, std::uint32_t fas) {
  if (rxtcnt > 1) return;  // ambiguous sample
  d.css_rttsample_count++;
  d.css_last_fas = fas;
  if (d.css_current_round_minrtt > usec_rtt) {
    d.css_current_round_minrtt = usec_rtt;
    d.css_lowrtt_fas = d.css_last_fas;
  }
  if (d.css_rttsample_count >= ccv.tp->sysctl.hystart_n_rttsamples && d.css_current_round_minrtt != 0xffffffff &&
      d.css_current_round_minrtt < d.css_baseline_minrtt && d.css_lastround_minrtt != 0xffffffff) {
    // The RTT went down again: CSS was entered in error.
    flags &= ~bits.in_css;
    d.css_baseline_minrtt = 0xffffffff;
  }
}

// Both modules start HyStart++ with "infinite" RTTs.
template <class Data>
void hystart_init(Data& d) {
  d.css_lastround_minrtt = 0xffffffff;
  d.css_current_round_minrtt = 0xffffffff;
  d.css_current_round = 0;
  d.css_baseline_minrtt = 0xffffffff;
  d.css_rttsample_count = 0;
  d.css_entered_at_round = 0;
  d.css_fas_at_css_entry = 0;
  d.css_lowrtt_fas = 0;
  d.css_last_fas = 0;
}

}  // namespace netsim::cc::detail
