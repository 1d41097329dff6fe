// Which measurement file belongs to which scenario parameters: a small YAML
// mapping file, or the same given on the command line.
//
//   # measurements.yaml
//   runs:
//     - { file: logs/cubic-hz100-every50.json, params: { cc: cubic, hz: 100, every: 50 } }
//     - { file: logs/nr.txt, params: { cc: newreno, hz: 100, every: 100 }, metric: receiver_mbps }
//
// Each entry: `file` (required; relative paths are relative to the mapping
// file's directory), `params` (required map; keys are a scenario's
// `measured.keys` short names or full dotted parameter paths, kept as
// written), `metric` (optional; a name from metric_names()), `format`
// (optional; iperf3-json, iperf3-text, iperf2, nuttcp, nstat, netstat-tcp, netstat-if, proc-net-dev, ethtool-s, ping or siftr, else detected),
// `flow` (optional; which of a scenario's flows the file measured, where a
// measured block compares several: T2's `s1` and `s2`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measurement_file.h"

namespace netsim::measure {

struct MappingEntry {
  std::string file;                           // the measurement file, resolved
  std::map<std::string, std::string> params;  // scenario parameters, as written
  std::string metric;                         // "" = the caller's default
  std::optional<MeasurementFormat> format;    // empty = detect from the content
  std::string flow;                           // "" = the block's only flow
  std::string source;                         // "measurements.yaml:4" or "--data ARG"
};

struct MeasurementMapping {
  std::vector<MappingEntry> entries;  // in file order
};

// Reads a mapping file. Throws MeasureError (file and line) on YAML errors,
// unknown or missing keys, non-scalar parameter values, duplicate parameter
// names, unknown metrics or formats, or an empty `runs` list. The measurement
// files themselves are not read here.
MeasurementMapping load_mapping(const std::string& path);
// As load_mapping, from text; `path` names the file in errors and anchors relative paths.
MeasurementMapping parse_mapping_text(std::string_view yaml, const std::string& path);

// "logs/x.json:cc=cubic,hz=100" (split at the last ':'; parameters split at
// ',' then at the first '=', keys and values trimmed), or "logs/x.json" with
// no parameters. The path is kept as given. Throws MeasureError (file
// "--data ARG") on an empty path, key or value, a pair without '=' or a
// repeated key.
MappingEntry parse_data_arg(std::string_view arg);

}  // namespace netsim::measure
