#include "netsim/tcp/freebsd_tcp_sender.h"

#include <algorithm>
#include <array>
#include <limits>

#include "netsim/cc/cc_framework.h"
#include "netsim/cc/cc_registry.h"
#include "netsim/tcp/sack_scoreboard.h"
#include "netsim/tcp/tcp_rtt.h"
#include "netsim/tcp/tcp_segment.h"

namespace netsim::tcp {
namespace {

// tcp_syn_backoff[] of tcp_timer.c: SYN retransmits back off slowly at first.
constexpr std::array<int, TCP_MAXRXTSHIFT + 1> kSynBackoff{1, 1, 1, 1, 1, 2, 4, 8, 16, 32, 64, 64, 64};
constexpr std::uint32_t kTcpMaxWin = 65535;
constexpr std::uint32_t kSoSndLowat = 2048;     // default SO_SNDLOWAT
constexpr std::uint32_t kAdvertisedWindow = 65535;  // what receive_window() reports to SIFTR

bool ts_lt(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) < 0; }

}  // namespace

FreeBsdTcpSender::FreeBsdTcpSender(Simulation& sim, std::string name, Host& host, NodeId peer,
                                   std::uint16_t peer_port, const FreeBsdTcpConfig& config)
    : FreeBsdTcpSender(sim, std::move(name), host, peer, peer_port, host.ephemeral_port(), config) {
  host.bind(IpProtocol::tcp, local_port_, this);
}

FreeBsdTcpSender::FreeBsdTcpSender(Simulation& sim, std::string name, Host& host, std::uint16_t local_port,
                                   const FreeBsdTcpConfig& config, PassiveOpen)
    : FreeBsdTcpSender(sim, std::move(name), host, kNoNode, 0, local_port, config) {
  state_ = State::listen;
}

FreeBsdTcpSender::FreeBsdTcpSender(Simulation& sim, std::string name, Host& host, NodeId peer,
                                   std::uint16_t peer_port, std::uint16_t local_port, const FreeBsdTcpConfig& config)
    : Component(sim, std::move(name)),
      host_(host),
      clock_(host.clock()),
      peer_(peer),
      peer_port_(peer_port),
      local_port_(local_port),
      config_(config),
      timers_(TcpTimerParams::for_hz(host.clock().hz())),
      cc_(config.cc_modules != nullptr ? config.cc_modules->make(config.cc) : cc::make_cc(config.cc)),
      rexmt_(host.clock(), this, kRexmtTimer),
      delack_(host.clock(), this, kDelackTimer),
      persist_(host.clock(), this, kPersistTimer),
      cpu_resume_(this, kCpuResume),
      sb_hiwat_(config.sendspace),
      so_rcv_hiwat_(config.recvspace),
      so_rcv_autosize_(config.recvbuf_auto) {
  tp_.t_segq.reserve(config_.reass_maxqueuelen);
  tp_.hz = timers_.hz;
  tp_.t_rttmin = timers_.rexmit_min;
  tp_.t_rxtcur = timers_.rexmit_initial;  // tcp_newtcpcb: TCPTV_RTOBASE
  if (config_.lrd) tp_.t_flags |= TF_LRD;  // tcp_newtcpcb, with net.inet.tcp.sack.lrd
  // tcp_newtcpcb: tcp_mssdflt (tcp_v6mssdflt over IPv6) until the SYN exchange.
  tp_.t_maxseg = default_mss(host.ip_version());
  tp_.maxseg = tp_.fixed_maxseg = tp_.t_maxseg;
  sync_clock();
  cc::cc_attach(tp_, *cc_);
  Rng rng = sim.rng_stream("tcp/" + this->name() + "/iss");
  iss_ = static_cast<std::uint32_t>(rng.next_u64());
  ts_offset_ = static_cast<std::uint32_t>(rng.next_u64());
}

FreeBsdTcpSender::~FreeBsdTcpSender() {
  if (cc_) cc_->cb_destroy(tp_.t_ccv);
}

std::uint32_t FreeBsdTcpSender::ts_now() const {
  // getmicrouptime() is updated at each hardclock: the last tick edge, in ms.
  const std::int64_t t = clock_.ticks();
  const SimTime edge = t > 0 ? clock_.time_of_tick(t) : 0;
  return static_cast<std::uint32_t>(edge / kPicosPerMilli);
}

std::uint64_t FreeBsdTcpSender::send_buffer_room() const {
  return so_snd_cc_ >= sb_hiwat_ ? 0 : sb_hiwat_ - so_snd_cc_;
}

TcpSocketInfo FreeBsdTcpSender::info() const {
  TcpSocketInfo i;
  i.snd_cwnd_bytes = tp_.snd_cwnd;
  i.snd_wnd_bytes = tp_.snd_wnd;
  i.mss = tp_.t_maxseg;
  i.rtt_us = srtt_usecs();
  i.rttvar_us = rttvar_usecs();
  // tcpi_snd_rexmitpack: one per retransmitting tcp_output send, a TSO burst
  // resent after an RTO once, however many segments it has.
  i.retransmits = stats_.retransmitted_packs;
  i.rto_count = stats_.rto_count;
  i.recovery_episodes = stats_.recovery_episodes;
  // segments_sent counts an active open's SYN and its retransmissions (a
  // passive open's SYN-ACKs are not in it): data segments leave them out.
  const bool active = state_ != State::closed && stats_.syn_acks_sent == 0;
  const std::uint64_t syns = active ? 1 + stats_.syn_retransmits : 0;
  i.data_segments_sent = stats_.segments_sent - std::min(stats_.segments_sent, syns);
  i.bytes_sent = stats_.bytes_sent;
  return i;
}

std::uint64_t FreeBsdTcpSender::write(std::uint64_t bytes) {
  const std::uint64_t n = std::min(bytes, send_buffer_room());
  charge_copy(n);
  so_snd_cc_ += n;
  bytes_written_ += n;
  if (state_ == State::established && n > 0) tcp_output();
  return n;
}

void FreeBsdTcpSender::refill() {
  if (unlimited_ && so_snd_cc_ < sb_hiwat_) {
    charge_copy(sb_hiwat_ - so_snd_cc_);
    bytes_written_ += sb_hiwat_ - so_snd_cc_;
    so_snd_cc_ = sb_hiwat_;
  }
}

// sosend's copy from the application into the send buffer: CPU time that
// the segments sent after it wait for.
void FreeBsdTcpSender::charge_copy(std::uint64_t bytes) {
  if (HostCpu* cpu = host_.cpu()) cpu->run_copy(bytes);
}

void FreeBsdTcpSender::connect() {
  sync_clock();
  state_ = State::syn_sent;
  tp_.snd_una = tp_.snd_nxt = tp_.snd_max = tp_.snd_recover = iss_;
  send_syn();
  arm_rexmt(tp_.t_rxtcur);
}

void FreeBsdTcpSender::open_to(NodeId peer, std::uint16_t peer_port) {
  if (state_ != State::listen) return;
  peer_ = peer;
  peer_port_ = peer_port;
  connect();
}

// A segment of this connection from the pool, addressed; the caller fills
// the TCP header and payload.
Packet* FreeBsdTcpSender::new_segment() { return new_tcp_segment(sim(), peer_, local_port_, peer_port_); }

void FreeBsdTcpSender::send_syn() {
  Packet* p = new_segment();
  fill_syn(*p, iss_,
           SynOptions{static_cast<std::uint16_t>(route_mss(host_, peer_)), config_.request_wscale, config_.sack,
                      config_.timestamps, ts_now() + ts_offset_});
  tp_.snd_nxt = tp_.snd_max = iss_ + 1;
  ++stats_.segments_sent;
  host_.send(p);
}

void FreeBsdTcpSender::deliver(Packet* p) {
  sync_clock();
  data_for_app_ = 0;
  if (state_ == State::listen) {
    if ((p->tcp.flags & (tcp_flags::kSyn | tcp_flags::kAck | tcp_flags::kRst)) == tcp_flags::kSyn) syncache_add(*p);
  } else if (state_ == State::syn_received) {
    syncache_input(*p);
  } else if (state_ == State::syn_sent) {
    if ((p->tcp.flags & (tcp_flags::kSyn | tcp_flags::kAck)) == (tcp_flags::kSyn | tcp_flags::kAck) &&
        p->tcp.ack == iss_ + 1) {
      handle_syn_ack(*p);
    }
  } else if ((state_ == State::established || state_ == State::close_wait) && (p->tcp.flags & tcp_flags::kAck) != 0 &&
             (p->tcp.flags & tcp_flags::kSyn) == 0) {
    tcp_do_segment(*p);
    if (trace_) trace_(trace_sample(TcpTraceSample::Event::ack));
  }
  sim().packets().release(p);
  // check_delack: a delayed ACK noted while processing the segment (and not
  // carried by anything sent since) arms TT_DELACK.
  if (tp_.t_flags & TF_DELACK) {
    tp_.t_flags &= ~TF_DELACK;
    delack_.reset(timers_.delack);
  }
  // The application reads what arrived (sorwakeup); it runs after the input path.
  read_received();
}

TcpTraceSample FreeBsdTcpSender::trace_sample(TcpTraceSample::Event event) const {
  TcpTraceSample s;
  s.time = sim().now();
  s.event = event;
  s.cwnd = tp_.snd_cwnd;
  s.ssthresh = tp_.snd_ssthresh;
  s.snd_wnd = tp_.snd_wnd;
  // Offsets from the first data byte, unwrapped with the running total.
  s.snd_una = bytes_acked_total_;
  s.snd_max = bytes_acked_total_ + (tp_.snd_max - tp_.snd_una);
  s.pipe = state_ == State::established ? pipe() : 0;
  s.sacked_bytes = tp_.sackhint.sacked_bytes;
  s.srtt_us = srtt_usecs();
  s.rttvar_us = rttvar_usecs();
  s.rto_us = static_cast<std::uint32_t>(static_cast<std::int64_t>(tp_.t_rxtcur) * timers_.tick_usecs());
  s.in_recovery = IN_RECOVERY(tp_.t_flags) != 0;
  s.retransmits = stats_.retransmitted_segments;
  s.recoveries = stats_.recovery_episodes;
  s.rtos = stats_.rto_count;
  return s;
}

std::uint32_t FreeBsdTcpSender::receive_window() const {
  return (kAdvertisedWindow >> tp_.rcv_scale) << tp_.rcv_scale;
}

std::uint32_t FreeBsdTcpSender::path_mss() const { return route_mss(host_, peer_); }

void FreeBsdTcpSender::set_maxseg(std::uint32_t peer_mss) {
  // tcp_mss(): min(path MTU - headers, offer); options are subtracted per segment.
  tp_.t_maxseg = std::max<std::uint32_t>(64, std::min<std::uint32_t>(path_mss(), peer_mss));
  tp_.fixed_maxseg = tp_.maxseg = tp_.t_maxseg - (ts_on_ ? 12u : 0u);
  // tcp_mss() also rounds the send buffer up to a multiple of t_maxseg.
  sb_hiwat_ = std::min(config_.sendbuf_max, (sb_hiwat_ + tp_.t_maxseg - 1) / tp_.t_maxseg * tp_.t_maxseg);
  // ... and the receive buffer, when it is larger than a segment.
  if (so_rcv_hiwat_ > tp_.t_maxseg) {
    so_rcv_hiwat_ = std::min(config_.sb_max, (so_rcv_hiwat_ + tp_.t_maxseg - 1) / tp_.t_maxseg * tp_.t_maxseg);
  }
}

void FreeBsdTcpSender::handle_syn_ack(const Packet& p) {
  const TcpSegmentInfo& th = p.tcp;
  tp_.rcv_nxt = tp_.rcv_adv = tp_.last_ack_sent = th.seq + 1;  // tcp_rcvseqinit
  // Both sides must send the option for either to scale (TF_RCVD_SCALE and TF_REQ_SCALE).
  tp_.rcv_scale = th.wscale != 0xff ? config_.request_wscale : 0;
  if (th.wscale != 0xff) tp_.snd_scale = std::min<std::uint8_t>(th.wscale, 14);
  // SACK permitted both ways. FreeBSD keeps this as TF_SACK_PERMIT in
  // t_flags; this sender keeps it in sack_on_ and leaves the bit clear, as it
  // always has: with the bit set, cc_cong_signal(CC_RTO) would keep recovery
  // on the first RTO while holes remain (as FreeBSD does), which changes the
  // sender's behaviour (see docs/tcp-sender.md, "Known differences").
  sack_on_ = config_.sack && th.sack_permitted;
  ts_on_ = config_.timestamps && th.ts_present;
  if (ts_on_) ts_recent_ = th.ts_val;
  set_maxseg(th.mss != 0 ? th.mss : default_mss(host_.ip_version()));
  // The receive window before the SYN_SENT case (sbspace), and rcv_adv past it.
  tp_.rcv_wnd = sbspace();
  tp_.rcv_adv += std::min<std::uint32_t>(tp_.rcv_wnd, static_cast<std::uint32_t>(TCP_MAXWIN) << tp_.rcv_scale);
  tp_.snd_wnd = th.window;  // a SYN's window is never scaled
  tp_.max_sndwnd = tp_.snd_wnd;
  snd_wl1_ = th.seq;
  snd_wl2_ = th.ack;
  tp_.snd_una = th.ack;
  tp_.snd_recover = th.ack;
  stop_rexmt();
  if (ts_on_ && th.ts_ecr != 0) {
    tcp_xmit_timer(tp_, tcp_ts_rtt_sample(ts_now(), th.ts_ecr - ts_offset_, timers_.hz), timers_);
  }
  tp_.t_rxtshift = 0;
  state_ = State::established;
  cc::cc_conn_init(tp_, cc::HcMetricsLite{.rmx_ssthresh = config_.hostcache_ssthresh});
  tp_.t_flags |= TF_ACKNOW;
  refill();
  tcp_output();
  if (on_established_) on_established_();
}

void FreeBsdTcpSender::transmit(std::uint32_t seq, std::uint32_t len, std::uint8_t flags, bool retransmit) {
  const std::uint32_t maxseg = tp_.maxseg;
  std::uint32_t off = 0;
  // Every segment carries an ACK: any pending delayed ACK has now been sent
  // (tcp_output clears TF_ACKNOW | TF_DELACK and stops TT_DELACK; the caller
  // clears TF_ACKNOW).
  tp_.t_flags &= ~TF_DELACK;
  delack_.stop();
  if (retransmit) ++stats_.retransmitted_packs;
  std::int64_t recwin = output_recwin();
  const std::uint32_t window = advertise(recwin);
  const bool sack_blocks = sack_on_ && tp_.rcv_numsacks > 0;
  // A TSO burst leaves the interface as back-to-back wire segments, or as
  // one frame on a vNIC that segments it itself (Host::tso_frames).
  const bool one_frame = len > maxseg && host_.tso_frames();
  do {
    const std::uint32_t seg = one_frame ? len : std::min(len - off, maxseg);
    Packet* p = new_segment();
    p->tcp.seq = seq + off;
    p->tcp.ack = tp_.rcv_nxt;
    // TSO (and the host's GSO) put PSH on the last segment of a burst only.
    p->tcp.flags = off + seg < len ? static_cast<std::uint8_t>(flags & ~tcp_flags::kPush) : flags;
    p->tcp.window = window;
    p->tcp.ts_present = ts_on_;
    p->tcp.ts_val = ts_now() + ts_offset_;
    p->tcp.ts_ecr = ts_recent_;
    if (sack_blocks) fill_sack_option(*p);
    p->payload_bytes = seg;
    p->l4_header_bytes = kTcpHeaderBytes + p->tcp.option_bytes();
    const std::uint32_t wire_segments = one_frame ? (len + maxseg - 1) / maxseg : 1;
    if (one_frame) {
      p->segments = static_cast<std::uint16_t>(wire_segments);
      p->seg_payload = static_cast<std::uint16_t>(maxseg);
    }
    stats_.segments_sent += wire_segments;
    stats_.bytes_sent += seg;
    if (retransmit) {
      stats_.retransmitted_segments += wire_segments;
      stats_.retransmitted_bytes += seg;
    }
    if (on_transmit_) on_transmit_(*p);
    host_.send(p, off == 0);
    off += seg;
  } while (off < len);
  ack_sent(recwin, sack_blocks);
}

void FreeBsdTcpSender::sndbuf_autoscale() {
  if (!config_.sendbuf_auto) return;
  const std::uint32_t sendwin = std::min(tp_.snd_wnd, tp_.snd_cwnd);
  const std::uint64_t used = so_snd_cc_;
  const std::uint32_t lowat = std::min(kSoSndLowat, sb_hiwat_);
  if (static_cast<std::uint64_t>(tp_.snd_wnd / 4 * 5) >= sb_hiwat_ && used >= (sb_hiwat_ / 8 * 7) - lowat &&
      used < config_.sendbuf_max && sendwin >= used - (tp_.snd_nxt - tp_.snd_una)) {
    sb_hiwat_ = std::min(sb_hiwat_ + config_.sendbuf_inc, config_.sendbuf_max);
  }
}

void FreeBsdTcpSender::tcp_output() {
  if (state_ != State::established && state_ != State::close_wait) return;
  sync_clock();
  const std::uint32_t maxseg = tp_.maxseg;
  // Idle restart (after_idle) when nothing is outstanding for an RTO.
  if (tp_.snd_max == tp_.snd_una && (tp_.ticks - t_rcvtime_) >= tp_.t_rxtcur) cc::cc_after_idle(tp_);
  for (int guard = 0; guard < 100000; ++guard) {
    refill();
    std::int64_t off = static_cast<std::int32_t>(tp_.snd_nxt - tp_.snd_una);
    std::uint32_t sendwin = std::min(tp_.snd_wnd, tp_.snd_cwnd);
    bool sendalot = false;
    bool sack_rxmit = false;
    std::int64_t len = 0;
    const sackhole* hole = nullptr;
    int sack_bytes_rxmt = 0;
    // tcp_sack_output is consulted (and sets sack_bytes_rxmt, hole or not)
    // only in fast recovery; outside it sack_bytes_rxmt stays 0, as in
    // FreeBSD, whatever a stale sackhint still holds (LRD resets a hole's
    // rxmit without taking its bytes off sack_bytes_rexmit).
    if (sack_on_ && IN_FASTRECOVERY(tp_.t_flags) && (hole = tcp_sack_output(tp_, sack_bytes_rxmt)) != nullptr) {
      const u_int l = tcp_sack_rxmit_len(tp_, *hole, sack_bytes_rxmt);
      if (l > 0) {
        len = l;
        off = static_cast<std::int32_t>(hole->rxmit - tp_.snd_una);
        sack_rxmit = true;
        sendalot = true;
      }
    }
    // Called by the persist timer: into a zero window goes one byte; a window
    // that has opened ends persisting.
    const bool forcedata = (tp_.t_flags & TF_FORCEDATA) != 0;
    if (forcedata) {
      if (sendwin == 0) {
        sendwin = 1;
      } else {
        persist_.stop();
        tp_.t_rxtshift = 0;
      }
    }
    const std::int64_t avail = static_cast<std::int64_t>(std::min<std::uint64_t>(so_snd_cc_, INT32_MAX));
    if (!sack_rxmit) {
      if (sack_bytes_rxmt == 0 || SEQ_LT(tp_.snd_nxt, tp_.snd_max)) {
        len = std::min<std::int64_t>(avail, sendwin) - off;
      } else {
        // In SACK recovery with every hole resent: new data within what the
        // (PRR-set) cwnd leaves after the data sent since recovery began.
        std::int64_t cwin = static_cast<std::int64_t>(tp_.snd_cwnd) -
                            std::max<std::int64_t>(0, static_cast<std::int32_t>(tp_.snd_nxt - tp_.snd_recover)) -
                            sack_bytes_rxmt;
        if (cwin < 0) cwin = 0;
        len = std::min<std::int64_t>(avail - off, cwin);
      }
    }
    if (len <= 0) {
      len = 0;
      // The window closed (or shrank to zero after we sent into it) with data
      // waiting: stop retransmitting, pull snd_nxt back to the window's edge
      // and persist.
      if (sendwin == 0 && off < avail && !persist_.pending()) {
        stop_rexmt();
        tp_.t_rxtshift = 0;
        tp_.snd_nxt = tp_.snd_una;
        tcp_setpersist();
      }
    }
    bool tso = false;
    if (len > maxseg) {
      if (config_.tso && !sack_rxmit && tp_.rcv_numsacks == 0) {
        tso = true;
        const std::int64_t hdrlen = ip_header_bytes(host_.ip_version()) + kTcpHeaderBytes + (ts_on_ ? 12 : 0);
        const std::int64_t max_len = static_cast<std::int64_t>(config_.tso_max_bytes) - hdrlen;
        if (len > max_len) {
          len = max_len;
          sendalot = true;
        }
        // No fractional last segment unless the buffer empties.
        if (len % maxseg != 0 && off + len < avail) {
          len -= len % maxseg;
          sendalot = true;
        }
      } else {
        len = maxseg;
        sendalot = true;
      }
    }
    bool send = false;
    if (len > 0) {
      if (len >= maxseg || tso) send = true;
      // Everything buffered fits: sent at once. FreeBSD requires idle or
      // TF_NODELAY for this (Nagle); iperf3 sets TCP_NODELAY on its control
      // connection (since 3.10), and its data writes keep the buffer full.
      if (off + len >= avail) send = true;
      if (forcedata) send = true;  // the persist timer's probe
      // Half the largest window the peer ever offered (receiver-limited).
      if (tp_.max_sndwnd > 0 && len >= tp_.max_sndwnd / 2) send = true;
      if (sack_rxmit || SEQ_LT(tp_.snd_nxt, tp_.snd_max)) send = true;
    }
    // A standalone window update (the receive window opened), else an ACK we owe.
    const bool window_update = !send && window_update_due(output_recwin());
    if (!send && (window_update || (tp_.t_flags & TF_ACKNOW))) {
      if (window_update && (tp_.t_flags & TF_ACKNOW) == 0) ++stats_.window_updates;
      transmit(tp_.snd_max, 0, tcp_flags::kAck, false);
      --stats_.segments_sent;  // pure ACKs are not data segments (TcpFlowDriver relies on it)
      ++stats_.pure_acks_sent;
      tp_.t_flags &= ~TF_ACKNOW;
      // tcp_output's timer section, for a segment without data: data
      // outstanding needs the retransmit timer; data waiting with nothing
      // outstanding and no timer (the window closed on an ACK that also
      // carried data) needs the persist timer, or nothing would ever probe.
      if (!rexmt_.pending() && tp_.snd_nxt != tp_.snd_una) {
        if (persist_.pending()) {
          persist_.stop();
          tp_.t_rxtshift = 0;
        }
        arm_rexmt(tp_.t_rxtcur);
      } else if (so_snd_cc_ > 0 && !rexmt_.pending() && !persist_.pending()) {
        tp_.t_rxtshift = 0;
        tcp_setpersist();
      }
      return;
    }
    if (!send) {
      // just_return. With SACK, keep the retransmit timer running while data
      // is out; otherwise data waiting for a window means persist.
      if (sack_on_ && SEQ_GT(tp_.snd_max, tp_.snd_una) && !rexmt_.pending() && !persist_.pending()) {
        arm_rexmt(tp_.t_rxtcur);
      } else if (so_snd_cc_ > 0 && !rexmt_.pending() && !persist_.pending()) {
        tp_.t_rxtshift = 0;
        tcp_setpersist();
      }
      sndbuf_autoscale();
      return;
    }
    // SACK blocks we send take option space from the segment's payload
    // (tcp_output: len = t_maxseg - optlen); no TSO then (see above).
    if (const std::uint32_t sack_bytes = sack_option_bytes(); sack_bytes > 0 && len > maxseg - sack_bytes) {
      len = maxseg - sack_bytes;
      sendalot = true;
    }
    const std::uint32_t seq = sack_rxmit ? hole->rxmit : tp_.snd_nxt;
    const bool probe = forcedata && len == 1;
    const bool retransmit = !probe && (sack_rxmit || SEQ_LT(tp_.snd_nxt, tp_.snd_max));
    if (probe) ++stats_.window_probes;
    const std::uint32_t ulen = static_cast<std::uint32_t>(len);
    transmit(seq, ulen, tcp_flags::kAck | (off + len >= avail ? tcp_flags::kPush : 0), retransmit);
    if (sack_rxmit) tcp_output_sack_rxmit(tp_, hole, ulen);
    if (IN_RECOVERY(tp_.t_flags)) tcp_output_prr_account(tp_, ulen);
    tp_.t_flags &= ~TF_ACKNOW;
    if (forcedata && persist_.pending()) {
      // Persisting: the probe extends snd_max, snd_nxt stays at the window's edge.
      if (SEQ_GT(tp_.snd_nxt + ulen, tp_.snd_max)) tp_.snd_max = tp_.snd_nxt + ulen;
      return;
    }
    if (!sack_rxmit) {
      tp_.snd_nxt += ulen;
      if (SEQ_GT(tp_.snd_nxt, tp_.snd_max)) tp_.snd_max = tp_.snd_nxt;
    }
    if (!rexmt_.pending() && ((sack_rxmit && tp_.snd_nxt != tp_.snd_max) || tp_.snd_nxt != tp_.snd_una)) {
      if (persist_.pending()) {
        persist_.stop();
        tp_.t_rxtshift = 0;
      }
      arm_rexmt(tp_.t_rxtcur);
    }
    if (!sendalot) {
      sndbuf_autoscale();
      refill();
      if (static_cast<std::int64_t>(so_snd_cc_) <= static_cast<std::int32_t>(tp_.snd_nxt - tp_.snd_una)) return;
      // More data may fit in the window: FreeBSD loops while it can send.
    }
    if (defer_output_to_cpu()) return;
  }
}

// The stack runs on the host's CPU: it hands the next packet to the driver
// only once the CPU has finished the last one, so a CPU-bound sender's
// unsent data waits in the socket buffer, not in flight (the loop resumes
// with the window as it is then).
bool FreeBsdTcpSender::defer_output_to_cpu() {
  const HostCpu* cpu = host_.cpu();
  if (!host_.output_waits_for_cpu() || cpu->busy_until() <= sim().now()) return false;
  if (!cpu_resume_.pending()) sim().arm_at(cpu_resume_, cpu->busy_until());
  return true;
}

void FreeBsdTcpSender::tcp_do_prr_ack(sackstatus_t sack_changed, std::uint32_t maxseg) {
  struct sackhint& h = tp_.sackhint;
  const int del_data = h.delivered_data;
  const int pipe = tcp_compute_pipe(tp_);
  h.prr_delivered += static_cast<std::uint32_t>(del_data);
  std::int64_t snd_cnt = 0;
  if (pipe >= static_cast<std::int64_t>(tp_.snd_ssthresh)) {
    if (h.recover_fs == 0) h.recover_fs = std::max<std::uint32_t>(1, tp_.snd_nxt - tp_.snd_una);
    // howmany(prr_delivered * ssthresh, recover_fs) - prr_out + maxseg - 1
    const std::int64_t num = static_cast<std::int64_t>(h.prr_delivered) * tp_.snd_ssthresh;
    snd_cnt = (num + h.recover_fs - 1) / h.recover_fs - h.prr_out + maxseg - 1;
  } else {
    std::int64_t limit;
    if (sack_changed == SACK_NEWLOSS || del_data == 0) {
      limit = static_cast<std::int64_t>(h.prr_delivered) - h.prr_out;
    } else {
      limit = std::max<std::int64_t>(static_cast<std::int64_t>(h.prr_delivered) - h.prr_out, del_data) + maxseg;
    }
    snd_cnt = std::min<std::int64_t>(static_cast<std::int64_t>(tp_.snd_ssthresh) - pipe, limit);
  }
  snd_cnt = std::max<std::int64_t>(snd_cnt, 0) / maxseg;
  if (IN_FASTRECOVERY(tp_.t_flags)) {
    tp_.snd_cwnd = static_cast<std::uint32_t>(
        std::max<std::int64_t>(maxseg, static_cast<std::int32_t>(tp_.snd_nxt - tp_.snd_recover) +
                                           h.sack_bytes_rexmit + snd_cnt * maxseg));
  } else if (IN_CONGRECOVERY(tp_.t_flags)) {
    tp_.snd_cwnd = static_cast<std::uint32_t>(std::max<std::int64_t>(maxseg, pipe - del_data + snd_cnt * maxseg));
  }
}

void FreeBsdTcpSender::tcp_do_segment(const Packet& p) {
  const TcpSegmentInfo& th = p.tcp;
  const std::uint32_t th_ack = th.ack;
  const std::uint32_t tiwin = th.window << tp_.snd_scale;
  const std::uint16_t nsegs = std::max<std::uint16_t>(1, p.segments);
  ++stats_.acks_received;
  t_rcvtime_ = tp_.ticks;
  if (p.payload_bytes > 0) {
    ++stats_.data_packets_received;
    stats_.data_segments_received += nsegs;
    stats_.data_bytes_received += p.payload_bytes;
  }
  // Header prediction, the receiver's case: in-order data with nothing else
  // to do goes straight to the socket buffer.
  if (header_prediction_data(p, tiwin)) return;
  // The segment's text after trimming: duplicate data off the front, what
  // is beyond the window off the end.
  std::uint32_t th_seq = th.seq;
  int tlen = static_cast<int>(p.payload_bytes);
  bool fin = (th.flags & tcp_flags::kFin) != 0;
  if (!trim_to_window(th_seq, tlen, fin)) return;  // dropafterack
  update_ts_recent(th, th_seq, tlen, fin);
  bool needoutput = false;
  if (SEQ_GT(th_ack, tp_.snd_max)) {  // dropafterack
    tp_.t_flags |= TF_ACKNOW;
    tcp_output();
    return;
  }
  const bool has_sack = sack_on_ && th.sack_block_count > 0;
  const bool sack_recovery = sack_on_ && (has_sack || !tp_.snd_holes.empty());
  sackstatus_t sack_changed = SACK_NOCHANGE;
  if (sack_recovery) {
    std::array<sackblk, 4> blocks{};
    for (int i = 0; i < th.sack_block_count; ++i) blocks[i] = {th.sack_blocks[i].start, th.sack_blocks[i].end};
    sack_changed = tcp_sack_doack(tp_, std::span<const sackblk>(blocks.data(), th.sack_block_count), th_ack);
    if (sack_changed != SACK_NOCHANGE && (tp_.t_flags & TF_LRD) && tcp_sack_lost_retransmission(tp_)) {
      ++stats_.lrd_events;
      tp_.snd_cwnd = tp_.snd_ssthresh;
      EXIT_RECOVERY(tp_.t_flags);
      cc::cc_cong_signal(tp_, th_ack, cc::CC_NDUPACK);
      tp_.snd_cwnd = tp_.maxseg;
      tp_.sackhint.recover_fs = (tp_.snd_max - tp_.snd_una) - tp_.sackhint.recover_fs;
    }
  } else {
    tp_.sackhint.sacked_bytes = 0;
  }
  const std::uint32_t maxseg = tp_.maxseg;

  auto enter_recovery = [&]() -> bool {  // returns false for FreeBSD's "break"
    tp_.t_dupacks = tcprexmtthresh;
    if (config_.prr || sack_on_) {
      if (IN_FASTRECOVERY(tp_.t_flags)) {
        tp_.t_dupacks = 0;
        return false;
      }
    }
    cc::cc_cong_signal(tp_, th_ack, cc::CC_NDUPACK);
    cc::cc_ack_received(tp_, th_ack, nsegs, cc::CC_DUPACK);
    stop_rexmt();
    if (config_.prr) {
      tp_.sackhint.prr_delivered = sack_recovery ? maxseg : std::min<std::uint32_t>(tp_.snd_max - tp_.snd_una,
                                                                                    3u * maxseg);
      tp_.sackhint.recover_fs = std::max<std::uint32_t>(1, tp_.snd_nxt - tp_.snd_una);
    }
    snd_limited_ = 0;
    ++stats_.recovery_episodes;
    tp_.snd_recover = tp_.snd_nxt;
    tp_.snd_cwnd = maxseg;
    tcp_output();
    return true;
  };

  if (SEQ_LEQ(th_ack, tp_.snd_una)) {
    if (tlen == 0 && (tiwin == tp_.snd_wnd || sack_on_)) {
      ++stats_.dupacks;
      if (th_ack != tp_.snd_una || (sack_recovery && sack_changed == SACK_NOCHANGE)) {
        // old ACK, or SACK without news: not a dupack
      } else if (!rexmt_.pending()) {
        tp_.t_dupacks = 0;
      } else if (++tp_.t_dupacks > tcprexmtthresh || IN_FASTRECOVERY(tp_.t_flags)) {
        cc::cc_ack_received(tp_, th_ack, nsegs, cc::CC_DUPACK);
        if (config_.prr && IN_FASTRECOVERY(tp_.t_flags) && sack_on_) {
          tcp_do_prr_ack(sack_changed, maxseg);
        } else if (sack_recovery && IN_FASTRECOVERY(tp_.t_flags)) {
          const int awnd = tcp_compute_pipe(tp_);
          if (awnd < static_cast<int>(tp_.snd_ssthresh)) {
            tp_.snd_cwnd += maxseg;
            if (tp_.snd_cwnd > tp_.snd_ssthresh) tp_.snd_cwnd = tp_.snd_ssthresh;
          }
        } else {
          tp_.snd_cwnd += maxseg;
        }
        tcp_output();
        return;
      } else if (tp_.t_dupacks == tcprexmtthresh ||
                 (sack_on_ && tp_.sackhint.sacked_bytes > static_cast<int>((tcprexmtthresh - 1) * maxseg))) {
        if (enter_recovery()) return;
      } else if (config_.limited_transmit) {
        cc::cc_ack_received(tp_, th_ack, nsegs, cc::CC_DUPACK);
        const std::uint32_t oldcwnd = tp_.snd_cwnd;
        const std::uint32_t oldsndmax = tp_.snd_max;
        if (tp_.t_dupacks == 1) snd_limited_ = 0;
        tp_.snd_cwnd = (tp_.snd_nxt - tp_.snd_una) + static_cast<std::uint32_t>(tp_.t_dupacks - snd_limited_) * maxseg;
        refill();
        if ((tp_.t_flags & TF_ACKNOW) || so_snd_cc_ >= static_cast<std::uint64_t>(tp_.snd_nxt - tp_.snd_una))
          tcp_output();
        const std::uint32_t sent = tp_.snd_max - oldsndmax;
        if (sent > maxseg) {
          snd_limited_ = 2;
        } else if (sent > 0) {
          ++snd_limited_;
        }
        tp_.snd_cwnd = oldcwnd;
        return;
      }
    }
  } else {
    tp_.t_dupacks = 0;
    bool resume = true;
    if (sack_recovery && sack_changed != SACK_NOCHANGE) {
      ++tp_.t_dupacks;
      if (!IN_FASTRECOVERY(tp_.t_flags) &&
          tp_.sackhint.sacked_bytes > static_cast<int>((tcprexmtthresh - 1) * maxseg)) {
        resume = enter_recovery() ? SEQ_GT(th_ack, tp_.snd_una) : true;
        if (!resume) return;
      }
    }
    // resume_partialack
    if (IN_FASTRECOVERY(tp_.t_flags)) {
      if (SEQ_LT(th_ack, tp_.snd_recover)) {
        if (sack_on_) {
          if (config_.prr && has_sack) {
            stop_rexmt();
            tcp_do_prr_ack(sack_changed, maxseg);
            tp_.t_flags |= TF_ACKNOW;
            tcp_output();
          } else {
            stop_rexmt();
            tcp_sack_partialack(tp_, th_ack);  // sets TF_ACKNOW
            tcp_output();
          }
        }
      } else {
        cc::cc_post_recovery(tp_, th_ack);
      }
    }
    // process_ACK
    const std::uint32_t acked = th_ack - tp_.snd_una;
    if (tp_.t_rxtshift == 1 && (tp_.t_flags & TF_PREVVALID) != 0 && tp_.t_badrxtwin != 0 && th.ts_present &&
        th.ts_ecr != 0 && ts_lt(th.ts_ecr - ts_offset_, tp_.t_badrxtwin)) {
      cc::cc_cong_signal(tp_, th_ack, cc::CC_RTO_ERR);
    }
    if (ts_on_ && th.ts_present && th.ts_ecr != 0) {
      tcp_xmit_timer(tp_, tcp_ts_rtt_sample(ts_now(), th.ts_ecr - ts_offset_, timers_.hz), timers_);
    }
    if (th_ack == tp_.snd_max) {
      stop_rexmt();
      needoutput = true;
    } else if (!persist_.pending()) {
      arm_rexmt(tp_.t_rxtcur);
    }
    if (acked > 0) {
      cc::cc_ack_received(tp_, th_ack, nsegs, cc::CC_ACK);
      so_snd_cc_ -= std::min<std::uint64_t>(acked, so_snd_cc_);
      tp_.snd_wnd = tp_.snd_wnd >= acked ? tp_.snd_wnd - acked : 0;
      bytes_acked_total_ += acked;
      if (!IN_RECOVERY(tp_.t_flags) && SEQ_GT(tp_.snd_una, tp_.snd_recover) && SEQ_LEQ(th_ack, tp_.snd_recover)) {
        tp_.snd_recover = th_ack - 1;
      }
      if (IN_RECOVERY(tp_.t_flags) && SEQ_GEQ(th_ack, tp_.snd_recover)) EXIT_RECOVERY(tp_.t_flags);
      tp_.snd_una = th_ack;
      if (sack_on_ && SEQ_GT(tp_.snd_una, tp_.snd_recover)) tp_.snd_recover = tp_.snd_una;
      if (SEQ_LT(tp_.snd_nxt, tp_.snd_una)) tp_.snd_nxt = tp_.snd_una;
    }
  }
  // step6: window update
  if (SEQ_LT(snd_wl1_, th.seq) ||
      (snd_wl1_ == th.seq && (SEQ_LT(snd_wl2_, th_ack) || (snd_wl2_ == th_ack && tiwin > tp_.snd_wnd)))) {
    tp_.snd_wnd = tiwin;
    snd_wl1_ = th.seq;
    snd_wl2_ = th_ack;
    if (tp_.snd_wnd > tp_.max_sndwnd) tp_.max_sndwnd = tp_.snd_wnd;
    needoutput = true;
  }
  tcp_dodata(p, th_seq, tlen, fin);
  if (needoutput || (tp_.t_flags & TF_ACKNOW)) tcp_output();
}

void FreeBsdTcpSender::handle_event(std::uint64_t tag) {
  if (tag == kCpuResume) {
    tcp_output();
    return;
  }
  if (tag == kDelackTimer) {
    // tcp_timer_delack: the delayed ACK goes out now.
    sync_clock();
    tp_.t_flags |= TF_ACKNOW;
    const std::uint64_t acks = stats_.pure_acks_sent;
    tcp_output();
    stats_.delayed_acks += stats_.pure_acks_sent - acks;
    return;
  }
  if (tag == kPersistTimer) {
    tcp_timer_persist();
    if (trace_) trace_(trace_sample(TcpTraceSample::Event::persist));
    return;
  }
  if (tag == kRexmtTimer) {
    const std::uint64_t rtos = stats_.rto_count;
    tcp_timer_rexmt();
    if (trace_ && stats_.rto_count != rtos) trace_(trace_sample(TcpTraceSample::Event::rto));
  }
}

void FreeBsdTcpSender::tcp_timer_rexmt() {
  sync_clock();
  if (state_ == State::syn_received) {
    syncache_timer();
    return;
  }
  if (state_ == State::syn_sent) {
    if (++tp_.t_rxtshift > TCP_MAXRXTSHIFT) {
      state_ = State::closed;
      return;
    }
    ++stats_.syn_retransmits;
    tp_.t_rxtcur = tcpt_rangeset(timers_.rexmit_initial * kSynBackoff[static_cast<std::size_t>(tp_.t_rxtshift)],
                                 tp_.t_rttmin, timers_.rexmtmax, timers_.rexmit_slop);
    tp_.snd_cwnd = 1;  // cc_conn_init then starts from one segment
    send_syn();
    arm_rexmt(tp_.t_rxtcur);
    return;
  }
  if (state_ != State::established) return;
  if (++tp_.t_rxtshift > TCP_MAXRXTSHIFT) {
    state_ = State::closed;  // tcp_drop(ETIMEDOUT)
    return;
  }
  ++stats_.rto_count;
  if (tp_.t_rxtshift == 1) {
    tp_.snd_cwnd_prev = tp_.snd_cwnd;
    tp_.snd_ssthresh_prev = tp_.snd_ssthresh;
    tp_.snd_recover_prev = tp_.snd_recover;
    if (IN_FASTRECOVERY(tp_.t_flags)) tp_.t_flags |= TF_WASFRECOVERY; else tp_.t_flags &= ~TF_WASFRECOVERY;
    if (IN_CONGRECOVERY(tp_.t_flags)) tp_.t_flags |= TF_WASCRECOVERY; else tp_.t_flags &= ~TF_WASCRECOVERY;
    tp_.t_badrxtwin = ts_now();
    tp_.t_flags |= TF_PREVVALID;
  } else {
    tp_.t_flags &= ~TF_PREVVALID;
  }
  if (sack_on_) tcp_sack_timer_rexmt(tp_);
  tp_.t_rxtcur = tcp_backed_off_rto(tp_, timers_);
  tp_.snd_nxt = tp_.snd_una;
  tp_.snd_recover = tp_.snd_max;
  tp_.t_flags |= TF_ACKNOW;
  cc::cc_cong_signal(tp_, std::nullopt, cc::CC_RTO);
  tcp_output();
}

// tcp_setpersist (tcp_output.c): (re)arm the persist timer with the backed-off
// interval and count one more backoff step. FreeBSD panics if the retransmit
// timer runs here; every caller has stopped or checked it.
void FreeBsdTcpSender::tcp_setpersist() {
  tp_.t_flags &= ~TF_PREVVALID;
  persist_.reset(tcp_persist_ticks(tp_, timers_));
  if (tp_.t_rxtshift < TCP_MAXRXTSHIFT) ++tp_.t_rxtshift;  // net.inet.tcp.retries = TCP_MAXRXTSHIFT
}

// tcp_timer_persist (tcp_timer.c): after a full backoff with no answer for
// the maximum idle time, drop the connection; otherwise re-arm and force out
// a window probe.
void FreeBsdTcpSender::tcp_timer_persist() {
  sync_clock();
  ++stats_.persist_timeouts;
  const int idle = tp_.ticks - t_rcvtime_;
  if (tp_.t_rxtshift >= TCP_MAXRXTSHIFT &&
      (idle >= timers_.maxpersistidle || idle >= TCP_REXMTVAL(tp_) * kTcpTotBackoff)) {
    state_ = State::closed;  // tcp_drop(ETIMEDOUT)
    stop_rexmt();
    return;
  }
  tcp_setpersist();
  tp_.t_flags |= TF_FORCEDATA;
  tcp_output();
  tp_.t_flags &= ~TF_FORCEDATA;
}

}  // namespace netsim::tcp
