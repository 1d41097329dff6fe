// Linux 6.18 TCP sender: the order of calls of tcp_write_xmit, tcp_ack,
// tcp_fastretrans_alert, tcp_cong_control and tcp_retransmit_timer, over
// the ported arithmetic (own code, no source text). Read at
// Kingxukai/linux @ 9b44fff655e2c6f4cc53cb499dd2c038e99cb013:
//   net/ipv4/tcp_output.c, net/ipv4/tcp_input.c, net/ipv4/tcp_recovery.c,
//   net/ipv4/tcp_timer.c. See docs/linux-sender.md.
#include "netsim/tcp/linux/linux_tcp_sender.h"

#include <algorithm>

#include "netsim/tcp/linux/tcp_cong.h"
#include "netsim/tcp/linux/tcp_input.h"
#include "netsim/tcp/linux/tcp_output.h"
#include "netsim/tcp/linux/tcp_timer.h"
#include "netsim/tcp/tcp_segment.h"

namespace netsim::tcp::lnx {
namespace {

constexpr std::uint32_t kAdvertisedWindow = 65535;  // we receive almost nothing
// tcp_ack() flags.
constexpr int FLAG_DATA_ACKED = 0x04;
constexpr int FLAG_DATA_SACKED = 0x20;
constexpr int FLAG_FORWARD_PROGRESS = FLAG_DATA_ACKED | FLAG_DATA_SACKED;

bool in_cwnd_reduction(const LinuxTcpSock& tp) {
  return ((1u << tp.icsk_ca_state) & ((1u << TCP_CA_CWR) | (1u << TCP_CA_Recovery))) != 0;
}

}  // namespace

LinuxTcpSender::LinuxTcpSender(Simulation& sim, std::string name, Host& host, NodeId peer, std::uint16_t peer_port,
                               const LinuxTcpConfig& config)
    : Component(sim, std::move(name)),
      host_(host),
      clock_(host.clock()),
      peer_(peer),
      peer_port_(peer_port),
      local_port_(host.ephemeral_port()),
      config_(config),
      ca_(make_congestion_ops(config.cc)),
      retrans_(host.clock(), this, kRetransTimer),
      reo_(host.clock(), this, kReoTimer) {
  host.bind(IpProtocol::tcp, local_port_, this);
  tp_.clock.hz = static_cast<int>(clock_.hz());
  tp_.icsk_rto_min = TCP_RTO_MIN(tp_.clock.hz);
  tp_.icsk_rto = TCP_TIMEOUT_INIT(tp_.clock.hz);
  tp_.reordering = config_.reordering;
  tp_.mss_cache = default_mss(host.ip_version());
  Rng rng = sim.rng_stream("tcp/" + this->name() + "/iss");
  iss_ = static_cast<std::uint32_t>(rng.next_u64());
  ts_offset_ = static_cast<std::uint32_t>(rng.next_u64());
  refresh_clock();
}

LinuxTcpSender::~LinuxTcpSender() = default;

void LinuxTcpSender::refresh_clock() {
  tp_.clock.jiffies = static_cast<std::uint32_t>(clock_.ticks());
  tp_.clock.mstamp_us = static_cast<std::uint64_t>(sim().now() / kPicosPerMicro);
}

// tcp_time_stamp_ts: milliseconds (no usec timestamps negotiated).
std::uint32_t LinuxTcpSender::ts_now() const { return static_cast<std::uint32_t>(sim().now() / kPicosPerMilli); }

std::uint64_t LinuxTcpSender::send_buffer_room() const {
  const std::uint32_t used = tp_.write_seq - tp_.snd_una;
  return used >= config_.wmem_max ? 0 : config_.wmem_max - used;
}

TcpSocketInfo LinuxTcpSender::info() const {
  TcpSocketInfo i;
  i.snd_cwnd_bytes = tp_.snd_cwnd * tp_.mss_cache;
  i.snd_wnd_bytes = tp_.snd_wnd;
  i.mss = tp_.mss_cache;
  i.rtt_us = tp_.srtt_us >> 3;
  i.rttvar_us = tp_.mdev_us >> 2;
  i.retransmits = tp_.total_retrans;
  i.rto_count = stats_.rto_count;
  i.recovery_episodes = stats_.recovery_episodes;
  i.data_segments_sent = stats_.data_segments_sent;
  i.bytes_sent = stats_.bytes_sent;
  return i;
}

std::uint64_t LinuxTcpSender::write(std::uint64_t bytes) {
  const std::uint64_t n = std::min(bytes, send_buffer_room());
  tp_.write_seq += static_cast<std::uint32_t>(n);
  bytes_written_ += n;
  if (state_ == State::established && n > 0) {
    refresh_clock();
    tcp_write_xmit();
  }
  return n;
}

void LinuxTcpSender::refill() {
  if (!unlimited_) return;
  const std::uint64_t room = send_buffer_room();
  tp_.write_seq += static_cast<std::uint32_t>(room);
  bytes_written_ += room;
}

void LinuxTcpSender::connect() {
  refresh_clock();
  state_ = State::syn_sent;
  tp_.snd_una = tp_.snd_nxt = tp_.write_seq = iss_;
  send_syn();
  retrans_.reset(tp_.icsk_rto);
}

Packet* LinuxTcpSender::new_segment() { return new_tcp_segment(sim(), peer_, local_port_, peer_port_); }

void LinuxTcpSender::send_syn() {
  Packet* p = new_segment();
  fill_syn(*p, iss_,
           SynOptions{static_cast<std::uint16_t>(route_mss(host_, peer_)), config_.request_wscale, config_.sack,
                      config_.timestamps, ts_now() + ts_offset_});
  syn_sent_us_ = tp_.clock.mstamp_us;
  tp_.snd_nxt = tp_.write_seq = iss_ + 1;
  host_.send(p);
}

AckFields LinuxTcpSender::ack_fields() const {
  return AckFields{rcv_nxt_, kAdvertisedWindow >> config_.request_wscale, ts_on_, ts_now() + ts_offset_, ts_recent_};
}

void LinuxTcpSender::send_ack() {
  Packet* p = new_segment();
  fill_segment(*p, tp_.snd_nxt, tcp_flags::kAck, 0, ack_fields());
  host_.send(p);
}

void LinuxTcpSender::handle_syn_ack(const Packet& p) {
  const TcpSegmentInfo& th = p.tcp;
  rcv_nxt_ = th.seq + 1;
  snd_wscale_ = th.wscale != 0xff ? std::min<std::uint8_t>(th.wscale, 14) : 0;
  sack_on_ = config_.sack && th.sack_permitted;
  ts_on_ = config_.timestamps && th.ts_present;
  if (ts_on_) ts_recent_ = th.ts_val;
  // tcp_sync_mss / tcp_mss_clamp: path MTU and the peer's offer, less the timestamp option.
  const std::uint32_t path_mss = route_mss(host_, peer_);
  // Without an MSS option mss_clamp stays at its default (tcp_v6_connect: 1220 over IPv6).
  const std::uint32_t clamp = th.mss != 0 ? th.mss : default_mss(host_.ip_version());
  tp_.mss_cache = std::min<std::uint32_t>(path_mss, clamp) - (ts_on_ ? 12u : 0u);
  tp_.snd_wnd = th.window;  // a SYN's window is never scaled
  tp_.max_window = tp_.snd_wnd;
  tp_.snd_una = th.ack;
  retrans_.stop();
  // tcp_synack_rtt_meas: the SYN's round trip seeds srtt and the RTO.
  const long rtt_us = static_cast<long>(tp_.clock.mstamp_us - syn_sent_us_);
  tcp_rtt_estimator(tp_, std::max(1L, rtt_us));
  tcp_set_rto(tp_);
  tp_.min_rtt_us = static_cast<std::uint32_t>(std::max(1L, rtt_us));
  // tcp_init_transfer: module init, initial window.
  ca_->init(tp_);
  tp_.snd_cwnd = config_.init_cwnd;
  tp_.snd_cwnd_stamp = tp_.clock.jiffies;
  tp_.lsndtime = tp_.clock.jiffies;
  tcp_update_pacing_rate(tp_);
  rtx_.assign(config_.wmem_max / tp_.mss_cache + 2, Skb{});
  rtx_head_ = 0;
  state_ = State::established;
  send_ack();
  refill();
  tcp_write_xmit();
  if (on_established_) on_established_();
}

void LinuxTcpSender::deliver(Packet* p) {
  refresh_clock();
  peer_data_.pending = 0;
  if (state_ == State::syn_sent) {
    if (is_syn_ack_for(*p, iss_)) handle_syn_ack(*p);
  } else if (state_ == State::established && (p->tcp.flags & tcp_flags::kAck) != 0 &&
             (p->tcp.flags & tcp_flags::kSyn) == 0) {
    if (ts_on_ && p->tcp.ts_present) ts_recent_ = p->tcp.ts_val;
    tcp_ack(*p);
    if (p->payload_bytes > 0) receive_data(*p);
    if (trace_) trace_(trace_sample(TcpTraceSample::Event::ack));
  }
  sim().packets().release(p);
  peer_data_.hand_over();
}

// In-order data from the peer (iperf3's control messages): ACKed at once,
// as the quick-ACK mode of a fresh connection does.
void LinuxTcpSender::receive_data(const Packet& p) {
  peer_data_.accept(rcv_nxt_, p);
  send_ack();
}

void LinuxTcpSender::push_skb(const Skb& s) {
  if (tp_.packets_out >= rtx_.size()) {  // not reached while MSS-sized skbs fill at most wmem_max
    std::rotate(rtx_.begin(), rtx_.begin() + rtx_head_, rtx_.end());
    rtx_head_ = 0;
    rtx_.resize(rtx_.size() * 2);
  }
  rtx_[(rtx_head_ + tp_.packets_out) % rtx_.size()] = s;
}

void LinuxTcpSender::pop_skb() { rtx_head_ = static_cast<std::uint32_t>((rtx_head_ + 1) % rtx_.size()); }

void LinuxTcpSender::emit(std::uint32_t seq, std::uint32_t len, bool first_of_burst, std::uint32_t segments,
                          std::uint32_t mss) {
  Packet* p = new_segment();
  set_gso_frame(*p, segments, mss);
  fill_segment(*p, seq, tcp_flags::kAck | tcp_flags::kPush, len, ack_fields());
  stats_.data_segments_sent += segments;
  stats_.bytes_sent += len;
  host_.send(p, first_of_burst);
}

// tcp_xmit_retransmit_queue: lost, not yet retransmitted skbs, in sequence
// order, while packets in flight stay under cwnd.
void LinuxTcpSender::tcp_xmit_retransmit_queue() {
  if (tp_.lost_out == 0) return;
  bool first = true;
  for (std::uint32_t i = 0; i < tp_.packets_out; ++i) {
    Skb& s = skb_at(i);
    if ((s.sacked & (kSackedAcked | kSackedRetrans)) || !(s.sacked & kLost)) continue;
    if (tcp_packets_in_flight(tp_) >= tcp_snd_cwnd(tp_)) break;
    s.sacked |= kSackedRetrans | kEverRetrans;
    s.xmit_us = tp_.clock.mstamp_us;
    ++tp_.retrans_out;
    ++tp_.total_retrans;
    if (in_cwnd_reduction(tp_)) ++tp_.prr_out;
    if (!tp_.undo_marker) tp_.undo_marker = tp_.snd_una;
    emit(s.seq, s.end_seq - s.seq, first);
    first = false;
    // The head's retransmission restarts the RTO (tcp_retransmit_skb on the head).
    if (i == 0) tcp_rearm_rto();
  }
}

// tcp_cwnd_validate: the strongest signal of cwnd use in this window.
void LinuxTcpSender::tcp_cwnd_validate(bool is_cwnd_limited) {
  if (!before(tp_.snd_una, tp_.cwnd_usage_seq) || is_cwnd_limited ||
      (!tp_.is_cwnd_limited && tp_.packets_out > tp_.max_packets_out)) {
    tp_.is_cwnd_limited = is_cwnd_limited;
    tp_.max_packets_out = tp_.packets_out;
    tp_.cwnd_usage_seq = tp_.snd_nxt;
  }
}

void LinuxTcpSender::tcp_write_xmit() {
  if (state_ != State::established) return;
  refill();
  tcp_xmit_retransmit_queue();
  const std::uint32_t mss = tp_.mss_cache;
  const std::uint32_t tso_segs = config_.tso ? tcp_tso_segs(tp_, mss) : 1;
  bool is_cwnd_limited = false;
  bool sent = false;
  while (tp_.write_seq != tp_.snd_nxt) {
    const std::uint32_t in_flight = tcp_packets_in_flight(tp_);
    if (in_flight >= tcp_snd_cwnd(tp_)) {  // tcp_cwnd_test
      is_cwnd_limited = true;
      break;
    }
    const std::uint32_t quota = std::min(tcp_snd_cwnd(tp_) - in_flight, tso_segs);
    const std::uint32_t wnd_end = tp_.snd_una + tp_.snd_wnd;
    std::uint32_t n = 0;
    const std::uint32_t burst_seq = tp_.snd_nxt;
    std::uint32_t burst_len = 0;
    while (n < quota && tp_.write_seq != tp_.snd_nxt) {
      const std::uint32_t len = std::min(mss, tp_.write_seq - tp_.snd_nxt);
      if (after(tp_.snd_nxt + len, wnd_end)) break;  // tcp_snd_wnd_test
      const bool was_empty = tp_.packets_out == 0;
      // tcp_event_data_sent: the first packet after idle restarts CUBIC's epoch.
      if (was_empty) ca_->cwnd_event(tp_, TcpCaEvent::CA_EVENT_TX_START);
      tp_.lsndtime = tp_.clock.jiffies;
      Skb s;
      s.seq = tp_.snd_nxt;
      s.end_seq = tp_.snd_nxt + len;
      s.xmit_us = tp_.clock.mstamp_us;
      push_skb(s);
      ++tp_.packets_out;
      if (tp_.icsk_ca_state == TCP_CA_Recovery) ++tp_.prr_out;
      tp_.snd_nxt += len;
      if (host_.tso_frames()) {
        burst_len += len;
      } else {
        emit(s.seq, len, n == 0);
      }
      if (was_empty) tcp_rearm_rto();  // tcp_event_new_data_sent
      ++n;
    }
    if (burst_len > 0) emit(burst_seq, burst_len, true, n, mss);
    if (n == 0) break;
    sent = true;
  }
  if (sent || is_cwnd_limited) {
    is_cwnd_limited |= tcp_packets_in_flight(tp_) >= tcp_snd_cwnd(tp_);
    tcp_cwnd_validate(is_cwnd_limited);
  }
}

void LinuxTcpSender::tcp_rearm_rto() {
  if (tp_.packets_out == 0) {
    retrans_.stop();
    return;
  }
  retrans_.reset(tp_.icsk_rto);
}

void LinuxTcpSender::tcp_mark_skb_lost(Skb& s) {
  if (!(s.sacked & kLost)) {
    s.sacked |= kLost;
    ++tp_.lost_out;
    ++tp_.lost;
  }
  if (s.sacked & kSackedRetrans) {  // a retransmission lost again
    s.sacked &= static_cast<std::uint8_t>(~kSackedRetrans);
    --tp_.retrans_out;
  }
}

std::uint32_t LinuxTcpSender::tcp_sacktag_write_queue(const Packet& p, std::uint32_t ack, std::int64_t& sack_rtt_us) {
  std::uint32_t newly = 0;
  for (std::uint8_t b = 0; b < p.tcp.sack_block_count; ++b) {
    const SackBlock& blk = p.tcp.sack_blocks[b];
    // A block at or below the cumulative ACK (or the first block inside the
    // second) reports a duplicate: RACK widens its reordering window.
    if (!after(blk.end, ack) ||
        (b == 0 && p.tcp.sack_block_count > 1 && !before(blk.start, p.tcp.sack_blocks[1].start) &&
         !after(blk.end, p.tcp.sack_blocks[1].end))) {
      tp_.rack.dsack_seen = true;
      ++stats_.dsacks;
      continue;
    }
    for (std::uint32_t i = 0; i < tp_.packets_out; ++i) {
      Skb& s = skb_at(i);
      if (before(s.seq, blk.start)) continue;
      if (after(s.end_seq, blk.end)) break;
      if (s.sacked & kSackedAcked) continue;
      // tcp_check_sack_reordering: a never-retransmitted skb SACKed below the highest SACK.
      if (!(s.sacked & kEverRetrans) && before(s.end_seq, highest_sack_end_)) {
        ++tp_.reord_seen;
        ++stats_.reorder_seen;
      }
      if (s.sacked & kSackedRetrans) {
        s.sacked &= static_cast<std::uint8_t>(~kSackedRetrans);
        --tp_.retrans_out;
      }
      if (s.sacked & kLost) {
        s.sacked &= static_cast<std::uint8_t>(~kLost);
        --tp_.lost_out;
      }
      tcp_rack_advance(tp_, s.sacked, s.end_seq, s.xmit_us);
      if (!(s.sacked & kEverRetrans) && sack_rtt_us < 0) {
        sack_rtt_us = tcp_stamp_us_delta(tp_.clock.mstamp_us, s.xmit_us);
      }
      s.sacked |= kSackedAcked;
      ++tp_.sacked_out;
      ++tp_.delivered;
      ++newly;
      if (after(s.end_seq, highest_sack_end_)) highest_sack_end_ = s.end_seq;
    }
  }
  return newly;
}

// tcp_rack_detect_loss over the skbs sent before the most recently
// delivered one; arms the reorder timer for those still inside reo_wnd.
bool LinuxTcpSender::tcp_rack_mark_lost() {
  if (!tp_.rack.advanced) return false;
  tp_.rack.advanced = false;
  // Nothing can be waiting when nothing is SACKed or retransmitted: every
  // unacknowledged skb was sent after the delivered ones.
  if (tp_.sacked_out == 0 && tp_.retrans_out == 0) return false;
  const std::uint32_t reo_wnd = tcp_rack_reo_wnd(tp_, config_.recovery);
  std::uint32_t reo_timeout = 0;
  bool marked = false;
  for (std::uint32_t i = 0; i < tp_.packets_out; ++i) {
    Skb& s = skb_at(i);
    if (s.sacked & kSackedAcked) continue;
    if ((s.sacked & kLost) && !(s.sacked & kSackedRetrans)) continue;
    const bool sent_before = tp_.rack.mstamp > s.xmit_us ||
                             (tp_.rack.mstamp == s.xmit_us && after(tp_.rack.end_seq, s.end_seq));
    if (!sent_before) continue;
    const std::int32_t remaining = tcp_rack_skb_timeout(tp_, s.xmit_us, reo_wnd);
    if (remaining <= 0) {
      tcp_mark_skb_lost(s);
      marked = true;
    } else {
      reo_timeout = std::max(reo_timeout, static_cast<std::uint32_t>(remaining));
    }
  }
  if (reo_timeout) reo_.reset(tcp_rack_reo_timeout_jiffies(tp_, reo_timeout));
  return marked;
}

void LinuxTcpSender::tcp_set_ca_state(std::uint8_t state) {
  if (ca_->has_set_state()) ca_->set_state(tp_, state);
  tp_.icsk_ca_state = state;
}

void LinuxTcpSender::tcp_try_to_open() {
  if (tp_.icsk_ca_state == TCP_CA_CWR) return;
  if (tcp_left_out(tp_) == 0 && tp_.retrans_out == 0) {
    if (tp_.icsk_ca_state != TCP_CA_Open) tcp_set_ca_state(TCP_CA_Open);
  } else if (tp_.icsk_ca_state != TCP_CA_Disorder) {
    tcp_set_ca_state(TCP_CA_Disorder);
  }
}

void LinuxTcpSender::tcp_enter_recovery() {
  ++stats_.recovery_episodes;
  tp_.prior_ssthresh = 0;
  tp_.undo_marker = tp_.snd_una;  // tcp_init_undo
  tp_.undo_retrans = static_cast<int>(tp_.retrans_out);
  if (!in_cwnd_reduction(tp_)) {
    tp_.prior_ssthresh = tcp_current_ssthresh(tp_);
    tcp_init_cwnd_reduction(tp_, *ca_);
  }
  tcp_set_ca_state(TCP_CA_Recovery);
}

// tcp_fastretrans_alert without undo: state exits when high_seq is
// ACKed, RACK loss marking, and entry into Recovery once something is lost.
void LinuxTcpSender::tcp_fastretrans_alert() {
  // D. State exit conditions.
  if (tp_.icsk_ca_state != TCP_CA_Open && !before(tp_.snd_una, tp_.high_seq)) {
    switch (tp_.icsk_ca_state) {
      case TCP_CA_CWR:
        if (tp_.snd_una != tp_.high_seq) {
          tcp_end_cwnd_reduction(tp_, *ca_);
          tcp_set_ca_state(TCP_CA_Open);
        }
        break;
      case TCP_CA_Recovery:
        tcp_set_ca_state(TCP_CA_Open);  // tcp_try_undo_recovery, nothing to undo
        tcp_end_cwnd_reduction(tp_, *ca_);
        break;
      case TCP_CA_Loss:
        tcp_set_ca_state(TCP_CA_Open);  // tcp_process_loss: recovered
        break;
      default:
        break;
    }
  }
  // E. Process the state.
  switch (tp_.icsk_ca_state) {
    case TCP_CA_Recovery:
    case TCP_CA_Loss:
      tcp_rack_mark_lost();
      break;
    default:
      tcp_rack_mark_lost();
      if (tp_.lost_out == 0) {  // !tcp_time_to_recover
        tcp_try_to_open();
        return;
      }
      tcp_enter_recovery();
      break;
  }
}

void LinuxTcpSender::tcp_ack(const Packet& p) {
  const std::uint32_t ack = p.tcp.ack;
  if (before(ack, tp_.snd_una) || after(ack, tp_.snd_nxt)) return;
  const std::uint32_t prior_snd_una = tp_.snd_una;
  const std::uint32_t prior_delivered = tp_.delivered;
  const std::uint32_t prior_lost = tp_.lost;
  int flag = 0;
  if (after(ack, prior_snd_una)) flag |= FLAG_SND_UNA_ADVANCED;
  tp_.snd_wnd = p.tcp.window << snd_wscale_;  // tcp_ack_update_window
  tp_.max_window = std::max(tp_.max_window, tp_.snd_wnd);
  tp_.rcv_tstamp = tp_.clock.jiffies;

  std::int64_t sack_rtt_us = -1;
  const std::uint32_t newly_sacked = sack_on_ ? tcp_sacktag_write_queue(p, ack, sack_rtt_us) : 0;
  if (newly_sacked) flag |= FLAG_DATA_SACKED;

  // tcp_clean_rtx_queue.
  std::uint32_t pkts_acked = 0;
  std::int64_t seq_rtt_us = -1;
  std::int64_t ca_rtt_us = -1;
  while (tp_.packets_out > 0 && !after(skb_at(0).end_seq, ack)) {
    Skb& s = skb_at(0);
    if (s.sacked & kSackedRetrans) --tp_.retrans_out;
    if (s.sacked & kLost) --tp_.lost_out;
    if (s.sacked & kSackedAcked) {
      --tp_.sacked_out;
    } else {
      ++tp_.delivered;
      ++pkts_acked;
      tcp_rack_advance(tp_, s.sacked, s.end_seq, s.xmit_us);
      if (!(s.sacked & kEverRetrans)) {
        const std::int64_t rtt = tcp_stamp_us_delta(tp_.clock.mstamp_us, s.xmit_us);
        if (seq_rtt_us < 0) seq_rtt_us = rtt;  // first_ackt
        ca_rtt_us = rtt;                        // last_ackt
      }
    }
    bytes_acked_ += s.end_seq - s.seq;
    pop_skb();
    --tp_.packets_out;
  }
  tp_.snd_una = ack;
  if (pkts_acked) flag |= FLAG_DATA_ACKED;
  // tcp_ack_update_rtt: cumulatively ACKed samples first, then SACKed ones.
  if (seq_rtt_us < 0) seq_rtt_us = sack_rtt_us;
  if (ca_rtt_us < 0) ca_rtt_us = sack_rtt_us;
  if (seq_rtt_us >= 0) {
    tp_.min_rtt_us = std::min(tp_.min_rtt_us, static_cast<std::uint32_t>(std::max<std::int64_t>(1, ca_rtt_us)));
    tcp_rtt_estimator(tp_, static_cast<long>(seq_rtt_us));
    tcp_set_rto(tp_);
    tp_.icsk_backoff = 0;
  }
  if (ca_->has_pkts_acked() && (pkts_acked || newly_sacked)) {
    AckSample sample;
    sample.pkts_acked = pkts_acked;
    sample.rtt_us = static_cast<std::int32_t>(ca_rtt_us);
    sample.in_flight = tp_.mss_cache * (tp_.delivered - prior_delivered);
    ca_->pkts_acked(tp_, sample);
  }
  tcp_rack_update_reo_wnd(tp_, prior_delivered, config_.recovery);
  if (flag & FLAG_SND_UNA_ADVANCED) {
    tp_.icsk_retransmits = 0;
    tcp_rearm_rto();
  }

  tcp_fastretrans_alert();

  // tcp_cong_control.
  const auto acked_sacked = static_cast<int>(tp_.delivered - prior_delivered);
  const auto newly_lost = static_cast<int>(tp_.lost - prior_lost);
  if (in_cwnd_reduction(tp_)) {
    tcp_cwnd_reduction(tp_, acked_sacked, newly_lost, flag);
  } else if (tp_.reordering > config_.reordering ? (flag & FLAG_FORWARD_PROGRESS) : (flag & FLAG_DATA_ACKED)) {
    ca_->cong_avoid(tp_, ack, static_cast<std::uint32_t>(acked_sacked));
    tp_.snd_cwnd_stamp = tp_.clock.jiffies;
  }
  tcp_update_pacing_rate(tp_);
  tcp_write_xmit();
}

// tcp_enter_loss: everything not SACKed is lost, cwnd = in flight + 1.
void LinuxTcpSender::tcp_enter_loss() {
  if (tp_.icsk_ca_state <= TCP_CA_Disorder || !after(tp_.high_seq, tp_.snd_una) ||
      (tp_.icsk_ca_state == TCP_CA_Loss && !tp_.icsk_retransmits)) {
    tp_.prior_ssthresh = tcp_current_ssthresh(tp_);
    tp_.prior_cwnd = tcp_snd_cwnd(tp_);
    tp_.snd_ssthresh = ca_->ssthresh(tp_);
    ca_->cwnd_event(tp_, TcpCaEvent::CA_EVENT_LOSS);
    tp_.undo_marker = tp_.snd_una;
  }
  // tcp_timeout_mark_lost.
  for (std::uint32_t i = 0; i < tp_.packets_out; ++i) {
    Skb& s = skb_at(i);
    if (s.sacked & kSackedAcked) continue;
    tcp_mark_skb_lost(s);
  }
  tp_.retrans_out = 0;
  tcp_snd_cwnd_set(tp_, tcp_packets_in_flight(tp_) + 1);
  tp_.snd_cwnd_cnt = 0;
  tp_.snd_cwnd_stamp = tp_.clock.jiffies;
  tcp_set_ca_state(TCP_CA_Loss);
  tp_.high_seq = tp_.snd_nxt;
}

void LinuxTcpSender::tcp_retransmit_timer() {
  if (tp_.packets_out == 0) return;
  ++stats_.rto_count;
  tcp_enter_loss();
  tcp_xmit_retransmit_queue();  // the head goes out (cwnd = in flight + 1)
  tcp_retransmit_timer_backoff(tp_);
  retrans_.reset(tp_.icsk_rto);
  if (trace_) trace_(trace_sample(TcpTraceSample::Event::rto));
}

// tcp_rack_reo_timeout: skbs whose reordering window has run out are lost.
void LinuxTcpSender::tcp_rack_reo_timeout() {
  ++stats_.rack_reo_timeouts;
  const std::uint32_t prior_lost = tp_.lost;
  tp_.rack.advanced = true;
  tcp_rack_mark_lost();
  if (tp_.lost != prior_lost) {
    if (tp_.icsk_ca_state != TCP_CA_Recovery && tp_.icsk_ca_state != TCP_CA_Loss) tcp_enter_recovery();
    tcp_xmit_retransmit_queue();
  }
  if (!retrans_.pending()) tcp_rearm_rto();
}

void LinuxTcpSender::handle_event(std::uint64_t tag) {
  refresh_clock();
  if (state_ == State::syn_sent && tag == kRetransTimer) {
    tp_.icsk_rto = std::min(tp_.icsk_rto << 1, TCP_RTO_MAX(tp_.clock.hz));
    send_syn();
    retrans_.reset(tp_.icsk_rto);
    return;
  }
  if (state_ != State::established) return;
  if (tag == kRetransTimer) tcp_retransmit_timer();
  if (tag == kReoTimer) tcp_rack_reo_timeout();
  tcp_write_xmit();
}

TcpTraceSample LinuxTcpSender::trace_sample(TcpTraceSample::Event event) const {
  TcpTraceSample s;
  s.time = sim().now();
  s.event = event;
  s.cwnd = tp_.snd_cwnd * tp_.mss_cache;
  s.ssthresh = tp_.snd_ssthresh >= TCP_INFINITE_SSTHRESH / tp_.mss_cache ? 0xffffffffu
                                                                           : tp_.snd_ssthresh * tp_.mss_cache;
  s.snd_wnd = tp_.snd_wnd;
  s.snd_una = bytes_acked_;
  s.snd_max = bytes_acked_ + (tp_.snd_nxt - tp_.snd_una);
  s.pipe = static_cast<int>(tcp_packets_in_flight(tp_) * tp_.mss_cache);
  s.sacked_bytes = static_cast<int>(tp_.sacked_out * tp_.mss_cache);
  s.srtt_us = tp_.srtt_us >> 3;
  s.rttvar_us = tp_.mdev_us >> 2;
  s.rto_us = jiffies_to_usecs(tp_.icsk_rto, tp_.clock.hz);
  s.in_recovery = tp_.icsk_ca_state == TCP_CA_Recovery;
  s.retransmits = tp_.total_retrans;
  s.recoveries = stats_.recovery_episodes;
  s.rtos = stats_.rto_count;
  return s;
}

}  // namespace netsim::tcp::lnx
