// The 2.6.12-2.6.14 Linux sender's connection state: the fields of that
// era's struct tcp_sock (include/linux/tcp.h) the ported code reads, with
// the kernel's names and units: snd_cwnd and the *_out counters in
// segments, srtt in jiffies << 3, mdev in jiffies << 2, every time stamp in
// jiffies of the host's HZ (tcp_time_stamp was jiffies then).
//
// Versions: docs/linux-2.6-sender.md names the upstream file and commit each
// rule follows.
#pragma once

#include <cstdint>

#include "netsim/tcp/linux/tcp_sock.h"

namespace netsim::tcp::lnx26 {

// The kernel a sender behaves as. Later fixes are switches of their own
// (Linux26Config), so that "2.6.14 with the 2.6.19 bound" can be asked.
enum class KernelVersion : std::uint8_t { v2_6_12, v2_6_13, v2_6_14 };

// enum tcp_ca_state and before()/after() have not changed since 2.6: the
// modern sender's definitions serve both.
using enum lnx::TcpCaState;
using lnx::TcpCaState;
using lnx::after;
using lnx::before;

struct Tcp26Sock {
  std::uint32_t jiffies = 0;  // tcp_time_stamp at the sender's last entry
  int hz = 1000;

  std::uint32_t snd_una = 0;
  std::uint32_t snd_nxt = 0;
  std::uint32_t snd_wnd = 0;     // bytes, scaled
  std::uint32_t max_window = 0;
  std::uint32_t write_seq = 0;
  std::uint32_t high_seq = 0;
  std::uint32_t mss_cache = 0;   // MSS less options, bytes

  std::uint32_t snd_cwnd = 2;
  std::uint32_t snd_ssthresh = 0x7fffffff;
  std::uint32_t snd_cwnd_cnt = 0;
  std::uint32_t snd_cwnd_clamp = 0xffffffffu >> 1;  // (~0) >> 1 ... as tcp_v4_init_sock sets it
  std::uint32_t snd_cwnd_used = 0;
  std::uint32_t snd_cwnd_stamp = 0;
  std::uint32_t prior_ssthresh = 0;

  std::uint32_t packets_out = 0;
  std::uint32_t left_out = 0;    // sacked_out + lost_out
  std::uint32_t sacked_out = 0;
  std::uint32_t lost_out = 0;
  std::uint32_t retrans_out = 0;

  std::uint32_t srtt = 0;        // jiffies << 3
  std::uint32_t mdev = 0;        // jiffies << 2
  std::uint32_t rto = 0;         // jiffies

  std::uint8_t ca_state = TCP_CA_Open;

  // struct tcp_options_received rx_opt: the fields of the ACK being
  // processed that 2.6.13/14 BIC's low-utilization detector reads.
  struct RxOpt {
    std::uint8_t saw_tstamp = 0;   // the ACK carried a timestamp option
    std::uint32_t rcv_tsecr = 0;   // its echo reply, jiffies
  } rx_opt;
};

// tcp_packets_in_flight: packets_out - left_out + retrans_out.
inline std::uint32_t tcp_packets_in_flight(const Tcp26Sock& tp) {
  return tp.packets_out - tp.left_out + tp.retrans_out;
}

}  // namespace netsim::tcp::lnx26
