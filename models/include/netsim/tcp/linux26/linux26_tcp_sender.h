// The sending side of Linux 2.6.12, 2.6.13 and 2.6.14 TCP, with the
// application's write loop (a bulk writer such as nuttcp -t) and the
// socket lock, for table T3 (docs/linux-2.6-sender.md):
//   * tcp_sendmsg: skbs built to the size goal of the version (2.6.12: a
//     whole number of MSS, at most cwnd / tso_win_divisor, fixed at build
//     time; 2.6.13+: xmit_size_goal, 7 x 8948 B at MTU 9000), the tail skb
//     extended while unsent, forced_push / tcp_push_one after each full skb,
//     sk_stream_wait_memory with the write-space wakeup (free >= queued / 2);
//   * tcp_write_xmit: 2.6.12's whole-skb tcp_snd_test and split to the
//     current large MSS; 2.6.13+'s cwnd quota, tcp_tso_should_defer (no
//     timer; the 2.6.19 two-jiffy bound as a switch) and tso_fragment;
//   * tcp_ack: window update, tcp_clean_rtx_queue with tcp_tso_acked,
//     timestamp RTT (tcp_rtt_estimator, jiffies), the cwnd-limited gate
//     (2.6.12: prior_in_flight >= snd_cwnd in tcp_ack; 2.6.13+: inside the
//     module; the TSO-aware test of later kernels as a switch), then
//     tcp_data_snd_check and tcp_check_space;
//   * the socket lock: while the process is inside sendmsg an arriving ACK
//     waits in the backlog and is processed at release_sock, in process
//     context on the application's core (charged to the process, as
//     getrusage shows it); otherwise it is processed in softirq on the
//     interrupt core (Host::ExecContext);
//   * the probe timer: when nothing is in flight and the send head cannot
//     go (a deferral with cwnd <= 3 segments and tso_win_divisor 0, or a
//     closed window), tcp_check_probe_timer arms ICSK_TIME_PROBE0 at the RTO
//     and tcp_write_wakeup then sends one segment of the head;
//   * loss: 3 duplicate ACKs enter Recovery (ssthresh from the module,
//     rate-halving tcp_cwnd_down, the head retransmitted, NewReno partial
//     ACKs), the retransmit timer goes back to snd_una with cwnd 1. This
//     part is simpler than 2.6's tcp_fastretrans_alert (no SACK
//     scoreboard, no FACK, no undo); T3's runs are loss-free.
// Versions and the copies read are in tcp_output26.h and the module files.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/sim/packet_queue.h"
#include "netsim/sim/ring_deque.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/timer.h"
#include "netsim/tcp/linux26/tcp_congestion_ops26.h"
#include "netsim/tcp/linux26/tcp_output26.h"
#include "netsim/tcp/linux26/tcp_sock26.h"
#include "netsim/tcp/tcp_segment.h"
#include "netsim/tcp/tcp_send_socket.h"

namespace netsim::tcp::lnx26 {

struct Linux26Config {
  KernelVersion version = KernelVersion::v2_6_14;
  std::string cc = "bic";               // net.ipv4.tcp_congestion_control (2.6.13+), BIC built in before
  bool sack = true;                     // net.ipv4.tcp_sack
  bool timestamps = true;               // net.ipv4.tcp_timestamps
  bool tso = true;                      // NETIF_F_TSO on the route's device
  std::uint32_t sndbuf = 4194304;       // sk_sndbuf: twice SO_SNDBUF (nuttcp -w2m), locked
  int tso_win_divisor = -1;             // net.ipv4.tcp_tso_win_divisor; -1: the version's default (8, 3)
  bool tso_defer_bound = false;         // 2.6.19 "[TCP]: Bound TSO defer time" (ae8064ac32d0)
  bool tso_cwnd_limited = false;        // later kernels' TSO-aware tcp_is_cwnd_limited
  std::uint32_t write_len = 65536;      // the application's write size (nuttcp -l)
  std::uint8_t request_wscale = 7;      // what tcp_select_initial_window offers
  std::uint32_t reordering = 3;         // net.ipv4.tcp_reordering: duplicate ACKs for fast retransmit
};

struct Linux26Stats {
  std::uint64_t data_segments_sent = 0;  // MSS segments, retransmissions included
  std::uint64_t skbs_sent = 0;           // tcp_transmit_skb calls with data (TSO frames)
  std::uint64_t bytes_sent = 0;
  std::uint64_t deferrals = 0;           // tcp_tso_should_defer said wait
  std::uint64_t push_one = 0;            // skbs sent by tcp_push_one
  std::uint64_t backlog_acks = 0;        // ACKs processed at release_sock (process context)
  std::uint64_t softirq_acks = 0;        // ACKs processed in softirq
  std::uint64_t writer_sleeps = 0;       // sk_stream_wait_memory
  std::uint64_t recovery_episodes = 0;
  std::uint64_t rto_count = 0;
  std::uint64_t probes = 0;              // tcp_write_wakeup sends from the probe timer
  std::uint32_t max_cwnd = 0;            // segments
};

class Linux26TcpSender final : public Component, public Endpoint, public EventHandler, public TcpSendSocket {
 public:
  enum class State { closed, syn_sent, established };

  Linux26TcpSender(Simulation& sim, std::string name, Host& host, NodeId peer, std::uint16_t peer_port,
                   const Linux26Config& config);
  ~Linux26TcpSender() override;

  void connect() override;
  std::uint64_t write(std::uint64_t bytes) override;
  // The application's write loop: sendmsg(write_len) again and again.
  void set_unlimited_data(bool on) override;
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
  TcpSocketInfo info() const override;
  const std::string& socket_name() const override { return name(); }

  void deliver(Packet* p) override;
  void handle_event(std::uint64_t tag) override;

  const Tcp26Sock& tcp_sock() const { return tp_; }
  const Linux26Stats& stats() const { return stats_; }
  const Linux26Config& config() const { return config_; }
  std::uint32_t total_retrans() const { return total_retrans_; }
  TcpTraceSample trace_sample(TcpTraceSample::Event event) const;

 private:
  enum Tag : std::uint64_t { kRetransTimer = 1, kWriterStep = 2, kProbeTimer = 3 };
  static constexpr std::uint8_t kRetrans = 0x01;  // TCPCB_RETRANS
  struct Skb {
    std::uint32_t seq = 0;
    std::uint32_t end_seq = 0;
    std::uint32_t when = 0;    // jiffies of its (last) transmission
    std::uint8_t sacked = 0;
  };
  std::uint32_t len(const Skb& s) const { return s.end_seq - s.seq; }
  std::uint32_t pcount(const Skb& s) const { return tso_segs(len(s), tp_.mss_cache); }

  // The write queue, sk_write_queue split at sk_send_head into two rings:
  // the sent skbs (oldest first) and the unsent ones from the send head on.
  // Both splits the sender makes (tso_fragment of the send head,
  // tcp_fragment of the retransmitted head) then cut the front skb of one
  // ring in O(1), whatever the number of skbs in flight.
  // Index i counts over both: sent [0, sent_count()), unsent after.
  std::uint32_t sent_count() const { return static_cast<std::uint32_t>(sent_skbs_.size()); }
  std::uint32_t queued_count() const { return static_cast<std::uint32_t>(sent_skbs_.size() + unsent_skbs_.size()); }
  Skb& skb_at(std::uint32_t i) {
    return i < sent_count() ? sent_skbs_[i] : unsent_skbs_[i - sent_count()];
  }
  Skb& queue_tail() { return skb_at(queued_count() - 1); }
  void queue_new_skb() { unsent_skbs_.push_back(Skb{tp_.write_seq, tp_.write_seq, 0, 0}); }
  void mark_send_head_sent();  // update_send_head: the send head joins the sent skbs
  void requeue_sent();         // tcp_enter_loss: every sent skb is to go again, in order

  void refresh_clock();
  Packet* new_segment();
  AckFields ack_fields() const;  // this connection's ACK, window and timestamps, now
  void send_syn();
  void send_ack();
  void handle_syn_ack(const Packet& p);
  void tcp_rcv(Packet* p);  // tcp_rcv_established's sender half, in the current context
  void receive_data(const Packet& p);

  // tcp_sendmsg and the process.
  std::uint32_t size_goal() const;
  bool memory_free() const { return wmem_queued_ < config_.sndbuf; }
  void writer_run();           // the process runs: the next copy of its sendmsg, or a new sendmsg
  void writer_copy_done();     // the copy's CPU time is over
  void release_sock();         // process the backlog in process context
  void check_space();          // tcp_check_space / sk_stream_write_space
  bool forced_push() const { return after(tp_.write_seq, pushed_seq_ + (tp_.max_window >> 1)); }

  // Output.
  void tcp_push(bool nagle_push);
  void tcp_push_one();
  bool tcp_write_xmit(bool nagle_push);
  bool write_xmit_2_6_12(bool nagle_push);
  bool write_xmit_2_6_13(bool nagle_push);
  bool nagle_allows(const Skb& s, bool last, bool nagle_push) const;
  // Skb i, the first sent skb or the send head, keeps `first_len` bytes.
  void fragment(std::uint32_t i, std::uint32_t first_len);
  void transmit(std::uint32_t i, bool retransmit);
  void cwnd_validate();

  // Input.
  void tcp_ack(const Packet& p);
  void clean_rtx_queue(int& flag);
  void rtt_estimator(std::uint32_t mrtt);
  void cong_avoid(std::uint32_t ack, std::uint32_t prior_in_flight);
  void fastretrans(int flag, std::uint32_t prior_snd_una);
  void retransmit_head();
  void retransmit_timer();
  void reset_rto();
  void check_probe_timer();  // tcp_check_probe_timer
  void probe_timer();        // tcp_probe_timer -> tcp_send_probe0 -> tcp_write_wakeup

  Host& host_;
  TickClock& clock_;
  NodeId peer_;
  std::uint16_t peer_port_;
  std::uint16_t local_port_;
  Linux26Config config_;
  int divisor_;
  std::unique_ptr<Tcp26CongestionOps> ca_;
  Tcp26Sock tp_;
  Callout retrans_;
  Callout probe_;  // ICSK_TIME_PROBE0
  Timer writer_timer_;
  State state_ = State::closed;
  Linux26Stats stats_;

  RingDeque<Skb> sent_skbs_;
  RingDeque<Skb> unsent_skbs_;
  std::uint32_t wmem_queued_ = 0;  // bytes in the write queue (sk_wmem_queued, payload only)
  std::uint32_t pushed_seq_ = 0;
  std::uint32_t snd_sml_ = 0;      // Minshall: end of the last small segment sent
  std::uint32_t tso_deferred_ = 0;
  std::uint32_t rtt_seq_ = 0;
  std::uint32_t mdev_max_ = 0;
  std::uint32_t rttvar_ = 0;
  std::uint32_t dupacks_ = 0;
  std::uint32_t total_retrans_ = 0;
  int backoff_ = 0;
  int probe_backoff_ = 0;

  // The process (write loop) and the socket lock.
  bool unlimited_ = false;
  bool owned_ = false;          // sock_owned_by_user
  bool writer_sleeping_ = false;
  bool writer_busy_ = false;     // a copy's CPU time is running
  std::uint32_t sendmsg_left_ = 0;  // bytes of the current sendmsg still to copy
  std::uint32_t copy_pending_ = 0;  // bytes of the running copy
  PacketQueue backlog_;

  std::uint32_t iss_ = 0;
  std::uint32_t rcv_nxt_ = 0;
  std::uint32_t ts_recent_ = 0;
  std::uint32_t ts_offset_ = 0;
  std::uint32_t tsecr_ = 0;     // rcv_tsecr of the segment being processed
  std::uint8_t snd_wscale_ = 0;
  bool ts_on_ = false;
  std::uint32_t syn_jiffies_ = 0;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t bytes_acked_ = 0;
  std::function<void()> on_established_;
  PeerDataIn peer_data_;
  TcpTraceSink trace_;
};

// "2.6.12", "2.6.13" or "2.6.14"; nullopt for anything else.
bool parse_kernel_version(const std::string& text, KernelVersion& out);
const char* kernel_version_name(KernelVersion v);

}  // namespace netsim::tcp::lnx26
