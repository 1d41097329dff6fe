#include "report_text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "netsim/measure/measure_error.h"

namespace netsim::measure::report_text {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t'; }

struct Unit {
  std::string_view label;
  double factor;
};

constexpr double kKi = 1024.0;
constexpr std::array<Unit, 6> kByteUnits = {{{"Bytes", 1.0},
                                             {"KBytes", kKi},
                                             {"MBytes", kKi * kKi},
                                             {"GBytes", kKi * kKi * kKi},
                                             {"TBytes", kKi * kKi * kKi * kKi},
                                             {"PBytes", kKi * kKi * kKi * kKi * kKi}}};
constexpr std::array<Unit, 6> kBitRateUnits = {{{"bits/sec", 1e-6},
                                                {"Kbits/sec", 1e-3},
                                                {"Mbits/sec", 1.0},
                                                {"Gbits/sec", 1e3},
                                                {"Tbits/sec", 1e6},
                                                {"Pbits/sec", 1e9}}};

template <std::size_t N>
std::optional<double> scaled(double value, std::string_view unit, const std::array<Unit, N>& units) {
  for (const Unit& u : units) {
    if (u.label == unit) return value * u.factor;
  }
  return std::nullopt;
}

// Splits "[  5]..." into the id ("5", "SUM") and the rest; nullopt if the line
// does not start that way.
std::optional<std::pair<std::string, std::string_view>> split_id(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && is_space(text[i])) ++i;
  if (i >= text.size() || text[i] != '[') return std::nullopt;
  const std::size_t close = text.find(']', i);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view id = text.substr(i + 1, close - i - 1);
  while (!id.empty() && is_space(id.front())) id.remove_prefix(1);
  if (id.empty()) return std::nullopt;
  bool digits = true;
  for (char c : id) digits = digits && is_digit(c);
  // iperf2 2.1 numbers some sums "[SUM-2]"; they are sums all the same.
  const bool sum = id == "SUM" || (id.starts_with("SUM-") && id.size() > 4);
  if (!digits && !sum) return std::nullopt;
  return std::pair{std::string(sum ? "SUM" : id), text.substr(close + 1)};
}

}  // namespace

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  int number = 1;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(Line{number++, line});
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

std::optional<double> to_number(std::string_view word) {
  std::size_t i = word.starts_with('-') ? 1 : 0;
  if (i >= word.size() || !is_digit(word[i])) return std::nullopt;
  for (; i < word.size(); ++i) {
    if (!is_digit(word[i]) && word[i] != '.') return std::nullopt;
  }
  double value = 0;
  const auto r = std::from_chars(word.data(), word.data() + word.size(), value);
  if (r.ec != std::errc() || r.ptr != word.data() + word.size()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> to_count(std::string_view word) {
  std::uint64_t value = 0;
  const auto r = std::from_chars(word.data(), word.data() + word.size(), value);
  if (word.empty() || r.ec != std::errc() || r.ptr != word.data() + word.size()) return std::nullopt;
  return value;
}

std::optional<double> bytes_of(double value, std::string_view unit) { return scaled(value, unit, kByteUnits); }

std::optional<double> mbps_of(double value, std::string_view unit) {
  if (auto bits = scaled(value, unit, kBitRateUnits)) return bits;
  if (!unit.ends_with("/sec")) return std::nullopt;
  const auto bytes = bytes_of(value, unit.substr(0, unit.size() - 4));
  if (!bytes) return std::nullopt;
  return *bytes * 8 / 1e6;
}

bool is_header_line(std::string_view text) {
  const auto words = split_words(text);
  return words.size() > 1 && words[0] == "[" && words[1].starts_with("ID]");
}

bool looks_like_bandwidth_line(std::string_view text) {
  const auto split = split_id(text);
  if (!split) return false;
  std::string_view rest = split->second;
  // iperf3 --bidir tags "[  5][TX-C]"; such a line is meant as a bandwidth line too.
  if (rest.starts_with('[')) {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return false;
    rest.remove_prefix(close + 1);
  }
  const auto words = split_words(rest);
  return !words.empty() && is_digit(words.front().front());
}

BandwidthLine parse_bandwidth_line(const Line& line, const std::string& file) {
  auto fail = [&](const std::string& message) -> void { throw MeasureError(file, line.number, message); };
  const auto split = split_id(line.text);
  if (!split) fail("not a bandwidth line");
  if (split->second.starts_with('[')) fail("bidirectional (--bidir) reports are not supported");
  BandwidthLine out;
  out.id = split->first;
  std::vector<std::string_view> words = split_words(split->second);
  std::size_t w = 0;
  auto next = [&](const char* what) {
    if (w >= words.size()) fail(std::string("the line ends before the ") + what + " (truncated?)");
    return words[w++];
  };

  // "0.00-1.00", or iperf2's "%4.1f-%4.1f" padded as "0.0- 1.0".
  std::string interval(next("interval"));
  if (interval.ends_with('-') && w < words.size()) interval += words[w++];
  const std::size_t dash = interval.find('-', 1);
  const auto start = dash == std::string::npos ? std::nullopt : to_number(std::string_view(interval).substr(0, dash));
  const auto end = dash == std::string::npos ? std::nullopt : to_number(std::string_view(interval).substr(dash + 1));
  if (!start || !end || *end < *start) fail("malformed interval '" + interval + "' (expected START-END in seconds)");
  out.start_s = *start;
  out.end_s = *end;
  if (const auto sec = next("'sec' after the interval"); sec != "sec") {
    fail("expected 'sec' after the interval, found '" + std::string(sec) + "'");
  }
  const auto transfer_word = next("transfer");
  const auto transfer = to_number(transfer_word);
  if (!transfer) fail("malformed transfer '" + std::string(transfer_word) + "'");
  const auto transfer_unit = next("transfer unit");
  const auto bytes = bytes_of(*transfer, transfer_unit);
  if (!bytes) {
    fail("unknown transfer unit '" + std::string(transfer_unit) + "' (expected Bytes, KBytes, MBytes, GBytes, TBytes)");
  }
  out.bytes = *bytes;
  const auto rate_word = next("rate");
  const auto rate = to_number(rate_word);
  if (!rate) fail("malformed rate '" + std::string(rate_word) + "'");
  const auto rate_unit = next("rate unit");
  const auto mbps = mbps_of(*rate, rate_unit);
  if (!mbps) {
    fail("unknown rate unit '" + std::string(rate_unit) +
         "' (expected bits/sec, Kbits/sec, Mbits/sec, Gbits/sec, Tbits/sec or KBytes/sec ... GBytes/sec)");
  }
  out.mbps = *mbps;
  out.tail.assign(words.begin() + static_cast<std::ptrdiff_t>(w), words.end());
  return out;
}

}  // namespace netsim::measure::report_text
