// tcp_reass (see netsim/tcp/freebsd/tcp_receive.h for the source followed).
// FreeBSD keeps mbuf chains in TAILQ entries from a UMA zone; netsim keeps
// no payload, so an entry is a sequence range in a vector whose capacity is
// reserved once. The mbuf-space limit (sb_mbcnt + t_segqmbuflen against
// sb_mbmax) has nothing to count here and is left out; the per-queue entry
// limit is kept.
#include <algorithm>
#include <cstddef>
#include <iterator>

#include "netsim/tcp/freebsd/tcp_receive.h"

namespace netsim::tcp {
namespace {

using Queue = std::vector<tseg_qent>;

tcp_seq end_of(const tseg_qent& q) { return q.tqe_start + static_cast<tcp_seq>(q.tqe_len); }

// tcp_reass_merge_into: q is appended to ent and leaves the queue.
void merge_into(Tcpcb& tp, std::size_t ent, std::size_t q) {
  Queue& sq = tp.t_segq;
  sq[ent].tqe_len += sq[q].tqe_len;
  sq[ent].tqe_flags |= (sq[q].tqe_flags & TH_FIN);
  sq.erase(sq.begin() + static_cast<std::ptrdiff_t>(q));
  --tp.t_segqlen;
}

// tcp_reass_merge_forward: entries that ent now reaches are trimmed to
// dovetail and merged into it (or dropped, if ent covers them).
void merge_forward(Tcpcb& tp, std::size_t ent) {
  Queue& sq = tp.t_segq;
  tcp_seq max = end_of(sq[ent]);
  std::size_t q = ent + 1;
  while (q < sq.size()) {
    if (SEQ_GT(sq[q].tqe_start, max)) break;
    if (SEQ_GEQ(max, end_of(sq[q]))) {
      sq.erase(sq.begin() + static_cast<std::ptrdiff_t>(q));
      --tp.t_segqlen;
      continue;
    }
    const int i = static_cast<int>(max - sq[q].tqe_start);
    sq[q].tqe_len -= i;
    sq[q].tqe_start += static_cast<tcp_seq>(i);
    merge_into(tp, ent, q);
    max = end_of(sq[ent]);
  }
}

void append(Tcpcb& tp, tseg_qent& last, int tlen, bool fin) {
  last.tqe_len += tlen;
  if (fin) last.tqe_flags |= TH_FIN;
  ++tp.t_rcvoopack;
}

// tcp_reass_prepend: the new data [seq, seq + tlen) goes in front of `first`,
// trimming first's head where they overlap.
void prepend(Tcpcb& tp, tseg_qent& first, tcp_seq seq, int tlen) {
  if (SEQ_GT(seq + static_cast<tcp_seq>(tlen), first.tqe_start)) {
    const int i = static_cast<int>(seq + static_cast<tcp_seq>(tlen) - first.tqe_start);
    first.tqe_len -= i;
    first.tqe_start += static_cast<tcp_seq>(i);
  }
  first.tqe_len += tlen;
  first.tqe_start = seq;
  ++tp.t_rcvoopack;
}

}  // namespace

int tcp_reass_present(Tcpcb& tp, TcpReassSocket& so) {
  Queue& sq = tp.t_segq;
  if (sq.empty() || sq.front().tqe_start != tp.rcv_nxt) return 0;
  int flags = 0;
  std::size_t n = 0;
  do {
    tp.rcv_nxt += static_cast<tcp_seq>(sq[n].tqe_len);
    flags = sq[n].tqe_flags & TH_FIN;
    so.appended += static_cast<std::uint32_t>(sq[n].tqe_len);
    --tp.t_segqlen;
    ++n;
  } while (n < sq.size() && sq[n].tqe_start == tp.rcv_nxt);
  sq.erase(sq.begin(), sq.begin() + static_cast<std::ptrdiff_t>(n));
  return flags;
}

int tcp_reass(Tcpcb& tp, tcp_seq th_seq, bool th_fin, tcp_seq* seq_start, int* tlenp, TcpReassSocket& so) {
  Queue& sq = tp.t_segq;
  // A zero-length segment does nothing (a bare FIN of an established
  // connection is queued like data).
  if (*tlenp == 0 && !th_fin) return 0;
  std::ptrdiff_t p = -1;  // the entry the new one goes after (-1: at the head)
  if (!sq.empty()) {
    tseg_qent& last = sq.back();
    if (th_fin && SEQ_LT(th_seq + static_cast<tcp_seq>(*tlenp), end_of(last))) {
      *tlenp = 0;  // a FIN before data already queued: dumped
      return 0;
    }
    if (SEQ_GEQ(th_seq, last.tqe_start) && SEQ_GEQ(end_of(last), th_seq)) {
      // The common case: it extends the last entry.
      if (SEQ_GT(end_of(last), th_seq)) {
        const int i = static_cast<int>(end_of(last) - th_seq);
        if (i < *tlenp) {
          th_seq += static_cast<tcp_seq>(i);
          *tlenp -= i;
        } else {
          *tlenp = last.tqe_len;  // complete overlap: a duplicate
          *seq_start = last.tqe_start;
          return 0;
        }
      }
      if (last.tqe_flags & TH_FIN) {
        *tlenp = 0;  // data after the FIN
        return 0;
      }
      append(tp, last, *tlenp, th_fin);
      *seq_start = last.tqe_start;
      *tlenp = last.tqe_len;
      return 0;
    }
    if (SEQ_GT(th_seq, end_of(last))) {
      // Another gap, and something new for the end.
      if (last.tqe_flags & TH_FIN) {
        *tlenp = 0;
        return 0;
      }
      p = static_cast<std::ptrdiff_t>(sq.size()) - 1;
      goto new_entry;
    }
  } else {
    goto new_entry;
  }
  {
    tseg_qent& first = sq.front();
    const tcp_seq th_end = th_seq + static_cast<tcp_seq>(*tlenp);
    if (SEQ_LT(th_seq, first.tqe_start) && SEQ_GEQ(th_end, first.tqe_start) && SEQ_LT(th_end, end_of(first))) {
      // It runs into the head of the queue: prepended.
      if (SEQ_LT(th_seq, tp.rcv_nxt)) {  // not pre-trimmed (FreeBSD panics under INVARIANTS)
        const int i = static_cast<int>(tp.rcv_nxt - th_seq);
        th_seq += static_cast<tcp_seq>(i);
        *tlenp -= i;
      }
      prepend(tp, first, th_seq, *tlenp);
      *seq_start = first.tqe_start;
      *tlenp = first.tqe_len;
      return tcp_reass_present(tp, so);
    }
    if (SEQ_LT(th_end, first.tqe_start)) goto new_entry;  // before the first entry, with a gap
    // The first entry that begins after the new data does.
    std::size_t q = 0;
    while (q < sq.size() && !SEQ_GT(sq[q].tqe_start, th_seq)) ++q;
    // FreeBSD's walk always finds one here: the new data starts before the
    // end of the last entry (the cases above took everything else), and an
    // entry starting at or before th_seq would have been `last`.
    const std::ptrdiff_t pi = static_cast<std::ptrdiff_t>(q) - 1;
    if (q < sq.size() && SEQ_LT(th_end, sq[q].tqe_start) &&
        (pi < 0 || SEQ_GT(th_seq, end_of(sq[static_cast<std::size_t>(pi)])))) {
      p = pi;  // fits between two entries without touching either
      goto new_entry;
    }
    std::size_t ent;
    if (pi >= 0 && SEQ_LEQ(th_seq, end_of(sq[static_cast<std::size_t>(pi)]))) {
      tseg_qent& pe = sq[static_cast<std::size_t>(pi)];
      const int i = static_cast<int>(end_of(pe) - th_seq);
      if (i >= 0) {
        if (i >= *tlenp) {
          *tlenp = pe.tqe_len;  // inside the previous entry: a duplicate
          *seq_start = pe.tqe_start;
          return 0;
        }
        if (i > 0) {
          *tlenp -= i;
          th_seq += static_cast<tcp_seq>(i);
        }
      }
      if (th_seq == end_of(pe)) {
        append(tp, pe, *tlenp, th_fin);
      } else {
        *tlenp = 0;
        return 0;
      }
      ent = static_cast<std::size_t>(pi);
    } else if (q == sq.size()) {
      *tlenp = 0;  // unreachable, see above
      return 0;
    } else {
      // It runs over the start of the next entry: replaces it if it covers
      // it, else is prepended to it.
      tseg_qent& qe = sq[q];
      if (SEQ_GEQ(th_seq + static_cast<tcp_seq>(*tlenp), end_of(qe))) {
        qe.tqe_start = th_seq;
        qe.tqe_len = *tlenp;
        qe.tqe_flags = th_fin ? TH_FIN : 0;
        ++tp.t_rcvoopack;
      } else {
        prepend(tp, qe, th_seq, *tlenp);
      }
      ent = q;
    }
    merge_forward(tp, ent);
    *seq_start = sq[ent].tqe_start;
    *tlenp = sq[ent].tqe_len;
    return tcp_reass_present(tp, so);
  }

new_entry:
  if (th_seq == tp.rcv_nxt) {
    // The missing segment itself: straight to the socket buffer.
    tp.rcv_nxt += static_cast<tcp_seq>(*tlenp);
    so.appended += static_cast<std::uint32_t>(*tlenp);
    return th_fin ? TH_FIN : 0;
  }
  {
    // The queue limit: a full window's worth of segments, at most maxqueuelen.
    const unsigned limit = std::min<unsigned>(so.sb_hiwat / tp.t_maxseg + 1, so.maxqueuelen);
    if (static_cast<unsigned>(tp.t_segqlen) >= limit || sq.size() >= sq.capacity()) {
      *tlenp = 0;  // tcps_rcvreassfull
      return 0;
    }
  }
  ++tp.t_segqlen;
  ++tp.t_rcvoopack;
  sq.insert(sq.begin() + (p + 1), tseg_qent{th_seq, *tlenp, static_cast<std::uint8_t>(th_fin ? TH_FIN : 0)});
  return tcp_reass_present(tp, so);
}

}  // namespace netsim::tcp
