// A congestion-control module in the user's code: NewReno's window growth,
// but a loss takes the window to 70% instead of 50% (a gentler
// multiplicative decrease, as CUBIC's beta). The hooks are FreeBSD's struct
// cc_algo ones (netsim/cc/cc_algo.h); the window lives in the connection,
// ccv.tp (netsim/tcp/tcp_var.h), and NewReno's helpers (netsim/cc/newreno.h)
// do the parts this module does not change.
#pragma once

#include <cstdint>

#include "netsim/cc/cc_algo.h"
#include "netsim/cc/newreno.h"

struct GentleReno final : netsim::cc::CcAlgo {
  static constexpr std::uint64_t kBetaPercent = 70;

  const char* name() const override { return "gentle_reno"; }
  int cb_init(netsim::cc::CcVar&) override { return 0; }
  // The stack has set the initial window (RFC 6928's 10 segments) already.
  void conn_init(netsim::cc::CcVar&) override {}
  void ack_received(netsim::cc::CcVar& ccv, netsim::cc::ccsignal_t type) override {
    netsim::cc::newreno_cc_ack_received(ccv, type);  // slow start, then +1 mss per window
  }
  void cong_signal(netsim::cc::CcVar& ccv, netsim::cc::ccsignal_t type) override {
    using namespace netsim::cc;
    netsim::tcp::Tcpcb& tp = *ccv.tp;
    const std::uint32_t mss = tcp_fixed_maxseg(tp);
    // 70% of the window in whole segments, at least two.
    const std::uint64_t segments = tp.snd_cwnd * kBetaPercent / (100 * mss);
    const std::uint32_t reduced = static_cast<std::uint32_t>(segments < 2 ? 2 : segments) * mss;
    switch (type) {
      case CC_NDUPACK:  // three duplicate ACKs or SACK loss detection: fast recovery
        if (!IN_FASTRECOVERY(tp.t_flags)) {
          if (!IN_CONGRECOVERY(tp.t_flags)) tp.snd_ssthresh = reduced;
          ENTER_RECOVERY(tp.t_flags);
        }
        break;
      case CC_ECN:
        if (!IN_CONGRECOVERY(tp.t_flags)) {
          tp.snd_ssthresh = tp.snd_cwnd = reduced;
          ENTER_CONGRECOVERY(tp.t_flags);
        }
        break;
      case CC_RTO:  // slow start again from one segment
        if (tp.t_rxtshift == 1) tp.snd_ssthresh = reduced;
        tp.snd_cwnd = mss;
        break;
      default:
        break;
    }
  }
  // Leaving fast recovery: the window NewReno would take (RFC 6582).
  void post_recovery(netsim::cc::CcVar& ccv) override { netsim::cc::newreno_cc_post_recovery(ccv); }
  void after_idle(netsim::cc::CcVar& ccv) override { netsim::cc::newreno_cc_after_idle(ccv); }
};
