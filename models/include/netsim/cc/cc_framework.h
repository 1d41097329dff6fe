// The CC wrapper functions of FreeBSD's base TCP stack.
//
// Follows (behaviour, names, integer widths; no source text copied):
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814
//       sys/netinet/tcp_input.c   cc_ack_received, cc_conn_init, cc_cong_signal,
//                                 cc_post_recovery
//       sys/netinet/tcp_subr.c    tcp_compute_initwnd
//       sys/netinet/tcp_output.c  cc_after_idle
//   cross-checked with ilnp/ilnp-freebsd14 @ cd3ca6af1de38045b2783fb68d3e5cf01489f75d
// These are what the stack calls; they do the framework's own bookkeeping
// (ABC byte counting, CWND_LIMITED, snd_recover, undo on RTO_ERR, ...) and
// then run the attached module's hook (tp.t_cc). See docs/cc.md and
// shared/design/freebsd-tcp.md 1.2, 1.4, 1.5, 3.9.
#pragma once

#include <cstdint>
#include <optional>

#include "netsim/cc/cc_algo.h"
#include "netsim/cc/cc_var.h"

namespace netsim::cc {

// tcp_newtcpcb's CC part: attach `algo` to the connection and run cb_init.
// The connection does not own the algorithm object.
void cc_attach(Tcpcb& tp, CcAlgo& algo);

// The host-cache metrics cc_conn_init may use. The simulations start with an
// empty host cache (all zero), which makes cc_conn_init set only the initial
// window. rmx_ssthresh is honoured; seeding t_srtt/t_rttvar/t_rxtcur from a
// cached RTT belongs to the stack's RTO code and is not done here.
struct HcMetricsLite {
  std::uint32_t rmx_ssthresh = 0;
};

// Initial window (RFC 6928 / 3390 / 5681), tcp_compute_initwnd(maxseg):
// with initcwnd_segments = 10: min(10 * maxseg, max(2 * maxseg, 10 * 1460)).
std::uint32_t tcp_compute_initwnd(const Tcpcb& tp, std::uint32_t maxseg);

// cc_conn_init: ssthresh from the host cache (if any), snd_cwnd = IW(tcp_maxseg)
// (or one maxseg when snd_cwnd == 1, i.e. the SYN was retransmitted), then the
// module's conn_init.
void cc_conn_init(Tcpcb& tp, const HcMetricsLite& metrics = {});

// cc_ack_received(tp, th, nsegs, type), called with snd_una not yet advanced.
//   nsegs: segments LRO merged into this ACK (1 without LRO).
//   CCF_CWND_LIMITED: newcwv = 0 -> snd_cwnd <= snd_wnd.
//   Only for CC_ACK: ABC byte counting (t_bytes_acked, CCF_ABC_SENTAWND) in
//   congestion avoidance; reset in slow start.
void cc_ack_received(Tcpcb& tp, tcp_seq th_ack, std::uint16_t nsegs, ccsignal_t type);

// cc_cong_signal(tp, th, type). th_ack is empty when FreeBSD passes th == NULL
// (the RTO timer). NDUPACK: snd_recover = snd_max unless already in fast
// recovery. ECN: leave congestion recovery and set snd_recover = snd_max + 1
// unless in congestion recovery with th_ack < snd_recover. RTO: t_dupacks =
// t_bytes_acked = 0; leave recovery if t_rxtshift > 1 or not (TF_SACK_PERMIT
// and a SACK hole). RTO_ERR: restore cwnd, ssthresh, snd_recover and the
// recovery flags saved at the first RTO. Then the module's cong_signal.
// (The TF2_ECN_* bookkeeping is omitted: ECN is not negotiated in T1-T6.)
void cc_cong_signal(Tcpcb& tp, std::optional<tcp_seq> th_ack, ccsignal_t type);

// cc_post_recovery(tp, th): module post_recovery with curack = th_ack, then
// t_bytes_acked = delivered_data = prr_delivered = prr_out = 0.
void cc_post_recovery(Tcpcb& tp, tcp_seq th_ack);

// cc_after_idle(tp) (tcp_output.c). Deciding that the connection was idle
// (ticks - t_rcvtime >= t_rxtcur, ...) is the stack's job.
void cc_after_idle(Tcpcb& tp);

}  // namespace netsim::cc
