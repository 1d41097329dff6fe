// The receiver's SACK report of tcp_sack.c (see
// netsim/tcp/freebsd/tcp_receive.h for the source followed): the blocks an
// ACK carries, most recent first, a D-SACK block ahead of them.
#include <algorithm>

#include "netsim/tcp/freebsd/tcp_receive.h"

namespace netsim::tcp {
namespace {

tcp_seq seq_max(tcp_seq a, tcp_seq b) { return SEQ_GT(a, b) ? a : b; }
tcp_seq seq_min(tcp_seq a, tcp_seq b) { return SEQ_LT(a, b) ? a : b; }

}  // namespace

bool tcp_dsack_block_exists(const Tcpcb& tp) {
  return tp.rcv_numsacks != 0 && SEQ_LEQ(tp.sackblks[0].end, tp.rcv_nxt);
}

// Data [rcv_start, rcv_end) arrived that was (partly) here already: the
// overlap with what was received goes first as a D-SACK block, then the
// SACK block it belongs to (if still above rcv_nxt), then the other blocks.
void tcp_update_dsack_list(Tcpcb& tp, tcp_seq rcv_start, tcp_seq rcv_end) {
  std::array<sackblk, MAX_SACK_BLKS> saved{};
  if (SEQ_LT(rcv_end, tp.rcv_nxt) ||
      (rcv_end == tp.rcv_nxt && tp.rcv_numsacks > 0 && tp.sackblks[0].end == tp.rcv_nxt)) {
    saved[0] = {rcv_start, rcv_end};
  }
  sackblk head{0, 0};
  sackblk mid{rcv_start, rcv_end};
  bool identical = false;
  for (int i = 0; i < tp.rcv_numsacks; ++i) {
    const tcp_seq start = tp.sackblks[i].start;
    const tcp_seq end = tp.sackblks[i].end;
    if (SEQ_LT(rcv_end, start) || SEQ_GT(rcv_start, end)) continue;  // no contact
    if (SEQ_GT(tp.rcv_nxt, end)) {
      // A block wholly below rcv_nxt: keep the lowest overlap with it.
      if (seq_max(rcv_start, start) != seq_min(rcv_end, end) &&
          (SEQ_GT(head.start, seq_max(rcv_start, start)) || head.start == head.end)) {
        head = {seq_max(rcv_start, start), seq_min(rcv_end, end)};
      }
      continue;
    }
    if ((head.start == head.end || SEQ_LT(start, head.start)) && SEQ_GT(end, rcv_start) && SEQ_LEQ(start, rcv_end)) {
      head = {start, end};
    }
    mid.start = seq_min(mid.start, start);
    mid.end = seq_max(mid.end, end);
    if (mid.start == start && mid.end == end) identical = true;
  }
  if (SEQ_LT(head.start, head.end)) saved[0] = {seq_max(rcv_start, head.start), seq_min(rcv_end, head.end)};
  int n = 1;
  if ((SEQ_LT(tp.rcv_nxt, mid.end) && !(mid.start == saved[0].start && mid.end == saved[0].end)) || identical) {
    saved[static_cast<std::size_t>(n++)] = mid;
  }
  for (int j = 0; j < tp.rcv_numsacks && n < MAX_SACK_BLKS; ++j) {
    const sackblk& b = tp.sackblks[static_cast<std::size_t>(j)];
    if ((SEQ_LT(b.end, mid.start) || SEQ_GT(b.start, mid.end)) && SEQ_GT(b.start, tp.rcv_nxt)) {
      saved[static_cast<std::size_t>(n++)] = b;
    }
  }
  int j = 0;
  for (int i = 0; i < n; ++i) {
    if (SEQ_LT(saved[static_cast<std::size_t>(i)].start, saved[static_cast<std::size_t>(i)].end)) {
      tp.sackblks[static_cast<std::size_t>(j++)] = saved[static_cast<std::size_t>(i)];  // drops an empty lead entry
    }
  }
  tp.rcv_numsacks = j;
}

// New data [rcv_start, rcv_end) was queued (or rcv_start == rcv_end: only
// drop what rcv_nxt passed, keeping a D-SACK block that ends there): it
// becomes the first block, merged with the blocks it touches; blocks at or
// below rcv_nxt are dropped; at most MAX_SACK_BLKS are kept.
void tcp_update_sack_list(Tcpcb& tp, tcp_seq rcv_start, tcp_seq rcv_end) {
  sackblk head;
  if (rcv_start == rcv_end && tp.rcv_numsacks >= 1 && rcv_end == tp.sackblks[0].end) {
    head = tp.sackblks[0];  // retaining the D-SACK block below rcv_nxt
  } else {
    head = {rcv_start, rcv_end};
  }
  std::array<sackblk, MAX_SACK_BLKS> saved{};
  int num_saved = 0;
  // Keeps `b`, replacing the last kept block if b contains it.
  auto save = [&](tcp_seq start, tcp_seq end) {
    if (num_saved >= 1 && SEQ_GEQ(saved[static_cast<std::size_t>(num_saved - 1)].start, start) &&
        SEQ_LEQ(saved[static_cast<std::size_t>(num_saved - 1)].end, end)) {
      --num_saved;
    }
    saved[static_cast<std::size_t>(num_saved++)] = {start, end};
  };
  for (int i = 0; i < tp.rcv_numsacks; ++i) {
    tcp_seq start = tp.sackblks[static_cast<std::size_t>(i)].start;
    tcp_seq end = tp.sackblks[static_cast<std::size_t>(i)].end;
    if (SEQ_GEQ(start, end) || SEQ_LEQ(start, tp.rcv_nxt)) continue;  // discarded
    if (SEQ_LEQ(head.start, end) && SEQ_GEQ(head.end, start)) {
      // Touches the new block: merged into it, or (a D-SACK inside a larger
      // block, or the other way round) the two swap their extremes and the
      // outer one is kept.
      if (head.start == end) {
        head.start = start;
      } else if (head.end == start) {
        head.end = end;
      } else {
        if (SEQ_LT(head.start, start)) std::swap(start, head.start);
        if (SEQ_GT(head.end, end)) std::swap(end, head.end);
        if (head.start != start || head.end != end) save(start, end);
      }
    } else {
      save(start, end);
    }
  }
  int num_head = 0;
  if (SEQ_LT(rcv_start, rcv_end)) {
    // An out-of-order segment: its block goes first; the oldest saved one
    // is dropped if there is no room.
    tp.sackblks[0] = head;
    num_head = 1;
    if (num_saved >= MAX_SACK_BLKS) --num_saved;
  }
  if (rcv_start == rcv_end && rcv_start == tp.sackblks[0].end) num_head = 1;
  // (Then the head block was below rcv_nxt and not saved: at most 5 were.)
  num_saved = std::min(num_saved, MAX_SACK_BLKS - num_head);
  std::copy_n(saved.begin(), num_saved, tp.sackblks.begin() + num_head);
  tp.rcv_numsacks = num_head + num_saved;
}

void tcp_clean_dsack_blocks(Tcpcb& tp) {
  std::array<sackblk, MAX_SACK_BLKS> saved{};
  int num_saved = 0;
  for (int i = 0; i < tp.rcv_numsacks; ++i) {
    const sackblk b = tp.sackblks[static_cast<std::size_t>(i)];
    if (SEQ_GEQ(b.start, b.end) || SEQ_LEQ(b.start, tp.rcv_nxt)) continue;  // a D-SACK block
    saved[static_cast<std::size_t>(num_saved++)] = b;
  }
  std::copy_n(saved.begin(), num_saved, tp.sackblks.begin());
  tp.rcv_numsacks = num_saved;
}

void tcp_clean_sackreport(Tcpcb& tp) {
  tp.rcv_numsacks = 0;
  tp.sackblks.fill(sackblk{});
}

}  // namespace netsim::tcp
