// The Linux sender's connection state: the fields of struct tcp_sock and
// struct inet_connection_sock (include/linux/tcp.h, include/net/inet_connection_sock.h)
// that the ported code reads, with the kernel's names, units and widths, so
// that a reader can hold each ported function beside the original.
// Units as in the kernel: snd_cwnd and the *_out counters in segments
// (packets), srtt_us in microseconds << 3, mdev_us/rttvar_us in
// microseconds << 2, timers (icsk_rto, lsndtime, snd_cwnd_stamp) in jiffies
// of the host's CONFIG_HZ, tcp_mstamp in microseconds.
//
// Kernel version followed: Linux 6.18 (the lab kernel of `netsim lab`);
// see docs/linux-sender.md for the upstream file and commit of each part.
#pragma once

#include <cstdint>

namespace netsim::tcp::lnx {  // not "linux": a predefined macro in GNU dialects

// enum tcp_ca_state (include/uapi/linux/tcp.h)
enum TcpCaState : std::uint8_t {
  TCP_CA_Open = 0,
  TCP_CA_Disorder = 1,
  TCP_CA_CWR = 2,
  TCP_CA_Recovery = 3,
  TCP_CA_Loss = 4,
};

inline constexpr std::uint32_t TCP_INFINITE_SSTHRESH = 0x7fffffff;

// jiffies and the microsecond clock, as the sender refreshed them on entry
// (tcp_mstamp_refresh); `hz` is the host's CONFIG_HZ.
struct LinuxClock {
  std::uint32_t jiffies = 0;     // tcp_jiffies32
  std::uint64_t mstamp_us = 0;   // tp->tcp_mstamp (tcp_clock_us at the refresh)
  int hz = 250;
};

// enum sk_pacing (include/net/sock.h)
enum SkPacing : std::uint8_t { SK_PACING_NONE = 0, SK_PACING_NEEDED = 1, SK_PACING_FQ = 2 };

struct LinuxTcpSock {
  LinuxClock clock;

  // struct sock fields the sender and CC modules read.
  std::uint64_t sk_pacing_rate = 0;       // bytes per second (tcp_update_pacing_rate)
  std::uint8_t sk_pacing_status = SK_PACING_NONE;
  std::uint32_t sk_gso_max_size = 65536;  // the device's gso_max_size (GSO_LEGACY_MAX_SIZE)
  std::uint32_t sk_gso_max_segs = 65535;  // GSO_MAX_SEGS
  std::uint8_t sk_pacing_shift = 10;      // TSQ / TSO autosizing: about 1 ms of data at the pacing rate
  std::uint64_t sk_max_pacing_rate = ~0ull;

  // Sequence space.
  std::uint32_t snd_una = 0;
  std::uint32_t snd_nxt = 0;
  std::uint32_t snd_wnd = 0;        // peer's window, bytes (already scaled)
  std::uint32_t max_window = 0;
  std::uint32_t write_seq = 0;      // tail of the data written by the application
  std::uint32_t high_seq = 0;       // snd_nxt at the onset of congestion
  std::uint32_t mss_cache = 0;      // current effective sending MSS (payload bytes)

  // Congestion window (segments) and its bookkeeping.
  std::uint32_t snd_cwnd = 0;
  std::uint32_t snd_ssthresh = TCP_INFINITE_SSTHRESH;
  std::uint32_t snd_cwnd_cnt = 0;   // linear increase counter
  std::uint32_t snd_cwnd_clamp = ~0u;  // tcp_init_sock: ~0
  std::uint32_t snd_cwnd_used = 0;
  std::uint32_t snd_cwnd_stamp = 0; // jiffies
  std::uint32_t prior_cwnd = 0;     // cwnd right before starting loss recovery
  std::uint32_t prior_ssthresh = 0; // ssthresh saved at recovery start (undo)
  std::uint32_t prr_delivered = 0;  // packets delivered to the receiver during recovery
  std::uint32_t prr_out = 0;        // packets sent during recovery
  bool is_cwnd_limited = false;     // forward progress limited by snd_cwnd?
  std::uint32_t max_packets_out = 0;     // max packets_out in the last window
  std::uint32_t cwnd_usage_seq = 0;      // right edge of the cwnd usage tracking window

  // In-flight accounting (segments).
  std::uint32_t packets_out = 0;
  std::uint32_t retrans_out = 0;
  std::uint32_t sacked_out = 0;
  std::uint32_t lost_out = 0;
  std::uint32_t delivered = 0;      // total data packets delivered incl. retransmits
  std::uint32_t delivered_ce = 0;
  std::uint32_t app_limited = 0;    // limited until "delivered" reaches this value
  std::uint32_t reordering = 3;     // packet reordering metric (tcp_reordering sysctl)
  std::uint32_t reord_seen = 0;
  std::uint32_t undo_marker = 0;    // snd_una upon a new recovery episode
  int undo_retrans = 0;             // number of undoable retransmissions
  std::uint32_t tlp_high_seq = 0;   // snd_nxt at the time of TLP
  bool tlp_retrans = false;

  // RTT (tcp_rtt_estimator units).
  std::uint32_t srtt_us = 0;        // smoothed RTT << 3, microseconds
  std::uint32_t mdev_us = 0;        // medium deviation << 2
  std::uint32_t mdev_max_us = 0;    // maximal mdev for the last rtt period
  std::uint32_t rttvar_us = 0;      // smoothed mdev_max << 2
  std::uint32_t rtt_seq = 0;        // sequence number to update rttvar
  std::uint32_t min_rtt_us = ~0u;   // tcp_min_rtt(): windowed min filter's current value

  // Timestamps and counters.
  std::uint32_t lsndtime = 0;       // jiffies of the last data packet sent
  std::uint32_t rcv_tstamp = 0;     // jiffies of the last received ACK (for keepalives)
  std::uint64_t bytes_acked = 0;    // RFC 4898 tcpEStatsAppHCThruOctetsAcked
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_retrans = 0;
  std::uint32_t data_segs_out = 0;
  std::uint32_t segs_out = 0;
  std::uint32_t total_retrans = 0;  // tcpi_total_retrans
  std::uint32_t lost = 0;           // total data packets marked lost (tp->lost)

  // struct tcp_rack (RACK-TLP reordering state).
  struct {
    std::uint64_t mstamp = 0;          // (re)sent time of the most recently delivered skb, us
    std::uint32_t rtt_us = 0;          // its RTT
    std::uint32_t end_seq = 0;         // its end_seq
    std::uint32_t last_delivered = 0;  // tp->delivered at the last reo_wnd adjustment
    std::uint8_t reo_wnd_steps = 1;    // reo_wnd in units of min_rtt / 4
    std::uint8_t reo_wnd_persist = 0;  // recoveries reo_wnd stays up (5 bits)
    bool dsack_seen = false;           // a DSACK arrived since the last adjustment
    bool advanced = false;             // mstamp advanced since the last lost marking
  } rack;

  // inet_connection_sock.
  std::uint8_t icsk_ca_state = TCP_CA_Open;
  std::uint8_t icsk_retransmits = 0;
  std::uint8_t icsk_backoff = 0;
  std::uint32_t icsk_rto = 0;       // jiffies
  std::uint32_t icsk_rto_min = 0;   // jiffies (TCP_RTO_MIN = HZ / 5)
};

// include/net/tcp.h timer constants, in jiffies of `hz` (or microseconds).
inline constexpr std::uint32_t TCP_RTO_MIN(int hz) { return static_cast<std::uint32_t>(hz / 5); }
inline constexpr std::uint32_t TCP_RTO_MAX(int hz) { return static_cast<std::uint32_t>(120 * hz); }
inline constexpr std::uint32_t TCP_TIMEOUT_INIT(int hz) { return static_cast<std::uint32_t>(hz); }
inline constexpr std::uint32_t TCP_TIMEOUT_MIN = 2;          // jiffies
inline constexpr std::uint32_t TCP_TIMEOUT_MIN_US = 2000;
// usecs_to_jiffies() for a HZ that divides 10^6 (100, 250, 1000): rounds up.
inline constexpr std::uint32_t usecs_to_jiffies(std::uint32_t us, int hz) {
  const auto per_jiffy = static_cast<std::uint32_t>(1000000 / hz);
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(us) + per_jiffy - 1) / per_jiffy);
}
inline constexpr std::uint32_t jiffies_to_usecs(std::uint32_t j, int hz) {
  return j * static_cast<std::uint32_t>(1000000 / hz);
}

// include/net/tcp.h helpers, same names and arithmetic.
inline std::uint32_t tcp_snd_cwnd(const LinuxTcpSock& tp) { return tp.snd_cwnd; }
inline void tcp_snd_cwnd_set(LinuxTcpSock& tp, std::uint32_t val) { tp.snd_cwnd = val; }
inline bool tcp_in_slow_start(const LinuxTcpSock& tp) { return tcp_snd_cwnd(tp) < tp.snd_ssthresh; }
inline std::uint32_t tcp_left_out(const LinuxTcpSock& tp) { return tp.sacked_out + tp.lost_out; }
// packets_out - (sacked_out + lost_out) + retrans_out
inline std::uint32_t tcp_packets_in_flight(const LinuxTcpSock& tp) {
  return tp.packets_out - tcp_left_out(tp) + tp.retrans_out;
}
// tcp_is_cwnd_limited(): in slow start, cwnd < 2 * max_packets_out counts as limited.
inline bool tcp_is_cwnd_limited(const LinuxTcpSock& tp) {
  if (tp.is_cwnd_limited) return true;
  if (tcp_in_slow_start(tp)) return tcp_snd_cwnd(tp) < 2 * tp.max_packets_out;
  return false;
}
// tcp_stamp_us_delta(): microseconds from t0 to t1, 0 if t1 is earlier.
inline std::uint32_t tcp_stamp_us_delta(std::uint64_t t1, std::uint64_t t0) {
  return static_cast<std::uint32_t>(t1 > t0 ? t1 - t0 : 0);
}
inline bool before(std::uint32_t seq1, std::uint32_t seq2) { return static_cast<std::int32_t>(seq1 - seq2) < 0; }
inline bool after(std::uint32_t seq1, std::uint32_t seq2) { return before(seq2, seq1); }
inline std::uint32_t tcp_min_rtt(const LinuxTcpSock& tp) { return tp.min_rtt_us; }
// tcp_current_ssthresh(): in CWR/Recovery, ssthresh; else the larger of
// ssthresh and 3/4 of cwnd.
inline std::uint32_t tcp_current_ssthresh(const LinuxTcpSock& tp) {
  if ((1u << tp.icsk_ca_state) & ((1u << TCP_CA_CWR) | (1u << TCP_CA_Recovery))) return tp.snd_ssthresh;
  const std::uint32_t a = tp.snd_ssthresh;
  const std::uint32_t b = (tcp_snd_cwnd(tp) >> 1) + (tcp_snd_cwnd(tp) >> 2);
  return a > b ? a : b;
}

}  // namespace netsim::tcp::lnx
