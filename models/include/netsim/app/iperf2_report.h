// Renders a TCP iperf 2 test in the enhanced (-e) text output of iperf 2.1.8,
// the version Debian 12 "bookworm" ships (package iperf 2.1.8+dfsg-1):
//   client: iperf -c HOST -l 1M -t 30 -i 2 -e [-P N]
//   server: iperf -s -e            (optionally with -i, which adds interval lines)
//
// The layout follows iperf2's src/ReportOutputs.c (tcp_output_write_enhanced,
// tcp_output_sum_write_enhanced, tcp_output_read_enhanced,
// tcp_output_sum_read_enhanced, reporter_print_connection_report,
// reporter_output_client_settings / _listener_settings,
// reporter_connect_printf_tcp_final), the format strings of src/Locale.c
// (report_bw_write_enhanced_format and friends, built with HAVE_FASTSAMPLING
// as Debian does, hence the "%4.4f-%4.4f" interval times), byte_snprintf of
// src/stdio.c and gettcpinfo of compat/gettcpinfo.c; it was checked line by
// line against the output of the Debian binary on a loopback test. Other
// 2.1.x/2.2.x builds (Ubuntu 22.04's 2.1.5, later 2.1.9+ and 2.2.x) were not
// compared and may differ in details.
//
// Plain data and pure functions, no simulation dependencies: the caller (the
// simulator) fills an Iperf2Test and asks for one side's report. Every figure
// printed is taken or computed from the struct (bit rates = bytes * 8 / the
// interval's length, NetPwr, [SUM] lines as sums over the streams, ...).
//
// What iperf2 prints, and therefore this module:
//  - Client interval/final line:
//      "[  1] 0.0000-2.0000 sec   224 MBytes   940 Mbits/sec  224/0          3      241K/2178(1007) us  53921"
//    Transfer in adaptive 1024-based bytes, Bandwidth in adaptive 1000-based
//    bits/s, Write/Err = write() calls / failed write() calls, Rtry = TCP
//    retransmits (tcpi_total_retrans delta) in %10d, Cwnd = snd_cwnd * snd_mss
//    / 1024 (integer KBytes) in %8d, RTT and its variance are tcpi_rtt and
//    tcpi_rttvar in microseconds, NetPwr = 1e-6 * (bytes / seconds) / (rtt in
//    seconds) ("%.0f" above 100, "%.2f" above 10, "%.6f" otherwise, "NAN" for
//    rtt 0). A cwnd below 1 KByte prints iperf's "NA/<rtt> us" variant.
//  - The client's final line (0.0000-<end>) carries the whole-test bytes,
//    writes and retransmits and one last TCP_INFO sample (cwnd, rtt, rttvar).
//  - Server interval/final line: "... sec  4.96 GBytes  10.6 Gbits/sec  40637=8:9:7:6:6:6:3:40592"
//    i.e. Reads=Dist: the number of read() calls that returned data, then the
//    read-size histogram: 8 bins of (read buffer length / 8) bytes each, a read
//    of n bytes counted in bin (n - 1) / binsize (see iperf2_read_bin). The
//    histogram is part of the data model; the caller fills it.
//  - With several streams (-P N, N > 1) a "[SUM]" line follows each interval
//    (bytes, writes, errors, retransmits or reads and bins summed over the
//    streams), the final lines are followed by a [SUM] final line and, on the
//    client, by "[ CT] final connect times (min/avg/max/stdev) = ... ms
//    (tot/err) = N/0". iperf 2.1.8 multiplies that stdev by 1000 a second time
//    (it is in microseconds although labelled ms); reproduced here.
//  - The [SUM] final line's end time is the sum report's own last-packet time
//    in iperf2 (e.g. 0.0000-4.0014 while the streams ended at 4.0164 and
//    4.0199); Iperf2Test::client_sum_end_s / server_sum_end_s carry it, and the
//    latest stream end is used when they are 0.
//  - Order: the interval slots that all streams share (same start and end),
//    each stream's line then the [SUM] line; then stream by stream its
//    remaining intervals (those that differ per stream, typically the final
//    partial one) and its final line, as iperf2 prints a stream's end when
//    that stream ends; then a [SUM] line for the final partial interval
//    (from the last [SUM] boundary to the [SUM] end time, with the totals less
//    the printed [SUM] intervals) and the [SUM] final line.
//  - Final partial intervals: as iperf2 (PARTIALPERCENT), a stream's last
//    interval and the [SUM] partial line are printed only if longer than a
//    quarter of the report interval (Iperf2Test::interval_s /
//    server_interval_s). The caller passes every interval it measured,
//    including a short final one with data: its bytes still count in the
//    [SUM] partial, through the totals.
//
// Not modelled: UDP, -r/-d/--full-duplex/-R, --trip-times, bursts, isochronous
// traffic, histograms, CSV (-y C), non -e output, output interleaving caused
// by iperf2's threads (with -P, real iperf may print the first connection line
// before the settings banner and stream lines in any order; here everything is
// printed in stream order). A zero-length interval prints a bandwidth of 0
// here where iperf2 would print inf or nan.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace netsim::app {

// One reporting interval (or the whole-test total) of one stream on one side.
struct Iperf2Interval {
  double start_s = 0;  // seconds since the stream's start, as iperf2 prints them
  double end_s = 0;
  std::uint64_t bytes = 0;  // written (client) or read (server)

  // Client (writer) side.
  std::uint64_t writes = 0;        // successful write() calls
  std::uint64_t write_errors = 0;  // failed write() calls
  std::uint64_t retransmits = 0;   // "Rtry": retransmitted segments in the interval (the final line: in the test)
  // TCP_INFO sample at the end of the interval (Linux units).
  std::uint64_t cwnd_bytes = 0;  // snd_cwnd * snd_mss; printed as whole KBytes (/ 1024, truncated)
  std::uint32_t rtt_us = 0;      // tcpi_rtt
  std::uint32_t rttvar_us = 0;   // tcpi_rttvar

  // Server (reader) side.
  std::uint64_t reads = 0;                    // read() calls that returned data
  std::array<std::uint64_t, 8> read_bins{};  // read-size histogram (see iperf2_read_bin)
};

// One end's TCP_INFO right after the connection was set up ("(icwnd/mss/irtt=14/1448/510)").
struct Iperf2TcpInit {
  std::uint32_t mss = 0;                  // tcpi_snd_mss; 0 = no TCP_INFO, the field is left out
  std::uint64_t initial_cwnd_bytes = 0;  // snd_cwnd * snd_mss; printed as whole KBytes (/ 1024)
  std::uint32_t initial_rtt_us = 0;      // tcpi_rtt
};

// One TCP connection of the test.
struct Iperf2Stream {
  int id = 1;         // the client's transfer id: "[  1]"
  int server_id = 0;  // the server's transfer id (it counts its own connections); 0 = same as id

  // Addresses as the client sees them: local = the client's end, remote = the
  // server's end. The server's report swaps them.
  std::string local_host;
  std::uint16_t local_port = 0;
  std::string remote_host;
  std::uint16_t remote_port = 5001;
  // Interface names printed after the address with -e ("127.0.0.1%lo"); "" = none.
  std::string client_device;
  std::string server_device;

  int client_sock = 3;  // "(sock=3)": the data socket's fd on each side
  int server_sock = 4;
  Iperf2TcpInit client_init;
  Iperf2TcpInit server_init;

  // Client: the connect() time, "(ct=0.19 ms)" (0 = not printed) and both
  // sides' wall-clock time of the connection, "on 2024-05-01 12:00:00 (UTC)"
  // (0 = iperf2 leaves out the time, and the ct with it).
  double connect_time_ms = 0;
  std::int64_t client_connect_unix_s = 0;
  std::int64_t server_accept_unix_s = 0;

  // The client's -i intervals and the server's (empty for a plain `iperf -s -e`),
  // in time order, the last one possibly a partial one (see above).
  std::vector<Iperf2Interval> intervals;
  std::vector<Iperf2Interval> server_intervals;
  Iperf2Interval total_client;                   // the client's final line
  Iperf2Interval total_server;                   // the server's final line
};

struct Iperf2Test {
  // Client banner.
  std::string server_host;   // as given to -c
  std::uint16_t port = 5001;  // -p
  int client_pid = 0;
  double interval_s = 0;              // the client's -i (0 = none)
  std::uint64_t write_len = 131072;  // -l ("Write buffer size: 1048576 Byte")
  std::string client_congestion;     // -Z on the client: "TCP congestion control set to X"; "" = not given
  int tos = 0;                       // -S: "TOS set to 0x0 (Nagle on)"
  bool nodelay = false;              // -N: "TOS set to 0x0 and nodelay (Nagle off)"
  std::uint64_t client_window_bytes = 16384;  // SO_SNDBUF as read back: "TCP window size: 16.0 KByte (default)"
  std::uint64_t client_window_requested = 0;  // -w; 0 = "(default)"

  // Server banner.
  int server_pid = 0;
  double server_interval_s = 0;     // the server's -i (0 = none: only the final lines)
  std::uint64_t read_len = 131072;  // the server's -l ("Read buffer size:  128 KByte (Dist bin width=16.0 KByte)")
  std::string server_congestion;    // -Z on the server; "" = not given
  std::uint64_t server_window_bytes = 131072;  // SO_RCVBUF as read back
  std::uint64_t server_window_requested = 0;   // the server's -w; 0 = "(default)"
  std::string peer_version = "2.1.8";  // the client's version as the server reports it "(peer 2.1.8)"; "" = none

  // strftime's %Z and the offset of local time from UTC used for the "on ..." times.
  std::string time_zone = "UTC";
  std::int64_t utc_offset_s = 0;

  // End times of the [SUM] final lines (see the header comment); 0 = latest stream end.
  double client_sum_end_s = 0;
  double server_sum_end_s = 0;

  std::vector<Iperf2Stream> streams;  // -P is streams.size()
};

enum class Iperf2Side { client, server };

// iperf2's byte_snprintf: `value` is bytes (or bytes per second). Upper-case
// formats print bytes with 1024-based units: 'A' adaptive, or fixed B/K/M/G/T/P;
// lower-case ones print value * 8 in bits with 1000-based units: 'a' adaptive,
// or b/k/m/g/t/p. Adaptive steps up while the magnitude is >= 1024 (1000).
// The number is printed "%4.3f" below 0.9995, "%4.2f" below 9.995, "%4.1f"
// below 99.95 and "%4.0f" otherwise, then a space and the unit label ("Byte",
// "KByte", ..., "bit", "Kbit", ...). iperf2 appends "s" (Transfer) or "s/sec"
// (Bandwidth) itself, as does this module. Example: 117440512 'A' -> " 112 MByte".
std::string iperf2_byte_snprintf(double value, char format);

// The Reads=Dist bin (0..7) of a read() that returned `read_bytes` bytes, for a
// read buffer of `read_len` bytes (iperf2: (n - 1) / (read_len / 8)); 8 for a
// read that fits no bin (iperf2 does not count it in any bin).
std::size_t iperf2_read_bin(std::uint64_t read_bytes, std::uint64_t read_len);

// The -e report of one side: the settings banner, the connection lines, the
// header, the interval lines and the final lines.
void write_iperf2_text(std::ostream& out, const Iperf2Test& test, Iperf2Side side);

}  // namespace netsim::app
