#include "netsim/measure/measurement_file.h"

#include <array>

#include "ethtool_stats_parser.h"
#include "measured_text.h"
#include "iperf2_text_parser.h"
#include "iperf3_json_parser.h"
#include "iperf3_text_parser.h"
#include "netstat_if_parser.h"
#include "netstat_tcp_parser.h"
#include "nstat_parser.h"
#include "nuttcp_parser.h"
#include "proc_net_dev_parser.h"
#include "ping_parser.h"
#include "report_text.h"
#include "siftr_runs.h"

namespace netsim::measure {
namespace {

using report_text::contains;

// In enum order: detect_format counts votes by the enum's value.
constexpr std::array<MeasurementFormat, 11> kFormats = {
    MeasurementFormat::iperf3_json, MeasurementFormat::iperf3_text,  MeasurementFormat::iperf2,
    MeasurementFormat::nuttcp,      MeasurementFormat::nstat,        MeasurementFormat::netstat_tcp,
    MeasurementFormat::netstat_if,  MeasurementFormat::proc_net_dev, MeasurementFormat::ethtool_stats,
    MeasurementFormat::ping,        MeasurementFormat::siftr};

// Decimals of the interval start in "[  5]   0.00-1.00   sec ...": iperf3
// prints 2, iperf2 1 (plain) or 4 (-e, Debian's fast-sampling build).
std::size_t interval_decimals(std::string_view line) {
  const std::size_t close = line.find(']');
  const auto words = report_text::split_words(line.substr(close + 1));
  if (words.empty()) return 0;
  const std::string_view interval = words.front();
  const std::size_t dot = interval.find('.');
  const std::size_t dash = interval.find('-', 1);
  if (dot == std::string_view::npos || dash == std::string_view::npos || dash < dot) return 0;
  return dash - dot - 1;
}

// Which format a line is characteristic of, if any.
std::optional<MeasurementFormat> vote(std::string_view line) {
  const auto words = report_text::split_words(line);
  if (words.empty()) return std::nullopt;
  if (looks_like_siftr_line(line)) return MeasurementFormat::siftr;
  if (looks_like_nuttcp_line(line)) return MeasurementFormat::nuttcp;
  if (looks_like_nstat_line(line)) return MeasurementFormat::nstat;
  if (looks_like_netstat_tcp_line(line)) return MeasurementFormat::netstat_tcp;
  if (looks_like_netstat_if_line(line)) return MeasurementFormat::netstat_if;
  if (looks_like_proc_net_dev_line(line)) return MeasurementFormat::proc_net_dev;
  if (looks_like_ethtool_stats_line(line)) return MeasurementFormat::ethtool_stats;
  if (looks_like_ping_line(line)) return MeasurementFormat::ping;
  if (line.starts_with("Connecting to host ") || line.starts_with("Accepted connection from ") ||
      line.starts_with("iperf Done.") || line.starts_with("CPU Utilization:") ||
      (words[0].starts_with("[") && contains(line, " connected to ")) ||
      (words[0] == "[" && contains(line, " Bitrate")) ||
      (line.starts_with("Server listening on ") && words.size() > 3 && report_text::to_count(words[3]))) {
    return MeasurementFormat::iperf3_text;
  }
  if (line.starts_with("Client connecting to ") || line.starts_with("Server listening on TCP port") ||
      line.starts_with("Server listening on UDP port") ||
      (words[0].starts_with("[") && contains(line, " connected with ")) || contains(line, "Write/Err") ||
      contains(line, "Reads=Dist")) {
    return MeasurementFormat::iperf2;
  }
  if (report_text::looks_like_bandwidth_line(line)) {
    if (words.back() == "sender" || words.back() == "receiver") return MeasurementFormat::iperf3_text;
    const std::size_t decimals = interval_decimals(line);
    if (decimals == 1 || decimals == 4) return MeasurementFormat::iperf2;
  }
  return std::nullopt;
}

MeasureError no_run(const std::string& file, MeasurementFormat f) {
  return MeasureError(file, 0, "no complete " + format_name(f) + " run in the file");
}

}  // namespace

std::string format_name(MeasurementFormat format) {
  switch (format) {
    case MeasurementFormat::iperf3_json: return "iperf3-json";
    case MeasurementFormat::iperf3_text: return "iperf3-text";
    case MeasurementFormat::iperf2: return "iperf2";
    case MeasurementFormat::nuttcp: return "nuttcp";
    case MeasurementFormat::nstat: return "nstat";
    case MeasurementFormat::netstat_tcp: return "netstat-tcp";
    case MeasurementFormat::netstat_if: return "netstat-if";
    case MeasurementFormat::proc_net_dev: return "proc-net-dev";
    case MeasurementFormat::ethtool_stats: return "ethtool-s";
    case MeasurementFormat::ping: return "ping";
    case MeasurementFormat::siftr: return "siftr";
  }
  return "?";
}

std::optional<MeasurementFormat> format_from_name(std::string_view name) {
  for (MeasurementFormat f : kFormats) {
    if (format_name(f) == name) return f;
  }
  return std::nullopt;
}

MeasurementFormat detect_format(std::string_view text, const std::string& file) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return MeasurementFormat::iperf3_json;
  // Saves voting over every line of a log of millions of them.
  if (starts_as_siftr_log(text)) return MeasurementFormat::siftr;
  std::array<int, kFormats.size()> votes{};
  for (const auto& line : report_text::split_lines(text)) {
    if (const auto f = vote(line.text)) ++votes[static_cast<std::size_t>(*f)];
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < votes.size(); ++i) {
    if (votes[i] > votes[best]) best = i;
  }
  if (votes[best] == 0) {
    throw MeasureError(file, 0,
                       "no measurement recognised (expected iperf3 -J JSON, iperf3 or iperf2 text output, nuttcp "
                       "lines, nstat output, FreeBSD netstat -s -p tcp or netstat -I IFACE -d output, Linux /proc/net/dev, "
                       "ping output or a SIFTR log)");
  }
  for (std::size_t i = 0; i < votes.size(); ++i) {
    if (i != best && votes[i] == votes[best]) {
      throw MeasureError(file, 0,
                         "cannot tell whether this is " + format_name(kFormats[best]) + " or " +
                             format_name(kFormats[i]) + " output; give the format explicitly");
    }
  }
  return kFormats[best];
}

std::vector<MeasuredRun> parse_measurements(std::string_view text, const std::string& file,
                                            std::optional<MeasurementFormat> format) {
  const MeasurementFormat f = format ? *format : detect_format(text, file);
  std::vector<MeasuredRun> runs;
  switch (f) {
    case MeasurementFormat::iperf3_json: runs = parse_iperf3_json(text, file); break;
    case MeasurementFormat::iperf3_text: runs = parse_iperf3_text(text, file); break;
    case MeasurementFormat::iperf2: runs = parse_iperf2_text(text, file); break;
    case MeasurementFormat::nuttcp: runs = parse_nuttcp(text, file); break;
    case MeasurementFormat::nstat: runs = parse_nstat(text, file); break;
    case MeasurementFormat::netstat_tcp: runs = parse_netstat_tcp(text, file); break;
    case MeasurementFormat::netstat_if: runs = parse_netstat_if(text, file); break;
    case MeasurementFormat::proc_net_dev: runs = parse_proc_net_dev(text, file); break;
    case MeasurementFormat::ethtool_stats: runs = parse_ethtool_stats(text, file); break;
    case MeasurementFormat::ping: runs = parse_ping(text, file); break;
    case MeasurementFormat::siftr: runs = parse_siftr(text, file); break;
  }
  if (runs.empty()) throw no_run(file, f);
  return runs;
}

LoadedMeasurements load_measurement_file(const std::string& path, std::optional<MeasurementFormat> format) {
  LoadedMeasurements out;
  try {
    if (format == MeasurementFormat::siftr || (!format && file_starts_as_siftr_log(path))) {
      out.runs = load_siftr(path);
      if (out.runs.empty()) throw no_run(path, MeasurementFormat::siftr);
      return out;
    }
    out.runs = parse_measurements(read_measured_text(path), path, format);
  } catch (const MeasureError& e) {
    out.errors.push_back(e);
  }
  return out;
}

}  // namespace netsim::measure
