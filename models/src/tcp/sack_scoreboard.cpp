// SACK sender scoreboard, a port of FreeBSD's base-stack tcp_sack.c.
//
// Follows (algorithm, names, units, integer widths, order of operations; no
// source text copied):
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814
//       sys/netinet/tcp_sack.c, tcp_var.h, tcp_input.c (tcp_compute_pipe,
//       tcp_is_sack_recovery), tcp_output.c (SACK retransmission bookkeeping),
//       tcp_timer.c (tcp_timer_rexmt), tcp_subr.c (tcp_record_dsack)
// See sack_scoreboard.h and docs/tcp-sack.md.
//
// Integer conventions: FreeBSD adds differences of tcp_seq (uint32) to int
// fields; the result is the 32-bit two's-complement value. bytes(a, b) is that
// conversion of (a - b). The IsLost threshold compares int with int:
// (tcprexmtthresh - 1) * t_maxseg, where t_maxseg is a 24-bit bit-field and
// so is promoted to int.
#include "netsim/tcp/sack_scoreboard.h"

#include <functional>
#include <stdexcept>

namespace netsim::tcp {

namespace {

constexpr int bytes(tcp_seq a, tcp_seq b) { return static_cast<int>(a - b); }

}  // namespace

SackScoreboard::SackScoreboard(int maxholes) {
  if (maxholes < 0) throw std::invalid_argument("SackScoreboard: maxholes must be >= 0");
  pool_.resize(static_cast<std::size_t>(maxholes));
  pool_.shrink_to_fit();
  for (int i = 0; i < maxholes; ++i) pool_[static_cast<std::size_t>(i)].next_ = (i + 1 < maxholes) ? i + 1 : -1;
  free_ = maxholes > 0 ? 0 : -1;
}

std::int32_t SackScoreboard::index_of(const sackhole* p) const {
  const std::less<const sackhole*> lt;  // a total order, also for pointers into other arrays
  if (p == nullptr || lt(p, pool_.data()) || !lt(p, pool_.data() + pool_.size()))
    throw std::invalid_argument("SackScoreboard: hole pointer does not belong to this scoreboard");
  return static_cast<std::int32_t>(p - pool_.data());
}

// --- hole allocation, insertion, removal (tcp_sackhole_*) --------------------

std::int32_t SackScoreboard::tcp_sackhole_alloc(tcp_seq start, tcp_seq end) {
  // Per-connection limit. (The global limit, sack.globalmaxholes = 65536 over
  // all connections, is not modelled.)
  if (snd_numholes_ >= static_cast<int>(pool_.size()) || free_ < 0) {
    ++stats.sack_sboverflow;
    return -1;
  }
  const std::int32_t i = free_;
  sackhole& h = pool_[static_cast<std::size_t>(i)];
  free_ = h.next_;
  h.start = start;
  h.end = end;
  h.rxmit = start;
  h.prev_ = h.next_ = -1;
  ++snd_numholes_;
  return i;
}

void SackScoreboard::tcp_sackhole_free(std::int32_t hole) {
  sackhole& h = pool_[static_cast<std::size_t>(hole)];
  h.prev_ = -1;
  h.next_ = free_;
  free_ = hole;
  --snd_numholes_;
}

std::int32_t SackScoreboard::tcp_sackhole_insert(tcp_seq start, tcp_seq end, std::int32_t after) {
  const std::int32_t i = tcp_sackhole_alloc(start, end);
  if (i < 0) return -1;
  sackhole& h = pool_[static_cast<std::size_t>(i)];
  if (after >= 0) {  // TAILQ_INSERT_AFTER
    sackhole& a = pool_[static_cast<std::size_t>(after)];
    h.prev_ = after;
    h.next_ = a.next_;
    if (a.next_ >= 0)
      pool_[static_cast<std::size_t>(a.next_)].prev_ = i;
    else
      tail_ = i;
    a.next_ = i;
  } else {  // TAILQ_INSERT_TAIL
    h.prev_ = tail_;
    h.next_ = -1;
    if (tail_ >= 0)
      pool_[static_cast<std::size_t>(tail_)].next_ = i;
    else
      head_ = i;
    tail_ = i;
  }
  if (sackhint.nexthole < 0) sackhint.nexthole = i;
  return i;
}

void SackScoreboard::tcp_sackhole_remove(std::int32_t hole) {
  sackhole& h = pool_[static_cast<std::size_t>(hole)];
  if (sackhint.nexthole == hole) sackhint.nexthole = h.next_;
  if (h.prev_ >= 0)
    pool_[static_cast<std::size_t>(h.prev_)].next_ = h.next_;
  else
    head_ = h.next_;
  if (h.next_ >= 0)
    pool_[static_cast<std::size_t>(h.next_)].prev_ = h.prev_;
  else
    tail_ = h.prev_;
  tcp_sackhole_free(hole);
}

// tcp_subr.c tcp_record_dsack with tlp == 0.
void SackScoreboard::tcp_record_dsack(SackConnState& tp, tcp_seq start, tcp_seq end) {
  ++stats.dsack_count;
  ++tp.t_dsack_pack;
  if (SEQ_GT(end, start))
    tp.t_dsack_bytes += end - start;
  else
    tp.t_dsack_tlp_bytes += start - end;
}

// --- tcp_sack_doack -----------------------------------------------------------

sackstatus_t SackScoreboard::tcp_sack_doack(SackConnState& tp, std::span<const sackblk> to_sacks, tcp_seq th_ack) {
  if (to_sacks.size() > static_cast<std::size_t>(TCP_MAX_SACK))
    throw std::invalid_argument("tcp_sack_doack: a SACK option holds at most TCP_MAX_SACK blocks");
  const bool tof_sack = !to_sacks.empty();

  sackblk sack_blocks[TCP_MAX_SACK + 1];
  int num_sack_blks = 0;
  sackstatus_t sack_changed = SACK_NOCHANGE;
  int delivered_data = 0;
  int left_edge_delta = 0;
  tcp_seq loss_hiack = 0;
  int loss_thresh = 0;
  int loss_sblks = 0;
  int notlost_bytes = 0;
  const int loss_limit = (tcprexmtthresh - 1) * static_cast<int>(tp.t_maxseg);

  // With holes present, [snd_una, th_ack) is processed like a SACK block;
  // a cumulative advance is always part of delivered_data.
  if (SEQ_LT(tp.snd_una, th_ack) && !empty()) {
    left_edge_delta = bytes(th_ack, tp.snd_una);
    sack_blocks[num_sack_blks++] = {tp.snd_una, th_ack};
    // snd_fack can be behind th_ack here when it came through DSACK blocks.
    if (SEQ_LT(tp.snd_fack, th_ack)) {
      delivered_data += bytes(th_ack, tp.snd_una);
      tp.snd_fack = th_ack;
      sack_changed = SACK_CHANGE;
    }
  }
  // Valid blocks lie above snd_una and th_ack and within snd_max; blocks
  // entirely at or below th_ack are DSACKs.
  for (const sackblk& sack : to_sacks) {
    if (SEQ_GT(sack.end, sack.start) && SEQ_GT(sack.start, tp.snd_una) && SEQ_GT(sack.start, th_ack) &&
        SEQ_LT(sack.start, tp.snd_max) && SEQ_GT(sack.end, tp.snd_una) && SEQ_LEQ(sack.end, tp.snd_max)) {
      sack_blocks[num_sack_blks++] = sack;
    } else if (SEQ_LEQ(sack.start, th_ack) && SEQ_LEQ(sack.end, th_ack)) {
      tcp_record_dsack(tp, sack.start, sack.end);
    }
  }
  if (num_sack_blks == 0) return sack_changed;

  // Sort by end (the same exchange sort, so equal ends keep FreeBSD's order).
  for (int i = 0; i < num_sack_blks; i++) {
    for (int j = i + 1; j < num_sack_blks; j++) {
      if (SEQ_GT(sack_blocks[i].end, sack_blocks[j].end)) {
        const sackblk t = sack_blocks[i];
        sack_blocks[i] = sack_blocks[j];
        sack_blocks[j] = t;
      }
    }
  }
  if (empty()) {
    // Fresh scoreboard: (re)initialise snd_fack and the byte counts; tail
    // holes are created below.
    tp.snd_fack = SEQ_MAX(tp.snd_una, th_ack);
    sackhint.sacked_bytes = 0;
    sackhint.hole_bytes = 0;
  }

  // Walk blocks and holes from the right, once.
  int sblk = num_sack_blks - 1;  // "sblkp"; sblk < 0 means "before sack_blocks[0]"
  sackhint.last_sack_ack = sack_blocks[sblk].end;
  if (SEQ_LT(tp.snd_fack, sack_blocks[sblk].start)) {
    const sackblk& top = sack_blocks[sblk];
    // Highest block beyond fack. A last hole that does not end below fack is
    // a rescue-retransmission hole: move it to [fack, top.start).
    if (tail_ >= 0 && SEQ_LEQ(tp.snd_fack, pool_[static_cast<std::size_t>(tail_)].end)) {
      sackhole& temp = pool_[static_cast<std::size_t>(tail_)];
      sackhint.hole_bytes -= bytes(temp.end, temp.start);
      temp.start = SEQ_MAX(tp.snd_fack, SEQ_MAX(tp.snd_una, th_ack));
      temp.end = top.start;
      temp.rxmit = temp.start;
      delivered_data += bytes(top.end, top.start);
      sackhint.hole_bytes += bytes(temp.end, temp.start);
      tp.snd_fack = top.end;
      sblk--;
      sack_changed = SACK_NEWLOSS;
    } else {
      // Append a hole at the tail; lower blocks beyond fack are handled by
      // splitting in the loop.
      const std::int32_t temp = tcp_sackhole_insert(tp.snd_fack, top.start, -1);
      if (temp >= 0) {
        const sackhole& t = pool_[static_cast<std::size_t>(temp)];
        delivered_data += bytes(top.end, top.start);
        sackhint.hole_bytes += bytes(t.end, t.start);
        tp.snd_fack = top.end;
        sblk--;
        sack_changed = SACK_CHANGE;
      } else {
        // No hole available: drop the blocks that lie wholly beyond fack and
        // let a block straddling fack pull fack forward (the bytes in
        // between are then treated as SACKed).
        while (sblk >= 0 && SEQ_LT(tp.snd_fack, sack_blocks[sblk].start)) sblk--;
        if (sblk >= 0 && SEQ_LT(tp.snd_fack, sack_blocks[sblk].end)) {
          delivered_data += bytes(sack_blocks[sblk].end, tp.snd_fack);
          tp.snd_fack = sack_blocks[sblk].end;
          sack_changed = SACK_NEWLOSS;
        }
      }
    }
  } else if (SEQ_LT(tp.snd_fack, sack_blocks[sblk].end)) {
    // fack advances.
    delivered_data += bytes(sack_blocks[sblk].end, tp.snd_fack);
    tp.snd_fack = sack_blocks[sblk].end;
    sack_changed = SACK_CHANGE;
  }

  std::int32_t cur = tail_;
  loss_hiack = tp.snd_fack;

  // RFC 6675 IsLost bookkeeping for hole h, visited right to left: add the
  // SACKed bytes between h and the previous hole (or fack), count h, and tell
  // whether h is still "not lost" (fewer than tcprexmtthresh holes/blocks and
  // at most (tcprexmtthresh - 1) * t_maxseg SACKed bytes above it).
  auto account_hole = [&](const sackhole& h) {
    loss_thresh += bytes(loss_hiack, h.end);
    loss_hiack = h.start;
    loss_sblks++;
    return !((loss_sblks >= tcprexmtthresh) || (loss_thresh > loss_limit));
  };

  while (cur >= 0) {
    sackhole& c = pool_[static_cast<std::size_t>(cur)];
    if (sblk < 0) {
      // No blocks left: only the loss accounting remains, and it can stop at
      // the first lost hole (every hole further left is lost too).
      if ((loss_sblks >= tcprexmtthresh) || (loss_thresh > loss_limit)) break;
      if (account_hole(c))
        notlost_bytes += bytes(c.end, c.start);
      else
        break;
      cur = c.prev_;
      continue;
    }
    const sackblk& blk = sack_blocks[sblk];
    if (SEQ_GEQ(blk.start, c.end)) {
      // The block is beyond this hole: previous block.
      sblk--;
      continue;
    }
    if (SEQ_LEQ(blk.end, c.start)) {
      // The block is before this hole: previous hole.
      if (account_hole(c)) notlost_bytes += bytes(c.end, c.start);
      cur = c.prev_;
      continue;
    }
    sackhint.sack_bytes_rexmit -= bytes(SEQ_MIN(c.rxmit, c.end), c.start);
    sack_changed = SACK_CHANGE;
    if (SEQ_LEQ(blk.start, c.start)) {
      // The block covers at least the beginning of the hole.
      if (SEQ_GEQ(blk.end, c.end)) {
        // ... and the whole hole: delete it, and go on with the same block.
        delivered_data += bytes(c.end, c.start);
        const std::int32_t temp = cur;
        cur = c.prev_;
        sackhint.hole_bytes -= bytes(c.end, c.start);
        tcp_sackhole_remove(temp);
        continue;
      }
      // Move the start of the hole forward.
      delivered_data += bytes(blk.end, c.start);
      sackhint.hole_bytes -= bytes(blk.end, c.start);
      c.start = blk.end;
      c.rxmit = SEQ_MAX(c.rxmit, c.start);
    } else {
      // The block covers at least the end of the hole ...
      if (SEQ_GEQ(blk.end, c.end)) {
        // Move the end of the hole backward.
        delivered_data += bytes(c.end, blk.start);
        sackhint.hole_bytes -= bytes(c.end, blk.start);
        c.end = blk.start;
        c.rxmit = SEQ_MIN(c.rxmit, c.end);
        if ((tp.t_flags & TF_LRD) && SEQ_GEQ(c.rxmit, c.end)) c.rxmit = tp.snd_recover;
      } else {
        // ... or lies inside it: split the hole.
        const std::int32_t temp = tcp_sackhole_insert(blk.end, c.end, cur);
        sack_changed = SACK_NEWLOSS;
        if (temp >= 0) {
          sackhole& t = pool_[static_cast<std::size_t>(temp)];
          if (SEQ_GT(c.rxmit, t.rxmit)) {
            t.rxmit = c.rxmit;
            sackhint.sack_bytes_rexmit += bytes(SEQ_MIN(t.rxmit, t.end), t.start);
          }
          sackhint.hole_bytes -= bytes(blk.end, blk.start);
          if (account_hole(t)) notlost_bytes += bytes(t.end, t.start);
          c.end = blk.start;
          c.rxmit = SEQ_MIN(c.rxmit, c.end);
          if ((tp.t_flags & TF_LRD) && SEQ_GEQ(c.rxmit, c.end)) c.rxmit = tp.snd_recover;
          delivered_data += bytes(blk.end, blk.start);
        }
      }
    }
    sackhint.sack_bytes_rexmit += bytes(SEQ_MIN(c.rxmit, c.end), c.start);
    // Done with the hole (block reaches its start) or with the block.
    if (SEQ_LEQ(blk.start, c.start)) {
      if (account_hole(c)) notlost_bytes += bytes(c.end, c.start);
      cur = c.prev_;
    } else {
      sblk--;
    }
  }

  // An ACK without SACK blocks that only moved the left edge is a pure
  // cumulative ACK: not a dupack, and needed so for the rescue retransmission.
  if (!tof_sack) sack_changed = SACK_NOCHANGE;
  sackhint.delivered_data = delivered_data;
  sackhint.sacked_bytes += delivered_data - left_edge_delta;
  sackhint.lost_bytes = sackhint.hole_bytes - notlost_bytes;
  return sack_changed;
}

// --- freeing, resending, RTO -----------------------------------------------------

void SackScoreboard::tcp_free_sackholes() {
  while (head_ >= 0) tcp_sackhole_remove(head_);
  sackhint.sack_bytes_rexmit = 0;
  sackhint.delivered_data = 0;
  sackhint.sacked_bytes = 0;
  sackhint.hole_bytes = 0;
  sackhint.lost_bytes = 0;
}

void SackScoreboard::tcp_resend_sackholes() {
  for (std::int32_t i = head_; i >= 0; i = pool_[static_cast<std::size_t>(i)].next_) {
    sackhole& p = pool_[static_cast<std::size_t>(i)];
    p.rxmit = p.start;
  }
  sackhint.nexthole = head_;
  sackhint.sack_bytes_rexmit = 0;
}

void SackScoreboard::tcp_sack_timer_rexmt(int t_rxtshift) {
  if (t_rxtshift == 1)
    tcp_resend_sackholes();
  else
    tcp_free_sackholes();
}

// --- tcp_sack_partialack ------------------------------------------------------------

void SackScoreboard::tcp_sack_partialack(SackConnState& tp, tcp_seq th_ack) {
  const u_int maxseg = tp.maxseg;  // tcp_maxseg(tp)
  // (REXMT timer stop and t_rtttime = 0 are the caller's.)
  // One or two segments, depending on how much this ACK acknowledged
  // (BYTES_THIS_ACK is an unsigned difference).
  int num_segs = 1;
  if (((th_ack - tp.snd_una) / maxseg) >= 2) num_segs = 2;
  tp.snd_cwnd = static_cast<std::uint32_t>(sackhint.sack_bytes_rexmit) + (tp.snd_nxt - tp.snd_recover) +
                static_cast<std::uint32_t>(num_segs) * maxseg;
  if (tp.snd_cwnd > tp.snd_ssthresh) tp.snd_cwnd = tp.snd_ssthresh;
  tp.t_flags |= TF_ACKNOW;
  // RFC 6675 rescue retransmission: with an empty scoreboard, a cumulative ACK
  // that delivered data but stays below snd_recover gets one hole of at most
  // maxseg just below min(snd_max, snd_recover) (a FIN's sequence excluded).
  if (tp.sack_revised && SEQ_LT(th_ack, tp.snd_recover) && empty() && sackhint.delivered_data > 0) {
    tcp_seq highdata = tp.snd_max;
    if (tp.t_flags & TF_SENTFIN) highdata--;
    highdata = SEQ_MIN(highdata, tp.snd_recover);
    if (SEQ_LT(th_ack, highdata)) {
      tp.snd_fack = th_ack;
      const std::int32_t temp = tcp_sackhole_insert(SEQ_MAX(th_ack, highdata - maxseg), highdata, -1);
      if (temp >= 0) {
        const sackhole& t = pool_[static_cast<std::size_t>(temp)];
        sackhint.hole_bytes += bytes(t.end, t.start);
      }
    }
  }
  // (tcp_output is the caller's.)
}

// --- tcp_sack_output, tcp_sack_adjust -----------------------------------------------

const sackhole* SackScoreboard::tcp_sack_output(const SackConnState& tp, int& sack_bytes_rexmt) {
  sack_bytes_rexmt = sackhint.sack_bytes_rexmit;
  std::int32_t hole = sackhint.nexthole;
  if (hole < 0) return nullptr;
  if (SEQ_GEQ(pool_[static_cast<std::size_t>(hole)].rxmit, pool_[static_cast<std::size_t>(hole)].end)) {
    // The hint is fully retransmitted; the next hole with data left to
    // retransmit becomes the hint. (At most one step in practice: holes after
    // the hint have rxmit == start < end.)
    for (;;) {
      hole = pool_[static_cast<std::size_t>(hole)].next_;
      if (hole < 0) return nullptr;
      if (SEQ_LT(pool_[static_cast<std::size_t>(hole)].rxmit, pool_[static_cast<std::size_t>(hole)].end)) {
        sackhint.nexthole = hole;
        break;
      }
    }
  }
  const sackhole& h = pool_[static_cast<std::size_t>(hole)];
  if (!tp.sack_revised) {
    // Without RFC 6675 every hole must lie below snd_fack; an invalid hole is
    // ignored (FreeBSD logs it).
    if (SEQ_GEQ(h.start, h.end) || SEQ_GEQ(h.start, tp.snd_fack) || SEQ_GEQ(h.end, tp.snd_fack) ||
        SEQ_GEQ(h.rxmit, tp.snd_fack))
      return nullptr;
  }
  return &h;
}

void SackScoreboard::tcp_sack_adjust(SackConnState& tp) const {
  std::int32_t cur = head_;
  if (cur < 0) return;                               // no holes
  if (SEQ_GEQ(tp.snd_nxt, tp.snd_fack)) return;      // already beyond every SACKed block
  // Advance snd_nxt when it lies between the end of one hole and the start of
  // the next, or between the end of the last hole and snd_fack.
  for (std::int32_t p = pool_[static_cast<std::size_t>(cur)].next_; p >= 0;
       p = pool_[static_cast<std::size_t>(cur)].next_) {
    if (SEQ_LT(tp.snd_nxt, pool_[static_cast<std::size_t>(cur)].end)) return;
    if (SEQ_GEQ(tp.snd_nxt, pool_[static_cast<std::size_t>(p)].start)) {
      cur = p;
    } else {
      tp.snd_nxt = pool_[static_cast<std::size_t>(p)].start;
      return;
    }
  }
  if (SEQ_LT(tp.snd_nxt, pool_[static_cast<std::size_t>(cur)].end)) return;
  tp.snd_nxt = tp.snd_fack;
}

// --- tcp_sack_lost_retransmission -----------------------------------------------------

bool SackScoreboard::tcp_sack_lost_retransmission(const SackConnState& tp) {
  if (!IN_RECOVERY(tp.t_flags) || !SEQ_GT(tp.snd_fack, tp.snd_recover) || head_ < 0) return false;
  const sackhole& first_hole = pool_[static_cast<std::size_t>(head_)];
  if (!(SEQ_GEQ(first_hole.rxmit, first_hole.end) && SEQ_GEQ(tp.snd_fack, first_hole.rxmit))) return false;
  ++stats.sack_lostrexmt;
  // Retransmit again from the first hole on, including every hole whose
  // retransmission was completed and is now known lost.
  sackhint.nexthole = head_;
  for (std::int32_t i = head_; i >= 0; i = pool_[static_cast<std::size_t>(i)].next_) {
    sackhole& temp = pool_[static_cast<std::size_t>(i)];
    if (SEQ_GEQ(tp.snd_fack, temp.rxmit) && SEQ_GEQ(temp.rxmit, temp.end)) temp.rxmit = temp.start;
  }
  // cwnd = ssthresh, EXIT_RECOVERY, cc_cong_signal(CC_NDUPACK), cwnd = maxseg
  // and the recover_fs update are the caller's (see the header).
  return true;
}

// --- tcp_input.c ----------------------------------------------------------------------

int SackScoreboard::tcp_compute_pipe(const SackConnState& tp) const {
  if (tp.sack_revised) {
    return static_cast<int>(tp.snd_max - tp.snd_una + static_cast<std::uint32_t>(sackhint.sack_bytes_rexmit) -
                            static_cast<std::uint32_t>(sackhint.sacked_bytes) -
                            static_cast<std::uint32_t>(sackhint.lost_bytes));
  }
  return static_cast<int>((tp.snd_nxt - tp.snd_fack) + static_cast<std::uint32_t>(sackhint.sack_bytes_rexmit));
}

bool SackScoreboard::tcp_is_sack_recovery(const SackConnState& tp, bool ack_has_sack_option) const {
  return (tp.t_flags & TF_SACK_PERMIT) && (ack_has_sack_option || !empty());
}

// --- tcp_output.c ---------------------------------------------------------------------

u_int SackScoreboard::tcp_sack_rxmit_len(const SackConnState& tp, const sackhole& p, std::uint32_t snd_wnd,
                                         int sack_bytes_rxmt) {
  // imax(min(snd_wnd, snd_cwnd) - sack_bytes_rxmt, 0): unsigned subtraction
  // read back as int.
  const std::uint32_t w = snd_wnd < tp.snd_cwnd ? snd_wnd : tp.snd_cwnd;
  const int diff = static_cast<int>(w - static_cast<std::uint32_t>(sack_bytes_rxmt));
  const std::uint32_t cwin = static_cast<std::uint32_t>(diff > 0 ? diff : 0);
  std::uint32_t avail;
  if (SEQ_GT(p.end, tp.snd_recover)) {
    // The hole reaches beyond snd_recover: retransmit only below it.
    if (SEQ_GEQ(p.rxmit, tp.snd_recover)) return 0;
    avail = tp.snd_recover - p.rxmit;
  } else {
    avail = p.end - p.rxmit;
  }
  const std::uint32_t len = cwin < avail ? cwin : avail;
  const int ilen = static_cast<int>(len);  // (int32_t)ulmin(...)
  return ilen > 0 ? static_cast<u_int>(ilen) : 0u;
}

void SackScoreboard::tcp_output_sack_rxmit(const SackConnState& tp, const sackhole* p, u_int len) {
  sackhole& h = pool_[static_cast<std::size_t>(index_of(p))];
  h.rxmit += len;
  // LRD: a completely retransmitted hole remembers snd_recover, so that a
  // later SACK above snd_recover shows the retransmission was lost.
  if ((tp.t_flags & TF_LRD) && SEQ_GEQ(h.rxmit, h.end)) h.rxmit = tp.snd_recover;
  sackhint.sack_bytes_rexmit += static_cast<int>(len);
}

void SackScoreboard::tcp_output_sack_rxmit_error(const sackhole* p, u_int len) {
  sackhole& h = pool_[static_cast<std::size_t>(index_of(p))];
  h.rxmit = SEQ_MIN(h.end, h.rxmit) - len;
  sackhint.sack_bytes_rexmit -= static_cast<int>(len);
}

void SackScoreboard::tcp_output_prr_account(const SackConnState& tp, u_int len) {
  if (IN_RECOVERY(tp.t_flags)) sackhint.prr_out += len;
}

// --- self-check -------------------------------------------------------------------------

std::string SackScoreboard::check_invariants() const {
  int n = 0;
  std::int64_t sum = 0;
  bool nexthole_found = sackhint.nexthole < 0;
  std::int32_t prev = -1;
  for (std::int32_t i = head_; i >= 0; i = pool_[static_cast<std::size_t>(i)].next_) {
    if (++n > static_cast<int>(pool_.size())) return "hole list has a cycle";
    const sackhole& h = pool_[static_cast<std::size_t>(i)];
    if (h.prev_ != prev) return "hole list back link broken";
    if (!SEQ_LT(h.start, h.end)) return "hole with start >= end";
    if (!SEQ_GEQ(h.rxmit, h.start)) return "hole with rxmit < start";
    if (prev >= 0 && SEQ_GT(pool_[static_cast<std::size_t>(prev)].end, h.start)) return "holes overlap or unsorted";
    if (i == sackhint.nexthole) nexthole_found = true;
    sum += bytes(h.end, h.start);
    prev = i;
  }
  if (prev != tail_) return "tail does not match the list";
  if (n != snd_numholes_) return "snd_numholes does not match the list";
  int nfree = 0;
  for (std::int32_t i = free_; i >= 0; i = pool_[static_cast<std::size_t>(i)].next_)
    if (++nfree > static_cast<int>(pool_.size())) return "free list has a cycle";
  if (n + nfree != static_cast<int>(pool_.size())) return "holes + free entries != pool size";
  if (sum != sackhint.hole_bytes) return "hole_bytes does not match the holes";
  if (!nexthole_found) return "nexthole is not in the hole list";
  return {};
}

}  // namespace netsim::tcp
