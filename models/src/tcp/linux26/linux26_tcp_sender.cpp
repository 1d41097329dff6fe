// Linux 2.6.12-2.6.14 TCP sender (own code, no source text). Followed:
//   2.6.12 net/ipv4/tcp_output.c (code index id 834396994): tcp_current_mss,
//     tcp_write_xmit, tcp_push_one, tcp_cwnd_validate;
//   2.6.15/16 net/ipv4/tcp_output.c (id 3865406) for 2.6.13/14's
//     tcp_write_xmit, tcp_push_one, tcp_tso_should_defer, tso_fragment,
//     tcp_cwnd_validate (no 2.6.13/14 copy was found; see tcp_output26.h);
//   net/ipv4/tcp.c tcp_sendmsg, forced_push, tcp_push and
//     net/core/stream.c sk_stream_wait_memory / sk_stream_write_space of the
//     same era (as described in the design note 1.4, and the 2.6 sources'
//     well-known shape); net/ipv4/tcp_input.c tcp_ack, tcp_clean_rtx_queue,
//     tcp_tso_acked, tcp_ack_saw_tstamp, tcp_rtt_estimator, tcp_cwnd_down,
//     tcp_data_snd_check, tcp_check_space (2.6.12 shape); the socket
//     backlog of net/core/sock.c release_sock.
// See docs/linux-2.6-sender.md.
#include "netsim/tcp/linux26/linux26_tcp_sender.h"

#include <algorithm>
#include <cassert>

#include "netsim/tcp/linux26/tcp_output26.h"
#include "netsim/tcp/tcp_segment.h"

namespace netsim::tcp::lnx26 {
namespace {

constexpr std::uint32_t kAdvertisedWindow = 65535;
// tcp_ack() flags (2.6).
constexpr int FLAG_DATA = 0x01;
constexpr int FLAG_WIN_UPDATE = 0x02;
constexpr int FLAG_DATA_ACKED = 0x04;
constexpr int FLAG_RETRANS_DATA_ACKED = 0x08;
constexpr int FLAG_SYN_ACKED = 0x10;
constexpr int FLAG_ACKED = FLAG_DATA_ACKED | FLAG_SYN_ACKED;
constexpr int FLAG_NOT_DUP = FLAG_DATA | FLAG_WIN_UPDATE | FLAG_ACKED;

std::uint32_t rto_min(int hz) { return static_cast<std::uint32_t>(hz / 5); }      // TCP_RTO_MIN
std::uint32_t rto_max(int hz) { return static_cast<std::uint32_t>(120 * hz); }    // TCP_RTO_MAX
std::uint32_t timeout_init(int hz) { return static_cast<std::uint32_t>(3 * hz); }  // TCP_TIMEOUT_INIT

}  // namespace

bool parse_kernel_version(const std::string& text, KernelVersion& out) {
  if (text == "2.6.12") {
    out = KernelVersion::v2_6_12;
  } else if (text == "2.6.13") {
    out = KernelVersion::v2_6_13;
  } else if (text == "2.6.14") {
    out = KernelVersion::v2_6_14;
  } else {
    return false;
  }
  return true;
}

const char* kernel_version_name(KernelVersion v) {
  switch (v) {
    case KernelVersion::v2_6_12:
      return "2.6.12";
    case KernelVersion::v2_6_13:
      return "2.6.13";
    case KernelVersion::v2_6_14:
      return "2.6.14";
  }
  return "?";
}

Linux26TcpSender::Linux26TcpSender(Simulation& sim, std::string name, Host& host, NodeId peer,
                                   std::uint16_t peer_port, const Linux26Config& config)
    : Component(sim, std::move(name)),
      host_(host),
      clock_(host.clock()),
      peer_(peer),
      peer_port_(peer_port),
      local_port_(host.ephemeral_port()),
      config_(config),
      divisor_(config.tso_win_divisor >= 0 ? config.tso_win_divisor : default_tso_win_divisor(config.version)),
      ca_(make_tcp26_congestion_ops(config.cc, config.version)),
      retrans_(host.clock(), this, kRetransTimer),
      probe_(host.clock(), this, kProbeTimer),
      writer_timer_(this, kWriterStep) {
  host.bind(IpProtocol::tcp, local_port_, this);
  host.set_sockets_charge_ack_input(true);
  tp_.hz = clock_.hz();
  tp_.rto = timeout_init(tp_.hz);
  tp_.mss_cache = default_mss(host.ip_version());
  Rng rng = sim.rng_stream("tcp/" + this->name() + "/iss");
  iss_ = static_cast<std::uint32_t>(rng.next_u64());
  ts_offset_ = static_cast<std::uint32_t>(rng.next_u64());
  refresh_clock();
}

Linux26TcpSender::~Linux26TcpSender() {
  while (Packet* p = backlog_.pop()) sim().packets().release(p);
}

void Linux26TcpSender::refresh_clock() { tp_.jiffies = static_cast<std::uint32_t>(clock_.ticks()); }

std::uint64_t Linux26TcpSender::send_buffer_room() const {
  return wmem_queued_ >= config_.sndbuf ? 0 : config_.sndbuf - wmem_queued_;
}

TcpSocketInfo Linux26TcpSender::info() const {
  TcpSocketInfo i;
  i.snd_cwnd_bytes = tp_.snd_cwnd * tp_.mss_cache;
  i.snd_wnd_bytes = tp_.snd_wnd;
  i.mss = tp_.mss_cache;
  // tcpi_rtt: srtt in jiffies << 3, as microseconds.
  i.rtt_us = static_cast<std::uint32_t>(static_cast<std::uint64_t>(tp_.srtt >> 3) * 1000000 / tp_.hz);
  i.rttvar_us = static_cast<std::uint32_t>(static_cast<std::uint64_t>(rttvar_ >> 2) * 1000000 / tp_.hz);
  i.retransmits = total_retrans_;
  i.rto_count = stats_.rto_count;
  i.recovery_episodes = stats_.recovery_episodes;
  i.data_segments_sent = stats_.data_segments_sent;
  i.bytes_sent = stats_.bytes_sent;
  return i;
}

// ---------------------------------------------------------------- the queue

void Linux26TcpSender::mark_send_head_sent() {
  sent_skbs_.push_back(unsent_skbs_.front());
  unsent_skbs_.pop_front();
}

void Linux26TcpSender::requeue_sent() {
  while (!sent_skbs_.empty()) {
    unsent_skbs_.push_front(sent_skbs_.back());
    sent_skbs_.pop_back();
  }
}

// tso_fragment / tcp_fragment: skb i keeps `first_len` bytes, the rest
// follows it as a skb of the same part of the queue. The split skb is the
// front of its ring, so the first part goes in front of the rest in O(1).
void Linux26TcpSender::fragment(std::uint32_t i, std::uint32_t first_len) {
  assert(i == 0 || i == sent_count());
  RingDeque<Skb>& part = i < sent_count() ? sent_skbs_ : unsent_skbs_;
  Skb first = part.front();
  first.end_seq = first.seq + first_len;
  part.front().seq = first.end_seq;
  part.push_front(first);
}

// ---------------------------------------------------------------- handshake

Packet* Linux26TcpSender::new_segment() { return new_tcp_segment(sim(), peer_, local_port_, peer_port_); }

void Linux26TcpSender::connect() {
  refresh_clock();
  state_ = State::syn_sent;
  tp_.snd_una = tp_.snd_nxt = tp_.write_seq = iss_;
  send_syn();
  retrans_.reset(tp_.rto);
}

void Linux26TcpSender::send_syn() {
  Packet* p = new_segment();
  fill_syn(*p, iss_,
           SynOptions{static_cast<std::uint16_t>(route_mss(host_, peer_)), config_.request_wscale, config_.sack,
                      config_.timestamps, tp_.jiffies + ts_offset_});
  syn_jiffies_ = tp_.jiffies;
  tp_.snd_nxt = tp_.write_seq = iss_ + 1;
  host_.send(p);
}

void Linux26TcpSender::handle_syn_ack(const Packet& p) {
  const TcpSegmentInfo& th = p.tcp;
  rcv_nxt_ = th.seq + 1;
  snd_wscale_ = th.wscale != 0xff ? std::min<std::uint8_t>(th.wscale, 14) : 0;
  ts_on_ = config_.timestamps && th.ts_present;
  if (ts_on_) ts_recent_ = th.ts_val;
  const std::uint32_t clamp = th.mss != 0 ? th.mss : default_mss(host_.ip_version());
  // tcp_sync_mss: path MTU and the peer's offer, less the timestamp option.
  tp_.mss_cache = std::min<std::uint32_t>(route_mss(host_, peer_), clamp) - (ts_on_ ? 12u : 0u);
  tp_.snd_wnd = th.window;
  tp_.max_window = tp_.snd_wnd;
  tp_.snd_una = th.ack;
  retrans_.stop();
  rtt_estimator(tp_.jiffies - syn_jiffies_);
  // tcp_init_cwnd: 2 segments for an MSS above 1460 (RFC 3390's rule).
  tp_.snd_cwnd = tp_.mss_cache > 1460 ? 2 : (tp_.mss_cache > 1095 ? 3 : 4);
  tp_.snd_cwnd_stamp = tp_.jiffies;
  ca_->init(tp_);
  // Room for a full send buffer of MSS skbs in either part: no growth later.
  sent_skbs_.reset(config_.sndbuf / tp_.mss_cache + 8);
  unsent_skbs_.reset(config_.sndbuf / tp_.mss_cache + 8);
  pushed_seq_ = tp_.write_seq;
  snd_sml_ = tp_.snd_una;
  state_ = State::established;
  send_ack();
  if (on_established_) on_established_();
  if (unlimited_) writer_run();
}

// ---------------------------------------------------------------- application

std::uint64_t Linux26TcpSender::write(std::uint64_t bytes) {
  // A write from an application model without the process loop: copied at
  // once (its CPU time charged), pushed as tcp_sendmsg's end does.
  if (state_ != State::established) return 0;
  refresh_clock();
  Host::ContextScope ctx(host_, Host::ExecContext::process);
  std::uint64_t done = 0;
  while (done < bytes && memory_free()) {
    const std::uint32_t goal = size_goal();
    const bool extend = !unsent_skbs_.empty() && len(unsent_skbs_.back()) < goal;
    const std::uint32_t room = extend ? goal - len(unsent_skbs_.back()) : goal;
    const auto copy = static_cast<std::uint32_t>(std::min<std::uint64_t>(room, bytes - done));
    if (!extend) queue_new_skb();
    unsent_skbs_.back().end_seq += copy;
    tp_.write_seq += copy;
    wmem_queued_ += copy;
    done += copy;
  }
  if (HostCpu* cpu = host_.cpu()) cpu->run_copy(done);
  bytes_written_ += done;
  tcp_push(false);
  return done;
}

void Linux26TcpSender::set_unlimited_data(bool on) {
  unlimited_ = on;
  if (on && state_ == State::established && !writer_busy_ && !writer_sleeping_) writer_run();
}

std::uint32_t Linux26TcpSender::size_goal() const {
  const std::uint32_t hdr = kTcpHeaderBytes + (ts_on_ ? 12u : 0u);
  if (!config_.tso) return tp_.mss_cache;
  return config_.version == KernelVersion::v2_6_12 ? current_mss_2_6_12(tp_, hdr, divisor_) : xmit_size_goal(tp_, hdr);
}

// The process: start or continue a sendmsg(write_len). One copy per skb
// fill, each taking the CPU time run_copy gives on the application's core;
// the socket is owned from the start of the sendmsg to its end (or to
// sk_stream_wait_memory).
void Linux26TcpSender::writer_run() {
  if (!unlimited_ || state_ != State::established || writer_busy_) return;
  writer_sleeping_ = false;
  if (sendmsg_left_ == 0) sendmsg_left_ = config_.write_len;
  owned_ = true;  // lock_sock
  const std::uint32_t goal = size_goal();
  const bool extend = !unsent_skbs_.empty() && len(unsent_skbs_.back()) < goal;
  if (!extend && !memory_free()) {
    // wait_for_sndbuf / wait_for_memory: push what is queued, sleep with the lock released.
    ++stats_.writer_sleeps;
    {
      Host::ContextScope ctx(host_, Host::ExecContext::process);
      tcp_push(true);
    }
    writer_sleeping_ = true;
    release_sock();
    return;
  }
  const std::uint32_t room = extend ? goal - len(unsent_skbs_.back()) : goal;
  copy_pending_ = std::min(room, sendmsg_left_);
  if (!extend) queue_new_skb();
  writer_busy_ = true;
  HostCpu* cpu = host_.cpu();
  const SimTime done = cpu != nullptr ? cpu->run_copy(copy_pending_) : sim().now();
  sim().arm_at(writer_timer_, std::max(done, sim().now()));
}

void Linux26TcpSender::writer_copy_done() {
  writer_busy_ = false;
  refresh_clock();
  // The skb the copy went to (a timer may have sent it meanwhile).
  Skb& tail = queue_tail();
  tail.end_seq += copy_pending_;
  tp_.write_seq += copy_pending_;
  wmem_queued_ += copy_pending_;
  bytes_written_ += copy_pending_;
  sendmsg_left_ -= copy_pending_;
  copy_pending_ = 0;
  {
    Host::ContextScope ctx(host_, Host::ExecContext::process);
    if (sendmsg_left_ == 0) {
      tcp_push(false);  // out: tcp_push(sk, tp, flags, mss_now, tp->nonagle)
      release_sock();
      writer_run();  // nuttcp's loop: the next write at once
      return;
    }
    if (len(tail) >= size_goal()) {
      if (forced_push()) {
        pushed_seq_ = tp_.write_seq;  // tcp_mark_push
        tcp_write_xmit(true);
      } else if (sent_count() == queued_count() - 1) {  // skb == sk_send_head
        tcp_push_one();
      }
    }
  }
  writer_run();
}

// release_sock: the ACKs that arrived while the process held the socket,
// processed now by the process (on its core, in its time).
void Linux26TcpSender::release_sock() {
  Host::ContextScope ctx(host_, Host::ExecContext::process);
  while (Packet* p = backlog_.pop()) {
    ++stats_.backlog_acks;
    tcp_rcv(p);
  }
  owned_ = false;
}

// tcp_check_space -> tcp_new_space -> sk_stream_write_space: wake the
// writer once free space is at least half of what is queued.
void Linux26TcpSender::check_space() {
  if (!writer_sleeping_) return;
  const std::uint32_t free_space = config_.sndbuf > wmem_queued_ ? config_.sndbuf - wmem_queued_ : 0;
  if (free_space >= wmem_queued_ / 2) writer_run();
}

// ---------------------------------------------------------------- output

// tcp_push -> __tcp_push_pending_frames: tcp_write_xmit, then the probe
// timer if nothing is in flight and the head stayed.
void Linux26TcpSender::tcp_push(bool nagle_push) {
  if (sent_count() == queued_count()) return;
  pushed_seq_ = tp_.write_seq;
  tcp_write_xmit(nagle_push);
  check_probe_timer();
}

void Linux26TcpSender::check_probe_timer() {
  if (tp_.packets_out == 0 && sent_count() < queued_count() && !retrans_.pending() && !probe_.pending()) probe_.reset(tp_.rto);
}

// tcp_probe_timer / tcp_send_probe0 / tcp_write_wakeup: one segment of the
// send head (the current MSS: 2.6.12's is the large one) if the window has
// room; the timer backs off while nothing gets out.
void Linux26TcpSender::probe_timer() {
  if (tp_.packets_out != 0 || sent_count() == queued_count()) {
    probe_backoff_ = 0;
    return;
  }
  bool sent = false;
  const std::uint32_t i = sent_count();
  const Skb& s = skb_at(i);
  if (before(s.seq, tp_.snd_una + tp_.snd_wnd)) {
    const std::uint32_t mss = config_.version == KernelVersion::v2_6_12 ? size_goal() : tp_.mss_cache;
    std::uint32_t seg = std::min(tp_.snd_una + tp_.snd_wnd - s.seq, mss);
    if (seg < len(s)) fragment(i, std::min(seg, mss));
    ++stats_.probes;
    transmit(i, false);
    sent = true;
  }
  if (tp_.packets_out != 0 || sent_count() == queued_count()) {
    probe_backoff_ = 0;
    return;
  }
  if (!sent) probe_backoff_ = std::min(probe_backoff_ + 1, 15);
  probe_.reset(std::min(tp_.rto << probe_backoff_, rto_max(tp_.hz)));
}

bool Linux26TcpSender::nagle_allows(const Skb& s, bool last, bool nagle_push) const {
  if (nagle_push || !last) return true;  // TCP_NAGLE_PUSH, or not the tail of the queue
  // tcp_nagle_check with Minshall's test: a small segment waits while an
  // earlier small one is unacknowledged.
  const bool minshall = after(snd_sml_, tp_.snd_una) && !after(snd_sml_, tp_.snd_nxt);
  return !(len(s) < tp_.mss_cache && tp_.packets_out != 0 && minshall);
}

// tcp_time_stamp was jiffies: the timestamp option carries them.
AckFields Linux26TcpSender::ack_fields() const {
  return AckFields{rcv_nxt_, kAdvertisedWindow >> config_.request_wscale, ts_on_, tp_.jiffies + ts_offset_,
                   ts_recent_};
}

void Linux26TcpSender::send_ack() {
  Packet* p = new_segment();
  fill_segment(*p, tp_.snd_nxt, tcp_flags::kAck, 0, ack_fields());
  host_.send(p);
}

// tcp_transmit_skb: a TSO skb goes to the device whole; a host whose
// interface is a TSO vNIC (Host::tso_frames) gets it as one packet the
// hypervisor cuts, any other as its MSS wire segments (the NIC's TSO), the
// first charged the per-skb transmit work.
void Linux26TcpSender::transmit(std::uint32_t i, bool retransmit) {
  Skb& s = skb_at(i);
  s.when = tp_.jiffies;
  const std::uint32_t n = pcount(s);
  const std::uint32_t mss = tp_.mss_cache;
  auto emit = [&](std::uint32_t seq, std::uint32_t bytes, std::uint32_t segs, bool first) {
    Packet* p = new_segment();
    set_gso_frame(*p, segs, mss);
    // tcp_tso_set_push: PSH on the last segment of a TSO skb.
    const std::uint8_t push = n > 1 && seq + bytes == s.end_seq ? tcp_flags::kPush : 0;
    fill_segment(*p, seq, tcp_flags::kAck | push, bytes, ack_fields());
    host_.send(p, first);
  };
  if (n > 1 && host_.tso_frames()) {
    emit(s.seq, len(s), n, true);
  } else {
    for (std::uint32_t seq = s.seq; seq != s.end_seq;) {
      const std::uint32_t bytes = std::min(mss, s.end_seq - seq);
      emit(seq, bytes, 1, seq == s.seq);
      seq += bytes;
    }
  }
  stats_.data_segments_sent += n;
  ++stats_.skbs_sent;
  stats_.bytes_sent += len(s);
  if (retransmit) {
    s.sacked |= kRetrans;
    total_retrans_ += n;
  } else {
    tp_.snd_nxt = s.end_seq;  // update_send_head
    tp_.packets_out += n;
    if (len(s) < mss) snd_sml_ = s.end_seq;  // tcp_minshall_update
    mark_send_head_sent();                   // last: it moves s
    if (!retrans_.pending()) reset_rto();
  }
}

// tcp_cwnd_validate (RFC 2861's bookkeeping; the restart after idle is not modelled).
void Linux26TcpSender::cwnd_validate() {
  if (tp_.packets_out >= tp_.snd_cwnd) {
    tp_.snd_cwnd_used = 0;
    tp_.snd_cwnd_stamp = tp_.jiffies;
  } else if (tp_.packets_out > tp_.snd_cwnd_used) {
    tp_.snd_cwnd_used = tp_.packets_out;
  }
}

bool Linux26TcpSender::tcp_write_xmit(bool nagle_push) {
  if (state_ != State::established) return false;
  return config_.version == KernelVersion::v2_6_12 ? write_xmit_2_6_12(nagle_push) : write_xmit_2_6_13(nagle_push);
}

// 2.6.12: while the send head fits whole (cwnd and window), split it to the
// current large MSS if it is longer, and send.
bool Linux26TcpSender::write_xmit_2_6_12(bool nagle_push) {
  const std::uint32_t mss_now = size_goal();
  bool sent = false;
  while (sent_count() < queued_count()) {
    const std::uint32_t i = sent_count();
    const Skb& s = skb_at(i);
    if (!nagle_allows(s, i + 1 == queued_count(), nagle_push)) break;
    if (!snd_test_2_6_12(tp_, s.seq, s.end_seq, pcount(s))) break;
    if (len(s) > mss_now) fragment(i, mss_now);
    transmit(i, false);
    sent = true;
  }
  if (sent) cwnd_validate();
  return sent;
}

// 2.6.13+: the cwnd quota, the window's first segment, Nagle for one-segment
// skbs and the TSO deferral for larger ones; the skb is cut to what cwnd and
// the window allow (whole MSS unless the window ends inside one).
bool Linux26TcpSender::write_xmit_2_6_13(bool nagle_push) {
  const std::uint32_t mss_now = tp_.mss_cache;
  bool sent = false;
  while (sent_count() < queued_count()) {
    const std::uint32_t i = sent_count();
    const Skb& s = skb_at(i);
    const std::uint32_t segs = pcount(s);
    const std::uint32_t quota = cwnd_test(tp_);
    if (quota == 0) break;
    if (!snd_wnd_test(tp_, s.seq, s.end_seq, mss_now)) break;
    if (segs == 1) {
      if (!nagle_allows(s, i + 1 == queued_count(), nagle_push)) break;
    } else {
      DeferInput in;
      in.tso_win_divisor = divisor_;
      in.bound = config_.tso_defer_bound;
      if (tso_should_defer(tp_, s.seq, in, tso_deferred_)) {
        ++stats_.deferrals;
        break;
      }
    }
    std::uint32_t limit = mss_now;
    if (segs > 1) {
      limit = window_allows(tp_, s.seq, mss_now, quota);
      if (len(s) < limit) {
        const std::uint32_t trim = len(s) % mss_now;
        if (trim != 0) limit = len(s) - trim;
      }
    }
    if (len(s) > limit) fragment(i, limit);
    transmit(i, false);
    sent = true;
  }
  if (sent) cwnd_validate();
  return sent;
}

// tcp_push_one: the new skb at the send head goes out if tcp_snd_test lets
// it, without the TSO deferral (2.6.13+) - cut to the cwnd quota there.
void Linux26TcpSender::tcp_push_one() {
  const std::uint32_t i = sent_count();
  const Skb& s = skb_at(i);
  if (config_.version == KernelVersion::v2_6_12) {
    if (!snd_test_2_6_12(tp_, s.seq, s.end_seq, pcount(s))) return;
  } else {
    const std::uint32_t quota = cwnd_test(tp_);
    if (quota == 0 || !snd_wnd_test(tp_, s.seq, s.end_seq, tp_.mss_cache)) return;
    if (pcount(s) > 1) {
      std::uint32_t limit = window_allows(tp_, s.seq, tp_.mss_cache, quota);
      if (len(s) < limit) {
        const std::uint32_t trim = len(s) % tp_.mss_cache;
        if (trim != 0) limit = len(s) - trim;
      }
      if (len(s) > limit) fragment(i, limit);
    }
  }
  ++stats_.push_one;
  transmit(i, false);
  cwnd_validate();
}

// ---------------------------------------------------------------- input

void Linux26TcpSender::deliver(Packet* p) {
  refresh_clock();
  if (state_ == State::syn_sent) {
    if (is_syn_ack_for(*p, iss_)) handle_syn_ack(*p);
    sim().packets().release(p);
    return;
  }
  if (owned_) {  // sk_add_backlog: the process holds the socket
    backlog_.push(p);
    return;
  }
  ++stats_.softirq_acks;
  Host::ContextScope ctx(host_, Host::ExecContext::softirq);
  tcp_rcv(p);
}

// In-order data from the peer, ACKed at once.
void Linux26TcpSender::receive_data(const Packet& p) {
  peer_data_.accept(rcv_nxt_, p);
  send_ack();
}

void Linux26TcpSender::tcp_rcv(Packet* p) {
  refresh_clock();
  peer_data_.pending = 0;
  if (state_ == State::established && (p->tcp.flags & tcp_flags::kAck) != 0 && (p->tcp.flags & tcp_flags::kSyn) == 0) {
    if (p->payload_bytes == 0) {
      if (HostCpu* cpu = host_.context_cpu()) {
        cpu->run(cpu->costs().ack_input, host_.exec_context() == Host::ExecContext::softirq ? CpuContext::interrupt
                                                                                             : CpuContext::system);
      }
    }
    if (ts_on_ && p->tcp.ts_present) {
      ts_recent_ = p->tcp.ts_val;
      tsecr_ = p->tcp.ts_ecr;
    } else {
      tsecr_ = 0;
    }
    tcp_ack(*p);
    if (p->payload_bytes > 0) receive_data(*p);
    // tcp_data_snd_check, then tcp_check_space.
    tcp_write_xmit(false);
    check_probe_timer();
    check_space();
    if (trace_) trace_(trace_sample(TcpTraceSample::Event::ack));
  }
  sim().packets().release(p);
  peer_data_.hand_over();
}

void Linux26TcpSender::tcp_ack(const Packet& p) {
  const std::uint32_t ack = p.tcp.ack;
  const std::uint32_t prior_snd_una = tp_.snd_una;
  if (after(ack, tp_.snd_nxt) || before(ack, prior_snd_una)) return;
  int flag = 0;
  if (p.payload_bytes > 0) flag |= FLAG_DATA;
  // tcp_ack_update_window.
  const std::uint32_t nwin = static_cast<std::uint32_t>(p.tcp.window) << snd_wscale_;
  if (nwin != tp_.snd_wnd) flag |= FLAG_WIN_UPDATE;
  tp_.snd_wnd = nwin;
  tp_.max_window = std::max(tp_.max_window, nwin);
  tp_.snd_una = ack;
  if (tp_.packets_out == 0) return;  // no_queue
  const std::uint32_t prior_in_flight = tcp_packets_in_flight(tp_);
  clean_rtx_queue(flag);
  const bool dubious = !(flag & FLAG_NOT_DUP) || tp_.ca_state != TCP_CA_Open || dupacks_ > 0;
  if (!dubious) {
    if (flag & FLAG_DATA_ACKED) cong_avoid(ack, prior_in_flight);
  } else {
    // tcp_may_raise_cwnd: not while reducing it.
    if ((flag & FLAG_DATA_ACKED) && tp_.ca_state == TCP_CA_Open) cong_avoid(ack, prior_in_flight);
    fastretrans(flag, prior_snd_una);
  }
  stats_.max_cwnd = std::max(stats_.max_cwnd, tp_.snd_cwnd);
}

// tcp_clean_rtx_queue with tcp_tso_acked; RTT from the echoed timestamp
// (tcp_ack_saw_tstamp), else from an unretransmitted skb (Karn).
void Linux26TcpSender::clean_rtx_queue(int& flag) {
  std::int64_t seq_rtt = -1;
  const std::uint32_t prior_packets = tp_.packets_out;
  while (sent_count() > 0) {
    Skb& s = skb_at(0);
    if (after(s.end_seq, tp_.snd_una)) {
      // tcp_tso_acked: whole MSS off the head of a partly acknowledged TSO skb.
      std::uint32_t acked = 0;
      std::uint32_t seq = s.seq;
      while (!after(seq + tp_.mss_cache, tp_.snd_una) && seq != s.end_seq) {
        ++acked;
        seq += tp_.mss_cache;
      }
      if (acked > 0 && pcount(s) > 1) {
        const std::uint32_t before_segs = pcount(s);
        wmem_queued_ -= seq - s.seq;
        bytes_acked_ += seq - s.seq;
        s.seq = seq;
        tp_.packets_out -= before_segs - pcount(s);
        flag |= FLAG_DATA_ACKED;
      }
      break;
    }
    if (s.sacked & kRetrans) {
      flag |= FLAG_RETRANS_DATA_ACKED;
    } else if (seq_rtt < 0) {
      seq_rtt = static_cast<std::int32_t>(tp_.jiffies - s.when);
    }
    flag |= FLAG_DATA_ACKED;
    tp_.packets_out -= pcount(s);
    wmem_queued_ -= len(s);
    bytes_acked_ += len(s);
    sent_skbs_.pop_front();
  }
  // tcp_clean_rtx_queue's pkts_acked hook (2.6.13+; BIC's delayed-ACK ratio).
  if (prior_packets != tp_.packets_out && config_.version != KernelVersion::v2_6_12) {
    ca_->pkts_acked(tp_, prior_packets - tp_.packets_out);
  }
  if (flag & FLAG_ACKED) {
    if (ts_on_ && tsecr_ != 0) {
      rtt_estimator(tp_.jiffies - (tsecr_ - ts_offset_));
      backoff_ = 0;
    } else if (seq_rtt >= 0 && !(flag & FLAG_RETRANS_DATA_ACKED)) {
      rtt_estimator(static_cast<std::uint32_t>(seq_rtt));
      backoff_ = 0;
    }
    // tcp_ack_packets_out.
    if (tp_.packets_out == 0) {
      retrans_.stop();
    } else {
      reset_rto();
    }
  }
}

// tcp_rtt_estimator (Van Jacobson, jiffies; srtt << 3, mdev << 2) and tcp_set_rto.
void Linux26TcpSender::rtt_estimator(std::uint32_t mrtt) {
  auto m = static_cast<std::int64_t>(mrtt);
  if (m == 0) m = 1;
  const auto min_rto = static_cast<std::int64_t>(rto_min(tp_.hz));
  if (tp_.srtt != 0) {
    m -= tp_.srtt >> 3;
    tp_.srtt = static_cast<std::uint32_t>(tp_.srtt + m);
    if (m < 0) {
      m = -m;
      m -= tp_.mdev >> 2;
      if (m > 0) m >>= 3;
    } else {
      m -= tp_.mdev >> 2;
    }
    tp_.mdev = static_cast<std::uint32_t>(tp_.mdev + m);
    if (tp_.mdev > mdev_max_) {
      mdev_max_ = tp_.mdev;
      if (mdev_max_ > rttvar_) rttvar_ = mdev_max_;
    }
    if (after(tp_.snd_una, rtt_seq_)) {
      if (mdev_max_ < rttvar_) rttvar_ -= (rttvar_ - mdev_max_) >> 2;
      rtt_seq_ = tp_.snd_nxt;
      mdev_max_ = static_cast<std::uint32_t>(min_rto);
    }
  } else {
    tp_.srtt = static_cast<std::uint32_t>(m << 3);
    tp_.mdev = static_cast<std::uint32_t>(m << 1);
    mdev_max_ = rttvar_ = static_cast<std::uint32_t>(std::max<std::int64_t>(tp_.mdev, min_rto));
    rtt_seq_ = tp_.snd_nxt;
  }
  tp_.rto = std::min((tp_.srtt >> 3) + rttvar_, rto_max(tp_.hz));
}

// tcp_cong_avoid: 2.6.12 gates here (prior_in_flight >= snd_cwnd); from
// 2.6.13 the module does, so the later TSO-aware test is applied by handing
// the module an in_flight that passes its gate.
void Linux26TcpSender::cong_avoid(std::uint32_t ack, std::uint32_t prior_in_flight) {
  const std::uint32_t rtt = 0xffffffffu;
  if (config_.version == KernelVersion::v2_6_12) {
    const bool limited = config_.tso_cwnd_limited
                             ? tso_aware_cwnd_limited(tp_, prior_in_flight, config_.tso, divisor_)
                             : prior_in_flight >= tp_.snd_cwnd;
    if (limited) ca_->cong_avoid(tp_, ack, rtt, prior_in_flight, 1);
    return;
  }
  std::uint32_t in_flight = prior_in_flight;
  if (config_.tso_cwnd_limited && tso_aware_cwnd_limited(tp_, prior_in_flight, config_.tso, divisor_)) {
    in_flight = std::max(in_flight, tp_.snd_cwnd);
  }
  ca_->cong_avoid(tp_, ack, rtt, in_flight, 1);
  tp_.snd_cwnd_stamp = tp_.jiffies;  // 2.6.13's tcp_cong_avoid wrapper
}

// Duplicate ACKs, fast retransmit and Recovery (simplified, see the header).
void Linux26TcpSender::fastretrans(int flag, std::uint32_t prior_snd_una) {
  const bool dup = !(flag & FLAG_NOT_DUP) && tp_.snd_una == prior_snd_una && tp_.packets_out > 0;
  if (tp_.ca_state == TCP_CA_Recovery || tp_.ca_state == TCP_CA_Loss) {
    if (!before(tp_.snd_una, tp_.high_seq)) {
      // tcp_complete_cwr.
      tp_.snd_cwnd = std::min(tp_.snd_cwnd, tp_.snd_ssthresh);
      tp_.snd_cwnd_stamp = tp_.jiffies;
      tp_.ca_state = TCP_CA_Open;
      ca_->set_state(tp_, TCP_CA_Open);
      dupacks_ = 0;
      return;
    }
    if (tp_.ca_state == TCP_CA_Recovery) {
      if (tp_.snd_una != prior_snd_una) retransmit_head();  // a partial ACK: the next hole
      // tcp_cwnd_down: one segment off cwnd every second ACK, down to ssthresh.
      std::uint32_t decr = tp_.snd_cwnd_cnt + 1;
      tp_.snd_cwnd_cnt = decr & 1;
      decr >>= 1;
      if (decr != 0 && tp_.snd_cwnd > std::max(tp_.snd_ssthresh, ca_->min_cwnd(tp_))) tp_.snd_cwnd -= decr;
      tp_.snd_cwnd = std::min(tp_.snd_cwnd, tcp_packets_in_flight(tp_) + 1);
      tp_.snd_cwnd_stamp = tp_.jiffies;
    }
    return;
  }
  if (!dup) {
    dupacks_ = 0;
    return;
  }
  if (++dupacks_ < config_.reordering) return;
  ++stats_.recovery_episodes;
  tp_.prior_ssthresh = tp_.snd_ssthresh;
  tp_.snd_ssthresh = ca_->ssthresh(tp_);
  tp_.snd_cwnd_cnt = 0;
  tp_.high_seq = tp_.snd_nxt;
  tp_.ca_state = TCP_CA_Recovery;
  ca_->set_state(tp_, TCP_CA_Recovery);
  retransmit_head();
}

// tcp_retransmit_skb on the head: cut to one MSS, sent again.
void Linux26TcpSender::retransmit_head() {
  if (sent_count() == 0) return;
  if (pcount(skb_at(0)) > 1) {
    const std::uint32_t segs = pcount(skb_at(0));
    fragment(0, tp_.mss_cache);  // both parts stay among the sent skbs
    tp_.packets_out += pcount(skb_at(0)) + pcount(skb_at(1)) - segs;
  }
  tp_.retrans_out = 1;
  transmit(0, true);
  tp_.retrans_out = 0;
  reset_rto();
}

// tcp_retransmit_timer / tcp_enter_loss: ssthresh from the module, cwnd 1,
// everything sent goes again from snd_una (the queue's skbs are unsent again).
void Linux26TcpSender::retransmit_timer() {
  if (tp_.packets_out == 0) return;
  ++stats_.rto_count;
  tp_.prior_ssthresh = tp_.snd_ssthresh;
  tp_.snd_ssthresh = ca_->ssthresh(tp_);
  tp_.snd_cwnd = 1;
  tp_.snd_cwnd_cnt = 0;
  tp_.snd_cwnd_stamp = tp_.jiffies;
  tp_.high_seq = tp_.snd_nxt;
  tp_.ca_state = TCP_CA_Loss;
  ca_->set_state(tp_, TCP_CA_Loss);
  if (config_.version == KernelVersion::v2_6_12) ca_->init(tp_);  // 2.6.12 resets BIC's state on loss itself
  for (std::uint32_t i = 0; i < sent_count(); ++i) skb_at(i).sacked |= kRetrans;
  total_retrans_ += tp_.packets_out;
  requeue_sent();
  tp_.packets_out = 0;
  tp_.snd_nxt = tp_.snd_una;
  dupacks_ = 0;
  backoff_ = std::min(backoff_ + 1, 15);
  tcp_write_xmit(true);
  retrans_.reset(std::min(tp_.rto << backoff_, rto_max(tp_.hz)));
  if (trace_) trace_(trace_sample(TcpTraceSample::Event::rto));
}

void Linux26TcpSender::reset_rto() { retrans_.reset(tp_.rto); }

void Linux26TcpSender::handle_event(std::uint64_t tag) {
  refresh_clock();
  if (tag == kWriterStep) {
    writer_copy_done();
    return;
  }
  if (state_ == State::syn_sent) {
    tp_.rto = std::min(tp_.rto << 1, rto_max(tp_.hz));
    send_syn();
    retrans_.reset(tp_.rto);
    return;
  }
  if (state_ != State::established) return;
  Host::ContextScope ctx(host_, Host::ExecContext::softirq);  // timers run in softirq
  if (tag == kProbeTimer) {
    probe_timer();
  } else {
    retransmit_timer();
  }
}

TcpTraceSample Linux26TcpSender::trace_sample(TcpTraceSample::Event event) const {
  TcpTraceSample s;
  s.time = sim().now();
  s.event = event;
  s.cwnd = tp_.snd_cwnd * tp_.mss_cache;
  s.ssthresh = tp_.snd_ssthresh >= 0x7fffffffu / tp_.mss_cache ? 0xffffffffu : tp_.snd_ssthresh * tp_.mss_cache;
  s.snd_wnd = tp_.snd_wnd;
  s.snd_una = bytes_acked_;
  s.snd_max = bytes_acked_ + (tp_.snd_nxt - tp_.snd_una);
  s.pipe = static_cast<int>(tcp_packets_in_flight(tp_) * tp_.mss_cache);
  s.srtt_us = info().rtt_us;
  s.rttvar_us = info().rttvar_us;
  s.rto_us = static_cast<std::uint32_t>(static_cast<std::uint64_t>(tp_.rto) * 1000000 / tp_.hz);
  s.in_recovery = tp_.ca_state == TCP_CA_Recovery;
  s.retransmits = total_retrans_;
  s.recoveries = stats_.recovery_episodes;
  s.rtos = stats_.rto_count;
  return s;
}

}  // namespace netsim::tcp::lnx26
