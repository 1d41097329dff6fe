// Linux 5.15-like passive TCP endpoint; see linux_tcp_receiver.h for the
// sources (function by function) and docs/linux-receiver.md for the rules.
#include "netsim/tcp/linux_tcp_receiver.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "netsim/tcp/tcp_option_layout.h"
#include "netsim/tcp/tcp_segment.h"

namespace netsim::tcp {
namespace {

constexpr std::uint32_t kTsAligned = 12;      // TCPOLEN_TSTAMP_ALIGNED
constexpr std::uint32_t kMssDefault = 536;    // TCP_MSS_DEFAULT
constexpr std::uint32_t kMinMss = 88;         // TCP_MIN_MSS
constexpr int kFastRetransThresh = 3;         // TCP_FASTRETRANS_THRESH
constexpr std::int64_t kRtoMaxSeconds = 120;  // TCP_RTO_MAX
constexpr int kSynRetries = 6;                // net.ipv4.tcp_syn_retries
// TCP_REMNANT (URG is not modelled).
constexpr std::uint8_t kRemnant = tcp_flags::kFin | tcp_flags::kSyn | tcp_flags::kPush;

bool before(std::uint32_t a, std::uint32_t b) { return SEQ_LT(a, b); }
bool after(std::uint32_t a, std::uint32_t b) { return SEQ_GT(a, b); }


}  // namespace

LinuxTcpReceiver::LinuxTcpReceiver(Simulation& sim, std::string name, Host& host, const LinuxTcpConfig& config)
    : Component(sim, std::move(name)), host_(host), clock_(host.clock()), config_(config), next_iss_(config.iss) {
  if (config_.max_connections < 1) throw std::invalid_argument("linux tcp " + this->name() + ": max_connections < 1");
  if (config_.wscale > 14) throw std::invalid_argument("linux tcp " + this->name() + ": wscale > 14");
  if (config_.max_ofo_ranges < 1) throw std::invalid_argument("linux tcp " + this->name() + ": max_ofo_ranges < 1");
  const std::uint32_t hdr = ip_header_bytes(host.ip_version()) + kTcpHeaderBytes;
  if (config_.mtu <= hdr + kMinMss) throw std::invalid_argument("linux tcp " + this->name() + ": MTU too small");
  for (int i = 0; i < config_.max_connections; ++i) {
    auto c = std::make_unique<Conn>();
    c->id = i;
    c->ofo.reserve(config_.max_ofo_ranges);
    conns_.push_back(std::move(c));
    timers_.push_back(std::make_unique<ConnTimers>(clock_, this, static_cast<std::uint64_t>(i)));
  }
  by_peer_.reserve(config_.max_connections);
  host.bind(IpProtocol::tcp, config_.port, this);
}

LinuxTcpReceiver::~LinuxTcpReceiver() {
  for (auto& t : timers_) {
    t->delack.stop();
    t->rexmit.stop();
    sim().cancel(t->comp);
  }
}

// ---------------------------------------------------------------------------
// Clocks

std::uint32_t LinuxTcpReceiver::ts_now() const {
  // tcp_time_stamp(): a 1 ms clock (TCP_TS_HZ = 1000) plus the offset.
  return static_cast<std::uint32_t>(sim().now() / kPicosPerMilli) + config_.ts_offset;
}

int LinuxTcpReceiver::usecs_to_jiffies(std::uint64_t us) const {
  // Rounds up, as the kernel's usecs_to_jiffies does.
  const std::uint64_t j = (us * static_cast<std::uint64_t>(hz()) + 999999) / 1000000;
  return static_cast<int>(std::min<std::uint64_t>(j, static_cast<std::uint64_t>(kRtoMaxSeconds * hz())));
}

// ---------------------------------------------------------------------------
// Connection table

bool LinuxTcpReceiver::holds(ConnId id, NodeId peer, std::uint16_t peer_port) const {
  const Conn& c = *conns_[static_cast<std::size_t>(id)];
  return c.state != State::free && c.state != State::closed && c.peer == peer && c.peer_port == peer_port;
}

LinuxTcpReceiver::ConnId LinuxTcpReceiver::find(NodeId peer, std::uint16_t peer_port) const {
  return by_peer_.find(peer, peer_port, max_connections(), [&](ConnId i) { return holds(i, peer, peer_port); });
}

void LinuxTcpReceiver::add_peer(const Conn& c) {
  by_peer_.add(c.peer, c.peer_port, c.id, max_connections(), [&](ConnId i) { return holds(i, c.peer, c.peer_port); });
}

LinuxTcpReceiver::ConnId LinuxTcpReceiver::allocate() {
  // Never-used slots first, lowest first: they are taken in order, so they
  // are the slots from never_used_ on.
  Conn* slot = never_used_ < conns_.size() ? conns_[never_used_++].get() : nullptr;
  if (slot == nullptr) {
    for (auto& c : conns_) {
      if (c->state == State::free || c->state == State::closed) {
        slot = c.get();
        break;
      }
    }
  }
  if (slot == nullptr) return -1;
  if (slot->used) retired_ += slot->stats;
  const int id = slot->id;
  std::vector<Range> ofo = std::move(slot->ofo);
  ofo.clear();
  *slot = Conn{};
  slot->id = id;
  slot->ofo = std::move(ofo);
  slot->used = true;
  return id;
}

void LinuxTcpReceiver::release_conn(Conn& c) {
  ConnTimers& t = timers(c);
  t.delack.stop();
  t.rexmit.stop();
  sim().cancel(t.comp);
  c.state = State::free;
  c.ofo.clear();
}

TcpReceiverStats LinuxTcpReceiver::total_stats() const {
  TcpReceiverStats s = retired_;
  for (const auto& c : conns_) {
    if (c->used) s += c->stats;
  }
  return s;
}

// ---------------------------------------------------------------------------
// Input

void LinuxTcpReceiver::deliver(Packet* p) {
  const ConnId id = find(p->src, p->src_port);
  if (id < 0) {
    const std::uint8_t f = p->tcp.flags;
    if ((f & tcp_flags::kSyn) != 0 && (f & (tcp_flags::kAck | tcp_flags::kRst)) == 0) {
      const ConnId nid = allocate();
      if (nid < 0) {
        ++refused_;
      } else {
        accept_syn(nid, *p);
      }
    } else {
      ++no_conn_;  // Linux would answer with a RST; nothing here needs it
    }
  } else {
    process(id, *p);
  }
  sim().packets().release(p);
}

// The peer's SYN (or SYN-ACK): the options both sides then use, and its
// initial sequence and timestamp.
void LinuxTcpReceiver::take_peer_syn(Conn& c, const TcpSegmentInfo& th) const {
  c.ts_ok = config_.timestamps && th.ts_present;
  c.sack_ok = config_.sack && th.sack_permitted;
  c.wscale_ok = th.wscale != 0xff;
  c.snd_wscale = c.wscale_ok ? std::min<std::uint8_t>(th.wscale, 14) : 0;
  c.rcv_wscale = c.wscale_ok ? config_.wscale : 0;
  // No MSS option: the family's mss_clamp (af_ops->mss_clamp, tcp_v6_connect: 1220 over IPv6).
  c.mss_clamp = th.mss != 0 ? th.mss : default_mss(host_.ip_version());
  c.tcp_header_len = kTcpHeaderBytes + (c.ts_ok ? kTsAligned : 0);
  c.irs = th.seq;
  c.rcv_nxt = th.seq + 1;
  c.rcv_wup = c.rcv_nxt;
  c.ts_recent = c.ts_ok ? th.ts_val : 0;
}

void LinuxTcpReceiver::accept_syn(ConnId id, const Packet& syn) {
  Conn& c = conn(id);
  const TcpSegmentInfo& th = syn.tcp;
  c.state = State::syn_recv;
  c.peer = syn.src;
  c.peer_port = syn.src_port;
  add_peer(c);
  c.advmss = config_.mtu - ip_header_bytes(host_.ip_version()) - kTcpHeaderBytes;
  take_peer_syn(c, th);
  c.iss = next_iss_;
  next_iss_ += 0x01000000u;
  c.snd_una = c.iss;
  c.snd_nxt = c.iss + 1;
  c.write_seq = c.iss + 1;
  // tcp_select_initial_window: the full space rounded down to a multiple of
  // the MSS (less the timestamp option); the SYN-ACK window is never scaled.
  const std::uint32_t mss = c.advmss - (c.ts_ok ? kTsAligned : 0);
  std::uint32_t space = config_.initial_rcv_space;
  if (space > mss) space = space / mss * mss;
  c.rcv_wnd = space;
  send_syn_ack(c);
}

void LinuxTcpReceiver::send_syn_ack(Conn& c) {
  Packet* p = new_segment(c);
  TcpSegmentInfo& th = p->tcp;
  th.seq = c.iss;
  th.ack = c.rcv_nxt;
  th.flags = tcp_flags::kSyn | tcp_flags::kAck;
  th.window = std::min<std::uint32_t>(c.rcv_wnd, 65535);
  th.mss = static_cast<std::uint16_t>(c.advmss);
  th.wscale = c.wscale_ok ? c.rcv_wscale : 0xff;
  th.sack_permitted = c.sack_ok;
  th.ts_present = c.ts_ok;
  if (c.ts_ok) {
    th.ts_val = ts_now();
    th.ts_ecr = c.ts_recent;
  }
  p->l4_header_bytes = kTcpHeaderBytes + th.option_bytes();
  p->payload_bytes = 0;
  if (c.stats.syn_acks_sent == 0) {
    c.synack_time = sim().now();
  } else {
    c.synack_retrans = true;  // tcp_synack_rtt_meas takes no sample then
  }
  ++c.stats.syn_acks_sent;
  if (on_transmit_) on_transmit_(c.id, *p);
  host_.send(p);
}

Packet* LinuxTcpReceiver::new_segment(const Conn& c) {
  Packet* p = sim().packets().alloc();
  p->protocol = IpProtocol::tcp;
  p->dst = c.peer;
  p->src_port = config_.port;
  p->dst_port = c.peer_port;
  return p;
}

void LinuxTcpReceiver::set_first_rtt(Conn& c, std::uint32_t rtt_us) {
  // tcp_rtt_estimator's first sample: srtt = m, mdev = 2m; __tcp_set_rto:
  // rto = srtt + max(mdev, rto_min).
  const std::uint32_t rto_min_us = static_cast<std::uint32_t>(config_.rto_min / kPicosPerMicro);
  c.srtt_us = std::max<std::uint32_t>(1, rtt_us << 3);
  const std::uint32_t rttvar = std::max(2 * rtt_us, rto_min_us);
  c.rto_jiffies = usecs_to_jiffies(static_cast<std::uint64_t>(rtt_us) + rttvar);
}

void LinuxTcpReceiver::init_established(Conn& c) {
  if (c.ts_ok) c.advmss -= kTsAligned;
  c.mss_cache = std::min(c.mss_clamp, c.advmss + (c.ts_ok ? kTsAligned : 0)) - (c.ts_ok ? kTsAligned : 0);
  // tcp_initialize_rcv_mss.
  std::uint32_t hint = std::min(c.advmss, c.mss_cache);
  hint = std::min(hint, c.rcv_wnd / 2);
  hint = std::min(hint, kMssDefault);
  c.rcv_mss = std::max(hint, kMinMss);
  c.lrcvtime = jiffies();
  c.rcv_wnd = config_.rcv_wnd;  // model: the full window from here on (no autotuning ramp)
}

// ---------------------------------------------------------------------------
// Active open

LinuxTcpReceiver::ConnId LinuxTcpReceiver::connect(NodeId peer, std::uint16_t peer_port) {
  const ConnId id = allocate();
  if (id < 0) return -1;
  Conn& c = conn(id);
  c.state = State::syn_sent;
  c.peer = peer;
  c.peer_port = peer_port;
  add_peer(c);
  // tcp_connect_init: advmss from the route's MTU; the window is the full
  // space rounded down to advmss (no timestamp is known yet, so nothing is
  // taken off for it: Linux SYNs say 64240 for a 1500-byte MTU).
  c.advmss = config_.mtu - ip_header_bytes(host_.ip_version()) - kTcpHeaderBytes;
  std::uint32_t space = config_.initial_rcv_space;
  if (space > c.advmss) space = space / c.advmss * c.advmss;
  c.rcv_wnd = space;
  c.iss = next_iss_;
  next_iss_ += 0x01000000u;
  c.snd_una = c.iss;
  c.snd_nxt = c.iss + 1;
  c.write_seq = c.iss + 1;
  c.syn_time = sim().now();
  send_syn(c);
  arm_rexmit(c);  // TCP_TIMEOUT_INIT: no RTT known yet
  return id;
}

void LinuxTcpReceiver::send_syn(Conn& c) {
  Packet* p = new_segment(c);
  TcpSegmentInfo& th = p->tcp;
  th.seq = c.iss;
  th.ack = 0;
  th.flags = tcp_flags::kSyn;
  th.window = std::min<std::uint32_t>(c.rcv_wnd, 65535);  // a SYN's window is never scaled
  // tcp_syn_options: everything the sysctls enable is offered.
  th.mss = static_cast<std::uint16_t>(c.advmss);
  th.sack_permitted = config_.sack;
  th.ts_present = config_.timestamps;
  th.ts_val = ts_now();
  th.ts_ecr = 0;
  th.wscale = config_.wscale;
  p->l4_header_bytes = kTcpHeaderBytes + linux_syn_option_layout(th).bytes;
  p->payload_bytes = 0;
  ++c.stats.syns_sent;
  if (on_transmit_) on_transmit_(c.id, *p);
  host_.send(p);
}

void LinuxTcpReceiver::synsent_input(Conn& c, const Packet& p) {
  const TcpSegmentInfo& th = p.tcp;
  // tcp_rcv_synsent_state_process: only a SYN-ACK acknowledging our SYN
  // moves the connection on (a bad ACK would draw a RST, not modelled).
  if ((th.flags & (tcp_flags::kSyn | tcp_flags::kAck)) != (tcp_flags::kSyn | tcp_flags::kAck)) return;
  if (th.ack != c.snd_nxt) return;
  take_peer_syn(c, th);
  c.snd_una = th.ack;
  c.backoff = 0;
  timers(c).rexmit.stop();
  // tcp_ack -> tcp_clean_rtx_queue: the SYN's RTT from its send time, unless
  // it was retransmitted (Karn); then from the timestamp echo (1 ms clock).
  handshake_rtt(c, c.syn_retrans ? std::nullopt : std::optional<SimTime>(c.syn_time), th);
  c.state = State::established;
  init_established(c);
  // tcp_finish_connect, then the handshake's ACK at once (nothing is waiting
  // to be written and the socket is not in pingpong mode); the application
  // sees the connection after that.
  send_ack(c);
  if (on_connected_) on_connected_(c.id);
}

// The handshake's RTT sample (tcp_ack_update_rtt via tcp_clean_rtx_queue or
// tcp_synack_rtt_meas): from our SYN's (SYN-ACK's) send time if it was sent
// once (Karn), else from the timestamp echo (1 ms clock). Without either,
// tcp_init_metrics leaves srtt 0 and falls back to TCP_TIMEOUT_FALLBACK (3 s,
// RFC 6298 5.7).
void LinuxTcpReceiver::handshake_rtt(Conn& c, std::optional<SimTime> sent_once, const TcpSegmentInfo& th) {
  if (sent_once) {
    set_first_rtt(c, static_cast<std::uint32_t>((sim().now() - *sent_once) / kPicosPerMicro));
  } else if (c.ts_ok && th.ts_present && th.ts_ecr != 0) {
    set_first_rtt(c, std::max<std::uint32_t>(1, ts_now() - th.ts_ecr) * 1000u);
  } else {
    c.rto_jiffies = usecs_to_jiffies(3000000);
  }
}

void LinuxTcpReceiver::process(ConnId id, const Packet& p) {
  Conn& c = conn(id);
  const TcpSegmentInfo& th = p.tcp;
  if ((th.flags & tcp_flags::kRst) != 0) {
    release_conn(c);
    return;
  }
  if (c.state == State::syn_sent) {
    synsent_input(c, p);
    return;
  }
  if (c.state == State::syn_recv) {
    if ((th.flags & tcp_flags::kSyn) != 0) {
      if ((th.flags & tcp_flags::kAck) == 0) send_syn_ack(c);  // the peer did not get it
      return;
    }
    if ((th.flags & tcp_flags::kAck) == 0 || th.ack != c.iss + 1) return;
    // The third ACK: the child socket becomes ESTABLISHED.
    c.state = State::established;
    c.snd_una = c.iss + 1;
    // tcp_synack_rtt_meas: the SYN-ACK's own time unless it was resent.
    handshake_rtt(c, c.synack_retrans ? std::nullopt : std::optional<SimTime>(c.synack_time), th);
    init_established(c);
    if (on_accept_) on_accept_(id);
    if (c.state == State::free) return;  // the app reset it
  } else if ((th.flags & tcp_flags::kSyn) != 0) {
    if (!oow_rate_limited(c)) send_ack(c);  // RFC 5961 challenge ACK
    return;
  }
  established_input(c, p);
}

void LinuxTcpReceiver::established_input(Conn& c, const Packet& p) {
  const TcpSegmentInfo& th = p.tcp;
  const std::uint32_t len = p.payload_bytes;
  const bool fin = (th.flags & tcp_flags::kFin) != 0;
  const std::uint32_t seq = th.seq;
  const std::uint32_t end_seq = seq + len + (fin ? 1u : 0u);
  c.in_order = 0;
  if (len > 0) {
    ++c.stats.packets_received;
    c.stats.segments_received += std::max<std::uint16_t>(1, p.segments);
    c.stats.bytes_received += len;
  }
  // tcp_validate_incoming, step 1 (tcp_sequence): unacceptable -> dupack.
  if (before(end_seq, c.rcv_wup) || after(seq, c.rcv_nxt + receive_window(c))) {
    if (len > 0) ++c.stats.duplicate_packets;
    // Data (or a FIN) is always answered; a bare ACK at most every HZ/2
    // jiffies (tcp_oow_rate_limited, net.ipv4.tcp_invalid_ratelimit = 500 ms).
    if (end_seq != seq || !oow_rate_limited(c)) tcp_send_dupack(c, seq, end_seq);
    return;
  }
  if ((th.flags & tcp_flags::kAck) != 0) tcp_ack(c, th.ack);
  // tcp_replace_ts_recent: TS.Recent follows segments at or below rcv_wup.
  if (c.ts_ok && th.ts_present && !after(seq, c.rcv_wup) && static_cast<std::int32_t>(th.ts_val - c.ts_recent) >= 0) {
    c.ts_recent = th.ts_val;
  }
  // tcp_rcv_rtt_measure_ts.
  if (c.ts_ok && th.ts_present && th.ts_ecr != 0 && th.ts_ecr != c.rcv_rtt_last_tsecr) {
    c.rcv_rtt_last_tsecr = th.ts_ecr;
    if (len >= c.rcv_mss) {
      std::uint32_t delta = ts_now() - th.ts_ecr;
      if (delta < 0x7fffffffu / 1000u) {
        if (delta == 0) delta = 1;
        tcp_rcv_rtt_update(c, delta * 1000u, false);
      }
    }
  }
  if (len > 0 || fin) tcp_data_queue(c, p);
  ack_snd_check(c);
  if (c.in_order > 0) {
    const std::uint32_t copied = c.in_order;
    c.stats.bytes_delivered += copied;
    // The reader's copy to user space (tcp_recvmsg): CPU time later work
    // waits for; the ACK above has already gone.
    if (HostCpu* cpu = host_.cpu()) cpu->run_copy(copied);
    if (on_data_) on_data_(c.id, copied);
    if (c.state != State::free) cleanup_rbuf(c, copied);
  }
  if (c.peer_fin_event && c.state != State::free) {
    c.peer_fin_event = false;
    if (on_peer_fin_) on_peer_fin_(c.id);
  }
  if (c.state != State::free) maybe_finish(c);
}

void LinuxTcpReceiver::tcp_ack(Conn& c, std::uint32_t ack) {
  if (after(ack, c.snd_nxt) || !after(ack, c.snd_una)) return;
  c.snd_una = ack;
  c.backoff = 0;
  if (c.fin_queued && ack == c.write_seq + 1) c.fin_acked = true;
  if (c.snd_una == c.snd_nxt) {
    timers(c).rexmit.stop();
  } else {
    arm_rexmit(c);
  }
}

bool LinuxTcpReceiver::oow_rate_limited(Conn& c) {
  const std::int64_t now = jiffies();
  if (now - c.last_oow_ack_time < hz() / 2) {
    ++c.stats.oow_acks_skipped;
    return true;
  }
  c.last_oow_ack_time = now;
  return false;
}

void LinuxTcpReceiver::tcp_send_dupack(Conn& c, std::uint32_t seq, std::uint32_t end_seq) {
  if (end_seq != seq && before(seq, c.rcv_nxt)) {
    tcp_enter_quickack_mode(c, config_.max_quickacks);
    if (c.sack_ok && config_.dsack) {
      dsack_set(c, seq, after(end_seq, c.rcv_nxt) ? c.rcv_nxt : end_seq);
    }
  }
  send_ack(c);
}

void LinuxTcpReceiver::tcp_data_queue(Conn& c, const Packet& p) {
  const std::uint32_t len = p.payload_bytes;
  const bool fin = (p.tcp.flags & tcp_flags::kFin) != 0;
  const std::uint32_t seq = p.tcp.seq;
  const std::uint32_t end_seq = seq + len + (fin ? 1u : 0u);
  if (seq == end_seq) return;
  c.dsack = false;
  if (seq == c.rcv_nxt) {
    if (receive_window(c) == 0) {
      tcp_enter_quickack_mode(c, config_.max_quickacks);
      c.pending |= kAckSched;
      return;
    }
    queue_and_out(c, p, seq, end_seq);
    return;
  }
  if (!after(end_seq, c.rcv_nxt)) {
    // A retransmission of data we have: D-SACK and an immediate ACK.
    ++c.stats.duplicate_packets;
    dsack_set(c, seq, end_seq);
    tcp_enter_quickack_mode(c, config_.max_quickacks);
    c.pending |= kAckSched;
    return;
  }
  if (!before(seq, c.rcv_nxt + receive_window(c))) {
    tcp_enter_quickack_mode(c, config_.max_quickacks);
    c.pending |= kAckSched;
    return;
  }
  if (before(seq, c.rcv_nxt)) {
    // Partial: the head is old (D-SACK it), the tail is new.
    dsack_set(c, seq, c.rcv_nxt);
    queue_and_out(c, p, seq, end_seq);
    return;
  }
  // FIN on an out-of-order segment is not kept (the peer retransmits it).
  tcp_data_queue_ofo(c, seq, seq + len, std::max<std::uint16_t>(1, p.segments));
}

void LinuxTcpReceiver::queue_and_out(Conn& c, const Packet& p, std::uint32_t seq, std::uint32_t end_seq) {
  const std::uint32_t data_end = seq + p.payload_bytes;
  if (after(data_end, c.rcv_nxt)) c.in_order += data_end - c.rcv_nxt;
  c.rcv_nxt = end_seq;
  if (p.payload_bytes > 0) tcp_event_data_recv(c, p);
  if ((p.tcp.flags & tcp_flags::kFin) != 0) tcp_fin(c);
  if (!c.ofo.empty()) {
    tcp_ofo_queue(c);
    // RFC 5681 4.2: ACK at once when the gap is filled.
    if (c.ofo.empty()) c.pending |= kAckNow;
  }
  if (c.num_sacks != 0) sack_remove(c);
}

void LinuxTcpReceiver::tcp_ofo_queue(Conn& c) {
  std::uint32_t dsack_high = c.rcv_nxt;
  std::size_t n = 0;
  while (n < c.ofo.size() && !after(c.ofo[n].start, c.rcv_nxt)) {
    const Range r = c.ofo[n];
    ++n;
    if (before(r.start, dsack_high)) {
      const std::uint32_t dsack = dsack_high;
      if (before(r.end, dsack_high)) dsack_high = r.end;
      dsack_extend(c, r.start, dsack);
    }
    if (!after(r.end, c.rcv_nxt)) continue;
    c.in_order += r.end - c.rcv_nxt;
    c.rcv_nxt = r.end;
  }
  c.ofo.erase(c.ofo.begin(), c.ofo.begin() + static_cast<std::ptrdiff_t>(n));
}

void LinuxTcpReceiver::tcp_data_queue_ofo(Conn& c, std::uint32_t seq, std::uint32_t end_seq, std::uint16_t segs) {
  c.pending |= kAckSched;
  if (c.ofo.empty()) {
    // Initial out-of-order segment: one SACK block.
    if (c.sack_ok) {
      c.num_sacks = 1;
      c.selective_acks[0] = Range{seq, end_seq};
    }
    c.ofo.push_back(Range{seq, end_seq});
  } else {
    if (!ofo_insert(c, seq, end_seq)) {
      ++c.stats.ofo_drops;  // as tcp_prune: dropped, no SACK for it
      return;
    }
    if (c.sack_ok) sack_new_ofo_skb(c, seq, end_seq);
  }
  ++c.stats.ofo_packets;
  c.stats.ofo_segments += segs;
}

bool LinuxTcpReceiver::ofo_insert(Conn& c, std::uint32_t seq, std::uint32_t end_seq) {
  std::vector<Range>& v = c.ofo;
  // Ranges are disjoint and sorted, so their ends are sorted too.
  const auto first = std::partition_point(v.begin(), v.end(), [seq](const Range& r) { return before(r.end, seq); });
  std::size_t i = static_cast<std::size_t>(first - v.begin());
  const std::size_t n = v.size();
  if (i < n && !after(v[i].start, seq) && !before(v[i].end, end_seq)) {
    dsack_set(c, seq, end_seq);  // all the bits are present
    return true;
  }
  std::uint32_t new_start = seq;
  std::uint32_t new_end = end_seq;
  std::size_t k = i;
  while (k < n && !after(v[k].start, end_seq)) {
    const Range r = v[k];
    if (k == i && before(r.start, seq) && before(seq, r.end)) {
      dsack_set(c, seq, r.end);  // partial overlap on the left
    } else if (!before(r.start, seq) && before(r.start, end_seq)) {
      // r starts inside the new data: covered entirely, or up to end_seq.
      dsack_extend(c, r.start, before(end_seq, r.end) ? end_seq : r.end);
    }
    new_start = SEQ_MIN(new_start, r.start);
    new_end = SEQ_MAX(new_end, r.end);
    ++k;
  }
  if (k == i) {
    if (n >= config_.max_ofo_ranges) return false;
    v.insert(v.begin() + static_cast<std::ptrdiff_t>(i), Range{seq, end_seq});
  } else {
    v[i] = Range{new_start, new_end};
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(i + 1), v.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return true;
}

void LinuxTcpReceiver::tcp_event_data_recv(Conn& c, const Packet& p) {
  c.pending |= kAckSched;
  tcp_measure_rcv_mss(c, p);
  // tcp_rcv_rtt_measure (the per-window sample, minimum only).
  if (c.rcv_rtt_time >= 0 && !before(c.rcv_nxt, c.rcv_rtt_seq)) {
    std::int64_t d = (sim().now() - c.rcv_rtt_time) / kPicosPerMicro;
    if (d < 1) d = 1;
    tcp_rcv_rtt_update(c, static_cast<std::uint32_t>(std::min<std::int64_t>(d, 0x0fffffff)), true);
  }
  if (c.rcv_rtt_time < 0 || !before(c.rcv_nxt, c.rcv_rtt_seq)) {
    c.rcv_rtt_seq = c.rcv_nxt + c.rcv_wnd;
    c.rcv_rtt_time = sim().now();
  }
  const std::int64_t now = jiffies();
  if (c.ato == 0) {
    // The first data: start the delayed-ACK engine in quickack mode.
    tcp_incr_quickack(c, config_.max_quickacks);
    c.ato = ato_min();
  } else {
    const std::int64_t m = now - c.lrcvtime;
    if (m <= ato_min() / 2) {
      c.ato = (c.ato >> 1) + ato_min() / 2;
    } else if (m < c.ato) {
      c.ato = (c.ato >> 1) + static_cast<int>(m);
      if (c.ato > c.rto_jiffies) c.ato = c.rto_jiffies;
    } else if (m > c.rto_jiffies) {
      tcp_incr_quickack(c, config_.max_quickacks);  // a long gap: ACK quickly again
    }
  }
  c.lrcvtime = now;
}

void LinuxTcpReceiver::tcp_measure_rcv_mss(Conn& c, const Packet& p) {
  const std::uint32_t lss = c.last_seg_size;
  c.last_seg_size = 0;
  const std::uint16_t segs = std::max<std::uint16_t>(1, p.segments);
  // gso_size of a GRO aggregate (its segments are full-sized except maybe the last).
  std::uint32_t len = segs > 1 ? (p.payload_bytes + segs - 1) / segs : p.payload_bytes;
  if (len >= c.rcv_mss) {
    c.rcv_mss = std::min(len, c.advmss);
    if ((p.tcp.flags & tcp_flags::kPush) != 0) c.pending |= kAckPushed;
  } else {
    len += p.l4_header_bytes;
    if (len >= kMssDefault + kTcpHeaderBytes ||
        (len >= kMinMss + kTcpHeaderBytes && (p.tcp.flags & kRemnant) == 0)) {
      len -= c.tcp_header_len;
      c.last_seg_size = len;
      if (len == lss) {
        c.rcv_mss = len;
        return;
      }
    }
    if ((c.pending & kAckPushed) != 0) c.pending |= kAckPushed2;
    c.pending |= kAckPushed;
  }
}

void LinuxTcpReceiver::tcp_incr_quickack(Conn& c, int max_quickacks) {
  int quickacks = static_cast<int>(c.rcv_wnd / (2 * c.rcv_mss));
  if (quickacks == 0) quickacks = 2;
  quickacks = std::min(quickacks, max_quickacks);
  if (quickacks > c.quick) c.quick = quickacks;
}

void LinuxTcpReceiver::tcp_enter_quickack_mode(Conn& c, int max_quickacks) {
  tcp_incr_quickack(c, max_quickacks);
  c.pingpong = 0;
  c.ato = ato_min();
}

void LinuxTcpReceiver::tcp_rcv_rtt_update(Conn& c, std::uint32_t sample_us, bool win_dep) {
  const std::uint32_t old = c.rcv_rtt_us;
  const std::uint32_t m = sample_us << 3;
  if (old == 0 || m < old) {
    c.rcv_rtt_us = m;
  } else if (!win_dep) {
    c.rcv_rtt_us = old - (old >> 3) + sample_us;
  }
}

void LinuxTcpReceiver::tcp_fin(Conn& c) {
  c.pending |= kAckSched;
  c.peer_fin = true;
  c.peer_fin_event = true;
  if (c.state == State::established) {
    c.state = State::close_wait;
    c.pingpong = kPingpongThresh;  // inet_csk_enter_pingpong_mode
  } else if (c.state == State::fin_wait) {
    send_ack(c);  // FIN_WAIT: ACK the FIN at once (no TIME_WAIT modelled)
  }
  // Out-of-order data after a FIN is dropped, with its SACK state.
  c.ofo.clear();
  c.num_sacks = 0;
  c.dsack = false;
}

// ---------------------------------------------------------------------------
// SACK bookkeeping (tcp_input.c)

void LinuxTcpReceiver::dsack_set(Conn& c, std::uint32_t seq, std::uint32_t end_seq) {
  if (!c.sack_ok || !config_.dsack) return;
  c.dsack = true;
  c.duplicate_sack = Range{seq, end_seq};
}

namespace {
bool sack_extend(std::uint32_t& start, std::uint32_t& end, std::uint32_t seq, std::uint32_t end_seq) {
  if (!after(seq, end) && !after(start, end_seq)) {
    if (before(seq, start)) start = seq;
    if (after(end_seq, end)) end = end_seq;
    return true;
  }
  return false;
}
}  // namespace

void LinuxTcpReceiver::dsack_extend(Conn& c, std::uint32_t seq, std::uint32_t end_seq) {
  if (!c.dsack) {
    dsack_set(c, seq, end_seq);
  } else {
    sack_extend(c.duplicate_sack.start, c.duplicate_sack.end, seq, end_seq);
  }
}

void LinuxTcpReceiver::sack_maybe_coalesce(Conn& c) {
  Range& sp = c.selective_acks[0];
  int this_sack = 1;
  while (this_sack < c.num_sacks) {
    Range& swalk = c.selective_acks[static_cast<std::size_t>(this_sack)];
    if (sack_extend(sp.start, sp.end, swalk.start, swalk.end)) {
      --c.num_sacks;
      for (int i = this_sack; i < c.num_sacks; ++i) {
        c.selective_acks[static_cast<std::size_t>(i)] = c.selective_acks[static_cast<std::size_t>(i + 1)];
      }
      continue;
    }
    ++this_sack;
  }
}

void LinuxTcpReceiver::sack_compress_send_ack(Conn& c) {
  if (c.compressed_ack == 0) return;
  sim().cancel(timers(c).comp);
  // One ACK goes out now: it is not counted as compressed.
  --c.compressed_ack;
  send_ack(c);
}

void LinuxTcpReceiver::sack_new_ofo_skb(Conn& c, std::uint32_t seq, std::uint32_t end_seq) {
  constexpr int kBlocksExpected = 2;  // TCP_SACK_BLOCKS_EXPECTED
  auto& sp = c.selective_acks;
  const int cur_sacks = c.num_sacks;
  if (cur_sacks == 0) {
    sp[0] = Range{seq, end_seq};
    c.num_sacks = 1;
    return;
  }
  for (int this_sack = 0; this_sack < cur_sacks; ++this_sack) {
    Range& b = sp[static_cast<std::size_t>(this_sack)];
    if (sack_extend(b.start, b.end, seq, end_seq)) {
      if (this_sack >= kBlocksExpected) sack_compress_send_ack(c);
      // Rotate it to the front: the most recent block goes first.
      for (int k = this_sack; k > 0; --k) std::swap(sp[static_cast<std::size_t>(k)], sp[static_cast<std::size_t>(k - 1)]);
      if (cur_sacks > 1) sack_maybe_coalesce(c);
      return;
    }
  }
  int this_sack = cur_sacks;
  if (this_sack >= kBlocksExpected) sack_compress_send_ack(c);
  // A new block at the front; the oldest falls off when all four are used.
  if (this_sack >= kNumSacks) {
    --this_sack;
    --c.num_sacks;
  }
  for (; this_sack > 0; --this_sack) sp[static_cast<std::size_t>(this_sack)] = sp[static_cast<std::size_t>(this_sack - 1)];
  sp[0] = Range{seq, end_seq};
  ++c.num_sacks;
}

void LinuxTcpReceiver::sack_remove(Conn& c) {
  if (c.ofo.empty()) {
    c.num_sacks = 0;
    return;
  }
  int num = c.num_sacks;
  int this_sack = 0;
  while (this_sack < num) {
    if (!before(c.rcv_nxt, c.selective_acks[static_cast<std::size_t>(this_sack)].start)) {
      for (int i = this_sack + 1; i < num; ++i) {
        c.selective_acks[static_cast<std::size_t>(i - 1)] = c.selective_acks[static_cast<std::size_t>(i)];
      }
      --num;
      continue;
    }
    ++this_sack;
  }
  c.num_sacks = num;
}

// ---------------------------------------------------------------------------
// ACK decisions

void LinuxTcpReceiver::ack_snd_check(Conn& c) {
  if ((c.pending & kAckSched) == 0) return;  // nothing to ACK (or a data segment carried it)
  // More than one full frame since the last ACK (the window is constant, so
  // "the right edge advances far enough" always holds), quickack, or ACK_NOW.
  const bool one_mss = (c.rcv_nxt - c.rcv_wup) > c.rcv_mss;
  const bool quick = tcp_in_quickack_mode(c);
  if (one_mss || quick || (c.pending & kAckNow) != 0) {
    if (quick && !one_mss) ++c.stats.quickack_acks;
    send_ack(c);
    return;
  }
  if (c.ofo.empty()) {
    send_delayed_ack(c);
    return;
  }
  // Out-of-order queue not empty: SACK compression (tcp_comp_sack_*).
  if (!c.sack_ok || c.compressed_ack >= config_.comp_sack_nr) {
    send_ack(c);
    return;
  }
  if (c.compressed_ack_rcv_nxt != c.rcv_nxt) {
    c.compressed_ack_rcv_nxt = c.rcv_nxt;
    c.dup_ack_counter = 0;
  }
  if (c.dup_ack_counter < kFastRetransThresh) {
    ++c.dup_ack_counter;
    send_ack(c);
    return;
  }
  ++c.compressed_ack;
  Timer& t = timers(c).comp;
  if (t.pending()) return;
  // 5 % of the RTT, at most tcp_comp_sack_delay_ns.
  std::uint64_t rtt = c.rcv_rtt_us;
  if (c.srtt_us != 0 && c.srtt_us < rtt) rtt = c.srtt_us;
  const auto ns = static_cast<SimTime>(rtt * (1000 >> 3) / 20);
  const SimTime delay = std::min(config_.comp_sack_delay, ns * kPicosPerNano);
  sim().arm_in(t, delay + config_.comp_sack_slack);
}

void LinuxTcpReceiver::send_delayed_ack(Conn& c) {
  int ato = c.ato;
  if (ato > ato_min()) {
    int max_ato = hz() / 2;
    if (c.pingpong >= kPingpongThresh || (c.pending & kAckPushed) != 0) max_ato = delack_max();
    if (c.srtt_us != 0) {
      const int rtt = std::max(usecs_to_jiffies(c.srtt_us >> 3), ato_min());
      if (rtt < max_ato) max_ato = rtt;
    }
    ato = std::min(ato, max_ato);
  }
  ato = std::min(ato, delack_max());  // icsk_delack_max (since v5.10), default TCP_DELACK_MAX
  const std::int64_t now = jiffies();
  std::int64_t timeout = now + ato;
  if ((c.pending & kAckTimer) != 0) {
    // The timer is about to expire: ACK now rather than wait.
    if (c.ack_timeout <= now + (ato >> 2)) {
      send_ack(c);
      return;
    }
    if (!(timeout < c.ack_timeout)) timeout = c.ack_timeout;  // keep the earlier one
  }
  c.pending |= kAckSched | kAckTimer;
  c.ack_timeout = timeout;
  timers(c).delack.reset(timeout - now);
}

void LinuxTcpReceiver::cleanup_rbuf(Conn& c, std::uint32_t copied) {
  if (!config_.ack_on_read || (c.pending & kAckSched) == 0) return;
  // The app read a pushed (or short) segment and nothing is left queued:
  // the sender may be waiting for this ACK.
  const bool pushed = (c.pending & kAckPushed2) != 0 ||
                      ((c.pending & kAckPushed) != 0 && c.pingpong < kPingpongThresh);
  if ((c.rcv_nxt - c.rcv_wup) > c.rcv_mss || (copied > 0 && pushed && c.ofo.empty())) send_ack(c);
}

void LinuxTcpReceiver::on_delack_timer(Conn& c) {
  if ((c.pending & kAckTimer) == 0) return;
  if (c.ack_timeout > jiffies()) {
    timers(c).delack.reset(c.ack_timeout - jiffies());
    return;
  }
  c.pending &= ~kAckTimer;
  if ((c.pending & kAckSched) == 0) return;
  if (c.pingpong < kPingpongThresh) {
    c.ato = std::min(c.ato << 1, c.rto_jiffies);  // delayed ACK missed: inflate ato
  } else {
    c.pingpong = 0;
    c.ato = ato_min();
  }
  ++c.stats.delayed_acks;
  send_ack(c);
}

void LinuxTcpReceiver::on_comp_timer(Conn& c) {
  if (c.compressed_ack == 0) return;
  --c.compressed_ack;  // this ACK goes out, it is not "compressed"
  send_ack(c);
}

// ---------------------------------------------------------------------------
// Output

void LinuxTcpReceiver::fill_ack_options(Conn& c, Packet& p) {
  TcpSegmentInfo& th = p.tcp;
  if (c.ts_ok) {
    th.ts_present = true;
    th.ts_val = ts_now();
    th.ts_ecr = c.ts_recent;
  }
  if (!c.sack_ok) return;
  const int eff = c.num_sacks + (c.dsack ? 1 : 0);
  if (eff == 0) return;
  // 40 option bytes: 3 blocks next to the timestamp, else 4; D-SACK first.
  const int n = std::min(eff, c.ts_ok ? 3 : 4);
  int k = 0;
  if (c.dsack) th.sack_blocks[static_cast<std::size_t>(k++)] = SackBlock{c.duplicate_sack.start, c.duplicate_sack.end};
  for (int i = 0; k < n; ++i) {
    const Range& r = c.selective_acks[static_cast<std::size_t>(i)];
    th.sack_blocks[static_cast<std::size_t>(k++)] = SackBlock{r.start, r.end};
  }
  th.sack_block_count = static_cast<std::uint8_t>(n);
}

void LinuxTcpReceiver::transmit(Conn& c, std::uint32_t seq, std::uint32_t len, std::uint8_t flags) {
  Packet* p = new_segment(c);
  TcpSegmentInfo& th = p->tcp;
  th.seq = seq;
  th.ack = c.rcv_nxt;
  th.flags = static_cast<std::uint8_t>(flags | tcp_flags::kAck);
  th.window = std::min<std::uint32_t>(c.rcv_wnd >> c.rcv_wscale, 65535);
  const bool had_dsack = c.dsack;
  fill_ack_options(c, *p);
  if (len == 0 && (flags & tcp_flags::kFin) == 0) {
    ++c.stats.acks_sent;
    if (th.sack_block_count > 0) ++c.stats.sack_acks_sent;
    if (had_dsack) ++c.stats.dsack_acks_sent;
  }
  c.dsack = false;  // written once
  p->payload_bytes = len;
  p->l4_header_bytes = kTcpHeaderBytes + th.option_bytes();
  c.rcv_wup = c.rcv_nxt;  // tcp_select_window
  event_ack_sent(c, 1);
  if (on_transmit_) on_transmit_(c.id, *p);
  host_.send(p);
}

void LinuxTcpReceiver::send_ack(Conn& c) { transmit(c, c.snd_nxt, 0, 0); }

void LinuxTcpReceiver::event_ack_sent(Conn& c, unsigned pkts) {
  if (c.compressed_ack != 0) {
    c.stats.compressed_acks += c.compressed_ack;
    c.compressed_ack = 0;
    sim().cancel(timers(c).comp);
  }
  // tcp_dec_quickack_mode.
  if (c.quick != 0) {
    if (pkts >= static_cast<unsigned>(c.quick)) {
      c.quick = 0;
      c.ato = ato_min();
    } else {
      c.quick -= static_cast<int>(pkts);
    }
  }
  // inet_csk_clear_xmit_timer(ICSK_TIME_DACK).
  c.pending = 0;
  timers(c).delack.stop();
}

bool LinuxTcpReceiver::send(ConnId id, std::uint64_t bytes) {
  Conn& c = conn(id);
  if ((c.state != State::established && c.state != State::close_wait) || c.fin_queued) return false;
  c.write_seq += static_cast<std::uint32_t>(bytes);
  push_pending(c);
  return true;
}

void LinuxTcpReceiver::close(ConnId id) {
  Conn& c = conn(id);
  if (c.state == State::established) {
    c.state = State::fin_wait;
  } else if (c.state == State::close_wait) {
    c.state = State::last_ack;
  } else {
    return;
  }
  c.fin_queued = true;
  push_pending(c);
}

void LinuxTcpReceiver::push_pending(Conn& c) {
  bool sent = false;
  while (before(c.snd_nxt, c.write_seq)) {
    const std::uint32_t len = std::min(c.mss_cache, c.write_seq - c.snd_nxt);
    const std::uint8_t flags = (c.snd_nxt + len == c.write_seq) ? tcp_flags::kPush : 0;
    transmit(c, c.snd_nxt, len, flags);
    ++c.stats.data_segments_sent;
    c.stats.data_bytes_sent += len;
    c.snd_nxt += len;
    sent = true;
    // tcp_event_data_sent: a reply within ato of the last data counts toward pingpong.
    if (c.ato != 0 && jiffies() - c.lrcvtime < c.ato && c.pingpong < 255) ++c.pingpong;
  }
  if (c.fin_queued && c.snd_nxt == c.write_seq) {
    transmit(c, c.snd_nxt, 0, tcp_flags::kFin);
    c.snd_nxt += 1;
    sent = true;
  }
  if (sent && !timers(c).rexmit.pending()) arm_rexmit(c);
}

void LinuxTcpReceiver::arm_rexmit(Conn& c) {
  std::int64_t rto = c.rto_jiffies > 0 ? c.rto_jiffies : usecs_to_jiffies(1000000);
  rto <<= std::min(c.backoff, 15);
  rto = std::min<std::int64_t>(rto, kRtoMaxSeconds * hz());
  timers(c).rexmit.reset(rto);
}

void LinuxTcpReceiver::on_rexmit_timer(Conn& c) {
  if (c.state == State::syn_sent) {
    // tcp_retransmit_timer on a SYN_SENT socket: give up after
    // tcp_syn_retries retransmissions, else resend with the RTO doubled.
    if (c.backoff >= kSynRetries) {
      release_conn(c);
      c.state = State::closed;
      return;
    }
    ++c.backoff;
    c.syn_retrans = true;
    send_syn(c);
    arm_rexmit(c);
    return;
  }
  if (c.snd_una == c.snd_nxt) return;
  if (c.backoff < 15) ++c.backoff;
  // Go back to snd_una and resend everything outstanding (small amounts only).
  std::uint32_t seq = c.snd_una;
  while (before(seq, c.write_seq) && before(seq, c.snd_nxt)) {
    const std::uint32_t len = std::min(c.mss_cache, c.write_seq - seq);
    const std::uint8_t flags = (seq + len == c.write_seq) ? tcp_flags::kPush : 0;
    transmit(c, seq, len, flags);
    ++c.stats.data_segments_sent;
    c.stats.data_bytes_sent += len;
    ++c.stats.retransmits;
    seq += len;
  }
  if (c.fin_queued && !c.fin_acked && c.snd_nxt == c.write_seq + 1) {
    transmit(c, c.write_seq, 0, tcp_flags::kFin);
    ++c.stats.retransmits;
  }
  arm_rexmit(c);
}

void LinuxTcpReceiver::maybe_finish(Conn& c) {
  if (c.fin_queued && c.fin_acked && c.peer_fin) {
    release_conn(c);
    c.state = State::closed;
  }
}

void LinuxTcpReceiver::handle_event(std::uint64_t tag) {
  const auto index = static_cast<std::size_t>(tag / 4);
  if (index >= conns_.size()) return;
  Conn& c = *conns_[index];
  if (c.state == State::free || c.state == State::closed) return;
  switch (tag % 4) {
    case kDelack:
      on_delack_timer(c);
      break;
    case kRexmit:
      on_rexmit_timer(c);
      break;
    case kCompSack:
      on_comp_timer(c);
      break;
    default:
      break;
  }
  if (c.state != State::free && c.state != State::closed) maybe_finish(c);
}

}  // namespace netsim::tcp
