// The sending side of Linux TCP (6.18) as a component: active open, the
// retransmit queue as one skb per MSS, tcp_write_xmit (cwnd and receive
// window, TSO bursts sized by tcp_tso_segs), tcp_ack (SACK tagging,
// tcp_clean_rtx_queue with RTT samples, RACK loss marking, the
// tcp_fastretrans_alert state machine, PRR in CWR/Recovery,
// tcp_cong_control's cong_avoid), the retransmit timer (tcp_enter_loss and
// the backoff) and the RACK reorder timer, all on the host's CONFIG_HZ
// jiffies. The arithmetic lives in tcp_input / tcp_recovery / tcp_timer /
// tcp_output / tcp_cong / tcp_cubic; this class holds the state and the
// order of the calls, following
//   net/ipv4/tcp_output.c  tcp_write_xmit, tcp_xmit_retransmit_queue, tcp_cwnd_validate
//   net/ipv4/tcp_input.c   tcp_ack, tcp_sacktag_write_queue, tcp_clean_rtx_queue,
//                          tcp_fastretrans_alert, tcp_enter_recovery, tcp_try_to_open,
//                          tcp_cong_control, tcp_may_raise_cwnd
//   net/ipv4/tcp_recovery.c tcp_rack_detect_loss, tcp_rack_mark_lost, tcp_rack_reo_timeout
//   net/ipv4/tcp_timer.c   tcp_retransmit_timer, tcp_enter_loss (tcp_input.c)
// Not modelled yet (docs/linux-sender.md, Limits): passive open, TLP
// probes, F-RTO, undo, TSQ and pacing (the rate is computed, not enforced),
// send-buffer autotuning, Nagle/cork, partial-skb ACKs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/timer.h"
#include "netsim/tcp/linux/tcp_congestion_ops.h"
#include "netsim/tcp/linux/tcp_recovery.h"
#include "netsim/tcp/linux/tcp_sock.h"
#include "netsim/tcp/tcp_segment.h"
#include "netsim/tcp/tcp_send_socket.h"

namespace netsim::tcp::lnx {

struct LinuxTcpConfig {
  std::string cc = "cubic";           // net.ipv4.tcp_congestion_control
  bool sack = true;                   // net.ipv4.tcp_sack
  bool timestamps = true;             // net.ipv4.tcp_timestamps
  bool tso = true;                    // TSO/GSO on the route's device
  std::uint32_t init_cwnd = 10;       // TCP_INIT_CWND
  std::uint32_t wmem_max = 4194304;   // net.ipv4.tcp_wmem[2] (no autotuning: the buffer is this size)
  std::uint8_t request_wscale = 7;    // what tcp_select_initial_window offers for tcp_rmem[2] 6 MiB
  std::uint32_t reordering = 3;       // net.ipv4.tcp_reordering
  int recovery = TCP_RACK_LOSS_DETECTION;  // net.ipv4.tcp_recovery
};

struct LinuxTcpStats {
  std::uint64_t data_segments_sent = 0;  // tcpi_data_segs_out
  std::uint64_t bytes_sent = 0;          // payload, retransmissions included
  std::uint64_t recovery_episodes = 0;   // entries into TCP_CA_Recovery
  std::uint64_t rto_count = 0;           // tcp_retransmit_timer expiries (TCPTimeouts)
  std::uint64_t rack_reo_timeouts = 0;
  std::uint64_t reorder_seen = 0;
  std::uint64_t dsacks = 0;
};

class LinuxTcpSender final : public Component, public Endpoint, public EventHandler, public TcpSendSocket {
 public:
  enum class State { closed, syn_sent, established };

  LinuxTcpSender(Simulation& sim, std::string name, Host& host, NodeId peer, std::uint16_t peer_port,
                 const LinuxTcpConfig& config);
  ~LinuxTcpSender() override;

  void connect() override;
  std::uint64_t write(std::uint64_t bytes) override;
  void set_unlimited_data(bool on) override { unlimited_ = on; }
  std::uint64_t send_buffer_room() const override;
  std::uint64_t bytes_written() const override { return bytes_written_; }
  std::uint64_t bytes_acked() const override { return bytes_acked_; }
  std::uint64_t bytes_received() const override { return peer_data_.received; }
  bool established() const override { return state_ == State::established; }
  void set_on_established(std::function<void()> f) override { on_established_ = std::move(f); }
  void set_on_data(std::function<void(std::uint64_t)> f) override { peer_data_.on_data = std::move(f); }
  void set_trace(TcpTraceSink sink) override { trace_ = std::move(sink); }
  std::uint16_t local_port() const override { return local_port_; }
  NodeId peer() const override { return peer_; }
  // TCP_INFO as Linux fills it; retransmits = tcpi_total_retrans.
  TcpSocketInfo info() const override;
  const std::string& socket_name() const override { return name(); }

  void deliver(Packet* p) override;
  void handle_event(std::uint64_t tag) override;

  State state() const { return state_; }
  const LinuxTcpSock& tcp_sock() const { return tp_; }
  const LinuxTcpStats& stats() const { return stats_; }
  const TcpCongestionOps& congestion_ops() const { return *ca_; }
  TcpTraceSample trace_sample(TcpTraceSample::Event event) const;

 private:
  enum TimerTag : std::uint64_t { kRetransTimer = 1, kReoTimer = 2 };
  // struct tcp_skb_cb's sacked bits.
  static constexpr std::uint8_t kSackedAcked = 0x01;
  static constexpr std::uint8_t kSackedRetrans = 0x02;
  static constexpr std::uint8_t kLost = 0x04;
  static constexpr std::uint8_t kEverRetrans = 0x80;
  // One MSS of the retransmit queue.
  struct Skb {
    std::uint32_t seq = 0;
    std::uint32_t end_seq = 0;
    std::uint64_t xmit_us = 0;  // skb->skb_mstamp_ns, in us
    std::uint8_t sacked = 0;
  };

  void refresh_clock();
  std::uint32_t ts_now() const;
  Packet* new_segment();
  AckFields ack_fields() const;  // this connection's ACK, window and timestamps, now
  void send_syn();
  void send_ack();
  void handle_syn_ack(const Packet& p);
  void receive_data(const Packet& p);
  void refill();

  // The retransmit queue: a ring of packets_out skbs (sized once, at the handshake).
  Skb& skb_at(std::uint32_t i) { return rtx_[(rtx_head_ + i) % rtx_.size()]; }
  void push_skb(const Skb& s);
  void pop_skb();

  void tcp_write_xmit();
  void tcp_xmit_retransmit_queue();
  // One packet: a wire segment, or a GSO frame of `segments` MSS-sized segments (a vNIC, Host::tso_frames).
  void emit(std::uint32_t seq, std::uint32_t len, bool first_of_burst, std::uint32_t segments = 1, std::uint32_t mss = 0);
  void tcp_cwnd_validate(bool is_cwnd_limited);
  void tcp_ack(const Packet& p);
  std::uint32_t tcp_sacktag_write_queue(const Packet& p, std::uint32_t ack, std::int64_t& sack_rtt_us);
  void tcp_mark_skb_lost(Skb& s);
  bool tcp_rack_mark_lost();
  void tcp_fastretrans_alert();
  void tcp_try_to_open();
  void tcp_set_ca_state(std::uint8_t state);
  void tcp_enter_recovery();
  void tcp_enter_loss();
  void tcp_retransmit_timer();
  void tcp_rack_reo_timeout();
  void tcp_rearm_rto();

  Host& host_;
  TickClock& clock_;
  NodeId peer_;
  std::uint16_t peer_port_;
  std::uint16_t local_port_;
  LinuxTcpConfig config_;
  std::unique_ptr<TcpCongestionOps> ca_;
  LinuxTcpSock tp_;
  Callout retrans_;  // ICSK_TIME_RETRANS
  Callout reo_;      // ICSK_TIME_REO_TIMEOUT
  State state_ = State::closed;
  LinuxTcpStats stats_;

  std::vector<Skb> rtx_;
  std::uint32_t rtx_head_ = 0;
  std::uint32_t highest_sack_end_ = 0;  // end_seq of the highest SACKed skb
  std::uint32_t iss_ = 0;
  std::uint64_t syn_sent_us_ = 0;
  std::uint32_t rcv_nxt_ = 0;
  std::uint32_t ts_recent_ = 0;
  std::uint32_t ts_offset_ = 0;
  std::uint8_t snd_wscale_ = 0;
  bool sack_on_ = false;
  bool ts_on_ = false;
  bool unlimited_ = false;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t bytes_acked_ = 0;
  std::function<void()> on_established_;
  PeerDataIn peer_data_;
  TcpTraceSink trace_;
};

}  // namespace netsim::tcp::lnx
