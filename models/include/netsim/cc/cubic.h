// CUBIC congestion control, ported from FreeBSD: stock (July 2024) and with
// the patch of review D46046.
//
// Follows (behaviour, names, integer widths, order of operations; no source
// text copied):
//   stock:  freebsd/freebsd-src @ 00d3b74406db80084e8939450c6b86326dd1de30
//               sys/netinet/cc/cc_cubic.c
//           freebsd/freebsd-src @ 0162500b7d2d686f3f745c12339271be645a2cf8
//               sys/netinet/cc/cc_cubic.h
//   D46046: i-am-gizm0/freebsd-search @ e8130f15ce29793690692cbbb6bdb3fbd6b12726
//               sys/netinet/cc/cc_cubic.c (its local `hystart_enable` knob,
//               not in FreeBSD, is ignored)
//           kenrap/freebsd-src @ f30bcb15894c03d8afb60c8a4e0ca6b0b029f737
//               sys/netinet/cc/cc_cubic.h
//           i-am-gizm0/freebsd-search @ 5c268f97d12b5ac93e65c05da55ea4ab99ec70bc
//               sys/netinet/cc/cc.c (newreno_cc_cwnd_in_cong_avoid, ...)
//   Review: https://reviews.freebsd.org/D46046
// Notes: shared/design/freebsd-tcp.md section 2 (2.7: why hz matters);
// docs/cc.md.
//
// Class Cubic is the stock module. CubicD46046 derives from it and overrides
// exactly the two places the review changes:
//   1. the TCP-friendly estimate and the region choice in congestion
//      avoidance (cubic_ca_update), and
//   2. the multiplicative decrease (ssthresh_update) in the TCP-friendly region.
// Everything else (cubic_k, cubic_cwnd, the tick-based clock, K and its call
// sites, cubic_record_rtt, min/mean RTT, post_recovery, RTO/ECN/RTO_ERR,
// after_idle, HyStart++ gating) is shared and identical.
#pragma once

#include <cstdint>

#include "netsim/cc/cc_algo.h"
#include "netsim/cc/cc_var.h"
#include "netsim/cc/cubic_math.h"

namespace netsim::cc {

// cubic_record_rtt: run at the start of every ack_received (any type). Once
// the stack has taken CUBIC_MIN_RTT_SAMPLES RTT samples, srtt_us =
// tcp_get_srtt(tp, USEC) (= (t_srtt * tick) >> 5 for the base stack); if it
// is below min_rtt_usecs (or that is unset) min_rtt_usecs = max(tick >> 5,
// srtt_us) and mean_rtt_usecs is raised to it if smaller; srtt_us is added to
// sum_rtt_usecs and epoch_ack_count is incremented. post_recovery turns the
// sums into mean_rtt_usecs. Identical in both versions.
void cubic_record_rtt(CcVar& ccv, CubicData& cubic_data);

// Slow start: set IN_SLOWSTART, then NewReno's ABC slow-start increment
// (HyStart++ only with CCF_HYSTART_ALLOWED). Identical in both versions.
void cubic_does_slow_start(CcVar& ccv, CubicData& cubic_data);

class Cubic : public CcAlgo {
 public:
  const char* name() const override { return "cubic"; }
  int cb_init(CcVar& ccv) override;
  void conn_init(CcVar& ccv) override;
  void ack_received(CcVar& ccv, ccsignal_t type) override;
  void cong_signal(CcVar& ccv, ccsignal_t type) override;
  void post_recovery(CcVar& ccv) override;
  void after_idle(CcVar& ccv) override;
  void newround(CcVar& ccv, std::uint32_t round_cnt) override;
  void rttsample(CcVar& ccv, std::uint32_t usec_rtt, std::uint32_t rxtcnt, std::uint32_t fas) override;

  // The module's private state (FreeBSD's struct cubic), for inspection and tests.
  const CubicData& data() const { return data_; }
  CubicData& data() { return data_; }

 protected:
  // Congestion avoidance after the epoch bookkeeping: compute W_est and
  // W_cubic for usecs_since_epoch and move cwnd. Stock:
  //   W_est   = tf_cwnd(t, mean_rtt_usecs, W_max, t_maxseg)
  //   W_cubic = cubic_cwnd(t + mean_rtt_usecs, W_max, t_maxseg, K)
  //   CCF_ABC_SENTAWND is cleared (the wrapper's ABC flag is discarded).
  //   W_cubic < W_est: cwnd = min(W_est, INT_MAX) if cwnd < W_est;
  //   else cwnd = min(W_cubic, INT_MAX) if cwnd < W_cubic. Never decreases.
  virtual void cubic_ca_update(CcVar& ccv, int usecs_since_epoch);
  // cubic_ssthresh_update (stock version).
  virtual void ssthresh_update(CcVar& ccv, std::uint32_t maxseg) { cubic_ssthresh_update(ccv, data_, maxseg); }

  CubicData data_;
};

class CubicD46046 final : public Cubic {
 public:
  const char* name() const override { return "cubic_d46046"; }

 protected:
  // D46046: W_est = tf_cwnd_d46046(ccv) = newreno_cc_cwnd_in_cong_avoid (one
  // t_maxseg per cwnd of acked bytes, consuming CCF_ABC_SENTAWND; no time, no
  // RTT). W_cubic < W_est: cwnd = min(W_est, INT_MAX) and set IN_TF; else if
  // cwnd < W_cubic: cwnd = min(W_cubic, INT_MAX) and clear IN_TF; otherwise
  // IN_TF keeps its value. No explicit clearing of CCF_ABC_SENTAWND.
  void cubic_ca_update(CcVar& ccv, int usecs_since_epoch) override;
  // cubic_ssthresh_update after D46046 (NewReno decrease when IN_TF).
  void ssthresh_update(CcVar& ccv, std::uint32_t maxseg) override {
    cubic_ssthresh_update_d46046(ccv, data_, maxseg);
  }
};

}  // namespace netsim::cc
