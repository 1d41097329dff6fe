// The passive open of FreeBsdTcpSender: FreeBSD's syncache for one
// connection (see freebsd_tcp_sender.h for the sources read). The syncache
// entry lives in the sender that will own the connection: FreeBSD keeps it
// in a hash bucket with a per-bucket callout, which for one entry fires at
// the entry's own sc_rxttime, as the sender's retransmit callout does here.
#include <algorithm>

#include "netsim/cc/cc_framework.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/tcp_option_layout.h"
#include "netsim/tcp/tcp_rtt.h"
#include "netsim/tcp/tcp_segment.h"

namespace netsim::tcp {
namespace {

constexpr int kSyncacheRexmtLimit = 3;     // net.inet.tcp.syncache.rexmtlimit (SYNCACHE_MAXREXMTS)
constexpr std::uint32_t kSyncacheWindow = 65535;  // sc_wnd: sbspace clipped to TCP_MAXWIN

}  // namespace

void FreeBsdTcpSender::syncache_add(const Packet& syn) {
  const TcpSegmentInfo& th = syn.tcp;
  peer_ = syn.src;
  peer_port_ = syn.src_port;
  irs_ = th.seq;
  // syncache_socket: tcp_rcvseqinit, then rcv_wnd = sc_wnd and rcv_adv past it.
  tp_.rcv_nxt = tp_.last_ack_sent = th.seq + 1;
  tp_.rcv_wnd = kSyncacheWindow;
  tp_.rcv_adv = tp_.rcv_nxt + kSyncacheWindow;
  // What the SYN offered and this host allows (SCF_TIMESTAMP, SCF_SACK,
  // SCF_WINSCALE); a window scale is only used when both sides send one.
  ts_on_ = config_.timestamps && th.ts_present;
  ts_recent_ = ts_on_ ? th.ts_val : 0;
  sack_on_ = config_.sack && th.sack_permitted;
  sc_winscale_ = th.wscale != 0xff;
  tp_.snd_scale = sc_winscale_ ? std::min<std::uint8_t>(th.wscale, 14) : 0;
  tp_.rcv_scale = sc_winscale_ ? config_.request_wscale : 0;
  // No MSS option: tcp_mss_update's offer of tcp_mssdflt (tcp_v6mssdflt over IPv6).
  peer_mss_ = th.mss != 0 ? th.mss : default_mss(host_.ip_version());
  tp_.snd_una = tp_.snd_nxt = tp_.snd_max = tp_.snd_recover = iss_;
  state_ = State::syn_received;
  sc_rxmits_ = 0;
  syncache_respond();
  syncache_timeout();
}

void FreeBsdTcpSender::syncache_respond() {
  Packet* p = new_segment();
  TcpSegmentInfo& th = p->tcp;
  th.seq = iss_;
  th.ack = tp_.rcv_nxt;
  th.flags = tcp_flags::kSyn | tcp_flags::kAck;
  th.window = kSyncacheWindow;  // a SYN-ACK's window is never scaled
  th.mss = static_cast<std::uint16_t>(path_mss());  // tcp_mssopt
  th.wscale = sc_winscale_ ? tp_.rcv_scale : 0xff;
  th.sack_permitted = sack_on_;
  th.ts_present = ts_on_;
  th.ts_val = ts_now() + ts_offset_;
  th.ts_ecr = ts_recent_;  // sc_tsreflect
  p->l4_header_bytes = kTcpHeaderBytes + freebsd_syn_option_layout(th).bytes;
  ++stats_.syn_acks_sent;
  host_.send(p);
}

void FreeBsdTcpSender::syncache_timeout() {
  // The first wait is tcp_rexmit_initial (1 s) as it is; later ones back off
  // with tcp_backoff[] through TCPT_RANGESET, which adds tcp_rexmit_slop as
  // for the RTO: 1 s, 2.2 s, 4.2 s.
  const int rexmt = sc_rxmits_ == 0
                        ? timers_.rexmit_initial
                        : tcpt_rangeset(timers_.rexmit_initial * kTcpBackoff[static_cast<std::size_t>(sc_rxmits_)],
                                        timers_.rexmit_min, timers_.rexmtmax, timers_.rexmit_slop);
  ++sc_rxmits_;
  arm_rexmt(rexmt);
}

void FreeBsdTcpSender::syncache_timer() {
  if (sc_rxmits_ > kSyncacheRexmtLimit) {
    // Retransmits exhausted: the entry is dropped and the slot listens again.
    state_ = State::listen;
    peer_ = kNoNode;
    peer_port_ = 0;
    return;
  }
  ++stats_.syn_ack_retransmits;
  syncache_respond();
  syncache_timeout();
}

void FreeBsdTcpSender::syncache_input(const Packet& p) {
  const TcpSegmentInfo& th = p.tcp;
  if ((th.flags & tcp_flags::kRst) != 0) {
    stop_rexmt();
    state_ = State::listen;  // syncache_chkrst: the peer refused our SYN-ACK
    return;
  }
  if ((th.flags & (tcp_flags::kSyn | tcp_flags::kAck)) == tcp_flags::kSyn) {
    // A duplicate SYN: the peer did not get the SYN-ACK. Resend it now and
    // restart the entry's timer from the first interval.
    ++stats_.duplicate_syns;
    if (ts_on_ && th.ts_present) {
      ts_recent_ = th.ts_val;
    } else {
      ts_on_ = false;
    }
    syncache_respond();
    sc_rxmits_ = 0;
    syncache_timeout();
    return;
  }
  if ((th.flags & (tcp_flags::kSyn | tcp_flags::kAck)) != tcp_flags::kAck) return;
  // syncache_expand's checks: the ACK must cover our SYN and the segment
  // start inside the window after the peer's SYN (else FreeBSD sends a RST).
  if (th.ack != iss_ + 1) return;
  if (SEQ_LEQ(th.seq, irs_) || SEQ_GT(th.seq, irs_ + kSyncacheWindow)) return;
  syncache_expand(p);
}

void FreeBsdTcpSender::syncache_expand(const Packet& ack) {
  const TcpSegmentInfo& th = ack.tcp;
  stop_rexmt();
  // syncache_socket: a SYN-ACK sent more than once limits the initial window
  // to one segment (cc_conn_init turns 1 into maxseg); then tcp_mss.
  if (sc_rxmits_ > 1) tp_.snd_cwnd = 1;
  set_maxseg(peer_mss_);
  // tcp_do_segment, TCPS_SYN_RECEIVED: the window (scaled now), ESTABLISHED,
  // cc_conn_init; then process_ACK acknowledges the SYN and samples the RTT
  // from the timestamp echo.
  tp_.snd_wnd = static_cast<std::uint32_t>(th.window) << tp_.snd_scale;
  tp_.max_sndwnd = tp_.snd_wnd;
  snd_wl1_ = th.seq;
  snd_wl2_ = th.ack;
  state_ = State::established;
  cc::cc_conn_init(tp_, cc::HcMetricsLite{.rmx_ssthresh = config_.hostcache_ssthresh});
  if (ts_on_ && th.ts_present && th.ts_ecr != 0) {
    tcp_xmit_timer(tp_, tcp_ts_rtt_sample(ts_now(), th.ts_ecr - ts_offset_, timers_.hz), timers_);
  }
  if (ts_on_ && th.ts_present) ts_recent_ = th.ts_val;
  tp_.t_rxtshift = 0;
  // syncache_socket: snd_nxt and snd_max past the SYN-ACK's sequence number
  // (until now they were still at iss, and tcp_output would have sent one
  // byte at iss); process_ACK then moves snd_una up to the ACK.
  tp_.snd_nxt = tp_.snd_max = iss_ + 1;
  tp_.snd_una = th.ack;
  tp_.snd_recover = th.ack;
  t_rcvtime_ = tp_.ticks;
  // The handshake may be completed by the first data segment (its ACK).
  if (ack.payload_bytes > 0 || (th.flags & tcp_flags::kFin) != 0) {
    std::uint32_t th_seq = th.seq;
    int tlen = static_cast<int>(ack.payload_bytes);
    bool fin = (th.flags & tcp_flags::kFin) != 0;
    if (trim_to_window(th_seq, tlen, fin)) tcp_dodata(ack, th_seq, tlen, fin);
  }
  refill();
  tcp_output();
  if (on_established_) on_established_();
}

}  // namespace netsim::tcp
