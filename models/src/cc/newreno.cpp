// NewReno module and shared helpers; see newreno.h for the FreeBSD files and
// commits followed (cc_newreno.c @ 1a2fc24f, cc.c @ 5c268f97 and @ 00d3b744).
#include "netsim/cc/newreno.h"

#include "cc_internal.h"
#include "netsim/cc/cc_framework.h"

namespace netsim::cc {

using detail::abc_slow_start_incr;
using detail::abc_value;
using detail::post_recovery_pipe;
using detail::rto_pipe;
using detail::max_window;

namespace {
constexpr detail::HystartBits kHystartBits{CC_NEWRENO_HYSTART_ENABLED, CC_NEWRENO_HYSTART_IN_CSS};
}  // namespace

// ---------------------------------------------------------------------------
// cc.c helpers
// ---------------------------------------------------------------------------

u_int newreno_cc_cwnd_on_multiplicative_decrease(CcVar& ccv, std::uint32_t mss) {
  const std::uint32_t cwin = ccv.tp->snd_cwnd;
  const std::uint32_t factor = ccv.tp->sysctl.newreno_beta;  // the global beta, not a module's own
  const std::uint64_t q = (static_cast<std::uint64_t>(cwin) * factor) / (100ULL * mss);
  return kern::max(static_cast<u_int>(q), 2) * mss;
}

u_int newreno_cc_cwnd_in_cong_avoid(CcVar& ccv) {
  const Tcpcb& tp = *ccv.tp;
  const u_int cw = tp.snd_cwnd;
  u_int incr = tp.t_maxseg;
  // FreeBSD KASSERTs cw > snd_ssthresh here (INVARIANTS kernels only).
  if (tp.sysctl.tcp_do_rfc3465) {
    if (ccv.flags & CCF_ABC_SENTAWND)
      ccv.flags &= ~CCF_ABC_SENTAWND;
    else
      incr = 0;
  } else {
    incr = kern::max(incr * incr / cw, 1);
  }
  if (incr > 0) return kern::min(cw + incr, max_window(tp));
  return cw;
}

u_int newreno_cc_cwnd_in_slow_start(CcVar& ccv) {
  const Tcpcb& tp = *ccv.tp;
  const u_int cw = tp.snd_cwnd;
  u_int incr = tp.t_maxseg;
  // FreeBSD KASSERTs cw <= snd_ssthresh here (INVARIANTS kernels only).
  if (tp.sysctl.tcp_do_rfc3465) incr = abc_slow_start_incr(ccv, abc_value(ccv));
  if (incr > 0) return kern::min(cw + incr, max_window(tp));
  return cw;
}

void newreno_cc_ack_received(CcVar& ccv, ccsignal_t type) {
  Tcpcb& tp = *ccv.tp;
  if (type == CC_ACK && !IN_RECOVERY(tp.t_flags) && (ccv.flags & CCF_CWND_LIMITED)) {
    if (tp.snd_cwnd > tp.snd_ssthresh)
      tp.snd_cwnd = newreno_cc_cwnd_in_cong_avoid(ccv);
    else
      tp.snd_cwnd = newreno_cc_cwnd_in_slow_start(ccv);
  }
}

void newreno_cc_cong_signal(CcVar& ccv, ccsignal_t type) {
  Tcpcb& tp = *ccv.tp;
  const std::uint32_t mss = tcp_fixed_maxseg(tp);
  const std::uint32_t cwin = newreno_cc_cwnd_on_multiplicative_decrease(ccv, mss);
  switch (type) {
    case CC_NDUPACK:
      if (!IN_FASTRECOVERY(tp.t_flags)) {
        if (!IN_CONGRECOVERY(tp.t_flags)) tp.snd_ssthresh = cwin;
        ENTER_RECOVERY(tp.t_flags);
      }
      break;
    case CC_ECN:
      if (!IN_CONGRECOVERY(tp.t_flags)) {
        tp.snd_ssthresh = cwin;
        tp.snd_cwnd = cwin;
        ENTER_CONGRECOVERY(tp.t_flags);
      }
      break;
    case CC_RTO:
      if (tp.t_rxtshift == 1) {
        tp.snd_ssthresh = kern::max(2, kern::min(tp.snd_wnd, rto_pipe(tp)) / 2 / mss) * mss;
      }
      tp.snd_cwnd = mss;
      break;
    default:
      break;
  }
}

void newreno_cc_post_recovery(CcVar& ccv) {
  Tcpcb& tp = *ccv.tp;
  if (IN_FASTRECOVERY(tp.t_flags)) {
    // int in C: compared with the uint32_t ssthresh as unsigned.
    const int pipe = post_recovery_pipe(ccv);
    if (static_cast<u_int>(pipe) < tp.snd_ssthresh)
      tp.snd_cwnd = kern::max(static_cast<u_int>(pipe), tp.t_maxseg) + tp.t_maxseg;
    else
      tp.snd_cwnd = tp.snd_ssthresh;
  }
}

void newreno_cc_after_idle(CcVar& ccv) {
  Tcpcb& tp = *ccv.tp;
  const std::uint32_t rw = tcp_compute_initwnd(tp, tcp_fixed_maxseg(tp));
  tp.snd_ssthresh = kern::max(tp.snd_ssthresh, tp.snd_cwnd - (tp.snd_cwnd >> 2));
  tp.snd_cwnd = kern::min(rw, tp.snd_cwnd);
}

// ---------------------------------------------------------------------------
// cc_newreno.c
// ---------------------------------------------------------------------------

int NewReno::cb_init(CcVar& ccv) {
  const CcSysctls& sys = ccv.tp->sysctl;
  data_ = NewRenoData{};
  data_.beta = sys.newreno_beta;
  data_.beta_ecn = sys.newreno_beta_ecn;
  data_.newreno_flags = CC_NEWRENO_HYSTART_ENABLED;
  detail::hystart_init(data_);
  ccv.cc_data = &data_;
  return 0;
}

void NewReno::ack_received(CcVar& ccv, ccsignal_t type) {
  Tcpcb& tp = *ccv.tp;
  NewRenoData& nreno = data_;
  if (!(type == CC_ACK && !IN_RECOVERY(tp.t_flags) && (ccv.flags & CCF_CWND_LIMITED))) return;

  if (tp.snd_cwnd > tp.snd_ssthresh) {
    // Congestion avoidance. A HyStart++ CSS phase still active ends here.
    if (nreno.newreno_flags & CC_NEWRENO_HYSTART_IN_CSS) {
      nreno.newreno_flags &= ~CC_NEWRENO_HYSTART_IN_CSS;
      nreno.newreno_flags &= ~CC_NEWRENO_HYSTART_ENABLED;
    }
    tp.snd_cwnd = newreno_cc_cwnd_in_cong_avoid(ccv);
    return;
  }
  // Slow start: as newreno_cc_cwnd_in_slow_start, plus HyStart++ (inert
  // without CCF_HYSTART_ALLOWED).
  const u_int cw = tp.snd_cwnd;
  u_int incr = tp.t_maxseg;
  if (tp.sysctl.tcp_do_rfc3465) {
    const std::uint16_t abc_val = abc_value(ccv);
    detail::hystart_css_entry_check(ccv, nreno, nreno.newreno_flags, kHystartBits);
    incr = abc_slow_start_incr(ccv, abc_val);
    if (nreno.newreno_flags & CC_NEWRENO_HYSTART_IN_CSS) incr /= tp.sysctl.hystart_css_growth_div;
  }
  if (incr > 0) tp.snd_cwnd = kern::min(cw + incr, max_window(tp));
}

void NewReno::after_idle(CcVar& ccv) {
  newreno_cc_after_idle(ccv);
  if ((data_.newreno_flags & CC_NEWRENO_HYSTART_ENABLED) == 0) {
    data_.newreno_flags &= ~CC_NEWRENO_HYSTART_IN_CSS;
    data_.newreno_flags |= CC_NEWRENO_HYSTART_ENABLED;
  }
}

void NewReno::cong_signal(CcVar& ccv, ccsignal_t type) {
  Tcpcb& tp = *ccv.tp;
  NewRenoData& nreno = data_;
  const std::uint32_t mss = tcp_fixed_maxseg(tp);
  const std::uint32_t beta = nreno.beta;
  const std::uint32_t beta_ecn = nreno.beta_ecn;
  // The gentler ECN backoff only with cc.abe or when the stack asked for it.
  const std::uint32_t factor =
      (type == CC_ECN && (tp.sysctl.cc_do_abe || (nreno.newreno_flags & CC_NEWRENO_BETA_ECN_ENABLED))) ? beta_ecn
                                                                                                    : beta;
  // cwin = max(cwnd * factor / (100 * mss), 2) * mss: a whole number of mss.
  const std::uint64_t q = (static_cast<std::uint64_t>(tp.snd_cwnd) * factor) / (100ULL * mss);
  const std::uint32_t cwin = kern::max(static_cast<u_int>(q), 2) * mss;

  switch (type) {
    case CC_NDUPACK:
      if (nreno.newreno_flags & CC_NEWRENO_HYSTART_ENABLED) {
        nreno.newreno_flags &= ~CC_NEWRENO_HYSTART_ENABLED;
        nreno.newreno_flags &= ~CC_NEWRENO_HYSTART_IN_CSS;
      }
      if (!IN_FASTRECOVERY(tp.t_flags)) {
        // FreeBSD writes IN_CONGRECOVERY(t_flags && abe && abe_frlossreduce):
        // the macro masks a 0/1 value with TF_CONGRECOVERY, so this ABE
        // branch can never run. Kept as written.
        const std::uint32_t misparenthesised =
            static_cast<std::uint32_t>(tp.t_flags != 0 && tp.sysctl.cc_do_abe && tp.sysctl.cc_abe_frlossreduce);
        if (IN_CONGRECOVERY(misparenthesised))
          tp.snd_ssthresh = static_cast<std::uint32_t>((static_cast<std::uint64_t>(tp.snd_ssthresh) * beta) / beta_ecn);
        if (!IN_CONGRECOVERY(tp.t_flags)) tp.snd_ssthresh = cwin;
        ENTER_RECOVERY(tp.t_flags);
      }
      break;
    case CC_ECN:
      if (nreno.newreno_flags & CC_NEWRENO_HYSTART_ENABLED) {
        nreno.newreno_flags &= ~CC_NEWRENO_HYSTART_ENABLED;
        nreno.newreno_flags &= ~CC_NEWRENO_HYSTART_IN_CSS;
      }
      if (!IN_CONGRECOVERY(tp.t_flags)) {
        tp.snd_ssthresh = cwin;
        tp.snd_cwnd = cwin;
        ENTER_CONGRECOVERY(tp.t_flags);
      }
      break;
    case CC_RTO:
      if (tp.t_rxtshift == 1) {
        // First RTO: ssthresh from what is really in flight (bounded by the
        // peer's window), in whole mss; pipe is uint32_t here.
        const std::uint32_t pipe = rto_pipe(tp);
        const std::uint64_t segs =
            (static_cast<std::uint64_t>(kern::min(tp.snd_wnd, pipe)) * factor) / (100ULL * mss);
        tp.snd_ssthresh = kern::max(2, static_cast<u_int>(segs)) * mss;
      }
      tp.snd_cwnd = mss;
      break;
    default:
      break;
  }
}

void NewReno::newround(CcVar& ccv, std::uint32_t round_cnt) {
  detail::hystart_newround(ccv, data_, data_.newreno_flags, kHystartBits, round_cnt);
}

void NewReno::rttsample(CcVar& ccv, std::uint32_t usec_rtt, std::uint32_t rxtcnt, std::uint32_t fas) {
  detail::hystart_rttsample(ccv, data_, data_.newreno_flags, kHystartBits, usec_rtt, rxtcnt, fas);
}

}  // namespace netsim::cc
