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
//       sys/netinet/tcp_input.c   tcp_compute_pipe, tcprexmtthresh, the
//                                 non-revised "awnd" pipe of the call sites
//       sys/netinet/tcp_output.c  the SACK-retransmission length and the
//                                 rxmit / sack_bytes_rexmit / prr_out updates
//       sys/netinet/tcp_timer.c   the scoreboard part of tcp_timer_rexmt
//       sys/netinet/tcp_subr.c    tcp_record_dsack (statistics only)
// See docs/tcp-sack.md and shared/design/freebsd-tcp.md sections 3.3-3.8.
//
// Only the sender side is ported; the receiver's SACK report
// (tcp_update_sack_list & co.) is not part of this class.
//
// Memory: the hole pool is a std::vector sized to `maxholes` entries once, in
// the constructor, and never resized. Holes are linked through 32-bit indices
// into that pool (a doubly linked list in sequence order, FreeBSD's TAILQ) and
// a singly linked free list. No member function allocates after construction;
// tcp_sack_doack keeps its up-to-five working SACK blocks on the stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "netsim/tcp/tcp_seq.h"

namespace netsim::tcp {

using u_int = unsigned int;

// --- constants -------------------------------------------------------------
inline constexpr int TCP_MAX_SACK = 4;        // SACK blocks that fit in one option (tcp.h)
inline constexpr int tcprexmtthresh = 3;      // dupack threshold (tcp_input.c)
inline constexpr int kDefaultSackMaxholes = 128;  // net.inet.tcp.sack.maxholes

// t_flags bits the scoreboard reads or writes (same values as tcp_var.h).
inline constexpr u_int TF_ACKNOW = 0x00000001;
inline constexpr u_int TF_SENTFIN = 0x00000010;
inline constexpr u_int TF_SACK_PERMIT = 0x00000200;
inline constexpr u_int TF_FASTRECOVERY = 0x00100000;
inline constexpr u_int TF_LRD = 0x10000000;
inline constexpr u_int TF_CONGRECOVERY = 0x20000000;

constexpr bool IN_FASTRECOVERY(u_int t_flags) { return (t_flags & TF_FASTRECOVERY) != 0; }
constexpr bool IN_CONGRECOVERY(u_int t_flags) { return (t_flags & TF_CONGRECOVERY) != 0; }
constexpr bool IN_RECOVERY(u_int t_flags) { return (t_flags & (TF_FASTRECOVERY | TF_CONGRECOVERY)) != 0; }
constexpr void ENTER_FASTRECOVERY(u_int& t_flags) { t_flags |= TF_FASTRECOVERY; }
constexpr void EXIT_RECOVERY(u_int& t_flags) { t_flags &= ~(TF_FASTRECOVERY | TF_CONGRECOVERY); }

// --- types of tcp_var.h ------------------------------------------------------
// Scoreboard update status returned by tcp_sack_doack.
enum sackstatus_t : int { SACK_NOCHANGE = 0, SACK_CHANGE, SACK_NEWLOSS };

// One SACK block as received, host byte order: [start, end).
struct sackblk {
  tcp_seq start = 0;
  tcp_seq end = 0;
};

class SackScoreboard;

// One hole: [start, end) not yet SACKed or cumulatively ACKed; rxmit is the
// next sequence number of the hole to retransmit (start <= rxmit; rxmit >= end
// once the whole hole was retransmitted, or snd_recover with LRD).
struct sackhole {
  tcp_seq start = 0;
  tcp_seq end = 0;
  tcp_seq rxmit = 0;

 private:
  friend class SackScoreboard;
  std::int32_t prev_ = -1;  // scblink: index of the previous/next hole in the pool, -1 = none
  std::int32_t next_ = -1;
};

// struct sackhint. FreeBSD keeps the PRR counters here too, so they are here.
// Widths as in tcp_var.h: the byte counts are int32_t, the PRR counters uint32_t.
struct sackhint {
  std::int32_t nexthole = -1;  // pool index of the hint hole; -1 == NULL (use SackScoreboard::nexthole())
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

// The part of struct tcpcb (and the sysctls) the scoreboard code reads or
// writes. Field names are FreeBSD's. Defaults: the test path (t_maxseg 1460,
// tcp_maxseg() 1448 with timestamps) and the 2d614aa2 sysctl defaults
// (sack.enable = 1, sack.revised = 1, sack.lrd = 1, so TF_LRD is set as
// tcp_newtcpcb would set it).
struct SackConnState {
  tcp_seq snd_una = 0;
  tcp_seq snd_max = 0;
  tcp_seq snd_nxt = 0;
  tcp_seq snd_recover = 0;
  tcp_seq snd_fack = 0;  // highest SACKed sequence + 1; maintained by the scoreboard (tcpcb field in FreeBSD)
  std::uint32_t snd_cwnd = 0;      // read/written by tcp_sack_partialack only
  std::uint32_t snd_ssthresh = 0;  // read by tcp_sack_partialack only
  u_int t_flags = TF_SACK_PERMIT | TF_LRD;
  u_int t_maxseg = 1460;  // tp->t_maxseg: used by the IsLost threshold in tcp_sack_doack
  u_int maxseg = 1448;    // tcp_maxseg(tp): used by tcp_sack_partialack
  bool sack_revised = true;  // net.inet.tcp.sack.revised (V_tcp_do_newsack)
  // DSACK statistics (tcp_record_dsack): blocks at or below th_ack.
  std::uint32_t t_dsack_bytes = 0;
  std::uint32_t t_dsack_tlp_bytes = 0;
  std::uint32_t t_dsack_pack = 0;
};

// Counters FreeBSD keeps in tcpstat.
struct SackStats {
  std::uint64_t sack_sboverflow = 0;  // tcps_sack_sboverflow: hole allocation refused (maxholes)
  std::uint64_t sack_lostrexmt = 0;   // tcps_sack_lostrexmt: LRD events
  std::uint64_t dsack_count = 0;      // tcps_dsack_count
};

// The sender's SACK scoreboard of one connection: FreeBSD's tp->snd_holes,
// tp->snd_numholes and tp->sackhint, with the tcp_sack.c functions as
// methods. Connection variables come in through SackConnState on each call.
class SackScoreboard {
 public:
  explicit SackScoreboard(int maxholes = kDefaultSackMaxholes);

  // Copyable (holes are linked by index, so a copy is self-contained); the copy
  // owns its own preallocated pool.
  SackScoreboard(const SackScoreboard&) = default;
  SackScoreboard& operator=(const SackScoreboard&) = default;
  SackScoreboard(SackScoreboard&&) noexcept = default;
  SackScoreboard& operator=(SackScoreboard&&) noexcept = default;

  // --- tcp_sack.c -------------------------------------------------------------
  // Process the cumulative ACK th_ack and the ACK's SACK blocks (the option's
  // blocks in received order, at most TCP_MAX_SACK; an empty span means the
  // ACK carried no SACK option, i.e. TOF_SACK clear). Call it before snd_una
  // moves to th_ack. Updates the holes, tp.snd_fack and sackhint
  // (last_sack_ack, delivered_data, sacked_bytes, hole_bytes, lost_bytes,
  // sack_bytes_rexmit, nexthole); DSACK blocks go to tcp_record_dsack.
  // Throws std::invalid_argument if more than TCP_MAX_SACK blocks are given.
  sackstatus_t tcp_sack_doack(SackConnState& tp, std::span<const sackblk> to_sacks, tcp_seq th_ack);

  // Free every hole; zero sack_bytes_rexmit, delivered_data, sacked_bytes,
  // hole_bytes and lost_bytes (the PRR counters and last_sack_ack are kept).
  void tcp_free_sackholes();

  // Mark every hole for retransmission from its start; nexthole = first hole,
  // sack_bytes_rexmit = 0.
  void tcp_resend_sackholes();

  // Scoreboard part of tcp_timer_rexmt (tcp_timer.c), called after
  // ++t_rxtshift: on the first RTO (t_rxtshift == 1) keep the holes and resend
  // them all (tcp_resend_sackholes); on later RTOs free them. (The SYN_SENT
  // case, which does neither, is the caller's.)
  void tcp_sack_timer_rexmt(int t_rxtshift);

  // Partial ACK in SACK recovery when the ACK carries no SACK option (or PRR is
  // off). Call before snd_una moves. Sets tp.snd_cwnd =
  // min(sack_bytes_rexmit + (snd_nxt - snd_recover) + k * tcp_maxseg,
  // snd_ssthresh) with k = 2 if (th_ack - snd_una) / tcp_maxseg >= 2 else 1,
  // sets TF_ACKNOW, and (sack.revised) adds the RFC 6675 rescue-retransmission
  // hole of at most one tcp_maxseg below min(snd_max [- 1 if FIN sent],
  // snd_recover) when the scoreboard is empty and this ACK delivered data.
  // The caller stops the REXMT timer and zeroes t_rtttime first, and calls
  // tcp_output afterwards.
  void tcp_sack_partialack(SackConnState& tp, tcp_seq th_ack);

  // Next hole to retransmit (advancing sackhint.nexthole past fully
  // retransmitted holes) or nullptr; sack_bytes_rexmt receives
  // sackhint.sack_bytes_rexmit. The pointer is valid until the next
  // scoreboard mutation.
  const sackhole* tcp_sack_output(const SackConnState& tp, int& sack_bytes_rexmt);

  // After an RTO (snd_nxt < snd_max): move tp.snd_nxt forward over SACKed data
  // (to the next hole's start, or to snd_fack past the last hole).
  void tcp_sack_adjust(SackConnState& tp) const;

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
  bool tcp_sack_lost_retransmission(const SackConnState& tp);

  // --- tcp_input.c ------------------------------------------------------------
  // pipe. sack.revised (RFC 6675): snd_max - snd_una + sack_bytes_rexmit -
  // sacked_bytes - lost_bytes. Otherwise the pre-RFC 6675 estimate the call
  // sites use: (snd_nxt - snd_fack) + sack_bytes_rexmit. 32-bit wrapping
  // arithmetic, returned as int like FreeBSD's.
  int tcp_compute_pipe(const SackConnState& tp) const;

  // tcp_input.c's tcp_is_sack_recovery(): TF_SACK_PERMIT and (the ACK has a
  // SACK option or the scoreboard is not empty).
  bool tcp_is_sack_recovery(const SackConnState& tp, bool ack_has_sack_option) const;

  // --- tcp_output.c -------------------------------------------------------------
  // Length tcp_output may retransmit from hole p (from tcp_sack_output with
  // sack_bytes_rxmt) before the per-segment (t_maxseg - options) cut:
  // cwin = max(min(snd_wnd, snd_cwnd) - sack_bytes_rxmt, 0); nothing if
  // p->end > snd_recover and p->rxmit >= snd_recover; else min(cwin, bytes of
  // the hole from rxmit, not beyond snd_recover). 0 means "no SACK rexmit".
  static u_int tcp_sack_rxmit_len(const SackConnState& tp, const sackhole& p, std::uint32_t snd_wnd,
                                  int sack_bytes_rxmt);

  // A SACK retransmission of len bytes from p->rxmit was sent:
  // p->rxmit += len; with TF_LRD, rxmit >= end becomes rxmit = snd_recover;
  // sack_bytes_rexmit += len.
  void tcp_output_sack_rxmit(const SackConnState& tp, const sackhole* p, u_int len);

  // Sending that retransmission failed: p->rxmit = min(end, rxmit) - len;
  // sack_bytes_rexmit -= len.
  void tcp_output_sack_rxmit_error(const sackhole* p, u_int len);

  // Every segment sent while IN_RECOVERY (retransmission or new data) adds its
  // length to sackhint.prr_out.
  void tcp_output_prr_account(const SackConnState& tp, u_int len);

  // --- inspection -----------------------------------------------------------------
  struct sackhint sackhint;
  SackStats stats;

  bool empty() const { return head_ < 0; }
  int snd_numholes() const { return snd_numholes_; }
  int maxholes() const { return static_cast<int>(pool_.size()); }
  const sackhole* first() const { return at(head_); }  // TAILQ_FIRST
  const sackhole* last() const { return at(tail_); }   // TAILQ_LAST
  const sackhole* next(const sackhole* h) const { return at(h->next_); }
  const sackhole* prev(const sackhole* h) const { return at(h->prev_); }
  const sackhole* nexthole() const { return at(sackhint.nexthole); }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = sackhole;
    using difference_type = std::ptrdiff_t;
    using pointer = const sackhole*;
    using reference = const sackhole&;
    const_iterator() = default;
    const_iterator(const SackScoreboard* sb, const sackhole* h) : sb_(sb), h_(h) {}
    reference operator*() const { return *h_; }
    pointer operator->() const { return h_; }
    const_iterator& operator++() {
      h_ = sb_->next(h_);
      return *this;
    }
    const_iterator operator++(int) {
      auto t = *this;
      ++*this;
      return t;
    }
    bool operator==(const const_iterator& o) const { return h_ == o.h_; }

   private:
    const SackScoreboard* sb_ = nullptr;
    const sackhole* h_ = nullptr;
  };
  const_iterator begin() const { return {this, first()}; }
  const_iterator end() const { return {this, nullptr}; }

  // The preallocated pool (for the "no allocation after construction" check).
  const void* pool_data() const { return pool_.data(); }
  std::size_t pool_capacity() const { return pool_.capacity(); }

  // Structural self-check: sorted, non-overlapping, non-empty holes; list,
  // free list and snd_numholes agree; hole_bytes is the sum of the holes;
  // nexthole is NULL or a hole in the list. Returns "" or a description.
  std::string check_invariants() const;

 private:
  const sackhole* at(std::int32_t i) const { return i < 0 ? nullptr : &pool_[static_cast<std::size_t>(i)]; }
  std::int32_t index_of(const sackhole* p) const;

  std::int32_t tcp_sackhole_alloc(tcp_seq start, tcp_seq end);
  void tcp_sackhole_free(std::int32_t hole);
  std::int32_t tcp_sackhole_insert(tcp_seq start, tcp_seq end, std::int32_t after);
  void tcp_sackhole_remove(std::int32_t hole);
  void tcp_record_dsack(SackConnState& tp, tcp_seq start, tcp_seq end);

  std::vector<sackhole> pool_;  // fixed size == maxholes
  std::int32_t head_ = -1;      // snd_holes (sorted by sequence)
  std::int32_t tail_ = -1;
  std::int32_t free_ = -1;  // free list, linked through next_
  int snd_numholes_ = 0;
};

}  // namespace netsim::tcp
