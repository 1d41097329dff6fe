// The FreeBSD sender's state as flow reports show it (iperf3 and iperf2
// client summaries, the runner's TCP table): one definition, so that every
// report's "retransmits" and "cwnd" mean the same thing.
#pragma once

#include <algorithm>
#include <cstdint>

#include "netsim/tcp/freebsd_tcp_sender.h"

namespace netsim::tcp {

// Data segments sent: segments_sent less the SYNs it counts (an active open's
// SYN and its retransmissions; a passive open's SYN-ACKs are not in it).
inline std::uint64_t data_segments_sent(const FreeBsdTcpSender& tcp) {
  const FreeBsdTcpStats& st = tcp.stats();
  const bool active = tcp.state() != FreeBsdTcpSender::State::closed && st.syn_acks_sent == 0;
  const std::uint64_t syns = active ? 1 + st.syn_retransmits : 0;
  return st.segments_sent - std::min(st.segments_sent, syns);
}

// What reports call retransmissions: FreeBSD's tcpi_snd_rexmitpack, which
// iperf3 and iperf2 print as Retr (one per retransmitting tcp_output send; a
// TSO burst resent after an RTO counts once, however many segments it has).
inline std::uint64_t report_retransmits(const FreeBsdTcpSender& tcp) { return tcp.stats().retransmitted_packs; }

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
void fill_sender_report_fields(const FreeBsdTcpSender& tcp, Counters& c) {
  const FreeBsdTcpStats& st = tcp.stats();
  c.retransmits = report_retransmits(tcp);
  c.rto_count = st.rto_count;
  c.recovery_episodes = st.recovery_episodes;
  c.cwnd = tcp.tcpcb().snd_cwnd;
  c.srtt_us = tcp.srtt_usecs();
}

}  // namespace netsim::tcp
