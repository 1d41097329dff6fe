// Renders a TCP iperf3 test in the output formats of iperf3 3.17.1 (Linux):
// the human-readable text of `iperf3 -c` and `iperf3 -s`, and the `-J` JSON.
//
// Plain data and pure functions, no simulation dependencies: the caller (the
// simulator) fills an Iperf3Test and asks for one side's report. Every figure
// printed is taken or computed from the struct (bits per second = bytes * 8 /
// seconds, sums over streams, ...); nothing is measured or made up here.
//
// What each side prints follows iperf3's own order of events, including its
// quirks, so that a rendered report can be laid next to a real one:
//  - The client prints its summary after the end-of-test results exchange, so
//    it knows both sides' figures. The server prints its summary *before* the
//    exchange: it never knows the peer's numbers, and iperf3 reports them as 0
//    (JSON bytes/bits_per_second of the peer's half, remote CPU), omits the
//    peer's congestion-control name, and leaves the peer's summary line out of
//    the text report.
//  - The data sender (client, or server with -R) is the side that reads
//    TCP_INFO: only its interval lines and JSON carry retransmits, cwnd, snd_wnd,
//    rtt, rttvar and pmtu, and only its end-of-test JSON carries max_snd_cwnd,
//    max_snd_wnd, max_rtt, min_rtt and mean_rtt (a -R client prints 0 there,
//    like iperf3, because it never measured them). Retransmit counts reach the
//    -R client through the results exchange and are printed there.
//  - Interval "seconds" is stored by iperf3 in a float; the JSON therefore
//    shows e.g. 1.0009839534759521 for an interval of 1.000984 s, and the
//    interval bit rates are computed from that float duration.
//  - JSON numbers are printed the way iperf3's bundled cJSON 1.7.15 prints them
//    (integers as integers, otherwise "%1.15g" unless that does not read back
//    within DBL_EPSILON, then "%1.17g"), with cJSON's tab indentation.
//
// Only TCP, non-bidirectional tests (with or without -R and -P) are modelled.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace netsim::app {

// One reporting interval of one stream (one "[  5]   1.00-2.00   sec ..." line).
struct Iperf3StreamInterval {
  // Seconds since the stream's start, as iperf3 prints them. After an -O omit
  // period iperf3 restarts the clock, so the first non-omitted interval starts
  // at 0 again.
  double start_s = 0;
  double end_s = 0;
  std::uint64_t bytes = 0;  // bytes written (sender) or read (receiver) in the interval
  // TCP_INFO samples of the data sender at the end of the interval (Linux units:
  // bytes and microseconds). Printed only by the data-sending side.
  std::uint64_t retransmits = 0;  // retransmitted segments during this interval
  std::uint64_t snd_cwnd_bytes = 0;
  std::uint64_t snd_wnd_bytes = 0;
  std::uint32_t rtt_us = 0;
  std::uint32_t rttvar_us = 0;
  std::uint32_t pmtu = 0;
  bool omitted = false;  // within the -O period: tagged "(omitted)", not in the totals
};

// One TCP data connection ("stream") of the test.
struct Iperf3StreamResult {
  int socket = 5;  // the fd number iperf3 prints in "[  5]"; the same on both sides
  // Addresses as the client sees them: local = the client's end, remote = the
  // server's end (port 5201). The server's report swaps them.
  std::string local_host;
  std::uint16_t local_port = 0;
  std::string remote_host;
  std::uint16_t remote_port = 5201;

  // Intervals as the data sender measured them (with the TCP_INFO fields).
  std::vector<Iperf3StreamInterval> intervals;
  // Intervals as the data receiver measured them (bytes read; only start_s,
  // end_s, bytes and omitted are used). If empty, the receiving side's report
  // uses `intervals` instead.
  std::vector<Iperf3StreamInterval> receiver_intervals;

  // End of test, excluding the omit period.
  std::uint64_t sender_bytes = 0;       // bytes the data sender wrote
  double sender_seconds = 0;            // the data sender's test duration
  std::uint64_t sender_retransmits = 0; // total retransmitted segments
  std::uint64_t max_snd_cwnd = 0;       // bytes
  std::uint64_t max_snd_wnd = 0;        // bytes
  std::uint32_t max_rtt_us = 0;
  std::uint32_t min_rtt_us = 0;
  std::uint32_t mean_rtt_us = 0;  // iperf3: integer mean of the per-interval rtt samples
  std::uint64_t receiver_bytes = 0;  // bytes the data receiver read
  double receiver_seconds = 0;       // the data receiver's test duration
};

struct Iperf3Test {
  std::string version = "iperf 3.17.1";
  std::string system_info;  // uname line, e.g. "Linux host 6.1.0-18-amd64 #1 SMP ... x86_64"
  std::string cookie;       // 36 characters in real iperf3
  std::int64_t timestamp_unix = 0;  // start.timestamp (deterministic, supplied by the caller)

  std::string server_host;  // as given to -c; "Connecting to host X" and connecting_to.host
  std::uint16_t server_port = 5201;
  // Server side only: the client's control connection ("Accepted connection
  // from H, port P" and start.accepted_connection).
  std::string accepted_host;
  std::uint16_t accepted_port = 0;
  bool server_one_off = false;  // -s -1: no "Server listening" banner after the test

  bool reverse = false;                // -R: the server sends
  std::uint64_t blksize = 131072;      // -l
  int duration_s = 10;                 // -t
  int omit_s = 0;                      // -O
  double interval_s = 1;               // -i
  std::uint64_t bytes_to_send = 0;     // -n (test_start.bytes)
  std::uint64_t blocks_to_send = 0;    // -k (test_start.blocks)
  int tos = 0;                         // -S
  std::uint64_t target_bitrate = 0;    // -b, bits/s (0 = unlimited)
  std::uint64_t fq_rate = 0;           // --fq-rate, bits/s

  std::uint32_t tcp_mss = 0;           // -M; if 0 the JSON shows tcp_mss_default
  std::uint32_t tcp_mss_default = 0;   // the client's control-connection MSS (the server prints 0)
  std::uint64_t sock_bufsize = 0;      // -w
  std::uint64_t sndbuf_actual = 0;     // SO_SNDBUF read back
  std::uint64_t rcvbuf_actual = 0;     // SO_RCVBUF read back

  // Congestion control of the data sender and of the data receiver ("" = none reported).
  std::string sender_tcp_congestion;
  std::string receiver_tcp_congestion;

  // CPU utilisation in percent of each host over the test.
  double client_cpu_total = 0, client_cpu_user = 0, client_cpu_system = 0;
  double server_cpu_total = 0, server_cpu_user = 0, server_cpu_system = 0;

  std::vector<Iperf3StreamResult> streams;  // -P is streams.size()
};

enum class Iperf3Side { client, server };

// iperf3's unit_snprintf: `value` is bytes (or bytes per second); format 'A'
// (adaptive, 1024-based: "112 MByte") or 'a' (value * 8, adaptive, 1000-based:
// " 940 Mbit"), or a fixed unit B/K/M/G/T (bytes) or b/k/m/g/t (bits). Four
// significant places: "%4.2f" below 9.995, "%4.1f" below 99.95, "%4.0f" above.
// iperf3 appends "s" (Transfer) or "s/sec" (Bitrate) itself, as does this module.
std::string iperf3_unit_snprintf(double value, char format);

// The human-readable report of one side, from "Connecting to host ..." (client)
// or the "Server listening" banner (server) to "iperf Done." (client) or the
// next "Server listening" banner (server).
void write_iperf3_text(std::ostream& out, const Iperf3Test& test, Iperf3Side side);

// The -J report of one side: {"start": {...}, "intervals": [...], "end": {...}}.
void write_iperf3_json(std::ostream& out, const Iperf3Test& test, Iperf3Side side);

}  // namespace netsim::app
