// A sending socket's state as flow reports show it (iperf3 and iperf2
// client summaries, the runner's TCP table): one definition, so that every
// report's "retransmits" and "cwnd" mean the same thing, read through
// TcpSendSocket::info() whichever stack sends.
#pragma once

#include <cstdint>

#include "netsim/tcp/tcp_send_socket.h"

namespace netsim::tcp {

// Data segments sent, retransmissions included, without SYNs.
inline std::uint64_t data_segments_sent(const TcpSendSocket& tcp) { return tcp.info().data_segments_sent; }

// What reports call retransmissions: what iperf3 and iperf2 print as Retr
// from the OS's TCP_INFO (FreeBSD tcpi_snd_rexmitpack, Linux tcpi_total_retrans).
inline std::uint64_t report_retransmits(const TcpSendSocket& tcp) { return tcp.info().retransmits; }

// A sending application's connection as its report shows it. What the data
// counts leave out besides SYNs (iperf3's cookie) is the application's.
struct SenderReportCounters {
  std::uint64_t segments_sent = 0;  // data segments, retransmissions included (no SYNs)
  std::uint64_t bytes_sent = 0;     // payload bytes, retransmissions included
  std::uint64_t bytes_acked = 0;
  std::uint64_t retransmits = 0;    // report_retransmits
  std::uint64_t rto_count = 0;
  std::uint64_t recovery_episodes = 0;
  std::uint32_t cwnd = 0;           // bytes
  std::uint32_t srtt_us = 0;
};

// Copies retransmits, RTOs, recovery episodes, cwnd and srtt into any
// counters struct with those fields.
template <typename Counters>
void fill_sender_report_fields(const TcpSendSocket& tcp, Counters& c) {
  const TcpSocketInfo i = tcp.info();
  c.retransmits = i.retransmits;
  c.rto_count = i.rto_count;
  c.recovery_episodes = i.recovery_episodes;
  c.cwnd = i.snd_cwnd_bytes;
  c.srtt_us = i.rtt_us;
}

}  // namespace netsim::tcp
