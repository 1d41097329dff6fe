// The JSON texts an iperf3 3.17.1 TCP test sends on its control connection,
// built as iperf3 builds them (same members, same order, printed like
// cJSON_PrintUnformatted): the model only needs their lengths, but building
// the text is the simplest way to get the length right.
//
// From esnet/iperf src/iperf_api.c: send_parameters (client -> server, after
// PARAM_EXCHANGE) and send_results (both sides, after EXCHANGE_RESULTS).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace netsim::app {

// What `iperf3 -c HOST -t T -l L -P N [-C CC] [-R]` puts in send_parameters. Members
// iperf3 adds only for options not given (-n, -k, -M, -N, --bidir, -w, -b,
// --fq-rate, --burst, -S, -L, -T, --extra-data, --get-server-output,
// --udp-counters-64bit, --repeating-payload, --zerocopy, --dont-fragment,
// authentication) are left out; so is congestion_used, which the client only
// learns when it creates its streams, after this message.
struct Iperf3ParametersMessage {
  double time_s = 10;                 // "time": -t
  int omit_s = 0;                     // "omit": -O (always sent)
  int parallel = 1;                   // "parallel": -P (always sent)
  bool reverse = false;               // "reverse": -R (sent as true when given)
  std::uint64_t len = 131072;         // "len": -l (sent when non-zero)
  int pacing_timer_us = 1000;         // "pacing_timer": the library default, sent when non-zero
  std::string congestion;             // "congestion": -C, "" = not given
  std::string client_version = "3.17.1";
};

// One stream's entry in send_results.
struct Iperf3StreamResultsEntry {
  int id = 1;                   // iperf_add_stream: see iperf3_stream_id
  std::uint64_t bytes = 0;      // sender: bytes written; receiver: bytes read
  std::int64_t retransmits = -1;  // the sender's count when it has TCP_INFO retransmits, else -1
  double start_time = 0;        // seconds from the stream's start (always 0)
  double end_time = 0;          // seconds to the stream's last interval end (microsecond resolution)
};

// send_results: CPU use, whether the side's stream counts include retransmits
// (1 for a sender with TCP_INFO retransmits, -1 for a receiver), the side's
// congestion control, and one entry per stream. TCP streams carry zero
// jitter, errors and packets.
struct Iperf3ResultsMessage {
  double cpu_util_total = 0;
  double cpu_util_user = 0;
  double cpu_util_system = 0;
  int sender_has_retransmits = -1;
  std::string congestion_used;  // "" = not reported
  std::vector<Iperf3StreamResultsEntry> streams;
};

// CPU figures for the results messages of a side whose host has no CPU
// model (Iperf3CpuMeter): representative readings (percent, as doubles that
// print with 17 significant digits, like real ones) so that the messages
// have a realistic length.
inline constexpr double kIperf3ClientCpu[3] = {8.3671902377312479, 0.30214617283582913, 8.0650440648954188};
inline constexpr double kIperf3ServerCpu[3] = {12.615733861016395, 0.87146410462739706, 11.744269756388998};

// iperf_add_stream numbers the first stream 1 and the n-th (n >= 2) n + 1:
// 1, 3, 4, 5, ... (`index` is 0-based).
inline int iperf3_stream_id(int index) { return index == 0 ? 1 : index + 2; }

std::string iperf3_parameters_json(const Iperf3ParametersMessage& m);
std::string iperf3_results_json(const Iperf3ResultsMessage& m);

}  // namespace netsim::app
