// The TCP control block: FreeBSD's `struct tcpcb`, the one connection state
// that the congestion-control framework and modules (netsim/cc), the SACK
// scoreboard (sack_scoreboard.h, tcp_sack.c), the RTT estimator (tcp_rtt.h,
// tcp_xmit_timer) and the base-stack sender (freebsd_tcp_sender.h) all read and
// write, as the FreeBSD code does through `struct tcpcb *tp`.
//
// Follows (names, units, integer widths, flag values; no source text copied):
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814
//       sys/netinet/tcp_var.h     struct tcpcb (the fields the ported code uses),
//                                 struct sackblk/sackhole/sackhint, sackstatus_t,
//                                 TF_* t_flags bits, IN_/ENTER_/EXIT_ macros
//       sys/netinet/tcp.h         TCP_MAXWIN, TCP_MAX_WINSHIFT, TCP_MAX_SACK
//       sys/netinet/tcp_input.c   tcprexmtthresh, tcp_compute_pipe (declared here,
//                                 defined in sack_scoreboard.cpp)
//       sys/netinet/tcp_subr.c    tcp_get_srtt(), tcp_maxseg(), tcp_fixed_maxseg()
//       sys/netinet/tcp_sack.c    net.inet.tcp.sack.maxholes (128)
//   kenrap/freebsd-src @ f30bcb15894c03d8afb60c8a4e0ca6b0b029f737
//       sys/netinet/tcp_var.h     (cross-check of the same fields after D46046)
// See docs/tcp-sender.md, docs/tcp-sack.md, docs/cc.md.
//
// Widths follow amd64 FreeBSD (LP64), see netsim/cc/cc_var.h. A few things
// that are kernel globals in FreeBSD are per connection here: the clock
// (`ticks`, kern.hz), the sysctls (`sysctl`) and the SACK counters of tcpstat
// (`sack_stats`).
#pragma once

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "netsim/cc/cc_var.h"  // struct cc_var: FreeBSD's tcp_var.h includes netinet/cc/cc.h
#include "netsim/tcp/tcp_seq.h"
#include "netsim/tcp/tcp_timer_params.h"

namespace netsim::tcp {

using u_int = unsigned int;

// --- constants ------------------------------------------------------------------
inline constexpr int TCP_MAXWIN = 65535;           // largest unscaled window (tcp.h)
inline constexpr int TCP_MAX_WINSHIFT = 14;        // maximum window shift (tcp.h)
inline constexpr int TCP_MAX_SACK = 4;             // SACK blocks that fit in one option (tcp.h)
inline constexpr int MAX_SACK_BLKS = 6;            // SACK blocks the receiver keeps (tcp_var.h)
inline constexpr int tcprexmtthresh = 3;           // dupack threshold (tcp_input.c)
inline constexpr int kDefaultSackMaxholes = 128;   // net.inet.tcp.sack.maxholes (tcp_sack.c)
inline constexpr int TCPTV_SRTTBASE = 0;           // t_srtt: "no RTT estimate yet" (tcp_timer.h)
inline constexpr int TCP_TMR_GRANULARITY_TICKS = 1;  // timers and t_srtt in ticks (the base stack)
inline constexpr int TCP_TMR_GRANULARITY_USEC = 2;   // in microseconds (RACK, BBR)
// TCP_RTT_SHIFT (t_srtt is ticks << 5), TCP_RTTVAR_SHIFT (t_rttvar is ticks
// << 4), TCP_DELTA_SHIFT and TCP_MAXRXTSHIFT: netsim/tcp/tcp_timer_params.h.

// --- t_flags (tcp_var.h): the bits the port uses, with FreeBSD's values --------
inline constexpr u_int TF_ACKNOW = 0x00000001;        // ack peer immediately
inline constexpr u_int TF_DELACK = 0x00000002;        // ack, but try to delay it
inline constexpr u_int TF_SENTFIN = 0x00000010;       // have sent FIN
inline constexpr u_int TF_RXWIN0SENT = 0x00080000;    // sent a receiver win 0 in response
inline constexpr u_int TF_SACK_PERMIT = 0x00000200;   // other side said I could SACK
inline constexpr u_int TF_PREVVALID = 0x00002000;     // snd_*_prev saved for a bad-RTO undo
inline constexpr u_int TF_FASTRECOVERY = 0x00100000;  // in NewReno fast recovery
inline constexpr u_int TF_WASFRECOVERY = 0x00200000;  // was in fast recovery (at the first RTO)
inline constexpr u_int TF_FORCEDATA = 0x00800000;     // force out a byte (persist probe)
inline constexpr u_int TF_LRD = 0x10000000;           // Lost Retransmission Detection
inline constexpr u_int TF_CONGRECOVERY = 0x20000000;  // congestion recovery mode
inline constexpr u_int TF_WASCRECOVERY = 0x40000000;  // was in congestion recovery

// The tcp_var.h macros, as functions (same names). IN_* return the masked
// bits, as the macros do.
constexpr u_int IN_FASTRECOVERY(u_int t_flags) { return t_flags & TF_FASTRECOVERY; }
constexpr u_int IN_CONGRECOVERY(u_int t_flags) { return t_flags & TF_CONGRECOVERY; }
constexpr u_int IN_RECOVERY(u_int t_flags) { return t_flags & (TF_CONGRECOVERY | TF_FASTRECOVERY); }
constexpr void ENTER_FASTRECOVERY(u_int& t_flags) { t_flags |= TF_FASTRECOVERY; }
constexpr void EXIT_FASTRECOVERY(u_int& t_flags) { t_flags &= ~TF_FASTRECOVERY; }
constexpr void ENTER_CONGRECOVERY(u_int& t_flags) { t_flags |= TF_CONGRECOVERY; }
constexpr void EXIT_CONGRECOVERY(u_int& t_flags) { t_flags &= ~TF_CONGRECOVERY; }
constexpr void ENTER_RECOVERY(u_int& t_flags) { t_flags |= (TF_CONGRECOVERY | TF_FASTRECOVERY); }
constexpr void EXIT_RECOVERY(u_int& t_flags) { t_flags &= ~(TF_CONGRECOVERY | TF_FASTRECOVERY); }

// --- SACK types (tcp_var.h) -------------------------------------------------------
// Scoreboard update status returned by tcp_sack_doack.
enum sackstatus_t : int { SACK_NOCHANGE = 0, SACK_CHANGE, SACK_NEWLOSS };

// One SACK block as received, host byte order: [start, end).
struct sackblk {
  tcp_seq start = 0;
  tcp_seq end = 0;
};

class sackhole_head;

// One hole: [start, end) not yet SACKed or cumulatively ACKed; rxmit is the
// next sequence number of the hole to retransmit (start <= rxmit; rxmit >= end
// once the whole hole was retransmitted, or snd_recover with LRD).
struct sackhole {
  tcp_seq start = 0;
  tcp_seq end = 0;
  tcp_seq rxmit = 0;

 private:
  friend class sackhole_head;
  sackhole* scb_prev_ = nullptr;  // scblink (TAILQ_ENTRY); scb_next_ also links the free pool
  sackhole* scb_next_ = nullptr;
};

// struct sackhint. Widths as in tcp_var.h: the byte counts are int32_t, the
// PRR counters uint32_t. The CC wrappers (cc_post_recovery) and the SACK and
// PRR code of the sender all use this one copy.
struct sackhint {
  sackhole* nexthole = nullptr;        // next hole to retransmit from (a hole of snd_holes, or NULL)
  std::int32_t sack_bytes_rexmit = 0;  // bytes retransmitted from holes (still counted while in holes)
  tcp_seq last_sack_ack = 0;           // end of the highest SACK block of the last ACK with blocks
  std::int32_t delivered_data = 0;     // bytes newly SACKed or cumulatively ACKed by the last doack
  std::int32_t sacked_bytes = 0;       // bytes SACKed above snd_una (above th_ack after doack)
  std::uint32_t recover_fs = 0;        // PRR: flight size at the start of loss recovery
  std::uint32_t prr_delivered = 0;     // PRR: bytes delivered during recovery
  std::uint32_t prr_out = 0;           // PRR: bytes sent during IN_RECOVERY
  std::int32_t hole_bytes = 0;         // bytes in scoreboard holes
  std::int32_t lost_bytes = 0;         // RFC 6675 IsLost() bytes
};

// TAILQ_HEAD(sackhole_head, sackhole): tp->snd_holes, the holes in sequence
// order. FreeBSD takes the holes from a UMA zone; here they come from a pool
// of `maxholes` entries allocated once, in the constructor, and never resized,
// so nothing allocates after construction and a hole's address is stable (and
// sackhint.nexthole a plain pointer, as in FreeBSD). Not copyable: the tcpcb
// that holds it is not. The bookkeeping around the list (snd_numholes,
// sackhint.nexthole, the hole limit) is tcp_sack.c's, in sack_scoreboard.cpp.
class sackhole_head {
 public:
  explicit sackhole_head(int maxholes = kDefaultSackMaxholes);
  sackhole_head(const sackhole_head&) = delete;
  sackhole_head& operator=(const sackhole_head&) = delete;

  // TAILQ_EMPTY, TAILQ_FIRST, TAILQ_LAST, TAILQ_NEXT, TAILQ_PREV.
  bool empty() const { return head_ == nullptr; }
  sackhole* first() { return head_; }
  const sackhole* first() const { return head_; }
  sackhole* last() { return tail_; }
  const sackhole* last() const { return tail_; }
  static sackhole* next(sackhole* h) { return h->scb_next_; }
  static const sackhole* next(const sackhole* h) { return h->scb_next_; }
  static sackhole* prev(sackhole* h) { return h->scb_prev_; }
  static const sackhole* prev(const sackhole* h) { return h->scb_prev_; }

  // uma_zalloc / uma_zfree of sack_hole_zone: a free pool entry (nullptr when
  // all maxholes are in use), and its return to the pool.
  sackhole* alloc();
  void free(sackhole* h);
  // TAILQ_INSERT_TAIL, TAILQ_INSERT_AFTER, TAILQ_REMOVE.
  void insert_tail(sackhole* h);
  void insert_after(sackhole* after, sackhole* h);
  void remove(sackhole* h);

  // The pool entry p points to, for writing; throws std::invalid_argument if
  // p is not an entry of this pool.
  sackhole& entry(const sackhole* p);

  int maxholes() const { return static_cast<int>(pool_.size()); }
  // The preallocated pool (for the "no allocation after construction" check).
  const void* pool_data() const { return pool_.data(); }
  std::size_t pool_capacity() const { return pool_.capacity(); }
  // Structural check of the free pool, given `numholes` entries on the list:
  // no cycle, and list + free pool == the whole pool. Returns "" or a
  // description (tcp_sack_check_invariants checks the list itself).
  std::string check_free_pool(int numholes) const;

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = sackhole;
    using difference_type = std::ptrdiff_t;
    using pointer = const sackhole*;
    using reference = const sackhole&;
    const_iterator() = default;
    explicit const_iterator(const sackhole* h) : h_(h) {}
    reference operator*() const { return *h_; }
    pointer operator->() const { return h_; }
    const_iterator& operator++() {
      h_ = next(h_);
      return *this;
    }
    const_iterator operator++(int) {
      auto t = *this;
      ++*this;
      return t;
    }
    bool operator==(const const_iterator& o) const { return h_ == o.h_; }

   private:
    const sackhole* h_ = nullptr;
  };
  // TAILQ_FOREACH
  const_iterator begin() const { return const_iterator(head_); }
  const_iterator end() const { return const_iterator(nullptr); }

 private:
  std::vector<sackhole> pool_;  // fixed size == maxholes
  sackhole* head_ = nullptr;
  sackhole* tail_ = nullptr;
  sackhole* free_ = nullptr;  // free pool, linked through scb_next_
};

// The SACK counters FreeBSD keeps in the (per-VNET) tcpstat; here per connection.
struct SackStats {
  std::uint64_t sack_sboverflow = 0;  // tcps_sack_sboverflow: hole allocation refused (maxholes)
  std::uint64_t sack_lostrexmt = 0;   // tcps_sack_lostrexmt: LRD events
  std::uint64_t dsack_count = 0;      // tcps_dsack_count
};

// One entry of the reassembly queue (struct tseg_qent, tcp_var.h): a run of
// out-of-order data [tqe_start, tqe_start + tqe_len). netsim keeps no payload,
// so there is no mbuf chain; tqe_flags keeps TH_FIN as FreeBSD's does.
struct tseg_qent {
  tcp_seq tqe_start = 0;
  int tqe_len = 0;
  std::uint8_t tqe_flags = 0;
};

// --- struct tcpcb ---------------------------------------------------------------------
// The fields of FreeBSD's tcpcb that the ported code reads or writes, with
// FreeBSD's names, units and widths. Not copyable or movable: t_ccv.tp points
// back at the object and sackhint.nexthole into snd_holes.
struct Tcpcb {
  explicit Tcpcb(int sack_maxholes = kDefaultSackMaxholes) : snd_holes(sack_maxholes) { t_ccv.tp = this; }
  Tcpcb(const Tcpcb&) = delete;
  Tcpcb& operator=(const Tcpcb&) = delete;

  u_int t_flags = 0;  // TF_*

  // Send sequence space.
  tcp_seq snd_una = 0;      // sent but unacknowledged
  tcp_seq snd_max = 0;      // highest sequence number sent
  tcp_seq snd_nxt = 0;      // send next
  tcp_seq snd_recover = 0;  // for NewReno / SACK recovery
  tcp_seq snd_fack = 0;     // highest SACKed sequence (+1), maintained by tcp_sack_doack

  // Windows (bytes). FreeBSD's tcp_newtcpcb starts cwnd and ssthresh at
  // TCP_MAXWIN << TCP_MAX_WINSHIFT; cc_conn_init then sets the initial window.
  std::uint32_t snd_wnd = 0;  // peer's advertised window, already scaled
  std::uint32_t max_sndwnd = 0;  // largest window the peer has offered
  std::uint32_t snd_cwnd = static_cast<std::uint32_t>(TCP_MAXWIN) << TCP_MAX_WINSHIFT;
  std::uint32_t snd_ssthresh = static_cast<std::uint32_t>(TCP_MAXWIN) << TCP_MAX_WINSHIFT;
  std::uint8_t snd_scale = 0;  // send window shift (u_char); caps cwnd at 65535 << snd_scale

  // Segment sizes. t_maxseg is the MSS without options (1460 on the T1 path);
  // tcp_fixed_maxseg() subtracts the always-present options (timestamps:
  // 1448); tcp_maxseg() also subtracts SACK blocks we are currently sending,
  // so for a pure sender it equals the fixed value. FreeBSD computes the last
  // two on demand; the stack stores them here when t_maxseg is set.
  std::uint32_t t_maxseg = 1460;  // FreeBSD: uint32_t bit-field of 24 bits
  std::uint32_t fixed_maxseg = 1448;
  std::uint32_t maxseg = 1448;

  // Retransmit timer and RTT estimator (tcp_xmit_timer, tcp_timer_rexmt), in
  // ticks of `hz` for the base stack.
  int t_srtt = 0;          // smoothed RTT, ticks << TCP_RTT_SHIFT (scaled by 32); 0 = no estimate
  int t_rttvar = 0;        // RTT variance, ticks << TCP_RTTVAR_SHIFT (scaled by 16)
  int t_rxtcur = 0;        // current retransmit timeout, ticks
  int t_rxtshift = 0;      // log(2) of the RTO backoff; 1 on the first RTO
  int t_rttmin = 0;        // minimum RTO (tcp_rexmit_min), ticks (u_int in FreeBSD; small, so int here)
  std::uint8_t t_rttupdated = 0;  // RTT samples taken; tcp_xmit_timer saturates it at UCHAR_MAX
  std::uint8_t t_tmr_granularity = TCP_TMR_GRANULARITY_TICKS;

  // Counters used by the input path and the CC wrappers.
  int t_bytes_acked = 0;  // ABC byte counter
  int t_dupacks = 0;      // consecutive duplicate ACKs

  // Bad-RTO undo state, saved by tcp_timer_rexmt on the first RTO.
  std::uint32_t snd_cwnd_prev = 0;
  std::uint32_t snd_ssthresh_prev = 0;
  tcp_seq snd_recover_prev = 0;
  u_int t_badrxtwin = 0;  // tcp_ts_getticks() at the first RTO: older echoed timestamps prove it spurious

  // SACK scoreboard (tcp_sack.c): the holes, their number and the hint.
  int snd_numholes = 0;   // number of holes in snd_holes
  sackhole_head snd_holes;
  struct sackhint sackhint;
  // DSACK statistics (tcp_record_dsack).
  std::uint32_t t_dsack_bytes = 0;
  std::uint32_t t_dsack_tlp_bytes = 0;
  std::uint32_t t_dsack_pack = 0;

  // Receive sequence space (tcp_var.h): what the receive path of
  // tcp_do_segment, tcp_reass and tcp_output's window computation share.
  tcp_seq rcv_nxt = 0;        // receive next
  tcp_seq rcv_adv = 0;        // right edge of the window last advertised
  std::uint32_t rcv_wnd = 0;  // receive window: max(sbspace, rcv_adv - rcv_nxt) at the last slow-path segment
  tcp_seq last_ack_sent = 0;  // rcv_nxt of the last segment sent
  std::uint8_t rcv_scale = 0;  // receive window shift (0 unless both sides scale)
  // The receiver's SACK report (tcp_sack.c): most recent block first, a
  // D-SACK block (below rcv_nxt) ahead of the rest.
  int rcv_numsacks = 0;
  std::array<sackblk, MAX_SACK_BLKS> sackblks{};
  // Reassembly queue (tcp_reass.c): entries in sequence order, their number
  // (t_segqlen counts entries, not bytes) and the out-of-order packet count.
  // The vector's capacity is reserved once (net.inet.tcp.reass.maxqueuelen)
  // and never exceeded.
  std::vector<tseg_qent> t_segq;
  int t_segqlen = 0;
  std::uint32_t t_rcvoopack = 0;
  // Receive-buffer autotuning (tcp_autorcvbuf): when the measurement began
  // (tcp_ts_getticks, 0 = not started) and the bytes received since.
  std::uint32_t rfbuf_ts = 0;
  std::uint32_t rfbuf_cnt = 0;

  // Congestion control: the attached algorithm and its cc_var.
  cc::CcAlgo* t_cc = nullptr;
  cc::CcVar t_ccv;

  // tp->t_fb->tfb_compute_pipe: a TCP stack's own pipe computation, which
  // tcp_compute_pipe() prefers when set (RACK and BBR have one). The base
  // stack leaves it empty; the CC unit tests use it to put pipe where they
  // want it.
  std::function<int(const Tcpcb&)> tfb_compute_pipe;

  // Kernel globals, per connection here: `ticks` (int, wraps like FreeBSD's),
  // kern.hz, the sysctls and the SACK counters of tcpstat.
  int ticks = 0;
  int hz = 1000;
  cc::CcSysctls sysctl;
  SackStats sack_stats;
};

// FreeBSD's `tick` (microseconds per hardclock tick) for this connection's hz.
inline int tick_usecs(const Tcpcb& tp) { return cc::tick_usecs(tp.hz); }

inline u_int tcp_maxseg(const Tcpcb& tp) { return tp.maxseg; }
// SEGQ_EMPTY(tp)
inline bool SEGQ_EMPTY(const Tcpcb& tp) { return tp.t_segq.empty(); }
inline u_int tcp_fixed_maxseg(const Tcpcb& tp) { return tp.fixed_maxseg; }

// tcp_compute_pipe(tp) (tcp_input.c): tfb_compute_pipe if the stack has one;
// else, with sack.revised (RFC 6675): snd_max - snd_una + sack_bytes_rexmit -
// sacked_bytes - lost_bytes; without it the pre-RFC 6675 estimate FreeBSD's
// call sites use instead: (snd_nxt - snd_fack) + sack_bytes_rexmit. 32-bit
// wrapping arithmetic, returned as int. Defined in sack_scoreboard.cpp.
int tcp_compute_pipe(const Tcpcb& tp);

// tcp_get_srtt() (tcp_subr.c). For the base stack (ticks granularity) and a
// request in microseconds: TICKS_2_USEC(t_srtt) >> TCP_RTT_SHIFT, where
// TICKS_2_USEC(t) = max(1, hz == 1000 ? t * 1000 : t * 1000000 / hz) (u_int).
// At hz = 100, t_srtt = 7: 7 * 10000 = 70000, >> 5 = 2187 us.
inline std::uint32_t tcp_get_srtt(const Tcpcb& tp, int granularity) {
  std::uint32_t srtt = static_cast<std::uint32_t>(tp.t_srtt);
  if (tp.t_tmr_granularity != granularity) {
    if (granularity == TCP_TMR_GRANULARITY_USEC) {
      const std::uint64_t us = (tp.hz == 1000) ? static_cast<std::uint64_t>(srtt * 1000u)
                                               : static_cast<std::uint64_t>(srtt) * 1000000u / static_cast<std::uint64_t>(tp.hz);
      srtt = cc::kern::max(1, static_cast<u_int>(us));
    } else {
      const std::uint64_t t = (tp.hz == 1000) ? srtt / 1000u
                                              : static_cast<std::uint64_t>(srtt) * static_cast<std::uint64_t>(tp.hz) / 1000000u;
      srtt = cc::kern::max(1, static_cast<u_int>(t));
    }
  }
  if (tp.t_tmr_granularity == TCP_TMR_GRANULARITY_TICKS) srtt = srtt >> TCP_RTT_SHIFT;
  return srtt;
}

}  // namespace netsim::tcp

// The CC code names the tcpcb, its flags and tcp.h/tcp_var.h constants without
// qualification, as FreeBSD's CC modules do after including tcp_var.h.
namespace netsim::cc {
using tcp::Tcpcb;
using tcp::tcp_compute_pipe;
using tcp::tcp_fixed_maxseg;
using tcp::tcp_get_srtt;
using tcp::tcp_maxseg;
using tcp::tick_usecs;
using tcp::ENTER_CONGRECOVERY;
using tcp::ENTER_FASTRECOVERY;
using tcp::ENTER_RECOVERY;
using tcp::EXIT_CONGRECOVERY;
using tcp::EXIT_FASTRECOVERY;
using tcp::EXIT_RECOVERY;
using tcp::IN_CONGRECOVERY;
using tcp::IN_FASTRECOVERY;
using tcp::IN_RECOVERY;
using tcp::TF_CONGRECOVERY;
using tcp::TF_FASTRECOVERY;
using tcp::TF_PREVVALID;
using tcp::TF_SACK_PERMIT;
using tcp::TF_WASCRECOVERY;
using tcp::TF_WASFRECOVERY;
using tcp::TCP_MAX_WINSHIFT;
using tcp::TCP_MAXWIN;
using tcp::TCP_RTT_SHIFT;
using tcp::TCP_RTTVAR_SHIFT;
using tcp::TCP_TMR_GRANULARITY_TICKS;
using tcp::TCP_TMR_GRANULARITY_USEC;
using tcp::TCPTV_SRTTBASE;
}  // namespace netsim::cc
