// NewReno congestion control and the shared NewReno helpers, ported from FreeBSD.
//
// Follows (behaviour, names, integer widths; no source text copied):
//   i-am-gizm0/freebsd-search @ 1a2fc24faeb9f2997853dfcfbc98d08b1d359efa
//       sys/netinet/cc/cc_newreno.c   the module as in main, 2024 (the fork only
//                                     adds log() calls)
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814
//       sys/netinet/cc/cc_newreno.h   struct newreno, CC_NEWRENO_* flags
//   i-am-gizm0/freebsd-search @ 5c268f97d12b5ac93e65c05da55ea4ab99ec70bc
//       sys/netinet/cc/cc.c           the helpers as refactored with review
//                                     D46046 (newreno_cc_cwnd_in_cong_avoid,
//                                     _in_slow_start, _on_multiplicative_decrease)
//   freebsd/freebsd-src @ 00d3b74406db80084e8939450c6b86326dd1de30
//       sys/netinet/cc/cc.c           the same helpers before the refactor
//                                     (newreno_cc_post_recovery, _after_idle are
//                                     identical in both)
// Notes: shared/design/freebsd-tcp.md section 1; docs/cc.md.
//
// HyStart++ is ported but inert: it only acts when ccv.flags has
// CCF_HYSTART_ALLOWED, which the base ("freebsd") stack never sets, and its
// round/RTT hooks are only called by the RACK and BBR stacks.
#pragma once

#include <cstdint>

#include "netsim/cc/cc_algo.h"
#include "netsim/cc/cc_var.h"

namespace netsim::cc {

// --- shared helpers (cc.c), usable by any module -------------------------------
// All of them read and write the connection through ccv.tp.

// max(snd_cwnd * beta / (100 * mss), 2) * mss with the global
// net.inet.tcp.cc.newreno.beta (50): 64-bit product and division, the
// quotient truncated to u_int; the result is a whole multiple of mss.
u_int newreno_cc_cwnd_on_multiplicative_decrease(CcVar& ccv, std::uint32_t mss);

// Congestion avoidance (cwnd > ssthresh). With ABC (rfc3465 = 1): cwnd +
// t_maxseg if CCF_ABC_SENTAWND is set (and clears it), else cwnd. Without:
// cwnd + max(t_maxseg^2 / cwnd, 1). Capped at 65535 << snd_scale. Returns
// the new cwnd; does not store it.
u_int newreno_cc_cwnd_in_cong_avoid(CcVar& ccv);

// Slow start (cwnd <= ssthresh). With ABC: cwnd + min(bytes_this_ack,
// nsegs * abc_l_var * t_maxseg) when snd_nxt == snd_max, else + min(bytes,
// t_maxseg) (resending after an RTO). Without ABC: + t_maxseg. Capped at
// 65535 << snd_scale. Returns the new cwnd; does not store it.
u_int newreno_cc_cwnd_in_slow_start(CcVar& ccv);

// Generic NewReno ack_received (cc.c): only for CC_ACK, outside recovery and
// when CWND_LIMITED; no HyStart++.
void newreno_cc_ack_received(CcVar& ccv, ccsignal_t type);

// Generic NewReno cong_signal (cc.c), used by modules without their own. Note
// that its RTO rule is max(2, min(snd_wnd, pipe) / 2 / mss) * mss, whereas
// the newreno module's own uses beta (the same for beta = 50 up to rounding).
void newreno_cc_cong_signal(CcVar& ccv, ccsignal_t type);

// On the full ACK ending fast recovery: pipe = tcp_compute_pipe (sack.revised)
// or snd_max - curack. pipe < ssthresh: cwnd = max(pipe, t_maxseg) + t_maxseg
// (RFC 6582), else cwnd = ssthresh.
void newreno_cc_post_recovery(CcVar& ccv);

// After an idle period: ssthresh = max(ssthresh, cwnd - (cwnd >> 2)),
// cwnd = min(IW(tcp_fixed_maxseg), cwnd) (RFC 5681 4.1, RFC 2861).
void newreno_cc_after_idle(CcVar& ccv);

// --- the newreno module (cc_newreno.c) ------------------------------------------
inline constexpr std::uint32_t CC_NEWRENO_HYSTART_ENABLED = 0x0002;
inline constexpr std::uint32_t CC_NEWRENO_HYSTART_IN_CSS = 0x0004;
inline constexpr std::uint32_t CC_NEWRENO_BETA_ECN_ENABLED = 0x0020;

// struct newreno (cc_newreno.h). The HyStart++ fields css_* are repeated in
// CubicData, because FreeBSD repeats them: struct cubic (cc_cubic.h @ 0162500b)
// has its own copy and cc_cubic.c its own copy of the HyStart++ code, keyed on
// CUBICFLAG_HYSTART_* instead of CC_NEWRENO_HYSTART_*. Only the code is shared
// here (the templates in models/src/cc/cc_internal.h); each module keeps its
// own state, as in FreeBSD.
struct NewRenoData {
  std::uint32_t beta = 0;      // percent, from net.inet.tcp.cc.newreno.beta at cb_init
  std::uint32_t beta_ecn = 0;  // percent, used for ECN only with cc.abe or BETA_ECN_ENABLED
  std::uint32_t newreno_flags = 0;
  std::uint32_t css_baseline_minrtt = 0;
  std::uint32_t css_current_round_minrtt = 0;
  std::uint32_t css_lastround_minrtt = 0;
  std::uint32_t css_rttsample_count = 0;
  std::uint32_t css_entered_at_round = 0;
  std::uint32_t css_current_round = 0;
  std::uint32_t css_fas_at_css_entry = 0;
  std::uint32_t css_lowrtt_fas = 0;
  std::uint32_t css_last_fas = 0;
};

class NewReno final : public CcAlgo {
 public:
  const char* name() const override { return "newreno"; }
  int cb_init(CcVar& ccv) override;
  void ack_received(CcVar& ccv, ccsignal_t type) override;
  void cong_signal(CcVar& ccv, ccsignal_t type) override;
  void post_recovery(CcVar& ccv) override { newreno_cc_post_recovery(ccv); }
  void after_idle(CcVar& ccv) override;
  void newround(CcVar& ccv, std::uint32_t round_cnt) override;
  void rttsample(CcVar& ccv, std::uint32_t usec_rtt, std::uint32_t rxtcnt, std::uint32_t fas) override;

  // The module's private state (FreeBSD's cc_data), for inspection and tests.
  const NewRenoData& data() const { return data_; }
  NewRenoData& data() { return data_; }

 private:
  NewRenoData data_;
};

}  // namespace netsim::cc
