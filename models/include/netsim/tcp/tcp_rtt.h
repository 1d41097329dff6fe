// RTT estimation and the retransmit timeout in ticks: tcp_xmit_timer() and
// the timestamp-based sample of tcp_input.c, FreeBSD base stack.
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
#include <cstdint>

#include "netsim/tcp/tcp_timer_params.h"

namespace netsim::tcp {

struct TcpRttState {
  int t_srtt = 0;        // ticks << TCP_RTT_SHIFT; 0 = no estimate yet
  int t_rttvar = 0;      // ticks << TCP_RTTVAR_SHIFT
  int t_rxtcur = 0;      // current RTO, ticks
  int t_rttmin = 0;      // tcp_rexmit_min, ticks
  int t_rxtshift = 0;    // timeouts since the last good sample
  std::uint32_t t_rttupdated = 0;  // number of samples taken

  // TCP_REXMTVAL: max(t_rttmin, srtt + 4 * rttvar) in ticks.
  int rexmtval() const {
    return std::max(t_rttmin, ((t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT)) + t_rttvar) >> TCP_DELTA_SHIFT);
  }
};

// The sample from a timestamp echo: TCP_TS_TO_TICKS(now_ms - tsecr) + 1,
// where TCP_TS_TO_TICKS(ms) = ms * hz / 1000 (integer).
constexpr int tcp_ts_rtt_sample(std::uint32_t ts_now_ms, std::uint32_t tsecr, int hz) {
  const std::uint32_t t = ts_now_ms - tsecr;
  return static_cast<int>((static_cast<std::int64_t>(t) * hz) / 1000) + 1;
}

// tcp_xmit_timer(tp, rtt).
inline void tcp_xmit_timer(TcpRttState& s, int rtt, const TcpTimerParams& p) {
  ++s.t_rttupdated;
  if (s.t_srtt != 0) {
    int delta = ((rtt - 1) << TCP_DELTA_SHIFT) - (s.t_srtt >> (TCP_RTT_SHIFT - TCP_DELTA_SHIFT));
    if ((s.t_srtt += delta) <= 0) s.t_srtt = 1;
    if (delta < 0) delta = -delta;
    delta -= s.t_rttvar >> (TCP_RTTVAR_SHIFT - TCP_DELTA_SHIFT);
    if ((s.t_rttvar += delta) <= 0) s.t_rttvar = 1;
  } else {
    s.t_srtt = rtt << TCP_RTT_SHIFT;
    s.t_rttvar = rtt << (TCP_RTTVAR_SHIFT - 1);
  }
  s.t_rxtshift = 0;
  s.t_rxtcur = tcpt_rangeset(s.rexmtval(), std::max(s.t_rttmin, rtt + 2), p.rexmtmax, p.rexmit_slop);
}

// The RTO after the n-th timeout (tcp_timer_rexmt): backoff, no "rtt + 2" floor.
inline int tcp_backed_off_rto(const TcpRttState& s, const TcpTimerParams& p) {
  return tcpt_rangeset(s.rexmtval() * kTcpBackoff[static_cast<std::size_t>(s.t_rxtshift)], s.t_rttmin, p.rexmtmax,
                       p.rexmit_slop);
}

}  // namespace netsim::tcp
