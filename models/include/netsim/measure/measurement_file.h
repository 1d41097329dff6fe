// Reading measurement files: the format is detected from the content
// (iperf3 -J JSON, iperf3 text, iperf2 text, nuttcp lines, Linux nstat and
// FreeBSD netstat -s -p tcp counter snapshots, FreeBSD netstat -I IFACE -d
// or Linux /proc/net/dev before and after a run, FreeBSD or Linux ping output,
// FreeBSD SIFTR logs; see docs/measured-data.md), and a file may hold several
// runs one after another.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measure_error.h"
#include "netsim/measure/measured_run.h"

namespace netsim::measure {

enum class MeasurementFormat {
  iperf3_json, iperf3_text, iperf2, nuttcp, nstat, netstat_tcp, netstat_if, proc_net_dev, ethtool_stats, ping,
  siftr
};

// "iperf3-json", "iperf3-text", "iperf2", "nuttcp", "nstat", "netstat-tcp",
// "netstat-if", "proc-net-dev", "ethtool-s", "ping", "siftr" (MeasuredRun::tool).
std::string format_name(MeasurementFormat format);
// The format with that name, or empty.
std::optional<MeasurementFormat> format_from_name(std::string_view name);

// JSON if the first non-blank character is '{', a SIFTR log if the first
// non-blank line is its enable line; otherwise the format whose
// characteristic lines (banners, headers, summary tags, nuttcp's "MB / ... sec
// = ... Mbps", ping's replies and statistics, SIFTR's data lines) occur most often. Throws MeasureError (line 0) when no format's
// lines occur, or two formats' equally often.
MeasurementFormat detect_format(std::string_view text, const std::string& file);

// The runs of `text` in order, in `format` or the detected one. Throws
// MeasureError at the first problem; a text without any run is an error too.
std::vector<MeasuredRun> parse_measurements(std::string_view text, const std::string& file,
                                            std::optional<MeasurementFormat> format = std::nullopt);

struct LoadedMeasurements {
  std::vector<MeasuredRun> runs;
  std::vector<MeasureError> errors;  // at most one per file: a broken file yields no runs
};

// Reads and parses the file at `path` (`path` is the name used in runs and
// errors). Problems are returned in `errors`, never thrown. A SIFTR log
// (format siftr, or a file that starts with its enable line) is streamed,
// not read into memory whole.
LoadedMeasurements load_measurement_file(const std::string& path,
                                         std::optional<MeasurementFormat> format = std::nullopt);

}  // namespace netsim::measure
