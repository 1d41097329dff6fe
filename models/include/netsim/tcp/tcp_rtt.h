// RTT estimation and the retransmit timeout in ticks: tcp_xmit_timer() and
// the timestamp-based sample of tcp_input.c, FreeBSD base stack. They update
// the connection's tcpcb (t_srtt, t_rttvar, t_rxtcur, t_rxtshift,
// t_rttupdated; t_rttmin is read), the same fields the CC modules read.
//
// Ported from sys/netinet/tcp_input.c (tcp_xmit_timer, and the TS sample in
// tcp_do_segment), fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814;
// macros from tcp_var.h / tcp_timer.h (TCP_REXMTVAL, TCPT_RANGESET,
// TCP_TS_TO_TICKS). See shared/design/freebsd-tcp.md 3.2.
//
// Everything is in ticks: t_srtt is ticks << 5, t_rttvar ticks << 4. With a
// sub-tick path the samples are 1 tick (timestamp clock in ms, advancing
// once per hardclock), which the estimator treats as "0 ticks": that is why
// srtt decays to 7/32 tick at hz=100.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>

#include "netsim/tcp/tcp_timer_params.h"
#include "netsim/tcp/tcp_var.h"

namespace netsim::tcp {

// TCP_REXMTVAL(tp): max(t_rttmin, srtt + 4 * rttvar) in ticks.
inline int TCP_REXMTVAL(const Tcpcb& tp) {
  return std::max(tp.t_rttmin, ((tp.t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT)) + tp.t_rttvar) >> TCP_DELTA_SHIFT);
}

// The sample from a timestamp echo: TCP_TS_TO_TICKS(now_ms - tsecr) + 1,
// where TCP_TS_TO_TICKS(ms) = ms * hz / 1000 (integer).
constexpr int tcp_ts_rtt_sample(std::uint32_t ts_now_ms, std::uint32_t tsecr, int hz) {
  const std::uint32_t t = ts_now_ms - tsecr;
  return static_cast<int>((static_cast<std::int64_t>(t) * hz) / 1000) + 1;
}

// tcp_xmit_timer(tp, rtt).
inline void tcp_xmit_timer(Tcpcb& tp, int rtt, const TcpTimerParams& p) {
  if (tp.t_rttupdated < UCHAR_MAX) ++tp.t_rttupdated;
  if (tp.t_srtt != 0) {
    int delta = ((rtt - 1) << TCP_DELTA_SHIFT) - (tp.t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT));
    if ((tp.t_srtt += delta) <= 0) tp.t_srtt = 1;
    if (delta < 0) delta = -delta;
    delta -= tp.t_rttvar >> (TCP_RTTVAR_SHIFT - TCP_DELTA_SHIFT);
    if ((tp.t_rttvar += delta) <= 0) tp.t_rttvar = 1;
  } else {
    tp.t_srtt = rtt << TCP_RTT_SHIFT;
    tp.t_rttvar = rtt << (TCP_RTTVAR_SHIFT - 1);
  }
  tp.t_rxtshift = 0;
  tp.t_rxtcur = tcpt_rangeset(TCP_REXMTVAL(tp), std::max(tp.t_rttmin, rtt + 2), p.rexmtmax, p.rexmit_slop);
}

// The RTO after the n-th timeout (tcp_timer_rexmt): backoff, no "rtt + 2" floor.
inline int tcp_backed_off_rto(const Tcpcb& tp, const TcpTimerParams& p) {
  return tcpt_rangeset(TCP_REXMTVAL(tp) * kTcpBackoff[static_cast<std::size_t>(tp.t_rxtshift)], tp.t_rttmin,
                       p.rexmtmax, p.rexmit_slop);
}

// The persist interval tcp_setpersist arms (tcp_output.c):
// t = ((t_srtt >> 2) + t_rttvar) >> 1, times the backoff of t_rxtshift, plus
// the slop, within [persmin, persmax] (5 s .. 60 s). With FreeBSD's scaling
// (t_srtt = ticks << 5, t_rttvar = ticks << 4) t is 4 srtt + 8 rttvar ticks:
// the 4.4BSD formula, written for shifts 3 and 2 where it meant srtt + 2
// rttvar, kept as it is. TP_MAXUNACKTIME (net.inet.tcp.maxunacktime) is 0 by
// default and not modelled.
inline int tcp_persist_ticks(const Tcpcb& tp, const TcpTimerParams& p) {
  const int t = ((tp.t_srtt >> 2) + tp.t_rttvar) >> 1;
  return tcpt_rangeset(t * kTcpBackoff[static_cast<std::size_t>(tp.t_rxtshift)], p.persmin, p.persmax,
                       p.rexmit_slop);
}

}  // namespace netsim::tcp
