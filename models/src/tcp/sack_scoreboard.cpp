// SACK sender scoreboard, a port of FreeBSD's base-stack tcp_sack.c, on the
// connection's tcpcb (tp->snd_holes, tp->snd_numholes, tp->snd_fack,
// tp->sackhint).
//
// Follows (algorithm, names, units, integer widths, order of operations; no
// source text copied):
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814
//       sys/netinet/tcp_sack.c, tcp_var.h, tcp_input.c (tcp_compute_pipe,
//       tcp_is_sack_recovery), tcp_output.c (SACK retransmission bookkeeping),
//       tcp_timer.c (tcp_timer_rexmt), tcp_subr.c (tcp_record_dsack)
// See sack_scoreboard.h, tcp_var.h and docs/tcp-sack.md.
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

// --- hole allocation, insertion, removal (tcp_sackhole_*) --------------------

sackhole* tcp_sackhole_alloc(Tcpcb& tp, tcp_seq start, tcp_seq end) {
  // Per-connection limit. (The global limit, sack.globalmaxholes = 65536 over
  // all connections, is not modelled.)
  sackhole* hole = tp.snd_numholes >= tp.snd_holes.maxholes() ? nullptr : tp.snd_holes.alloc();
  if (hole == nullptr) {
    ++tp.sack_stats.sack_sboverflow;
    return nullptr;
  }
  hole->start = start;
  hole->end = end;
  hole->rxmit = start;
  ++tp.snd_numholes;
  return hole;
}

void tcp_sackhole_free(Tcpcb& tp, sackhole* hole) {
  tp.snd_holes.free(hole);
  --tp.snd_numholes;
}

// Insert [start, end) after `after`, or at the tail when after is nullptr.
sackhole* tcp_sackhole_insert(Tcpcb& tp, tcp_seq start, tcp_seq end, sackhole* after) {
  sackhole* hole = tcp_sackhole_alloc(tp, start, end);
  if (hole == nullptr) return nullptr;
  if (after != nullptr)
    tp.snd_holes.insert_after(after, hole);
  else
    tp.snd_holes.insert_tail(hole);
  if (tp.sackhint.nexthole == nullptr) tp.sackhint.nexthole = hole;
  return hole;
}

void tcp_sackhole_remove(Tcpcb& tp, sackhole* hole) {
  if (tp.sackhint.nexthole == hole) tp.sackhint.nexthole = sackhole_head::next(hole);
  tp.snd_holes.remove(hole);
  tcp_sackhole_free(tp, hole);
}

// tcp_subr.c tcp_record_dsack with tlp == 0.
void tcp_record_dsack(Tcpcb& tp, tcp_seq start, tcp_seq end) {
  ++tp.sack_stats.dsack_count;
  ++tp.t_dsack_pack;
  if (SEQ_GT(end, start))
    tp.t_dsack_bytes += end - start;
  else
    tp.t_dsack_tlp_bytes += start - end;
}

}  // namespace

// --- the hole list and pool (TAILQ + UMA zone) ----------------------------------

sackhole_head::sackhole_head(int maxholes) {
  if (maxholes < 0) throw std::invalid_argument("sackhole_head: maxholes must be >= 0");
  pool_.resize(static_cast<std::size_t>(maxholes));
  pool_.shrink_to_fit();
  for (std::size_t i = 0; i < pool_.size(); ++i) pool_[i].scb_next_ = (i + 1 < pool_.size()) ? &pool_[i + 1] : nullptr;
  free_ = pool_.empty() ? nullptr : pool_.data();
}

sackhole* sackhole_head::alloc() {
  sackhole* h = free_;
  if (h == nullptr) return nullptr;
  free_ = h->scb_next_;
  h->scb_prev_ = h->scb_next_ = nullptr;
  return h;
}

void sackhole_head::free(sackhole* h) {
  h->scb_prev_ = nullptr;
  h->scb_next_ = free_;
  free_ = h;
}

void sackhole_head::insert_tail(sackhole* h) {
  h->scb_prev_ = tail_;
  h->scb_next_ = nullptr;
  if (tail_ != nullptr)
    tail_->scb_next_ = h;
  else
    head_ = h;
  tail_ = h;
}

void sackhole_head::insert_after(sackhole* after, sackhole* h) {
  h->scb_prev_ = after;
  h->scb_next_ = after->scb_next_;
  if (after->scb_next_ != nullptr)
    after->scb_next_->scb_prev_ = h;
  else
    tail_ = h;
  after->scb_next_ = h;
}

void sackhole_head::remove(sackhole* h) {
  if (h->scb_prev_ != nullptr)
    h->scb_prev_->scb_next_ = h->scb_next_;
  else
    head_ = h->scb_next_;
  if (h->scb_next_ != nullptr)
    h->scb_next_->scb_prev_ = h->scb_prev_;
  else
    tail_ = h->scb_prev_;
}

sackhole& sackhole_head::entry(const sackhole* p) {
  const std::less<const sackhole*> lt;  // a total order, also for pointers into other arrays
  if (p == nullptr || lt(p, pool_.data()) || !lt(p, pool_.data() + pool_.size()))
    throw std::invalid_argument("sackhole_head: hole pointer does not belong to this scoreboard");
  return pool_[static_cast<std::size_t>(p - pool_.data())];
}

std::string sackhole_head::check_free_pool(int numholes) const {
  int nfree = 0;
  for (const sackhole* h = free_; h != nullptr; h = h->scb_next_)
    if (++nfree > maxholes()) return "free list has a cycle";
  if (numholes + nfree != maxholes()) return "holes + free entries != pool size";
  return {};
}

// --- tcp_sack_doack -----------------------------------------------------------

sackstatus_t tcp_sack_doack(Tcpcb& tp, std::span<const sackblk> to_sacks, tcp_seq th_ack) {
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
  if (SEQ_LT(tp.snd_una, th_ack) && !tp.snd_holes.empty()) {
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
  if (tp.snd_holes.empty()) {
    // Fresh scoreboard: (re)initialise snd_fack and the byte counts; tail
    // holes are created below.
    tp.snd_fack = SEQ_MAX(tp.snd_una, th_ack);
    tp.sackhint.sacked_bytes = 0;
    tp.sackhint.hole_bytes = 0;
  }

  // Walk blocks and holes from the right, once.
  int sblk = num_sack_blks - 1;  // "sblkp"; sblk < 0 means "before sack_blocks[0]"
  tp.sackhint.last_sack_ack = sack_blocks[sblk].end;
  if (SEQ_LT(tp.snd_fack, sack_blocks[sblk].start)) {
    const sackblk& top = sack_blocks[sblk];
    // Highest block beyond fack. A last hole that does not end below fack is
    // a rescue-retransmission hole: move it to [fack, top.start).
    sackhole* const tail = tp.snd_holes.last();
    if (tail != nullptr && SEQ_LEQ(tp.snd_fack, tail->end)) {
      sackhole& temp = *tail;
      tp.sackhint.hole_bytes -= bytes(temp.end, temp.start);
      temp.start = SEQ_MAX(tp.snd_fack, SEQ_MAX(tp.snd_una, th_ack));
      temp.end = top.start;
      temp.rxmit = temp.start;
      delivered_data += bytes(top.end, top.start);
      tp.sackhint.hole_bytes += bytes(temp.end, temp.start);
      tp.snd_fack = top.end;
      sblk--;
      sack_changed = SACK_NEWLOSS;
    } else {
      // Append a hole at the tail; lower blocks beyond fack are handled by
      // splitting in the loop.
      const sackhole* const temp = tcp_sackhole_insert(tp, tp.snd_fack, top.start, nullptr);
      if (temp != nullptr) {
        delivered_data += bytes(top.end, top.start);
        tp.sackhint.hole_bytes += bytes(temp->end, temp->start);
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

  sackhole* cur = tp.snd_holes.last();
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

  while (cur != nullptr) {
    sackhole& c = *cur;
    if (sblk < 0) {
      // No blocks left: only the loss accounting remains, and it can stop at
      // the first lost hole (every hole further left is lost too).
      if ((loss_sblks >= tcprexmtthresh) || (loss_thresh > loss_limit)) break;
      if (account_hole(c))
        notlost_bytes += bytes(c.end, c.start);
      else
        break;
      cur = sackhole_head::prev(cur);
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
      cur = sackhole_head::prev(cur);
      continue;
    }
    tp.sackhint.sack_bytes_rexmit -= bytes(SEQ_MIN(c.rxmit, c.end), c.start);
    sack_changed = SACK_CHANGE;
    if (SEQ_LEQ(blk.start, c.start)) {
      // The block covers at least the beginning of the hole.
      if (SEQ_GEQ(blk.end, c.end)) {
        // ... and the whole hole: delete it, and go on with the same block.
        delivered_data += bytes(c.end, c.start);
        sackhole* const temp = cur;
        cur = sackhole_head::prev(cur);
        tp.sackhint.hole_bytes -= bytes(c.end, c.start);
        tcp_sackhole_remove(tp, temp);
        continue;
      }
      // Move the start of the hole forward.
      delivered_data += bytes(blk.end, c.start);
      tp.sackhint.hole_bytes -= bytes(blk.end, c.start);
      c.start = blk.end;
      c.rxmit = SEQ_MAX(c.rxmit, c.start);
    } else {
      // The block covers at least the end of the hole ...
      if (SEQ_GEQ(blk.end, c.end)) {
        // Move the end of the hole backward.
        delivered_data += bytes(c.end, blk.start);
        tp.sackhint.hole_bytes -= bytes(c.end, blk.start);
        c.end = blk.start;
        c.rxmit = SEQ_MIN(c.rxmit, c.end);
        if ((tp.t_flags & TF_LRD) && SEQ_GEQ(c.rxmit, c.end)) c.rxmit = tp.snd_recover;
      } else {
        // ... or lies inside it: split the hole.
        sackhole* const temp = tcp_sackhole_insert(tp, blk.end, c.end, cur);
        sack_changed = SACK_NEWLOSS;
        if (temp != nullptr) {
          sackhole& t = *temp;
          if (SEQ_GT(c.rxmit, t.rxmit)) {
            t.rxmit = c.rxmit;
            tp.sackhint.sack_bytes_rexmit += bytes(SEQ_MIN(t.rxmit, t.end), t.start);
          }
          tp.sackhint.hole_bytes -= bytes(blk.end, blk.start);
          if (account_hole(t)) notlost_bytes += bytes(t.end, t.start);
          c.end = blk.start;
          c.rxmit = SEQ_MIN(c.rxmit, c.end);
          if ((tp.t_flags & TF_LRD) && SEQ_GEQ(c.rxmit, c.end)) c.rxmit = tp.snd_recover;
          delivered_data += bytes(blk.end, blk.start);
        }
      }
    }
    tp.sackhint.sack_bytes_rexmit += bytes(SEQ_MIN(c.rxmit, c.end), c.start);
    // Done with the hole (block reaches its start) or with the block.
    if (SEQ_LEQ(blk.start, c.start)) {
      if (account_hole(c)) notlost_bytes += bytes(c.end, c.start);
      cur = sackhole_head::prev(cur);
    } else {
      sblk--;
    }
  }

  // An ACK without SACK blocks that only moved the left edge is a pure
  // cumulative ACK: not a dupack, and needed so for the rescue retransmission.
  if (!tof_sack) sack_changed = SACK_NOCHANGE;
  tp.sackhint.delivered_data = delivered_data;
  tp.sackhint.sacked_bytes += delivered_data - left_edge_delta;
  tp.sackhint.lost_bytes = tp.sackhint.hole_bytes - notlost_bytes;
  return sack_changed;
}

// --- freeing, resending, RTO -----------------------------------------------------

void tcp_free_sackholes(Tcpcb& tp) {
  while (sackhole* q = tp.snd_holes.first()) tcp_sackhole_remove(tp, q);
  tp.sackhint.sack_bytes_rexmit = 0;
  tp.sackhint.delivered_data = 0;
  tp.sackhint.sacked_bytes = 0;
  tp.sackhint.hole_bytes = 0;
  tp.sackhint.lost_bytes = 0;
}

void tcp_resend_sackholes(Tcpcb& tp) {
  for (sackhole* p = tp.snd_holes.first(); p != nullptr; p = sackhole_head::next(p)) p->rxmit = p->start;
  tp.sackhint.nexthole = tp.snd_holes.first();
  tp.sackhint.sack_bytes_rexmit = 0;
}

void tcp_sack_timer_rexmt(Tcpcb& tp) {
  if (tp.t_rxtshift == 1)
    tcp_resend_sackholes(tp);
  else
    tcp_free_sackholes(tp);
}

// --- tcp_sack_partialack ------------------------------------------------------------

void tcp_sack_partialack(Tcpcb& tp, tcp_seq th_ack) {
  const u_int maxseg = tcp_maxseg(tp);
  // (REXMT timer stop and t_rtttime = 0 are the caller's.)
  // One or two segments, depending on how much this ACK acknowledged
  // (BYTES_THIS_ACK is an unsigned difference).
  int num_segs = 1;
  if (((th_ack - tp.snd_una) / maxseg) >= 2) num_segs = 2;
  tp.snd_cwnd = static_cast<std::uint32_t>(tp.sackhint.sack_bytes_rexmit) + (tp.snd_nxt - tp.snd_recover) +
                static_cast<std::uint32_t>(num_segs) * maxseg;
  if (tp.snd_cwnd > tp.snd_ssthresh) tp.snd_cwnd = tp.snd_ssthresh;
  tp.t_flags |= TF_ACKNOW;
  // RFC 6675 rescue retransmission: with an empty scoreboard, a cumulative ACK
  // that delivered data but stays below snd_recover gets one hole of at most
  // maxseg just below min(snd_max, snd_recover) (a FIN's sequence excluded).
  if (tp.sysctl.tcp_do_newsack && SEQ_LT(th_ack, tp.snd_recover) && tp.snd_holes.empty() &&
      tp.sackhint.delivered_data > 0) {
    tcp_seq highdata = tp.snd_max;
    if (tp.t_flags & TF_SENTFIN) highdata--;
    highdata = SEQ_MIN(highdata, tp.snd_recover);
    if (SEQ_LT(th_ack, highdata)) {
      tp.snd_fack = th_ack;
      const sackhole* const temp = tcp_sackhole_insert(tp, SEQ_MAX(th_ack, highdata - maxseg), highdata, nullptr);
      if (temp != nullptr) tp.sackhint.hole_bytes += bytes(temp->end, temp->start);
    }
  }
  // (tcp_output is the caller's.)
}

// --- tcp_sack_output, tcp_sack_adjust -----------------------------------------------

const sackhole* tcp_sack_output(Tcpcb& tp, int& sack_bytes_rexmt) {
  sack_bytes_rexmt = tp.sackhint.sack_bytes_rexmit;
  sackhole* hole = tp.sackhint.nexthole;
  if (hole == nullptr) return nullptr;
  if (SEQ_GEQ(hole->rxmit, hole->end)) {
    // The hint is fully retransmitted; the next hole with data left to
    // retransmit becomes the hint. (At most one step in practice: holes after
    // the hint have rxmit == start < end.)
    for (;;) {
      hole = sackhole_head::next(hole);
      if (hole == nullptr) return nullptr;
      if (SEQ_LT(hole->rxmit, hole->end)) {
        tp.sackhint.nexthole = hole;
        break;
      }
    }
  }
  if (!tp.sysctl.tcp_do_newsack) {
    // Without RFC 6675 every hole must lie below snd_fack; an invalid hole is
    // ignored (FreeBSD logs it).
    if (SEQ_GEQ(hole->start, hole->end) || SEQ_GEQ(hole->start, tp.snd_fack) || SEQ_GEQ(hole->end, tp.snd_fack) ||
        SEQ_GEQ(hole->rxmit, tp.snd_fack))
      return nullptr;
  }
  return hole;
}

void tcp_sack_adjust(Tcpcb& tp) {
  const sackhole* cur = tp.snd_holes.first();
  if (cur == nullptr) return;                        // no holes
  if (SEQ_GEQ(tp.snd_nxt, tp.snd_fack)) return;      // already beyond every SACKed block
  // Advance snd_nxt when it lies between the end of one hole and the start of
  // the next, or between the end of the last hole and snd_fack.
  for (const sackhole* p = sackhole_head::next(cur); p != nullptr; p = sackhole_head::next(cur)) {
    if (SEQ_LT(tp.snd_nxt, cur->end)) return;
    if (SEQ_GEQ(tp.snd_nxt, p->start)) {
      cur = p;
    } else {
      tp.snd_nxt = p->start;
      return;
    }
  }
  if (SEQ_LT(tp.snd_nxt, cur->end)) return;
  tp.snd_nxt = tp.snd_fack;
}

// --- tcp_sack_lost_retransmission -----------------------------------------------------

bool tcp_sack_lost_retransmission(Tcpcb& tp) {
  sackhole* const first_hole = tp.snd_holes.first();
  if (!IN_RECOVERY(tp.t_flags) || !SEQ_GT(tp.snd_fack, tp.snd_recover) || first_hole == nullptr) return false;
  if (!(SEQ_GEQ(first_hole->rxmit, first_hole->end) && SEQ_GEQ(tp.snd_fack, first_hole->rxmit))) return false;
  ++tp.sack_stats.sack_lostrexmt;
  // Retransmit again from the first hole on, including every hole whose
  // retransmission was completed and is now known lost.
  tp.sackhint.nexthole = first_hole;
  for (sackhole* temp = first_hole; temp != nullptr; temp = sackhole_head::next(temp)) {
    if (SEQ_GEQ(tp.snd_fack, temp->rxmit) && SEQ_GEQ(temp->rxmit, temp->end)) temp->rxmit = temp->start;
  }
  // cwnd = ssthresh, EXIT_RECOVERY, cc_cong_signal(CC_NDUPACK), cwnd = maxseg
  // and the recover_fs update are the caller's (see the header).
  return true;
}

// --- tcp_input.c ----------------------------------------------------------------------

int tcp_compute_pipe(const Tcpcb& tp) {
  if (tp.tfb_compute_pipe) return tp.tfb_compute_pipe(tp);
  if (tp.sysctl.tcp_do_newsack) {
    return static_cast<int>(tp.snd_max - tp.snd_una + static_cast<std::uint32_t>(tp.sackhint.sack_bytes_rexmit) -
                            static_cast<std::uint32_t>(tp.sackhint.sacked_bytes) -
                            static_cast<std::uint32_t>(tp.sackhint.lost_bytes));
  }
  return static_cast<int>((tp.snd_nxt - tp.snd_fack) + static_cast<std::uint32_t>(tp.sackhint.sack_bytes_rexmit));
}

bool tcp_is_sack_recovery(const Tcpcb& tp, bool ack_has_sack_option) {
  return (tp.t_flags & TF_SACK_PERMIT) && (ack_has_sack_option || !tp.snd_holes.empty());
}

// --- tcp_output.c ---------------------------------------------------------------------

u_int tcp_sack_rxmit_len(const Tcpcb& tp, const sackhole& p, int sack_bytes_rxmt) {
  // imax(min(snd_wnd, snd_cwnd) - sack_bytes_rxmt, 0): unsigned subtraction
  // read back as int.
  const std::uint32_t w = tp.snd_wnd < tp.snd_cwnd ? tp.snd_wnd : tp.snd_cwnd;
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

void tcp_output_sack_rxmit(Tcpcb& tp, const sackhole* p, u_int len) {
  sackhole& h = tp.snd_holes.entry(p);
  h.rxmit += len;
  // LRD: a completely retransmitted hole remembers snd_recover, so that a
  // later SACK above snd_recover shows the retransmission was lost.
  if ((tp.t_flags & TF_LRD) && SEQ_GEQ(h.rxmit, h.end)) h.rxmit = tp.snd_recover;
  tp.sackhint.sack_bytes_rexmit += static_cast<int>(len);
}

void tcp_output_sack_rxmit_error(Tcpcb& tp, const sackhole* p, u_int len) {
  sackhole& h = tp.snd_holes.entry(p);
  h.rxmit = SEQ_MIN(h.end, h.rxmit) - len;
  tp.sackhint.sack_bytes_rexmit -= static_cast<int>(len);
}

void tcp_output_prr_account(Tcpcb& tp, u_int len) {
  if (IN_RECOVERY(tp.t_flags)) tp.sackhint.prr_out += len;
}

// --- self-check -------------------------------------------------------------------------

std::string tcp_sack_check_invariants(const Tcpcb& tp) {
  const sackhole_head& holes = tp.snd_holes;
  int n = 0;
  std::int64_t sum = 0;
  bool nexthole_found = tp.sackhint.nexthole == nullptr;
  const sackhole* prev = nullptr;
  for (const sackhole* h = holes.first(); h != nullptr; h = sackhole_head::next(h)) {
    if (++n > holes.maxholes()) return "hole list has a cycle";
    if (sackhole_head::prev(h) != prev) return "hole list back link broken";
    if (!SEQ_LT(h->start, h->end)) return "hole with start >= end";
    if (!SEQ_GEQ(h->rxmit, h->start)) return "hole with rxmit < start";
    if (prev != nullptr && SEQ_GT(prev->end, h->start)) return "holes overlap or unsorted";
    if (h == tp.sackhint.nexthole) nexthole_found = true;
    sum += bytes(h->end, h->start);
    prev = h;
  }
  if (prev != holes.last()) return "tail does not match the list";
  if (n != tp.snd_numholes) return "snd_numholes does not match the list";
  if (std::string e = holes.check_free_pool(n); !e.empty()) return e;
  if (sum != tp.sackhint.hole_bytes) return "hole_bytes does not match the holes";
  if (!nexthole_found) return "nexthole is not in the hole list";
  return {};
}

}  // namespace netsim::tcp
