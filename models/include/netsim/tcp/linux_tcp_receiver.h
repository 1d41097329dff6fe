// A TCP endpoint modelled on Linux 5.15: the receiver of a bulk transfer
// (iperf3 server, or an iperf3 -R client), with Linux's ACK policy,
// SACK/D-SACK generation and out-of-order handling, plus a small reliable
// sender for the few bytes the application writes (iperf3 control messages).
// Connections are accepted on the bound port (passive open) or opened from
// it with connect() (active open: SYN, SYN retransmission, SYN-ACK).
//
// Behaviour follows (own code, no source text copied) Linux v5.15.
// tcp_input.c was read in the 5.15 LTS tree
// 0xUnbound/kernel_common-android13-5.15-lts @ ff3bfbb75dd7ca0e10d1ee900b133b2d66016e2e;
// that tree holds no tcp_output.c, so tcp_send_delayed_ack was read in other
// 4.x-6.x copies and the 5.15 form taken (icsk_delack_max cap since 5.10);
// include/net/tcp.h and inet_connection_sock.h as of 5.15 (pingpong
// threshold 3, 5.1 .. 6.4):
//   tcp_input.c   tcp_event_data_recv (ato, first-data quickack),
//                 tcp_incr_quickack / tcp_enter_quickack_mode /
//                 tcp_in_quickack_mode (TCP_MAX_QUICKACKS = 16),
//                 tcp_measure_rcv_mss, tcp_initialize_rcv_mss,
//                 __tcp_ack_snd_check (one-MSS rule, quickack, ICSK_ACK_NOW,
//                 SACK compression: tcp_comp_sack_nr / _delay_ns),
//                 tcp_data_queue / tcp_data_queue_ofo / tcp_ofo_queue,
//                 tcp_sack_new_ofo_skb / tcp_sack_maybe_coalesce /
//                 tcp_sack_remove / tcp_sack_compress_send_ack,
//                 tcp_dsack_set / tcp_dsack_extend, tcp_send_dupack,
//                 tcp_sequence, tcp_replace_ts_recent (RFC 7323 TS.Recent),
//                 tcp_rcv_rtt_measure(_ts), tcp_fin
//   tcp_output.c  tcp_send_delayed_ack (ato caps, TCP_DELACK_MIN = HZ/25),
//                 tcp_event_ack_sent / tcp_dec_quickack_mode,
//                 tcp_event_data_sent (pingpong), tcp_established_options
//                 (SACK blocks: 4 - 1 with timestamps, D-SACK first),
//                 tcp_select_initial_window (SYN-ACK window, wscale)
//   tcp_timer.c   tcp_delack_timer_handler (ato inflation)
//   tcp_ipv4.c / tcp_minisocks.c  SYN-ACK options, tcp_synack_rtt_meas
// Active open (own code, no source text), Linux 5.15: tcp_output.c read in
// Aarqw12/kernel_common-5.15 @ 4afeb46fd1d7fca23ffe3822504795b20619dac9,
// tcp_input.c in the tree above:
//   tcp_output.c  tcp_connect / tcp_connect_init (advmss, initial window via
//                 tcp_select_initial_window, TCP_TIMEOUT_INIT), tcp_syn_options
//                 and tcp_options_write (tcp_option_layout.h)
//   tcp_timer.c   tcp_retransmit_timer for a SYN_SENT socket (icsk_rto
//                 doubled per retransmission, tcp_syn_retries = 6)
//   tcp_input.c   tcp_rcv_synsent_state_process (options negotiated from the
//                 SYN-ACK, tcp_ack's RTT sample of the SYN, tcp_finish_connect,
//                 immediate ACK unless a write is pending)
// See docs/linux-receiver.md for the rules, parameters and limits.
//
// Time bases: jiffies are the host's tick clock (Linux CONFIG_HZ = the
// host's hz; Ubuntu 22.04 generic uses 250); the delayed-ACK and retransmit
// timers are Callouts on it. The TCP timestamp clock is Linux's 1 ms
// tcp_time_stamp (TCP_TS_HZ = 1000, from the microsecond clock, not jiffies).
// SACK compression uses a high-resolution timer (simulated time).
//
// The app (iperf3 server) reads immediately: every in-order byte is handed to
// on_data at once. The advertised window is constant (config.rcv_wnd) after
// the handshake.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/timer.h"
#include "netsim/tcp/connection_table.h"
#include "netsim/tcp/tcp_receive_endpoint.h"
#include "netsim/tcp/tcp_seq.h"

namespace netsim::tcp {

struct LinuxTcpConfig {
  std::uint16_t port = 5201;            // listening port
  std::uint32_t mtu = 1500;             // advmss = mtu - IP header - 20
  std::uint8_t wscale = 7;              // our window scale (tcp_rmem[2] = 6 MB -> 7)
  std::uint32_t rcv_wnd = 6291456;      // advertised window after the handshake, bytes
  std::uint32_t initial_rcv_space = 65536;  // tcp_full_space at SYN time (tcp_rmem[1] = 128 KB)
  bool sack = true;                     // net.ipv4.tcp_sack
  bool dsack = true;                    // net.ipv4.tcp_dsack
  bool timestamps = true;               // net.ipv4.tcp_timestamps
  int max_quickacks = 16;               // TCP_MAX_QUICKACKS
  std::uint32_t comp_sack_nr = 44;      // net.ipv4.tcp_comp_sack_nr (0: no SACK compression)
  SimTime comp_sack_delay = 1 * kPicosPerMilli;  // net.ipv4.tcp_comp_sack_delay_ns
  SimTime comp_sack_slack = 0;          // extra delay; Linux allows up to tcp_comp_sack_slack_ns = 100 us
  SimTime rto_min = 200 * kPicosPerMilli;  // TCP_RTO_MIN, for the data we send
  bool ack_on_read = true;              // tcp_cleanup_rbuf: ACK a pushed/short segment once read
  int max_connections = 8;              // connection slots (preallocated)
  std::uint32_t max_ofo_ranges = 1024;  // out-of-order ranges per connection (preallocated)
  std::uint32_t ts_offset = 0;          // added to the 1 ms clock for TSval (Linux randomises it)
  std::uint32_t iss = 0x10000000;       // initial send sequence of the first connection
};


class LinuxTcpReceiver final : public Component, public Endpoint, public EventHandler, public TcpReceiveEndpoint {
 public:
  enum class State { free, syn_sent, syn_recv, established, close_wait, fin_wait, last_ack, closed };

  // Binds (tcp, config.port) on `host`.
  LinuxTcpReceiver(Simulation& sim, std::string name, Host& host, const LinuxTcpConfig& config);
  ~LinuxTcpReceiver() override;

  // Callbacks: TcpReceiveEndpoint's set_on_accept, set_on_data,
  // set_on_peer_fin, set_on_transmit, set_on_connected.

  // Active open from the bound port to (peer, peer_port): sends the SYN now.
  // Returns the connection, or -1 when no slot is free.
  ConnId connect(NodeId peer, std::uint16_t peer_port) override;

  // The application writes `bytes` on an established connection; they go out
  // at once (no congestion window: meant for small control messages) and are
  // retransmitted on timeout. Returns false if the connection cannot send.
  bool send(ConnId c, std::uint64_t bytes) override;
  // Sends our FIN. The slot is freed once both FINs are acknowledged.
  void close(ConnId c) override;

  void deliver(Packet* p) override;
  void handle_event(std::uint64_t tag) override;

  // Connection lookup and inspection.
  ConnId find(NodeId peer, std::uint16_t peer_port) const override;
  int max_connections() const override { return static_cast<int>(conns_.size()); }
  State state(ConnId c) const { return conn(c).state; }
  NodeId peer(ConnId c) const override { return conn(c).peer; }
  std::uint16_t peer_port(ConnId c) const override { return conn(c).peer_port; }
  TcpReceiverStats stats(ConnId c) const override { return conn(c).stats; }
  // Sums over every connection this endpoint ever had.
  TcpReceiverStats total_stats() const override;
  std::uint32_t rcv_nxt(ConnId c) const { return conn(c).rcv_nxt; }
  std::uint32_t rcv_mss(ConnId c) const { return conn(c).rcv_mss; }
  // tp->mss_cache: what getsockopt(TCP_MAXSEG) returns once established.
  std::uint32_t mss_cache(ConnId c) const override { return conn(c).mss_cache; }
  int quick(ConnId c) const { return conn(c).quick; }
  int ato(ConnId c) const { return conn(c).ato; }                   // jiffies
  bool delack_pending(ConnId c) const { return timers_.at(static_cast<std::size_t>(c))->delack.pending(); }
  std::size_t ofo_ranges(ConnId c) const { return conn(c).ofo.size(); }
  std::uint32_t srtt_us(ConnId c) const override { return conn(c).srtt_us >> 3; }
  int rto_jiffies(ConnId c) const { return conn(c).rto_jiffies; }  // icsk_rto
  std::uint64_t refused() const { return refused_; }       // SYNs with no free slot
  std::uint64_t no_connection() const { return no_conn_; }  // non-SYN segments for no connection
  const LinuxTcpConfig& config() const { return config_; }
  std::uint16_t port() const override { return config_.port; }

 private:
  struct Range {
    std::uint32_t start = 0;
    std::uint32_t end = 0;
  };
  // icsk_ack.pending bits (inet_connection_sock.h).
  static constexpr int kAckSched = 1;
  static constexpr int kAckTimer = 2;
  static constexpr int kAckPushed = 4;
  static constexpr int kAckPushed2 = 8;
  static constexpr int kAckNow = 16;
  static constexpr int kNumSacks = 4;        // TCP_NUM_SACKS
  static constexpr int kPingpongThresh = 3;  // TCP_PINGPONG_THRESH (5.1 .. 6.4)
  enum TimerKind : std::uint64_t { kDelack = 0, kRexmit = 1, kCompSack = 2 };

  // Per-connection state; plain data, so a slot is reset by assignment.
  struct Conn {
    int id = 0;
    State state = State::free;
    bool used = false;
    NodeId peer = kNoNode;
    std::uint16_t peer_port = 0;
    // Options agreed in the handshake.
    bool ts_ok = false;
    bool sack_ok = false;
    bool wscale_ok = false;
    std::uint8_t snd_wscale = 0;   // the peer's
    std::uint8_t rcv_wscale = 0;   // ours (0 if the peer offered none)
    std::uint32_t mss_clamp = 536; // the peer's MSS option
    std::uint32_t mss_cache = 536; // what we send per segment
    std::uint32_t advmss = 1460;   // tp->advmss (minus 12 with timestamps once established)
    std::uint32_t tcp_header_len = 20;
    // Receive sequence space.
    std::uint32_t irs = 0;
    std::uint32_t rcv_nxt = 0;
    std::uint32_t rcv_wup = 0;     // rcv_nxt when we last advertised (sent an ACK)
    std::uint32_t rcv_wnd = 0;
    std::uint32_t ts_recent = 0;
    // Delayed-ACK engine (icsk_ack).
    int pending = 0;
    int quick = 0;
    int pingpong = 0;
    int ato = 0;                   // jiffies; 0 until the first data
    std::int64_t ack_timeout = 0;  // jiffies
    std::int64_t lrcvtime = 0;     // jiffies
    std::uint32_t rcv_mss = 536;
    std::uint32_t last_seg_size = 0;
    int rto_jiffies = 0;
    std::uint32_t srtt_us = 0;     // << 3, 0 = none
    SimTime synack_time = 0;
    bool synack_retrans = false;
    SimTime syn_time = 0;          // active open: when the first SYN left
    bool syn_retrans = false;
    // rcv_rtt_est (<< 3 microseconds), used for the SACK-compression delay.
    std::uint32_t rcv_rtt_us = 0;
    std::uint32_t rcv_rtt_seq = 0;
    SimTime rcv_rtt_time = -1;
    std::uint32_t rcv_rtt_last_tsecr = 0;
    // SACK state (tcp_sock.selective_acks, duplicate_sack, rx_opt.dsack).
    std::array<Range, kNumSacks> selective_acks{};
    int num_sacks = 0;
    Range duplicate_sack{};
    bool dsack = false;
    std::vector<Range> ofo;        // sorted, disjoint, non-adjacent; capacity preallocated
    // SACK compression.
    std::uint32_t compressed_ack = 0;
    std::uint32_t compressed_ack_rcv_nxt = 0;
    int dup_ack_counter = 0;
    // Our own data.
    std::uint32_t iss = 0;
    std::uint32_t snd_una = 0;
    std::uint32_t snd_nxt = 0;
    std::uint32_t write_seq = 0;   // end of data written by the app
    bool fin_queued = false;       // close() called; our FIN sits at write_seq
    bool fin_acked = false;
    bool peer_fin = false;
    bool peer_fin_event = false;   // to report after this segment
    int backoff = 0;
    std::int64_t last_oow_ack_time = INT64_MIN / 2;  // jiffies (tcp_oow_rate_limited)
    std::uint32_t in_order = 0;    // bytes made readable by the segment being processed
    TcpReceiverStats stats;
  };
  struct ConnTimers {
    ConnTimers(TickClock& clock, EventHandler* h, std::uint64_t index)
        : delack(clock, h, index * 4 + kDelack), rexmit(clock, h, index * 4 + kRexmit), comp(h, index * 4 + kCompSack) {}
    Callout delack;   // icsk_delack_timer (jiffies)
    Callout rexmit;   // icsk_retransmit_timer (jiffies), for our own data
    Timer comp;       // compressed_ack_timer (hrtimer)
  };

  Conn& conn(ConnId c) { return *conns_.at(static_cast<std::size_t>(c)); }
  const Conn& conn(ConnId c) const { return *conns_.at(static_cast<std::size_t>(c)); }
  ConnId allocate();
  // The connection table: slot `id` is live with (peer, peer_port).
  bool holds(ConnId id, NodeId peer, std::uint16_t peer_port) const;
  void add_peer(const Conn& c);
  void release_conn(Conn& c);

  // Clocks.
  std::int64_t jiffies() const { return clock_.ticks(); }
  int hz() const { return clock_.hz(); }
  int ato_min() const { return hz() / 25; }      // TCP_ATO_MIN = TCP_DELACK_MIN
  int delack_max() const { return hz() / 5; }    // TCP_DELACK_MAX
  std::uint32_t ts_now() const;
  int usecs_to_jiffies(std::uint64_t us) const;

  // Handshake and input.
  void handshake_rtt(Conn& c, std::optional<SimTime> sent_once, const TcpSegmentInfo& th);
  void take_peer_syn(Conn& c, const TcpSegmentInfo& th) const;
  void accept_syn(ConnId id, const Packet& syn);
  void send_syn_ack(Conn& c);
  void send_syn(Conn& c);
  Packet* new_segment(const Conn& c);  // to the connection's peer, from our port
  void synsent_input(Conn& c, const Packet& p);
  void set_first_rtt(Conn& c, std::uint32_t rtt_us);
  void init_established(Conn& c);
  void process(ConnId id, const Packet& p);
  void established_input(Conn& c, const Packet& p);
  void tcp_ack(Conn& c, std::uint32_t ack);
  void tcp_data_queue(Conn& c, const Packet& p);
  void tcp_data_queue_ofo(Conn& c, std::uint32_t seq, std::uint32_t end_seq, std::uint16_t segs);
  void tcp_ofo_queue(Conn& c);
  void tcp_event_data_recv(Conn& c, const Packet& p);
  void tcp_measure_rcv_mss(Conn& c, const Packet& p);
  void tcp_incr_quickack(Conn& c, int max_quickacks);
  void tcp_enter_quickack_mode(Conn& c, int max_quickacks);
  bool tcp_in_quickack_mode(const Conn& c) const { return c.quick != 0 && c.pingpong < kPingpongThresh; }
  void tcp_rcv_rtt_update(Conn& c, std::uint32_t sample_us, bool win_dep);
  void tcp_fin(Conn& c);
  ConnTimers& timers(const Conn& c) { return *timers_[static_cast<std::size_t>(c.id)]; }
  void queue_and_out(Conn& c, const Packet& p, std::uint32_t seq, std::uint32_t end_seq);
  void tcp_send_dupack(Conn& c, std::uint32_t seq, std::uint32_t end_seq);
  bool oow_rate_limited(Conn& c);
  std::uint32_t receive_window(const Conn& c) const {
    const std::int32_t w = static_cast<std::int32_t>(c.rcv_wup + c.rcv_wnd - c.rcv_nxt);
    return w < 0 ? 0u : static_cast<std::uint32_t>(w);
  }

  // SACK bookkeeping.
  void dsack_set(Conn& c, std::uint32_t seq, std::uint32_t end_seq);
  void dsack_extend(Conn& c, std::uint32_t seq, std::uint32_t end_seq);
  void sack_new_ofo_skb(Conn& c, std::uint32_t seq, std::uint32_t end_seq);
  void sack_maybe_coalesce(Conn& c);
  void sack_remove(Conn& c);
  void sack_compress_send_ack(Conn& c);
  bool ofo_insert(Conn& c, std::uint32_t seq, std::uint32_t end_seq);

  // ACK decisions and output.
  void ack_snd_check(Conn& c);
  void send_delayed_ack(Conn& c);
  void cleanup_rbuf(Conn& c, std::uint32_t copied);
  void send_ack(Conn& c);
  void transmit(Conn& c, std::uint32_t seq, std::uint32_t len, std::uint8_t flags);
  void fill_ack_options(Conn& c, Packet& p);
  void event_ack_sent(Conn& c, unsigned pkts);
  void push_pending(Conn& c);
  void arm_rexmit(Conn& c);
  void on_rexmit_timer(Conn& c);
  void on_delack_timer(Conn& c);
  void on_comp_timer(Conn& c);
  void maybe_finish(Conn& c);

  Host& host_;
  TickClock& clock_;
  LinuxTcpConfig config_;
  std::vector<std::unique_ptr<Conn>> conns_;
  ConnectionTable by_peer_;
  std::size_t never_used_ = 0;  // slots [0, never_used_) have held a connection
  std::vector<std::unique_ptr<ConnTimers>> timers_;
  std::uint32_t next_iss_;
  std::uint64_t refused_ = 0;
  std::uint64_t no_conn_ = 0;
  TcpReceiverStats retired_;
};

}  // namespace netsim::tcp
