// What the nuttcp client prints for a test (its default brief output), from
// the figures of a simulated one. `netsim run --format nuttcp` feeds it from
// the run's NuttcpResults (app/nuttcp_from_result.h).
//
// Layout read in nuttcp 8.2.2's nuttcp.c (Bill Fink and Rob Scott; own code
// written, no source text copied): PERF_FMT_BRIEF, PERF_FMT_INTERVAL,
// RETRANS_FMT_BRIEF / _INTERVAL, RTT_FMT_BRIEF, DROP_FMT_BRIEF / _INTERVAL,
// LOSS_FMT_BRIEF / _INTERVAL and the client's brief block at the end of main
// (the transmitter prints the receiver's megabytes, seconds and rate, its own
// CPU as %TX and the server's as %RX; UDP drops are (MB - srvr_MB) / buflen
// rounded and packets MB / buflen rounded, MB being the transmitter's); the
// change log for what older versions print. Two layouts (`version`):
//   6: 6.1.1 .. 7.x. TCP final line "... %TX ... %RX R retrans Q msRTT",
//      intervals with " %5d retrans" (6.0.1 added retransmissions, 6.0.2 the
//      RTT, 6.1.1 made the RTT the default). 8.0.1 added "KB-cwnd", and some
//      later version the 5-decimal "%loss" for a loss under 0.1%: neither is
//      printed here.
//   5: 5.x (the 2005-era runs): the TCP final line ends after "%RX" and the
//      intervals carry no retrans.
// UDP lines are the same in both: "... %RX D / P drop/pkt L %loss", and
// intervals "... Mbps %5d / %5d ~drop/pkt %5.2f ~%loss".
// Field widths (4.0.3 and later): "%10.4f MB / %6.2f sec = %9.4f Mbps".
// A blank line precedes the final line when there were interval reports.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace netsim::app {

// One line's figures (an interval, or the whole test), summed over streams.
struct NuttcpFigures {
  double seconds = 0;                  // the line's real time
  std::uint64_t bytes_sent = 0;        // transmitter's bytes (UDP: drop/pkt)
  std::uint64_t bytes_received = 0;    // receiver's bytes: MB and Mbps
  std::uint64_t retransmits = 0;       // TCP
  std::uint64_t packets_sent = 0;      // UDP intervals: datagrams the receiver accounts for
  std::uint64_t packets_received = 0;  // UDP intervals
};

struct NuttcpReport {
  bool udp = false;
  int version = 6;                      // 5 or 6 (see above)
  std::uint32_t buffer_len = 65536;     // -l: UDP drop/pkt counts datagrams of this size
  std::vector<NuttcpFigures> intervals; // -i lines (empty without -i)
  NuttcpFigures total;
  int tx_cpu_pct = 0;                   // %TX, %RX as nuttcp prints them (nuttcp_cpu.h)
  int rx_cpu_pct = 0;
  double rtt_ms = 0;                    // TCP, version 6
};

// One interval line, without the newline.
std::string nuttcp_interval_line(const NuttcpReport& r, const NuttcpFigures& f);
// The final line, without the newline.
std::string nuttcp_final_line(const NuttcpReport& r);
// Every interval line, the blank line if there were any, the final line.
void write_nuttcp_text(std::ostream& out, const NuttcpReport& r);

}  // namespace netsim::app
