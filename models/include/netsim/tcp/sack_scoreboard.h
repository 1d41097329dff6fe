// SACK sender scoreboard, a port of FreeBSD's base-stack tcp_sack.c.
//
// Follows (algorithm, names, units, integer widths, order of operations; no
// source text copied):
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814
//       sys/netinet/tcp_sack.c    tcp_sackhole_alloc/free/insert/remove,
//                                 tcp_sack_doack, tcp_free_sackholes,
//                                 tcp_resend_sackholes, tcp_sack_partialack,
//                                 tcp_sack_output, tcp_sack_adjust,
//                                 tcp_sack_lost_retransmission
//       sys/netinet/tcp_var.h     struct sackblk/sackhole/sackhint,
//                                 sackstatus_t, TF_* bits, IN_RECOVERY()
//                                 (all in netsim/tcp/tcp_var.h)
//       sys/netinet/tcp_input.c   tcp_compute_pipe (declared in tcp_var.h),
//                                 tcp_is_sack_recovery, tcprexmtthresh, the
//                                 non-revised "awnd" pipe of the call sites
//       sys/netinet/tcp_output.c  the SACK-retransmission length and the
//                                 rxmit / sack_bytes_rexmit / prr_out updates
//       sys/netinet/tcp_timer.c   the scoreboard part of tcp_timer_rexmt
//       sys/netinet/tcp_subr.c    tcp_record_dsack (statistics only)
// See docs/tcp-sack.md and shared/design/freebsd-tcp.md sections 3.3-3.8.
//
// As in FreeBSD, the scoreboard is part of the connection's tcpcb
// (tcp::Tcpcb, netsim/tcp/tcp_var.h): tp.snd_holes, tp.snd_numholes,
// tp.snd_fack and tp.sackhint, and every function here takes the tcpcb.
// Only the sender side is ported; the receiver's SACK report
// (tcp_update_sack_list & co.) is not.
//
// Memory: the holes come from the pool of tp.snd_holes, sized to maxholes
// entries when the tcpcb is constructed and never resized; no function here
// allocates. tcp_sack_doack keeps its up-to-five working SACK blocks on the
// stack.
#pragma once

#include <span>
#include <string>

#include "netsim/tcp/tcp_seq.h"
#include "netsim/tcp/tcp_var.h"

namespace netsim::tcp {

// --- tcp_sack.c -------------------------------------------------------------
// Process the cumulative ACK th_ack and the ACK's SACK blocks (the option's
// blocks in received order, at most TCP_MAX_SACK; an empty span means the
// ACK carried no SACK option, i.e. TOF_SACK clear). Call it before snd_una
// moves to th_ack. Updates the holes, tp.snd_fack and tp.sackhint
// (last_sack_ack, delivered_data, sacked_bytes, hole_bytes, lost_bytes,
// sack_bytes_rexmit, nexthole); DSACK blocks go to tcp_record_dsack.
// Throws std::invalid_argument if more than TCP_MAX_SACK blocks are given.
sackstatus_t tcp_sack_doack(Tcpcb& tp, std::span<const sackblk> to_sacks, tcp_seq th_ack);

// Free every hole; zero sack_bytes_rexmit, delivered_data, sacked_bytes,
// hole_bytes and lost_bytes (the PRR counters and last_sack_ack are kept).
void tcp_free_sackholes(Tcpcb& tp);

// Mark every hole for retransmission from its start; nexthole = first hole,
// sack_bytes_rexmit = 0.
void tcp_resend_sackholes(Tcpcb& tp);

// Scoreboard part of tcp_timer_rexmt (tcp_timer.c), called after
// ++tp.t_rxtshift: on the first RTO (t_rxtshift == 1) keep the holes and
// resend them all (tcp_resend_sackholes); on later RTOs free them. (The
// SYN_SENT case, which does neither, is the caller's.)
void tcp_sack_timer_rexmt(Tcpcb& tp);

// Partial ACK in SACK recovery when the ACK carries no SACK option (or PRR is
// off). Call before snd_una moves. Sets tp.snd_cwnd =
// min(sack_bytes_rexmit + (snd_nxt - snd_recover) + k * tcp_maxseg,
// snd_ssthresh) with k = 2 if (th_ack - snd_una) / tcp_maxseg >= 2 else 1,
// sets TF_ACKNOW, and (sack.revised) adds the RFC 6675 rescue-retransmission
// hole of at most one tcp_maxseg below min(snd_max [- 1 if FIN sent],
// snd_recover) when the scoreboard is empty and this ACK delivered data.
// The caller stops the REXMT timer and zeroes t_rtttime first, and calls
// tcp_output afterwards.
void tcp_sack_partialack(Tcpcb& tp, tcp_seq th_ack);

// Next hole to retransmit (advancing sackhint.nexthole past fully
// retransmitted holes) or nullptr; sack_bytes_rexmt receives
// sackhint.sack_bytes_rexmit. The pointer is valid until the hole is removed.
const sackhole* tcp_sack_output(Tcpcb& tp, int& sack_bytes_rexmt);

// After an RTO (snd_nxt < snd_max): move tp.snd_nxt forward over SACKed data
// (to the next hole's start, or to snd_fack past the last hole).
void tcp_sack_adjust(Tcpcb& tp);

// Lost Retransmission Detection. Call when tcp_sack_doack returned other
// than SACK_NOCHANGE and (t_flags & TF_LRD). If IN_RECOVERY, snd_fack >
// snd_recover, and the first hole was fully retransmitted (rxmit >= end)
// with snd_fack >= its rxmit: count the event, nexthole = first hole, reset
// rxmit = start of every hole with rxmit >= end and snd_fack >= rxmit, and
// return true. sack_bytes_rexmit is left as it is, as in the source.
// On true the caller finishes FreeBSD's function:
//   snd_cwnd = snd_ssthresh; EXIT_RECOVERY(t_flags); cc_cong_signal(CC_NDUPACK);
//   snd_cwnd = tcp_maxseg(tp);
//   sackhint.recover_fs = (snd_max - snd_una) - sackhint.recover_fs;  // uint32
bool tcp_sack_lost_retransmission(Tcpcb& tp);

// --- tcp_input.c ------------------------------------------------------------
// tcp_compute_pipe(tp): see tcp_var.h.

// tcp_input.c's tcp_is_sack_recovery(): TF_SACK_PERMIT and (the ACK has a
// SACK option or the scoreboard is not empty).
bool tcp_is_sack_recovery(const Tcpcb& tp, bool ack_has_sack_option);

// --- tcp_output.c -------------------------------------------------------------
// Length tcp_output may retransmit from hole p (from tcp_sack_output with
// sack_bytes_rxmt) before the per-segment (t_maxseg - options) cut:
// cwin = max(min(snd_wnd, snd_cwnd) - sack_bytes_rxmt, 0); nothing if
// p.end > snd_recover and p.rxmit >= snd_recover; else min(cwin, bytes of
// the hole from rxmit, not beyond snd_recover). 0 means "no SACK rexmit".
u_int tcp_sack_rxmit_len(const Tcpcb& tp, const sackhole& p, int sack_bytes_rxmt);

// A SACK retransmission of len bytes from p->rxmit was sent:
// p->rxmit += len; with TF_LRD, rxmit >= end becomes rxmit = snd_recover;
// sack_bytes_rexmit += len. p must be a hole of tp (else std::invalid_argument).
void tcp_output_sack_rxmit(Tcpcb& tp, const sackhole* p, u_int len);

// Sending that retransmission failed: p->rxmit = min(end, rxmit) - len;
// sack_bytes_rexmit -= len.
void tcp_output_sack_rxmit_error(Tcpcb& tp, const sackhole* p, u_int len);

// Every segment sent while IN_RECOVERY (retransmission or new data) adds its
// length to sackhint.prr_out.
void tcp_output_prr_account(Tcpcb& tp, u_int len);

// --- self-check (not FreeBSD's) ----------------------------------------------------
// Structural check of tp's scoreboard: sorted, non-overlapping, non-empty
// holes; list, free pool and snd_numholes agree; hole_bytes is the sum of the
// holes; nexthole is NULL or a hole in the list. Returns "" or a description.
std::string tcp_sack_check_invariants(const Tcpcb& tp);

}  // namespace netsim::tcp
