// Simulated beside measured: the `measured:` block of a scenario and the
// comparison of a sweep's results against it.
//
// The block names which sweep keys identify a cell, which flow metric is
// compared, and the measured value of each cell (see docs/scenario-format.md):
//
//   measured:
//     source: "measured-tables.md, T1"
//     metric: receiver_mbps            # or sender_mbps
//     flow: iperf3                     # optional: the flow compared (default: the first)
//     keys: { hz: hosts.sender.hz, cc: traffic.iperf3.cc, every: filters.drop.every }
//     cells:
//       - { hz: 100, cc: newreno, every: 100, value: 915 }
//     claims:                          # optional ratios between cells
//       - { text: "patched / stock, hz=100, 1%", measured: 4.5,
//           numerator: { hz: 100, cc: cubic_d46046, every: 100 },
//           denominator: { hz: 100, cc: cubic, every: 100 } }
//
// Several values per cell (T2: each sender's throughput and Jain's index)
// use `metrics:` instead of `metric`/`flow`, and name the values in the cells:
//
//   measured:
//     keys: { hz: ..., cc1: traffic.s1.cc, cc2: traffic.s2.cc }
//     metrics:
//       s1:   { flow: s1, metric: receiver_mbps }     # a flow's throughput
//       s2:   { flow: s2 }
//       jain: { fairness: [s1, s2] }                  # Jain's index of those flows' receiver_mbps
//     cells:
//       - { hz: 100, cc1: cubic, cc2: newreno, s1: 317, s2: 533, jain: 0.94 }
//
// Throughput errors are relative (%); a fairness error is the difference in
// index points (x 100).
#pragma once

#include <iosfwd>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <cmath>
#include <limits>
#include <vector>

#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/scenario_spec.h"

namespace netsim {

struct MeasuredCell {
  std::vector<std::string> key_values;  // in the order of MeasuredSpec::keys
  double value = 0;                     // the first metric's value
  std::vector<double> values;           // one per MeasuredSpec::metrics
  // Cells from measurement files (calibrate::cells_from_data), one entry per
  // metric: how many measured runs gave the value (its mean) and their
  // range. Empty for the cells of a measured: block (one value each).
  std::vector<std::size_t> runs;
  std::vector<double> min_values, max_values;
};

// One compared quantity: a flow's throughput, or Jain's index over flows.
struct MeasuredMetric {
  std::string name;                     // "value" for a single-metric block
  // receiver_mbps | sender_mbps | retransmits | rto_count | recovery_episodes |
  // receiver_delayed_acks | sender_tx_drops | receiver_rx_drops | receiver_pause_frames |
  // cpu_sender_pct | cpu_receiver_pct | rtt_min_ms | rtt_avg_ms | rtt_max_ms | rtt_stddev_ms
  // (a ping flow's; fairness: the throughputs)
  std::string metric = "receiver_mbps";
  std::string flow;                     // throughput: the flow (empty: the first flow of each run)
  std::vector<std::string> fairness;    // non-empty: Jain's index over these flows
  std::string column;                   // its CSV column (`column:`); empty: derived from name and metric
  bool is_fairness() const { return !fairness.empty(); }
  bool is_count() const;  // a counter (retransmits, RTOs, ...), not a rate
  bool in_points() const;  // a CPU percentage: errors in percentage points
};

// A metric a cell leaves out (several metrics per cell; not measured).
inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
inline bool is_measured(double v) { return !std::isnan(v); }

// retransmits, rto_count, recovery_episodes, receiver_delayed_acks, sender_tx_drops,
// receiver_rx_drops, receiver_pause_frames.
bool is_count_metric(const std::string& metric);
// rtt_min_ms, rtt_avg_ms, rtt_max_ms, rtt_stddev_ms: a ping flow's summary.
bool is_rtt_metric(const std::string& metric);
// siftr_log_bytes, siftr_records: SIFTR's log on the flow's sending host.
inline bool is_siftr_metric(const std::string& metric) {
  return metric == "siftr_log_bytes" || metric == "siftr_records";
}
// max_cwnd_bytes: the most of iperf3's max_snd_cwnd over a flow's streams;
// iperf3_cpu_sender_pct / iperf3_cpu_receiver_pct: iperf3's own cpu_util
// (total) of the sending / receiving side (docs/iperf3.md "CPU").
inline bool is_iperf3_metric(const std::string& metric) {
  return metric == "max_cwnd_bytes" || metric == "iperf3_cpu_sender_pct" || metric == "iperf3_cpu_receiver_pct";
}
// What a measured or simulated value is compared as: itself, or for a count
// at least 1, so that a count of 0 (no RTO in the run) stays a finite miss.
inline double compared_value(bool count, double v) { return count && v < 1.0 ? 1.0 : v; }
// The error column: percent of the measured value; Jain's index and CPU percentages in points;
// a count in percent of max(measured, 1), so that a measured 0 stays finite.
double measured_error(const MeasuredMetric& k, double simulated, double measured);
inline bool MeasuredMetric::is_count() const { return !is_fairness() && is_count_metric(metric); }
// nuttcp_tx_cpu_pct / nuttcp_rx_cpu_pct: nuttcp's %TX and %RX, its
// processes' user + system time over real time (docs/nuttcp.md "CPU").
inline bool is_nuttcp_metric(const std::string& metric) {
  return metric == "nuttcp_tx_cpu_pct" || metric == "nuttcp_rx_cpu_pct";
}
inline bool is_cpu_metric(const std::string& metric) {
  return metric == "cpu_sender_pct" || metric == "cpu_receiver_pct" || metric == "iperf3_cpu_sender_pct" ||
         metric == "iperf3_cpu_receiver_pct" || is_nuttcp_metric(metric);
}
inline bool MeasuredMetric::in_points() const { return !is_fairness() && is_cpu_metric(metric); }

struct MeasuredClaim {
  std::string text;
  double measured = 0;
  std::vector<std::string> numerator;    // key values
  std::vector<std::string> denominator;
};

// A labelled key stands for several scenario paths set together (a linked
// sweep axis): its column value is a label naming one tuple of their values,
// e.g. offload: per-packet = (traffic.f.tso false, hosts.r.nic.gro false).
struct MeasuredKeyLabel {
  std::string label;
  std::vector<std::string> values;  // one per path
};
struct MeasuredKeyPaths {
  std::vector<std::string> paths;  // empty: a plain key of one path
  std::vector<MeasuredKeyLabel> labels;
  bool labelled() const { return !paths.empty(); }
};

struct MeasuredSpec {
  std::string source;
  std::string metric = "receiver_mbps";
  std::string flow;  // empty: the first flow of each run
  // Column name, scenario path ("a + b" for a labelled key, as a linked axis
  // is written); key_paths[k] has a labelled key's paths and labels.
  std::vector<std::pair<std::string, std::string>> keys;
  std::vector<MeasuredKeyPaths> key_paths;  // as many as keys
  std::vector<MeasuredMetric> metrics;  // always >= 1; a legacy block has one named "value"
  bool multi = false;                   // written with `metrics:`
  std::vector<MeasuredCell> cells;
  std::vector<MeasuredClaim> claims;
  // `columns:` extra single-metric CSV columns, name -> metric of the compared flow.
  std::vector<std::pair<std::string, std::string>> columns;
};

// Where a comparison's measured cells come from: the block's own `cells`
// (with its claims), or measurement files (--data), which replace them. With
// `data` the block's cells and claims are not read, so that its metrics may
// be renamed or changed (a ping's rtt_avg_ms, a counter) without values for
// them in the block.
enum class CellsFrom { block, data };

// The overrides that give key k the column value `value`: its path, or for a
// labelled key every path with the label's values (empty for an unknown label).
std::vector<std::pair<std::string, std::string>> key_value_paths(const MeasuredSpec& m, std::size_t k,
                                                                 const std::string& value);
// Key k's column value from per-path values (get(path), empty when unset): a
// plain key's own; a labelled key's label, or the values joined by "+" when
// no label matches.
std::string key_column_value(const MeasuredSpec& m, std::size_t k,
                             const std::function<std::string(const std::string&)>& get);
// Key k's paths and labels (a plain key's: none; also when key_paths is
// shorter than keys, as in a block built by hand).
const MeasuredKeyPaths& key_paths_of(const MeasuredSpec& m, std::size_t k);
// Whether `path` is a measured key's path (plain or within a labelled key).
bool is_measured_key_path(const MeasuredSpec& m, const std::string& path);

// Parses spec.measured; nullopt when the scenario has no measured block. A
// block without `cells` gives keys and metrics only (for --data, and the
// key columns of the CSV). Throws
// ScenarioError (file, line, column, field) on a malformed block.
std::optional<MeasuredSpec> parse_measured(const ScenarioSpec& spec, CellsFrom from = CellsFrom::block);

// One row per measured cell: simulated mean and range over the runs (seeds)
// whose overrides match the cell's key values.
struct MetricComparison {
  std::size_t runs = 0;
  double sim_mean = 0, sim_min = 0, sim_max = 0;
  double measured = 0;
  std::size_t measured_runs = 1;  // > 1: the mean of repeated measurements,
  double measured_min = 0, measured_max = 0;  // which ranged over these
  double error = 0;  // throughput: (sim_mean - measured) / measured * 100; fairness: (sim - measured) * 100 points
};

struct ComparisonRow {
  std::vector<std::string> key_values;
  // The first metric (the only one of a single-metric block):
  std::size_t runs = 0;
  double sim_mean = 0, sim_min = 0, sim_max = 0;
  double measured = 0;
  double error_pct = 0;  // (sim_mean - measured) / measured * 100
  std::vector<MetricComparison> metrics;  // one per MeasuredSpec::metrics
};

// The value of metric `k` in one run; nullopt if a flow it needs is missing
// or Jain's index is undefined (every share zero).
std::optional<double> metric_value(const results::RunResult& r, const MeasuredMetric& k);

std::vector<ComparisonRow> compare(const results::RunSet& runs, const MeasuredSpec& m);

// The comparison as an aligned table plus the claimed ratios, simulated beside measured.
void write_comparison_text(std::ostream& out, const results::RunSet& runs, const MeasuredSpec& m);
// One row per run (seed) of the compared flow: the key columns, seed,
// sender_mbps, receiver_mbps, retransmits, measured_mbps, error_pct.
// With `metrics:` instead: the key columns, seed, one column per metric
// (<name>_mbps for a throughput, <name> for a fairness index), then the
// measured values (measured_<name>_mbps, measured_<name>).
void write_comparison_csv(std::ostream& out, const results::RunSet& runs, const MeasuredSpec& m);

}  // namespace netsim
