// The sending side of FreeBSD's base ("freebsd") TCP stack: active open,
// tcp_output with TSO bursts, the ESTABLISHED-state ACK path of
// tcp_do_segment (SACK scoreboard, dupacks and limited transmit, recovery
// entry, PRR, partial and full ACKs, RTT sampling in ticks, REXMT restart,
// CC hooks), the retransmit and persist timers (tcp_timer_rexmt,
// tcp_setpersist / tcp_timer_persist with TF_FORCEDATA window probes) on the
// host's kern.hz tick clock, and send-buffer autoscaling.
//
// Ported behaviour (own code, no source text) from
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814:
//     sys/netinet/tcp_input.c   tcp_do_segment (ACK processing), tcp_do_prr_ack
//     sys/netinet/tcp_output.c  tcp_output (send decision, SACK rexmit, TSO length,
//                               zero-window persist), tcp_setpersist
//     sys/netinet/tcp_timer.c   tcp_timer_rexmt, tcp_timer_persist
// See shared/design/freebsd-tcp.md sections 3.1-3.9 and docs/tcp-sender.md.
//
// The connection state is one tcpcb (tcp::Tcpcb, netsim/tcp/tcp_var.h), as in
// FreeBSD: the CC wrappers, the SACK scoreboard functions and tcp_xmit_timer
// all work on it directly.
//
// Passive open (iperf3 -R: the server sends): a sender built with `passive`
// binds nothing; a FreeBsdTcpListener on the listening port hands it the
// packets of one peer. Its SYN is answered from a syncache entry kept in the
// sender itself: SYN-ACK with tcp_addoptions' option order, retransmitted on
// the syncache timer (TCPTV_RTOBASE, then RANGESET(TCPTV_RTOBASE * tcp_backoff[n]) with
// the slop: 1 s, 2.2 s, 4.2 s; at most
// net.inet.tcp.syncache.rexmtlimit = 3 times) and at once on a duplicate SYN
// (which resets the count); the handshake's ACK (or a first data segment with
// its ACK) builds the tcpcb as syncache_socket and tcp_do_segment's
// SYN_RECEIVED case do (MSS, window scale, SACK, timestamps, cc_conn_init
// with one segment if the SYN-ACK went out more than once, RTT from the
// timestamp echo). Read (own code, no source text) in
// fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814:
//   sys/netinet/tcp_syncache.c  syncache_add (duplicate SYN), syncache_timeout,
//                               syncache_timer, syncache_respond, syncache_expand,
//                               syncache_socket
//   sys/netinet/tcp_input.c     tcp_do_segment, case TCPS_SYN_RECEIVED
//
// The receive side is FreeBSD's too, on the same tcpcb (FreeBsdTcpReceiver
// runs a pool of passive connections as a receiving endpoint): header
// prediction for in-order data, trimming of duplicate and partly duplicate
// data (D-SACK), the window check, out-of-order data into the reassembly
// queue (tcp_reass.cpp) with an immediate ACK carrying SACK blocks
// (tcp_sack_receiver.cpp), DELAY_ACK (delayed ACK timer TT_DELACK,
// net.inet.tcp.delacktime = TCPTV_DELACK = hz/25 ticks; an immediate ACK for
// a segment longer than t_maxseg, i.e. an LRO aggregate), the advertised
// window from so_rcv's free space with tcp_output's rounding and
// window-update rules, receive-buffer autotuning (tcp_autorcvbuf) and a
// received FIN. The application reads what arrives at once (set_on_data);
// the bytes themselves are not kept. Read (own code, no source text) in
// fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814:
//   sys/netinet/tcp_input.c   tcp_do_segment (header prediction, todrop,
//                             DELAY_ACK, dodata, FIN), tcp_autorcvbuf
//   sys/netinet/tcp_output.c  tcp_output (recwin, window updates, the SACK
//                             option, rcv_adv / last_ack_sent)
//   sys/netinet/tcp_timer.c   tcp_timer_delack
//   sys/kern/uipc_sockbuf.c   sbreserve_locked_limit (the autotuning cap)
// See docs/freebsd-receiver.md. No FIN of our own (close), keepalive or PAWS.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "netsim/cc/cc_algo.h"
#include "netsim/cc/cc_registry.h"
#include "netsim/host/host.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/timer.h"
#include "netsim/tcp/tcp_send_socket.h"
#include "netsim/tcp/tcp_timer_params.h"
#include "netsim/tcp/tcp_trace.h"
#include "netsim/tcp/tcp_var.h"

namespace netsim::tcp {

struct FreeBsdTcpConfig {
  std::string cc = "newreno";        // newreno | cubic | cubic_d46046, or a name in cc_modules
  // Where `cc` is looked up (not owned; it must outlive the sender); nullptr:
  // netsim's own modules (cc::make_cc).
  const cc::CcRegistry* cc_modules = nullptr;
  bool sack = true;                  // net.inet.tcp.sack.enable
  bool lrd = true;                   // net.inet.tcp.sack.lrd
  bool prr = true;                   // net.inet.tcp.do_prr
  bool timestamps = true;            // net.inet.tcp.rfc1323
  bool tso = true;                   // interface TSO
  bool limited_transmit = true;      // net.inet.tcp.rfc3042
  std::uint32_t tso_max_bytes = 65535;   // if_hw_tsomax (IP + TCP + payload)
  std::uint32_t sendspace = 32768;       // net.inet.tcp.sendspace
  bool sendbuf_auto = true;              // net.inet.tcp.sendbuf_auto
  std::uint32_t sendbuf_inc = 8192;      // net.inet.tcp.sendbuf_inc
  std::uint32_t sendbuf_max = 2097152;   // net.inet.tcp.sendbuf_max
  std::uint8_t request_wscale = 6;       // what we offer (sb_max 2 MB -> 6)
  bool delayed_ack = true;               // net.inet.tcp.delayed_ack
  std::uint32_t recvspace = 65536;       // net.inet.tcp.recvspace: so_rcv's high-water mark before tcp_mss rounds it
  bool recvbuf_auto = true;              // net.inet.tcp.recvbuf_auto
  std::uint32_t recvbuf_max = 2097152;   // net.inet.tcp.recvbuf_max
  std::uint32_t sb_max = 2097152;        // kern.ipc.maxsockbuf: sbreserve refuses more than sb_max * 2048 / 2304
  unsigned reass_maxqueuelen = 100;      // net.inet.tcp.reass.maxqueuelen (entries; preallocated)
  // tcp_hostcache's rmx_ssthresh for the peer (bytes): what an earlier
  // connection to it left (tcp_discardcb stores a final ssthresh below half
  // the send buffer); cc_conn_init starts from it. 0: no entry (a fresh boot).
  std::uint32_t hostcache_ssthresh = 0;
};

struct FreeBsdTcpStats {
  std::uint64_t segments_sent = 0;       // SYNs and data segments, incl. retransmissions; not pure ACKs
  std::uint64_t bytes_sent = 0;          // payload bytes, incl. retransmissions
  std::uint64_t retransmitted_segments = 0;  // wire segments resent (a TSO burst counts each)
  std::uint64_t retransmitted_bytes = 0;
  // t_sndrexmitpack (tcpi_snd_rexmitpack, what iperf3 shows as Retr on
  // FreeBSD): one per retransmitting send of tcp_output, a TSO burst once.
  std::uint64_t retransmitted_packs = 0;
  std::uint64_t acks_received = 0;
  std::uint64_t dupacks = 0;
  std::uint64_t recovery_episodes = 0;   // tcps_sack_recovery_episode
  std::uint64_t rto_count = 0;
  std::uint64_t lrd_events = 0;
  std::uint64_t syn_retransmits = 0;
  std::uint64_t persist_timeouts = 0;  // tcps_persisttimeo
  std::uint64_t window_probes = 0;     // tcps_sndprobe: 1-byte TF_FORCEDATA segments into a zero window
  std::uint64_t syn_acks_sent = 0;         // passive open: SYN-ACKs (not in segments_sent)
  std::uint64_t syn_ack_retransmits = 0;   // by the syncache timer (tcps_sc_retransmitted)
  std::uint64_t duplicate_syns = 0;        // tcps_sc_dupsyn
  // The receive side.
  std::uint64_t data_packets_received = 0;  // segments with data (an LRO aggregate counts once): tcps_rcvpack
  std::uint64_t data_segments_received = 0; // their wire segments (lro_nsegs)
  std::uint64_t data_bytes_received = 0;    // payload bytes, duplicates included
  std::uint64_t pure_acks_sent = 0;         // segments without data or SYN (ACKs, window updates)
  std::uint64_t delayed_acks = 0;           // ACKs sent by tcp_timer_delack
  std::uint64_t window_updates = 0;         // pure ACKs sent by tcp_output's window-update rule
  std::uint64_t sack_acks_sent = 0;         // segments carrying SACK blocks (D-SACK included)
  std::uint64_t dsack_acks_sent = 0;        // segments whose first block is a D-SACK block
  std::uint64_t ooo_packets = 0;            // data packets that went to tcp_reass out of order
  std::uint64_t ooo_segments = 0;           // their wire segments
  std::uint64_t reass_drops = 0;            // tcps_rcvreassfull: queue full, data dropped
  std::uint64_t duplicate_packets = 0;      // tcps_rcvduppack: entirely old data
  std::uint64_t after_window_packets = 0;   // tcps_rcvpackafterwin
  std::uint64_t rcvbuf_grows = 0;           // so_rcv grown by tcp_autorcvbuf
};

class FreeBsdTcpSender final : public Component, public Endpoint, public EventHandler, public TcpSendSocket {
 public:
  enum class State { closed, syn_sent, listen, syn_received, established, close_wait };
  struct PassiveOpen {};
  static constexpr PassiveOpen passive{};

  // Active open: binds an ephemeral port; connect() sends the SYN.
  FreeBsdTcpSender(Simulation& sim, std::string name, Host& host, NodeId peer, std::uint16_t peer_port,
                   const FreeBsdTcpConfig& config);
  // Passive open: the connection a FreeBsdTcpListener on `local_port` hands
  // over; it waits in `listen` for the peer's SYN.
  FreeBsdTcpSender(Simulation& sim, std::string name, Host& host, std::uint16_t local_port,
                   const FreeBsdTcpConfig& config, PassiveOpen);
  ~FreeBsdTcpSender() override;

  // Sends the SYN now. `on_established` runs once the handshake completes.
  void connect() override;
  // A passive connection still listening opens actively instead, from its
  // port to (peer, peer_port) (FreeBsdTcpReceiver::connect): sends the SYN now.
  void open_to(NodeId peer, std::uint16_t peer_port);
  // The application writes `bytes` (subject to the send buffer's room).
  // Returns how much was accepted.
  std::uint64_t write(std::uint64_t bytes) override;
  // An application with endless data (iperf3 -l 1M): the buffer is refilled
  // to its high-water mark whenever room appears.
  void set_unlimited_data(bool on) override { unlimited_ = on; }
  std::uint64_t send_buffer_room() const override;
  // Bytes the application has put into the send buffer so far (write() and
  // the unlimited refill).
  std::uint64_t bytes_written() const override { return bytes_written_; }
  // Called once when the handshake completes (set-up path only).
  void set_on_established(std::function<void()> f) override { on_established_ = std::move(f); }
  // Called with the byte count of in-order data from the peer, after the
  // segment carrying it has been processed (the application reads it then).
  void set_on_data(std::function<void(std::uint64_t)> f) override { on_data_ = std::move(f); }
  // In-order bytes received from the peer so far.
  std::uint64_t bytes_received() const override { return bytes_received_; }
  // Called once when the peer's FIN has been received in order.
  void set_on_peer_fin(std::function<void()> f) { on_peer_fin_ = std::move(f); }
  // Called with every packet this connection sends, just before host.send.
  void set_on_transmit(std::function<void(const Packet&)> f) { on_transmit_ = std::move(f); }
  // The delayed-ACK timer (TT_DELACK) is running.
  bool delack_pending() const { return delack_.pending(); }
  // The persist timer (TT_PERSIST) is running: data waits for a zero window.
  bool persist_pending() const { return persist_.pending(); }

  // Receives a state sample after every processed ACK and every RTO.
  void set_trace(TcpTraceSink sink) override { trace_ = std::move(sink); }
  TcpTraceSample trace_sample(TcpTraceSample::Event event) const;

  void deliver(Packet* p) override;
  void handle_event(std::uint64_t tag) override;

  State state() const { return state_; }
  std::uint16_t local_port() const override { return local_port_; }
  bool established() const override { return state_ == State::established || state_ == State::close_wait; }
  const std::string& socket_name() const override { return name(); }
  // TCP_INFO as FreeBSD fills it; retransmits = tcpi_snd_rexmitpack.
  TcpSocketInfo info() const override;
  NodeId peer() const override { return peer_; }
  std::uint16_t peer_port() const { return peer_port_; }
  const FreeBsdTcpStats& stats() const { return stats_; }
  // Bytes cumulatively acknowledged by the peer (data only).
  std::uint64_t bytes_acked() const override { return bytes_acked_total_; }
  // The connection's tcpcb: windows, sequence space, t_flags, RTT/RTO state,
  // SACK scoreboard (snd_holes, sackhint), CC state.
  const Tcpcb& tcpcb() const { return tp_; }
  std::uint32_t send_buffer_hiwat() const { return sb_hiwat_; }
  // sbused(&so->so_snd): bytes in the send buffer from snd_una on.
  std::uint64_t send_buffer_used() const { return so_snd_cc_; }
  // so_rcv.sb_hiwat: recvspace, rounded up to a multiple of t_maxseg by
  // tcp_mss once the MSS is known (syncache_expand / the SYN-ACK), then grown
  // by tcp_autorcvbuf.
  std::uint32_t receive_buffer_hiwat() const { return so_rcv_hiwat_; }
  // sbavail(&so->so_rcv): received bytes the application has not read yet
  // (it reads at once, so this is nonzero only inside the input path).
  std::uint32_t receive_buffer_used() const { return so_rcv_cc_; }
  // SB_AUTOSIZE of so_rcv: autotuning still on (cleared when sbreserve refuses).
  bool receive_buffer_autosize() const { return so_rcv_autosize_; }
  // The window SIFTR 1.3.0 logs for a sender here: 65535 rounded down to the
  // window scale (an approximation kept for the existing SIFTR output; the
  // tcpcb's rcv_wnd is tcpcb().rcv_wnd).
  std::uint32_t receive_window() const;
  std::uint8_t rcv_scale() const { return tp_.rcv_scale; }
  // The options the handshake agreed (t_flags' TF_REQ/RCVD_TSTMP, TF_SACK_PERMIT, TF_REQ/RCVD_SCALE).
  bool timestamps_on() const { return ts_on_; }
  bool sack_permitted() const { return sack_on_; }
  bool window_scaling_on() const { return tp_.snd_scale != 0 || tp_.rcv_scale != 0; }
  const FreeBsdTcpConfig& config() const { return config_; }
  const Host& host() const { return host_; }
  int pipe() const { return tcp_compute_pipe(tp_); }
  // tcpi_rttvar in microseconds: (t_rttvar * tick) >> 4.
  std::uint32_t rttvar_usecs() const {
    return static_cast<std::uint32_t>((static_cast<std::int64_t>(tp_.t_rttvar) * timers_.tick_usecs()) >>
                                      TCP_RTTVAR_SHIFT);
  }
  // tcpi_rtt in microseconds: (t_srtt * tick) >> 5.
  std::uint32_t srtt_usecs() const {
    return static_cast<std::uint32_t>((static_cast<std::int64_t>(tp_.t_srtt) * timers_.tick_usecs()) >> TCP_RTT_SHIFT);
  }

 private:
  enum TimerTag : std::uint64_t { kRexmtTimer = 1, kDelackTimer = 2, kPersistTimer = 3, kCpuResume = 4 };

  // tcp_ts_getticks(): milliseconds of uptime, as cached at the last hardclock.
  std::uint32_t ts_now() const;
  void sync_clock() { tp_.ticks = static_cast<int>(clock_.ticks()); }

  void tcp_output();
  Packet* new_segment();
  void send_syn();
  void transmit(std::uint32_t seq, std::uint32_t len, std::uint8_t flags, bool retransmit);
  void tcp_do_segment(const Packet& p);
  void handle_syn_ack(const Packet& p);
  FreeBsdTcpSender(Simulation& sim, std::string name, Host& host, NodeId peer, std::uint16_t peer_port,
                   std::uint16_t local_port, const FreeBsdTcpConfig& config);
  // Passive open (syncache).
  void syncache_add(const Packet& syn);
  void syncache_input(const Packet& p);
  void syncache_respond();
  void syncache_timeout();
  void syncache_timer();
  void syncache_expand(const Packet& ack);
  std::uint32_t path_mss() const;
  void set_maxseg(std::uint32_t peer_mss);
  void tcp_do_prr_ack(sackstatus_t sack_changed, std::uint32_t maxseg);
  void tcp_timer_rexmt();
  void tcp_setpersist();
  void tcp_timer_persist();
  // The receive side (freebsd_tcp_receive.cpp).
  bool header_prediction_data(const Packet& p, std::uint32_t tiwin);
  bool trim_to_window(std::uint32_t& th_seq, int& tlen, bool& fin);
  void update_ts_recent(const TcpSegmentInfo& th, std::uint32_t th_seq, int tlen, bool fin);
  void tcp_dodata(const Packet& p, std::uint32_t th_seq, int tlen, bool fin);
  bool delay_ack(int tlen) const;
  int tcp_autorcvbuf(int tlen);
  void sbappend(std::uint32_t bytes);
  std::uint32_t sbspace() const { return so_rcv_cc_ >= so_rcv_hiwat_ ? 0 : so_rcv_hiwat_ - so_rcv_cc_; }
  void sbreserve_rcv(std::uint32_t newsize);
  std::int64_t output_recwin() const;
  bool window_update_due(std::int64_t recwin) const;
  std::uint32_t advertise(std::int64_t& recwin);
  void fill_sack_option(Packet& p) const;
  std::uint32_t sack_option_bytes() const;
  int sack_blocks_to_send() const;
  void ack_sent(std::int64_t recwin, bool sack_blocks);
  void read_received();
  void arm_rexmt(int ticks) { rexmt_.reset(ticks); }
  void stop_rexmt() { rexmt_.stop(); }
  void sndbuf_autoscale();
  void refill();
  void charge_copy(std::uint64_t bytes);
  // With a host CPU model: true (and the rest of tcp_output's loop deferred
  // to when the CPU is free) if the CPU is still busy with earlier work.
  bool defer_output_to_cpu();

  Host& host_;
  TickClock& clock_;
  NodeId peer_;
  std::uint16_t peer_port_;
  std::uint16_t local_port_;
  FreeBsdTcpConfig config_;
  TcpTimerParams timers_;
  std::unique_ptr<cc::CcAlgo> cc_;
  Tcpcb tp_;
  Callout rexmt_;
  Callout delack_;   // TT_DELACK
  Callout persist_;  // TT_PERSIST
  Timer cpu_resume_;  // host CPU model: tcp_output continues when the CPU has sent the last packet
  State state_ = State::closed;

  std::uint32_t iss_ = 0;
  std::uint32_t irs_ = 0;             // passive open: the peer's SYN
  std::uint32_t peer_mss_ = 0;        // passive open: the SYN's MSS option (sc_peer_mss)
  int sc_rxmits_ = 0;                 // passive open: SYN-ACK transmissions counted as syncache does
  bool sc_winscale_ = false;          // passive open: both sides scale windows (SCF_WINSCALE)
  std::uint32_t ts_recent_ = 0;       // peer's last TSval (echoed)
  std::uint32_t ts_offset_ = 0;       // per-connection random TS offset (RFC 7323 5.4)
  bool ts_on_ = false;
  bool sack_on_ = false;  // SACK permitted both ways (FreeBSD: TF_SACK_PERMIT, not set here; see handle_syn_ack)
  int t_rcvtime_ = 0;
  int snd_limited_ = 0;
  std::uint32_t snd_wl1_ = 0;
  std::uint32_t snd_wl2_ = 0;
  std::uint64_t bytes_received_ = 0;
  std::uint64_t data_for_app_ = 0;  // in-order bytes of the segment being processed
  bool peer_fin_event_ = false;     // the segment being processed carried the peer's FIN in order

  // Send buffer: bytes from snd_una upwards (sbavail) and its high-water mark.
  std::uint64_t so_snd_cc_ = 0;
  std::uint32_t sb_hiwat_ = 0;
  // Receive buffer (so_rcv): high-water mark, unread bytes, SB_AUTOSIZE.
  std::uint32_t so_rcv_hiwat_ = 0;
  std::uint32_t so_rcv_cc_ = 0;
  bool so_rcv_autosize_ = true;
  bool unlimited_ = false;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t bytes_acked_total_ = 0;
  FreeBsdTcpStats stats_;
  std::function<void()> on_established_;
  std::function<void(std::uint64_t)> on_data_;
  std::function<void()> on_peer_fin_;
  std::function<void(const Packet&)> on_transmit_;
  TcpTraceSink trace_;
};

}  // namespace netsim::tcp
