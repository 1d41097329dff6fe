// CC wrapper functions of FreeBSD's base TCP stack; see cc_framework.h for the
// exact FreeBSD files and commits followed (tcp_input.c, tcp_subr.c and
// tcp_output.c @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814).
#include "netsim/cc/cc_framework.h"

#include <stdexcept>

namespace netsim::cc {
namespace {

CcAlgo& algo_of(Tcpcb& tp) {
  if (tp.t_cc == nullptr) throw std::logic_error("no congestion control algorithm attached (call cc_attach first)");
  return *tp.t_cc;
}

}  // namespace

void cc_attach(Tcpcb& tp, CcAlgo& algo) {
  tp.t_cc = &algo;
  tp.t_ccv.tp = &tp;
  algo.cb_init(tp.t_ccv);
}

std::uint32_t tcp_compute_initwnd(const Tcpcb& tp, std::uint32_t maxseg) {
  const int segs = tp.sysctl.tcp_initcwnd_segments;
  if (segs != 0) {
    // int * uint32_t is computed in 32-bit unsigned; segs * 1460 in int.
    return kern::min(static_cast<u_int>(segs) * maxseg, kern::max(2u * maxseg, static_cast<u_int>(segs * 1460)));
  }
  if (tp.sysctl.tcp_do_rfc3390 != 0) return kern::min(4u * maxseg, kern::max(2u * maxseg, 4380u));
  // RFC 5681 section 3.1.
  if (maxseg > 2190) return 2u * maxseg;
  if (maxseg > 1095) return 3u * maxseg;
  return 4u * maxseg;
}

void cc_conn_init(Tcpcb& tp, const HcMetricsLite& metrics) {
  const u_int maxseg = tcp_maxseg(tp);
  if (metrics.rmx_ssthresh != 0) {
    // A buffer limit on the path: use it as ssthresh, but not below 2 * maxseg.
    tp.snd_ssthresh = kern::max(2u * maxseg, metrics.rmx_ssthresh);
  }
  // A SYN or SYN-ACK was retransmitted (the stack left cwnd at 1): one segment.
  if (tp.snd_cwnd == 1)
    tp.snd_cwnd = maxseg;
  else
    tp.snd_cwnd = tcp_compute_initwnd(tp, maxseg);
  algo_of(tp).conn_init(tp.t_ccv);
}

void cc_ack_received(Tcpcb& tp, tcp_seq th_ack, std::uint16_t nsegs, ccsignal_t type) {
  CcVar& ccv = tp.t_ccv;
  ccv.nsegs = nsegs;
  // BYTES_THIS_ACK: th_ack - snd_una in sequence arithmetic, stored in an int.
  ccv.bytes_this_ack = static_cast<int>(th_ack - tp.snd_una);

  // With newcwv = 0 (the default) "cwnd limited" only compares cwnd with the
  // peer's window; the amount in flight is not looked at.
  const bool newcwv = tp.sysctl.tcp_do_newcwv != 0;
  if ((!newcwv && tp.snd_cwnd <= tp.snd_wnd) ||
      (newcwv && tp.snd_cwnd <= tp.snd_wnd &&
       tp.snd_cwnd < static_cast<u_int>(kern::wrap_mul(tcp_compute_pipe(tp), 2))))
    ccv.flags |= CCF_CWND_LIMITED;
  else
    ccv.flags &= ~CCF_CWND_LIMITED;

  if (type == CC_ACK) {
    if (tp.snd_cwnd > tp.snd_ssthresh) {
      // Appropriate Byte Counting: flag once per cwnd worth of acked bytes.
      tp.t_bytes_acked = kern::wrap_add(tp.t_bytes_acked, ccv.bytes_this_ack);
      if (static_cast<u_int>(tp.t_bytes_acked) >= tp.snd_cwnd) {  // int vs uint32_t: unsigned compare
        tp.t_bytes_acked = static_cast<int>(static_cast<u_int>(tp.t_bytes_acked) - tp.snd_cwnd);
        ccv.flags |= CCF_ABC_SENTAWND;
      }
    } else {
      ccv.flags &= ~CCF_ABC_SENTAWND;
      tp.t_bytes_acked = 0;
    }
  }

  CcAlgo& algo = algo_of(tp);
  ccv.curack = th_ack;
  algo.ack_received(ccv, type);
}

void cc_cong_signal(Tcpcb& tp, std::optional<tcp_seq> th_ack, ccsignal_t type) {
  CcAlgo& algo = algo_of(tp);
  switch (type) {
    case CC_NDUPACK:
      if (!IN_FASTRECOVERY(tp.t_flags)) tp.snd_recover = tp.snd_max;
      break;
    case CC_ECN:
      // th_ack is only read when already in congestion recovery, as in C.
      if (!IN_CONGRECOVERY(tp.t_flags) || SEQ_GEQ(th_ack.value(), tp.snd_recover)) {
        EXIT_CONGRECOVERY(tp.t_flags);
        tp.snd_recover = tp.snd_max + 1;
      }
      break;
    case CC_RTO:
      tp.t_dupacks = 0;
      tp.t_bytes_acked = 0;
      // With SACK holes left from the first RTO, recovery is kept so that
      // the scoreboard is retransmitted first.
      if (tp.t_rxtshift > 1 || !((tp.t_flags & TF_SACK_PERMIT) != 0 && tp.snd_numholes != 0))
        EXIT_RECOVERY(tp.t_flags);
      break;
    case CC_RTO_ERR:
      // The RTO was unnecessary: put everything back.
      tp.snd_cwnd = tp.snd_cwnd_prev;
      tp.snd_ssthresh = tp.snd_ssthresh_prev;
      tp.snd_recover = tp.snd_recover_prev;
      if (tp.t_flags & TF_WASFRECOVERY) ENTER_FASTRECOVERY(tp.t_flags);
      if (tp.t_flags & TF_WASCRECOVERY) ENTER_CONGRECOVERY(tp.t_flags);
      tp.snd_nxt = tp.snd_max;
      tp.t_flags &= ~TF_PREVVALID;
      tp.t_badrxtwin = 0;
      break;
    default:
      break;
  }
  if (th_ack) tp.t_ccv.curack = *th_ack;
  algo.cong_signal(tp.t_ccv, type);
}

void cc_post_recovery(Tcpcb& tp, tcp_seq th_ack) {
  CcAlgo& algo = algo_of(tp);
  tp.t_ccv.curack = th_ack;
  algo.post_recovery(tp.t_ccv);
  tp.t_bytes_acked = 0;
  tp.sackhint.delivered_data = 0;
  tp.sackhint.prr_delivered = 0;
  tp.sackhint.prr_out = 0;
}

void cc_after_idle(Tcpcb& tp) { algo_of(tp).after_idle(tp.t_ccv); }

}  // namespace netsim::cc
