// The receive side of FreeBsdTcpSender: the parts of tcp_do_segment that
// handle the segment's text, tcp_autorcvbuf, and tcp_output's receive-window
// computation and SACK option (see freebsd_tcp_sender.h for the sources
// followed, docs/freebsd-receiver.md for the rules).
#include <algorithm>

#include "netsim/tcp/freebsd/tcp_receive.h"
#include "netsim/tcp/freebsd_tcp_sender.h"

namespace netsim::tcp {
namespace {

bool tstmp_lt(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) < 0; }

// sbreserve_locked_limit refuses a size above BUF_MAX_ADJ(sb_max): sb_max
// scaled by MCLBYTES / (MSIZE + MCLBYTES), the payload share of a cluster.
constexpr std::uint64_t buf_max_adj(std::uint64_t sb_max) { return sb_max * 2048 / (256 + 2048); }

}  // namespace

// DELAY_ACK(tp, tlen): no delayed ACK pending, the last window we sent was
// not zero, no more than one segment's worth (an LRO aggregate is ACKed at
// once), delayed ACKs on.
bool FreeBsdTcpSender::delay_ack(int tlen) const {
  return !delack_.pending() && (tp_.t_flags & TF_RXWIN0SENT) == 0 && static_cast<std::uint32_t>(tlen) <= tp_.t_maxseg &&
         config_.delayed_ack;
}

void FreeBsdTcpSender::sbappend(std::uint32_t bytes) {
  so_rcv_cc_ += bytes;
  bytes_received_ += bytes;
  data_for_app_ += bytes;
}

void FreeBsdTcpSender::sbreserve_rcv(std::uint32_t newsize) {
  if (newsize > buf_max_adj(config_.sb_max)) {
    so_rcv_autosize_ = false;  // "give up when limit is reached"
    return;
  }
  so_rcv_hiwat_ = newsize;
  ++stats_.rcvbuf_grows;
}

// tcp_autorcvbuf: at most once per half smoothed RTT (in ticks, measured on
// the millisecond timestamp clock), grow so_rcv by half when more than 3/8
// of it arrived in that time.
int FreeBsdTcpSender::tcp_autorcvbuf(int tlen) {
  int newsize = 0;
  const std::uint32_t elapsed_ms = ts_now() - tp_.rfbuf_ts;
  const std::int64_t elapsed_ticks = static_cast<std::int64_t>(elapsed_ms) * timers_.hz / 1000;  // TCP_TS_TO_TICKS
  if (config_.recvbuf_auto && so_rcv_autosize_ && tp_.t_srtt != 0 && tp_.rfbuf_ts != 0 &&
      elapsed_ticks > ((tp_.t_srtt >> TCP_RTT_SHIFT) / 2)) {
    if (tp_.rfbuf_cnt > (so_rcv_hiwat_ / 2) / 4 * 3 && so_rcv_hiwat_ < config_.recvbuf_max) {
      newsize = static_cast<int>(std::min(so_rcv_hiwat_ + so_rcv_hiwat_ / 2, config_.recvbuf_max));
    }
    tp_.rfbuf_ts = 0;
    tp_.rfbuf_cnt = 0;
  } else {
    tp_.rfbuf_cnt += static_cast<std::uint32_t>(tlen);
  }
  return newsize;
}

// Header prediction (tcp_do_segment), the receiver's case. The timestamp is
// recorded for every candidate; in-order data with a pure ACK and room in
// the buffer then takes the fast path. Pure ACKs go on through the general
// ACK processing, which does what FreeBSD's fast path for them does.
bool FreeBsdTcpSender::header_prediction_data(const Packet& p, std::uint32_t tiwin) {
  const TcpSegmentInfo& th = p.tcp;
  const bool candidate =
      state_ == State::established && th.seq == tp_.rcv_nxt &&
      (th.flags & (tcp_flags::kSyn | tcp_flags::kFin | tcp_flags::kRst | tcp_flags::kAck)) == tcp_flags::kAck &&
      tp_.snd_nxt == tp_.snd_max && tiwin != 0 && tiwin == tp_.snd_wnd && SEGQ_EMPTY(tp_) &&
      (!th.ts_present || !tstmp_lt(th.ts_val, ts_recent_));
  if (!candidate) return false;
  const int tlen = static_cast<int>(p.payload_bytes);
  if (tlen == 0) return false;  // a pure ACK: update_ts_recent's rule for it
  if (ts_on_ && th.ts_present && SEQ_LEQ(th.seq, tp_.last_ack_sent)) ts_recent_ = th.ts_val;
  if (th.ack != tp_.snd_una || static_cast<std::uint32_t>(tlen) > sbspace()) return false;
  if (sack_on_ && tp_.rcv_numsacks != 0) tcp_clean_sackreport(tp_);
  tp_.rcv_nxt += static_cast<tcp_seq>(tlen);
  snd_wl1_ = th.seq;
  const int newsize = tcp_autorcvbuf(tlen);
  if (newsize != 0) sbreserve_rcv(static_cast<std::uint32_t>(newsize));
  sbappend(static_cast<std::uint32_t>(tlen));
  if (delay_ack(tlen)) {
    tp_.t_flags |= TF_DELACK;
  } else {
    tp_.t_flags |= TF_ACKNOW;
    tcp_output();
  }
  return true;  // check_delack follows in deliver()
}

// The slow path's window bookkeeping and trimming, before ACK processing:
// rcv_wnd; data already received comes off the front (an ACK now, and a
// D-SACK block for it); data beyond the window off the end. Returns false
// for dropafterack (nothing of the segment fits: an ACK has been sent).
bool FreeBsdTcpSender::trim_to_window(std::uint32_t& th_seq, int& tlen, bool& fin) {
  const std::int64_t win = sbspace();
  tp_.rcv_wnd = static_cast<std::uint32_t>(
      std::max<std::int64_t>(win, static_cast<std::int32_t>(tp_.rcv_adv - tp_.rcv_nxt)));
  int todrop = static_cast<std::int32_t>(tp_.rcv_nxt - th_seq);
  if (todrop > 0) {
    if (todrop > tlen || (todrop == tlen && !fin)) {
      fin = false;  // a FIN left of the window is a duplicate
      tp_.t_flags |= TF_ACKNOW;
      todrop = tlen;
      if (tlen > 0) ++stats_.duplicate_packets;
    }
    if (todrop > 0 && sack_on_) {
      tcp_update_sack_list(tp_, th_seq, th_seq + static_cast<tcp_seq>(todrop));
      tp_.t_flags |= TF_ACKNOW;  // the next in-order segment would clear the D-SACK block again
    }
    th_seq += static_cast<tcp_seq>(todrop);
    tlen -= todrop;
  }
  todrop = static_cast<std::int32_t>(th_seq + static_cast<tcp_seq>(tlen) - (tp_.rcv_nxt + tp_.rcv_wnd));
  if (todrop > 0) {
    ++stats_.after_window_packets;
    if (todrop >= tlen) {
      if (tp_.rcv_wnd == 0 && th_seq == tp_.rcv_nxt) {
        tp_.t_flags |= TF_ACKNOW;  // a window probe
      } else {
        tp_.t_flags |= TF_ACKNOW;  // dropafterack
        tcp_output();
        return false;
      }
    }
    tlen = std::max(0, tlen - todrop);
    fin = false;
  }
  return true;
}

// RFC 7323 TS.Recent: a segment with data (or FIN) counts if it covers
// the last ACK we sent, so that with a delayed ACK pending the echo is the
// first unacknowledged segment's. A pure ACK keeps the sender's earlier
// rule, any at or below rcv_nxt (docs/tcp-sender.md, "Known differences").
void FreeBsdTcpSender::update_ts_recent(const TcpSegmentInfo& th, std::uint32_t th_seq, int tlen, bool fin) {
  if (!ts_on_ || !th.ts_present) return;
  if (tlen == 0 && !fin) {
    if (SEQ_LEQ(th.seq, tp_.rcv_nxt)) ts_recent_ = th.ts_val;
  } else if (SEQ_LEQ(th_seq, tp_.last_ack_sent) &&
             SEQ_LEQ(tp_.last_ack_sent, th_seq + static_cast<tcp_seq>(tlen) + (fin ? 1u : 0u))) {
    ts_recent_ = th.ts_val;
  }
}

// dodata: in-order data with an empty queue is appended (DELAY_ACK decides
// the ACK), anything else goes through tcp_reass with an immediate ACK; the
// SACK report is updated as tcp_do_segment does; then a FIN.
void FreeBsdTcpSender::tcp_dodata(const Packet& p, std::uint32_t th_seq, int tlen, bool fin) {
  if ((tlen == 0 && !fin) || state_ == State::close_wait) return;  // TCPS_HAVERCVDFIN: the text is ignored
  const tcp_seq save_start = th_seq;
  const tcp_seq save_rnxt = tp_.rcv_nxt;
  const int save_tlen = tlen;
  bool fin_in_order = false;
  if (th_seq == tp_.rcv_nxt && SEGQ_EMPTY(tp_)) {
    if (delay_ack(tlen)) {
      tp_.t_flags |= TF_DELACK;
    } else {
      tp_.t_flags |= TF_ACKNOW;
    }
    tp_.rcv_nxt += static_cast<tcp_seq>(tlen);
    fin_in_order = fin;
    sbappend(static_cast<std::uint32_t>(tlen));
  } else {
    TcpReassSocket so{so_rcv_hiwat_, config_.reass_maxqueuelen, 0};
    tcp_seq seq_start = save_start;
    if (th_seq != tp_.rcv_nxt) {
      ++stats_.ooo_packets;
      stats_.ooo_segments += std::max<std::uint16_t>(1, p.segments);
    }
    fin_in_order = (tcp_reass(tp_, th_seq, fin, &seq_start, &tlen, so) & TH_FIN) != 0;
    if (tlen == 0 && save_tlen > 0) ++stats_.reass_drops;
    sbappend(so.appended);
    tp_.t_flags |= TF_ACKNOW;
  }
  if (sack_on_ && save_tlen > 0) {
    if (tlen == 0 && SEQ_LT(save_start, save_rnxt)) {
      tcp_update_sack_list(tp_, save_start, save_start + static_cast<tcp_seq>(save_tlen));
    } else if (tlen > 0 && SEQ_GT(tp_.rcv_nxt, save_rnxt)) {
      if (tp_.rcv_numsacks >= 1 && tp_.sackblks[0].end == save_start) {
        // The partial overlap recorded while trimming.
        tcp_update_sack_list(tp_, tp_.sackblks[0].start, tp_.sackblks[0].end);
      } else {
        tcp_update_dsack_list(tp_, save_start, save_start + static_cast<tcp_seq>(save_tlen));
      }
    } else if (tlen >= save_tlen) {
      tcp_update_dsack_list(tp_, save_start, save_start + static_cast<tcp_seq>(save_tlen));
    } else if (tlen > 0) {
      tcp_update_dsack_list(tp_, save_start, save_start + static_cast<tcp_seq>(tlen));
    }
  }
  if (fin_in_order && state_ == State::established) {
    // No more input can come: ACK the FIN now; ESTABLISHED -> CLOSE_WAIT.
    tp_.t_flags |= TF_ACKNOW;
    ++tp_.rcv_nxt;
    state_ = State::close_wait;
    peer_fin_event_ = true;
  }
}

// soreceive, then pru_rcvd: the application takes what arrived (its copy to
// user space costs CPU time), and tcp_output may send a window update.
void FreeBsdTcpSender::read_received() {
  if (data_for_app_ > 0) {
    const std::uint64_t n = data_for_app_;
    data_for_app_ = 0;
    if (HostCpu* cpu = host_.cpu()) cpu->run_copy(n);
    so_rcv_cc_ -= static_cast<std::uint32_t>(std::min<std::uint64_t>(n, so_rcv_cc_));
    tcp_output();
    if (on_data_) on_data_(n);
  }
  if (peer_fin_event_) {
    peer_fin_event_ = false;
    if (on_peer_fin_) on_peer_fin_();
  }
}

// recwin: so_rcv's free space, at most what the window field can carry.
std::int64_t FreeBsdTcpSender::output_recwin() const {
  return std::min<std::int64_t>(sbspace(), static_cast<std::int64_t>(TCP_MAXWIN) << tp_.rcv_scale);
}

// tcp_output's standalone window update: only when the window can grow by
// two segments and by a quarter of the buffer (or the buffer is small or
// nearly full), or by half the buffer; never with a delayed ACK pending or
// after the peer's FIN.
bool FreeBsdTcpSender::window_update_due(std::int64_t recwin) const {
  if (recwin <= 0 || (tp_.t_flags & TF_DELACK) != 0 || state_ == State::close_wait) return false;
  std::int64_t adv = recwin;
  std::int64_t oldwin = 0;
  if (SEQ_GT(tp_.rcv_adv, tp_.rcv_nxt)) {
    oldwin = static_cast<std::int64_t>(tp_.rcv_adv - tp_.rcv_nxt);
    adv = adv > oldwin ? adv - oldwin : 0;
  }
  if ((oldwin >> tp_.rcv_scale) >= ((adv + oldwin) >> tp_.rcv_scale)) return false;  // same once scaled
  const std::int64_t hiwat = so_rcv_hiwat_;
  const std::int64_t maxseg = tp_.t_maxseg;
  if (adv >= 2 * maxseg && (adv >= hiwat / 4 || recwin <= hiwat / 8 || hiwat <= 8 * maxseg ||
                            adv >= (static_cast<std::int64_t>(TCP_MAXWIN) << tp_.rcv_scale))) {
    return true;
  }
  return 2 * adv >= hiwat;
}

// The window field of a segment: no silly small window, never shrink below
// what was advertised, rounded up to the scale (tcp_output); records
// TF_RXWIN0SENT. `recwin` becomes the advertised value.
std::uint32_t FreeBsdTcpSender::advertise(std::int64_t& recwin) {
  if (recwin < so_rcv_hiwat_ / 4 && recwin < tp_.t_maxseg) recwin = 0;
  if (SEQ_GT(tp_.rcv_adv, tp_.rcv_nxt) && recwin < static_cast<std::int64_t>(tp_.rcv_adv - tp_.rcv_nxt)) {
    recwin = static_cast<std::int64_t>(tp_.rcv_adv - tp_.rcv_nxt);
  }
  const std::int64_t unit = std::int64_t{1} << tp_.rcv_scale;
  recwin = (recwin + unit - 1) & ~(unit - 1);  // roundup2
  const std::uint32_t field = static_cast<std::uint32_t>(std::min<std::int64_t>(recwin >> tp_.rcv_scale, TCP_MAXWIN));
  if (field == 0) {
    tp_.t_flags |= TF_RXWIN0SENT;
  } else {
    tp_.t_flags &= ~TF_RXWIN0SENT;
  }
  return field;
}

// The SACK blocks a segment sent now carries: the report's first ones, as
// many as tcp_addoptions fits beside the timestamps.
int FreeBsdTcpSender::sack_blocks_to_send() const {
  if (!sack_on_ || tp_.rcv_numsacks == 0) return 0;
  return std::min({tp_.rcv_numsacks, tcp_sack_blocks_that_fit(ts_on_), TCP_MAX_SACK});
}

// NOP NOP, kind and length, 8 bytes a block (besides the timestamps' 12).
std::uint32_t FreeBsdTcpSender::sack_option_bytes() const {
  const int n = sack_blocks_to_send();
  return n > 0 ? 4u + 8u * static_cast<std::uint32_t>(n) : 0u;
}

void FreeBsdTcpSender::fill_sack_option(Packet& p) const {
  const int n = sack_blocks_to_send();
  p.tcp.sack_block_count = static_cast<std::uint8_t>(n);
  for (int i = 0; i < n; ++i) {
    p.tcp.sack_blocks[static_cast<std::size_t>(i)] = {tp_.sackblks[static_cast<std::size_t>(i)].start,
                                                      tp_.sackblks[static_cast<std::size_t>(i)].end};
  }
}

// After a segment went out: the autotuning measurement starts, D-SACK blocks
// that were sent are dropped, rcv_adv and last_ack_sent follow.
void FreeBsdTcpSender::ack_sent(std::int64_t recwin, bool sack_blocks) {
  if (tp_.rfbuf_ts == 0 && so_rcv_autosize_) tp_.rfbuf_ts = ts_now();
  if (sack_blocks) {
    ++stats_.sack_acks_sent;
    if (tcp_dsack_block_exists(tp_)) ++stats_.dsack_acks_sent;
  }
  if (sack_on_ && tp_.rcv_numsacks > 0) tcp_clean_dsack_blocks(tp_);
  if (SEQ_GT(tp_.rcv_nxt + static_cast<tcp_seq>(recwin), tp_.rcv_adv)) tp_.rcv_adv = tp_.rcv_nxt + static_cast<tcp_seq>(recwin);
  tp_.last_ack_sent = tp_.rcv_nxt;
}

}  // namespace netsim::tcp
