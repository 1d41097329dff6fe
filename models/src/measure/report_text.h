// Pieces shared by the readers of text reports (iperf3, iperf2, nuttcp):
// lines with their numbers, words, strict numbers, iperf's units, and the
// bandwidth line head that iperf2 and iperf3 share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netsim::measure::report_text {

struct Line {
  int number = 0;         // 1-based
  std::string_view text;  // without the line break (and a '\r' before it)
};

std::vector<Line> split_lines(std::string_view text);
std::vector<std::string_view> split_words(std::string_view text);
// `text` without leading and trailing blanks (spaces and tabs).
std::string_view trim(std::string_view text);
bool contains(std::string_view text, std::string_view part);

// A plain decimal number ("941", "0.39", "-1.5"); no exponent, inf or nan.
std::optional<double> to_number(std::string_view word);
// A whole number >= 0 ("12").
std::optional<std::uint64_t> to_count(std::string_view word);

// iperf's Transfer column: the value in bytes for a unit label "Bytes",
// "KBytes", "MBytes", "GBytes", "TBytes" or "PBytes" (1024-based, as iperf2's
// byte_snprintf and iperf3's unit_snprintf print them).
std::optional<double> bytes_of(double value, std::string_view unit);
// iperf's rate column: the value in Mbit/s for "bits/sec", "Kbits/sec", ...
// "Pbits/sec" (1000-based) or, after -f with an upper-case letter, "Bytes/sec",
// "KBytes/sec", ... (bytes per second, 1024-based).
std::optional<double> mbps_of(double value, std::string_view unit);

// "[  5]   0.00-1.00   sec   112 MBytes   941 Mbits/sec    0   1.52 MBytes" (iperf3) or
// "[  1] 0.0000-2.0000 sec   224 MBytes   940 Mbits/sec  224/0 ..." (iperf2).
struct BandwidthLine {
  std::string id;  // the stream number, or "SUM"
  double start_s = 0;
  double end_s = 0;
  double bytes = 0;
  double mbps = 0;
  std::vector<std::string_view> tail;  // the words after the rate
};

// iperf's column header, "[ ID] Interval ...".
bool is_header_line(std::string_view text);

// A line that starts with a stream id ("[  5]", "[SUM]") followed by a
// number: it is meant to be a bandwidth line, so it must parse.
bool looks_like_bandwidth_line(std::string_view text);
// Throws MeasureError naming `file`, the line and the offending word.
BandwidthLine parse_bandwidth_line(const Line& line, const std::string& file);

}  // namespace netsim::measure::report_text
