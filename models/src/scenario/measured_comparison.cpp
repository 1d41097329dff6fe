#include "netsim/scenario/measured_comparison.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>

#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/stats/fairness.h"
#include "block_reader.h"

namespace netsim {
namespace {

using scenario_internal::BlockReader;

std::vector<std::string> key_names(const MeasuredSpec& m) {
  std::vector<std::string> names;
  for (const auto& k : m.keys) names.push_back(k.first);
  return names;
}

std::string override_value(const results::RunResult& r, const std::string& key) {
  std::string value;
  for (const auto& o : r.overrides()) {
    if (o.key() == key) value = o.value();
  }
  return value;
}

const results::FlowStats* compared_flow(const results::RunResult& r, const MeasuredSpec& m) {
  for (const auto& f : r.flows()) {
    if (m.flow.empty() || f.name() == m.flow) return &f;
  }
  return nullptr;
}

// Frames the transmit queues of a flow's sending host dropped: the links the
// host sends on (netstat -I's Drop column of its interface; host-wide, like
// the stack counters, so with several flows from one host each gets the sum).
double sender_tx_drops(const results::RunResult& r, const results::FlowStats& f) {
  std::uint64_t drops = 0;
  for (const auto& l : r.links()) {
    if (l.from() == f.src()) drops += l.packets_dropped();
  }
  for (const auto& c : r.cpus()) {
    if (c.host() == f.src()) drops += c.tx_backlog_drops();  // the driver queue in front of its CPU
  }
  return static_cast<double>(drops);
}

// A count summed over the receive NICs of a flow's receiving host (the
// host's figure, like the interface counters it is compared with).
template <class Count>
double receiving_host_nics(const results::RunResult& r, const results::FlowStats& f, Count count) {
  std::uint64_t sum = 0;
  for (const auto& n : r.nics()) {
    if (n.host() == f.dst()) sum += count(n);
  }
  return static_cast<double>(sum);
}

// Frames the receive rings of a flow's receiving host dropped (full ring):
// /proc/net/dev's receive drop column of its interface.
double receiver_rx_drops(const results::RunResult& r, const results::FlowStats& f) {
  return receiving_host_nics(r, f, [](const results::NicStats& n) { return n.ring_drops(); });
}

// 802.3x PAUSE frames (XOFF and XON) the receive NICs of a flow's receiving
// host sent: ethtool -S's tx_flow_control_xon + _xoff.
double receiver_pause_frames(const results::RunResult& r, const results::FlowStats& f) {
  return receiving_host_nics(r, f,
                             [](const results::NicStats& n) { return n.pause_xoff_frames() + n.pause_xon_frames(); });
}

// SIFTR on a flow's sending host: its whole log's bytes or data lines
// (0 without SIFTR there).
double siftr_metric(const results::RunResult& r, const results::FlowStats& f, const std::string& metric) {
  for (const results::SiftrStats& s : r.siftr()) {
    if (s.host() != f.src()) continue;
    return static_cast<double>(metric == "siftr_log_bytes" ? s.log_bytes() : s.records_logged());
  }
  return 0;
}

// The largest snd_cwnd iperf3 -J reports over the flow's data streams
// (max_snd_cwnd: the most of its interval samples), or iperf3's cpu_util
// total of the flow's sending or receiving side (the client's unless -R);
// 0 for a flow without iperf3.
double iperf3_metric(const results::RunResult& r, const results::FlowStats& f, const std::string& metric) {
  std::uint32_t most = 0;
  for (const results::Iperf3Result& i : r.iperf3()) {
    if (i.flow() != f.name()) continue;
    if (metric != "max_cwnd_bytes") {
      const bool client_sends = !i.reverse();
      const bool sender = metric == "iperf3_cpu_sender_pct";
      return (sender == client_sends ? i.client_cpu() : i.server_cpu()).total();
    }
    for (const results::Iperf3Stream& s : i.streams()) most = std::max(most, s.max_snd_cwnd());
  }
  return most;
}

// nuttcp's %TX or %RX of the flow (its processes' user + system time over
// the final line's real time, exact rather than truncated); 0 for a flow
// without nuttcp or a host without a CPU model.
double nuttcp_metric(const results::RunResult& r, const results::FlowStats& f, const std::string& metric) {
  for (const results::NuttcpResult& n : r.nuttcp()) {
    if (n.flow() != f.name() || n.real_s() <= 0) continue;
    const double cpu_s = metric == "nuttcp_tx_cpu_pct" ? n.tx_cpu_s() : n.rx_cpu_s();
    return 100.0 * cpu_s / n.real_s();
  }
  return 0;
}

// A flow's value of a measured metric in run `r`: its throughput at either
// end, its retransmitted segments (a udp flow's lost datagrams), its sender's
// RTOs and loss recoveries, its receiver's delayed-ACK timer ACKs, its
// sending host's transmit-queue drops, its receiving host's receive-ring
// drops and PAUSE frames, or the CPU use of its sending or receiving host (0 for a host
// without a CPU model).
double flow_metric(const results::RunResult& r, const results::FlowStats& f, const std::string& metric) {
  if (is_siftr_metric(metric)) return siftr_metric(r, f, metric);
  if (is_iperf3_metric(metric)) return iperf3_metric(r, f, metric);
  if (is_nuttcp_metric(metric)) return nuttcp_metric(r, f, metric);
  if (metric == "sender_tx_drops") return sender_tx_drops(r, f);
  if (metric == "receiver_rx_drops") return receiver_rx_drops(r, f);
  if (metric == "receiver_pause_frames") return receiver_pause_frames(r, f);
  if (metric == "retransmits") return static_cast<double>(f.kind() == "tcp" ? f.retransmits() : f.packets_lost());
  if (metric == "rto_count") return static_cast<double>(f.rto_count());
  if (metric == "recovery_episodes") return static_cast<double>(f.recovery_episodes());
  if (metric == "receiver_delayed_acks") return static_cast<double>(f.receiver_delayed_acks());
  if (metric == "cpu_sender_pct") return f.sender_cpu_pct();
  if (metric == "cpu_receiver_pct") return f.receiver_cpu_pct();
  if (metric == "rtt_min_ms") return f.rtt_min_ms();
  if (metric == "rtt_avg_ms") return f.rtt_avg_ms();
  if (metric == "rtt_max_ms") return f.rtt_max_ms();
  if (metric == "rtt_stddev_ms") return f.rtt_stddev_ms();
  if (metric == "sender_gbps") return f.sender_mbps() / 1000.0;
  if (metric == "receiver_gbps") return f.receiver_mbps() / 1000.0;
  return metric == "sender_mbps" ? f.sender_mbps() : f.receiver_mbps();
}

// A ping flow without a single reply has no round-trip figures: no value,
// rather than a 0 that would read as an infinitely fast path.
bool flow_has_metric(const results::FlowStats& f, const std::string& metric) {
  return !is_rtt_metric(metric) || f.has_rtt_min_ms();
}


bool is_throughput_metric(const std::string& metric) {
  return metric == "receiver_mbps" || metric == "sender_mbps" || metric == "receiver_gbps" || metric == "sender_gbps";
}

bool is_known_metric(const std::string& metric) {
  return is_throughput_metric(metric) || is_count_metric(metric) || is_cpu_metric(metric) || is_rtt_metric(metric) ||
         is_siftr_metric(metric) || is_iperf3_metric(metric) || is_nuttcp_metric(metric);
}

// A metric other than the three fixed columns of the single-metric CSV
// (sender_mbps, receiver_mbps, retransmits) gets a column of its own.
bool has_own_column(const std::string& metric) {
  return is_cpu_metric(metric) || is_rtt_metric(metric) || is_siftr_metric(metric) || is_iperf3_metric(metric) ||
         (is_count_metric(metric) && metric != "retransmits");
}

// Decimals the comparison prints: Mbit/s, counts and percent to 0.1, ping
// times to the microsecond as ping(8) prints them.
int metric_decimals(const std::string& metric) {
  return is_rtt_metric(metric) ? 3 : metric == "receiver_gbps" || metric == "sender_gbps" ? 2 : 1;
}

constexpr const char* kMetricChoices = "metric must be receiver_mbps, sender_mbps, receiver_gbps, sender_gbps, retransmits, rto_count, "
                                       "recovery_episodes, receiver_delayed_acks, sender_tx_drops, receiver_rx_drops, "
                                       "receiver_pause_frames, cpu_sender_pct, cpu_receiver_pct, rtt_min_ms, rtt_avg_ms, rtt_max_ms, "
                                       "rtt_stddev_ms, siftr_log_bytes, siftr_records, max_cwnd_bytes, iperf3_cpu_sender_pct, iperf3_cpu_receiver_pct, "
                                       "nuttcp_tx_cpu_pct or nuttcp_rx_cpu_pct";

double metric(const results::RunResult& r, const results::FlowStats& f, const MeasuredSpec& m) {
  return flow_metric(r, f, m.metric);
}

std::vector<std::string> run_keys(const results::RunResult& r, const MeasuredSpec& m) {
  std::vector<std::string> v;
  for (std::size_t k = 0; k < m.keys.size(); ++k) {
    v.push_back(key_column_value(m, k, [&r](const std::string& path) { return override_value(r, path); }));
  }
  return v;
}

std::string fixed(double v, int decimals) { return format_fixed(v, decimals); }

// As measured-tables.md writes gains: "+4.5x" for a ratio of 5.5, "+65%" for 1.65.
std::string ratio_text(double r) {
  return r >= 2.0 ? "+" + fixed(r - 1.0, 2) + "x" : (r >= 1.0 ? "+" : "") + fixed((r - 1.0) * 100.0, 1) + "%";
}

std::string label_list(const MeasuredKeyPaths& p) {
  std::string s;
  for (const MeasuredKeyLabel& l : p.labels) s += (s.empty() ? "" : ", ") + l.label;
  return s;
}

// { paths: [a, b] or "a + b", labels: { name: [va, vb], ... } }; returns the
// key's path text ("a + b").
std::string labelled_key(const BlockReader& r, const YAML::Node& def, const std::string& field, MeasuredKeyPaths& out) {
  if (!def.IsMap() || !def["paths"] || !def["labels"]) {
    r.fail(def, field, "expected a sweep key, or { paths: [PATH, ...], labels: { LABEL: [VALUE, ...], ... } }");
  }
  for (const auto& kv : def) {
    const std::string k = kv.first.Scalar();
    if (k != "paths" && k != "labels") r.fail(kv.first, field + "." + k, "unknown key '" + k + "' (accepted: paths, labels)");
  }
  const YAML::Node paths = def["paths"];
  if (paths.IsScalar()) {
    out.paths = split_linked_key(paths.Scalar());
  } else if (paths.IsSequence()) {
    for (std::size_t i = 0; i < paths.size(); ++i) out.paths.push_back(r.scalar(paths[i], field + ".paths"));
  }
  if (out.paths.size() < 2 || std::any_of(out.paths.begin(), out.paths.end(), [](const std::string& p) { return p.empty(); })) {
    r.fail(paths, field + ".paths", "a labelled key needs two or more non-empty paths");
  }
  const YAML::Node labels = def["labels"];
  if (!labels.IsMap() || labels.size() == 0) r.fail(labels, field + ".labels", "expected a map of label -> [value, ...]");
  for (const auto& kv : labels) {
    MeasuredKeyLabel l;
    l.label = kv.first.Scalar();
    const std::string lf = field + ".labels." + l.label;
    if (!kv.second.IsSequence() || kv.second.size() != out.paths.size()) {
      r.fail(kv.second, lf, "expected a list of " + std::to_string(out.paths.size()) + " values, one per path");
    }
    for (std::size_t i = 0; i < kv.second.size(); ++i) l.values.push_back(r.scalar(kv.second[i], lf));
    for (const MeasuredKeyLabel& o : out.labels) {
      if (o.values == l.values) r.fail(kv.second, lf, "the same values as label '" + o.label + "'");
    }
    out.labels.push_back(std::move(l));
  }
  std::string text;
  for (const std::string& p : out.paths) text += (text.empty() ? "" : " + ") + p;
  return text;
}

}  // namespace

bool is_count_metric(const std::string& metric) {
  return metric == "retransmits" || metric == "rto_count" || metric == "recovery_episodes" ||
         metric == "receiver_delayed_acks" || metric == "sender_tx_drops" || metric == "receiver_rx_drops" ||
         metric == "receiver_pause_frames";
}

bool is_rtt_metric(const std::string& metric) {
  return metric == "rtt_min_ms" || metric == "rtt_avg_ms" || metric == "rtt_max_ms" || metric == "rtt_stddev_ms";
}

double measured_error(const MeasuredMetric& k, double simulated, double measured) {
  if (k.is_fairness()) return (simulated - measured) * 100.0;
  if (k.in_points()) return simulated - measured;
  return (simulated - measured) / compared_value(k.is_count(), measured) * 100.0;
}

const MeasuredKeyPaths& key_paths_of(const MeasuredSpec& m, std::size_t k) {
  static const MeasuredKeyPaths plain;
  return k < m.key_paths.size() ? m.key_paths[k] : plain;
}

std::vector<std::pair<std::string, std::string>> key_value_paths(const MeasuredSpec& m, std::size_t k,
                                                                 const std::string& value) {
  const MeasuredKeyPaths& p = key_paths_of(m, k);
  if (!p.labelled()) return {{m.keys[k].second, value}};
  std::vector<std::pair<std::string, std::string>> o;
  for (const MeasuredKeyLabel& l : p.labels) {
    if (l.label != value) continue;
    for (std::size_t i = 0; i < p.paths.size(); ++i) o.emplace_back(p.paths[i], l.values[i]);
  }
  return o;
}

std::string key_column_value(const MeasuredSpec& m, std::size_t k,
                             const std::function<std::string(const std::string&)>& get) {
  const MeasuredKeyPaths& p = key_paths_of(m, k);
  if (!p.labelled()) return get(m.keys[k].second);
  std::vector<std::string> values;
  for (const std::string& path : p.paths) values.push_back(get(path));
  for (const MeasuredKeyLabel& l : p.labels) {
    if (l.values == values) return l.label;
  }
  std::string joined;
  for (const std::string& v : values) joined += (joined.empty() ? "" : "+") + v;
  return joined;
}

bool is_measured_key_path(const MeasuredSpec& m, const std::string& path) {
  for (std::size_t k = 0; k < m.keys.size(); ++k) {
    const MeasuredKeyPaths& p = key_paths_of(m, k);
    if (p.labelled() ? std::find(p.paths.begin(), p.paths.end(), path) != p.paths.end() : m.keys[k].second == path) {
      return true;
    }
  }
  return false;
}

std::optional<MeasuredSpec> parse_measured(const ScenarioSpec& spec, CellsFrom from) {
  const YAML::Node& root = spec.measured;
  if (!root || !root.IsMap()) return std::nullopt;
  BlockReader r(spec);
  MeasuredSpec m;
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (key != "source" && key != "metric" && key != "flow" && key != "metrics" && key != "keys" && key != "cells" &&
        key != "claims" && key != "notes" && key != "columns") {
      r.fail(kv.first, "measured." + key,
             "unknown key " + scenario_internal::quoted(key) +
                 " (accepted: source, metric, flow, metrics, keys, cells, claims, columns, notes)");
    }
  }
  if (root["metrics"] && (root["metric"] || root["flow"])) {
    r.fail(root["metrics"], "measured.metrics", "give either metrics or metric/flow, not both");
  }
  if (root["source"]) m.source = r.scalar(root["source"], "measured.source");
  if (const YAML::Node columns = root["columns"]) {
    if (!columns.IsMap()) r.fail(columns, "measured.columns", "expected a map of CSV column name -> metric");
    for (const auto& kv : columns) {
      const std::string name = kv.first.Scalar();
      const std::string field = "measured.columns." + name;
      const std::string metric = r.scalar(kv.second, field);
      if (!is_known_metric(metric)) r.fail(kv.second, field, kMetricChoices);
      m.columns.emplace_back(name, metric);
    }
  }
  if (root["flow"]) m.flow = r.scalar(root["flow"], "measured.flow");
  if (root["metric"]) {
    m.metric = r.scalar(root["metric"], "measured.metric");
    if (!is_known_metric(m.metric)) {
      r.fail(root["metric"], "measured.metric", kMetricChoices);
    }
  }
  if (const YAML::Node metrics = root["metrics"]) {
    if (!metrics.IsMap() || metrics.size() == 0) r.fail(metrics, "measured.metrics", "expected a map of name -> metric");
    m.multi = true;
    for (const auto& kv : metrics) {
      MeasuredMetric k;
      k.name = kv.first.Scalar();
      const std::string field = "measured.metrics." + k.name;
      const YAML::Node def = kv.second;
      if (!def.IsMap()) r.fail(def, field, "expected { flow: NAME } or { fairness: [FLOW, ...] }");
      for (const auto& d : def) {
        const std::string dk = d.first.Scalar();
        if (dk == "flow") {
          k.flow = r.scalar(d.second, field + ".flow");
        } else if (dk == "column") {
          k.column = r.scalar(d.second, field + ".column");
          if (k.column.empty() || k.column == "seed" || k.column == "error_pct" || k.column.rfind("measured_", 0) == 0) {
            r.fail(d.second, field + ".column", "a CSV column name, not empty, seed, error_pct or measured_*");
          }
        } else if (dk == "metric") {
          k.metric = r.scalar(d.second, field + ".metric");
          if (!is_known_metric(k.metric)) {
            r.fail(d.second, field + ".metric", kMetricChoices);
          }
        } else if (dk == "fairness") {
          if (!d.second.IsSequence() || d.second.size() < 2) {
            r.fail(d.second, field + ".fairness", "expected a list of at least two flow names");
          }
          for (std::size_t i = 0; i < d.second.size(); ++i) {
            k.fairness.push_back(r.scalar(d.second[i], field + ".fairness[" + std::to_string(i) + "]"));
          }
        } else {
          r.fail(d.first, field + "." + dk, "unknown key " + scenario_internal::quoted(dk) + " (accepted: flow, metric, fairness, column)");
        }
      }
      if (k.is_fairness() && !k.flow.empty()) r.fail(def, field, "a metric is either a flow's or a fairness index");
      if (k.is_fairness() && !is_throughput_metric(k.metric)) {
        r.fail(def, field, "Jain's index is taken over throughputs (receiver_mbps or sender_mbps)");
      }
      if (k.name == "seed") r.fail(kv.first, field, "'seed' is a column of its own; choose another name");
      m.metrics.push_back(std::move(k));
    }
  } else {
    MeasuredMetric k;
    k.name = "value";
    k.metric = m.metric;
    k.flow = m.flow;
    m.metrics.push_back(std::move(k));
  }
  const YAML::Node keys = root["keys"];
  if (!keys || !keys.IsMap() || keys.size() == 0) r.fail(root, "measured.keys", "needs a map of column name -> sweep key");
  for (const auto& kv : keys) {
    const std::string name = kv.first.Scalar();
    const std::string field = "measured.keys." + name;
    if (kv.second.IsScalar()) {
      m.keys.emplace_back(name, kv.second.Scalar());
      m.key_paths.emplace_back();
      continue;
    }
    m.keys.emplace_back(name, labelled_key(r, kv.second, field, m.key_paths.emplace_back()));
  }
  if (from == CellsFrom::data) return m;
  // A block without cells names keys and metric for --data (a lab scenario
  // whose measurements come from `netsim lab`); the CSV still has its keys.
  if (!root["cells"]) {
    if (root["claims"]) r.fail(root["claims"], "measured.claims", "claims compare cells: give measured.cells");
    return m;
  }
  const YAML::Node cells = root["cells"];
  if (!cells.IsSequence()) r.fail(cells, "measured.cells", "expected a list of cells");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string field = "measured.cells[" + std::to_string(i) + "]";
    MeasuredCell c;
    struct Ranged {
      std::size_t runs;
      double min, max;
    };
    std::vector<Ranged> ranged;  // per metric
    bool any_ranged = false;
    c.key_values = r.values_of(cells[i], key_names(m), field);
    for (std::size_t k = 0; k < m.keys.size(); ++k) {
      if (key_paths_of(m, k).labelled() && key_value_paths(m, k, c.key_values[k]).empty()) {
        r.fail(cells[i][m.keys[k].first], field + "." + m.keys[k].first,
               "'" + c.key_values[k] + "' is not a label of measured.keys." + m.keys[k].first + " (" +
                   label_list(key_paths_of(m, k)) + ")");
      }
    }
    for (const MeasuredMetric& k : m.metrics) {
      const YAML::Node v = cells[i][k.name];
      // With several metrics a cell may leave one out (not measured): it
      // is then neither compared nor fitted. The first is always needed.
      if (!v && m.multi && &k != &m.metrics.front()) {
        c.values.push_back(kNotMeasured);
        ranged.push_back({0, kNotMeasured, kNotMeasured});
        continue;
      }
      if (!v) r.fail(cells[i], field + "." + k.name, "missing the measured value " + scenario_internal::quoted(k.name));
      const std::string vf = field + "." + k.name;
      auto checked = [&](const YAML::Node& n, const std::string& where) {
        const double x = r.number(n, where);
        if (k.is_count()) {
          if (x < 0) r.fail(n, where, "a measured count cannot be negative");
        } else if (x <= 0) {
          r.fail(n, where, "a measured value must be positive");
        }
        if (k.is_fairness() && x > 1) r.fail(n, where, "Jain's index is at most 1 (write 0.94 for 94%)");
        return x;
      };
      // A plain number, or { mean, runs, range: [min, max] }: the mean of
      // repeated measurements and their spread, printed beside the runs'.
      if (!v.IsMap()) {
        const double x = checked(v, vf);
        c.values.push_back(x);
        ranged.push_back({1, x, x});
        continue;
      }
      for (const auto& kv : v) {
        const std::string key = kv.first.as<std::string>();
        if (key != "mean" && key != "runs" && key != "range") {
          r.fail(kv.first, vf + "." + key, "unknown key (a measured value is a number or { mean, runs, range })");
        }
      }
      if (!v["mean"]) r.fail(v, vf + ".mean", "a measured value given as a map needs its mean");
      const double mean = checked(v["mean"], vf + ".mean");
      Ranged rg{1, mean, mean};
      if (v["runs"]) {
        const double n = r.number(v["runs"], vf + ".runs");
        if (n < 1 || n != std::floor(n) || n > 1e6) r.fail(v["runs"], vf + ".runs", "runs must be a whole number >= 1");
        rg.runs = static_cast<std::size_t>(n);
      }
      if (const YAML::Node range = v["range"]) {
        if (!range.IsSequence() || range.size() != 2) r.fail(range, vf + ".range", "expected [min, max]");
        rg.min = checked(range[0], vf + ".range[0]");
        rg.max = checked(range[1], vf + ".range[1]");
        if (!(rg.min <= mean && mean <= rg.max)) {
          r.fail(range, vf + ".range", "the range must hold the mean (min <= mean <= max)");
        }
        if (!v["runs"]) r.fail(v, vf + ".runs", "a measured range needs the number of runs it spans");
        if (rg.runs < 2) r.fail(v["runs"], vf + ".runs", "a range spans at least 2 runs");
      }
      any_ranged = any_ranged || rg.runs > 1;
      c.values.push_back(mean);
      ranged.push_back(rg);
    }
    if (any_ranged) {
      for (const Ranged& rg : ranged) {
        c.runs.push_back(rg.runs);
        c.min_values.push_back(rg.min);
        c.max_values.push_back(rg.max);
      }
    }
    c.value = c.values.front();
    m.cells.push_back(std::move(c));
  }
  if (const YAML::Node claims = root["claims"]) {
    if (!claims.IsSequence()) r.fail(claims, "measured.claims", "expected a list of claims");
    for (std::size_t i = 0; i < claims.size(); ++i) {
      const std::string field = "measured.claims[" + std::to_string(i) + "]";
      MeasuredClaim c;
      const YAML::Node n = claims[i];
      if (!n.IsMap() || !n["numerator"] || !n["denominator"] || !n["measured"]) {
        r.fail(n, field, "a claim needs numerator, denominator and measured");
      }
      if (n["text"]) c.text = r.scalar(n["text"], field + ".text");
      c.measured = r.number(n["measured"], field + ".measured");
      c.numerator = r.values_of(n["numerator"], key_names(m), field + ".numerator");
      c.denominator = r.values_of(n["denominator"], key_names(m), field + ".denominator");
      m.claims.push_back(std::move(c));
    }
  }
  return m;
}

std::optional<double> metric_value(const results::RunResult& r, const MeasuredMetric& k) {
  auto throughput = [&k, &r](const results::FlowStats& f) -> std::optional<double> {
    if (!flow_has_metric(f, k.metric)) return std::nullopt;
    return flow_metric(r, f, k.metric);
  };
  auto find_flow = [&r](const std::string& name) -> const results::FlowStats* {
    for (const auto& f : r.flows()) {
      if (name.empty() || f.name() == name) return &f;
    }
    return nullptr;
  };
  if (!k.is_fairness()) {
    const results::FlowStats* f = find_flow(k.flow);
    if (f == nullptr) return std::nullopt;
    return throughput(*f);
  }
  std::vector<double> shares;
  for (const std::string& name : k.fairness) {
    const results::FlowStats* f = find_flow(name);
    if (f == nullptr) return std::nullopt;
    shares.push_back(*throughput(*f));
  }
  try {
    return stats::jain_index(shares);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

std::vector<ComparisonRow> compare(const results::RunSet& runs, const MeasuredSpec& m) {
  std::vector<ComparisonRow> rows;
  for (const MeasuredCell& cell : m.cells) {
    ComparisonRow row;
    row.key_values = cell.key_values;
    for (std::size_t i = 0; i < m.metrics.size(); ++i) {
      const MeasuredMetric& k = m.metrics[i];
      MetricComparison c;
      c.measured = cell.values[i];
      const bool repeated = !cell.runs.empty();
      c.measured_runs = repeated ? cell.runs[i] : 1;
      c.measured_min = repeated ? cell.min_values[i] : c.measured;
      c.measured_max = repeated ? cell.max_values[i] : c.measured;
      double sum = 0;
      c.sim_min = std::numeric_limits<double>::infinity();
      c.sim_max = -std::numeric_limits<double>::infinity();
      for (const auto& r : runs.runs()) {
        if (!r.error().empty() || run_keys(r, m) != cell.key_values) continue;
        const std::optional<double> v = metric_value(r, k);
        if (!v) continue;
        sum += *v;
        c.sim_min = std::min(c.sim_min, *v);
        c.sim_max = std::max(c.sim_max, *v);
        ++c.runs;
      }
      if (c.runs > 0) {
        c.sim_mean = sum / static_cast<double>(c.runs);
        c.error = is_measured(c.measured) ? measured_error(k, c.sim_mean, c.measured) : kNotMeasured;
      } else {
        c.sim_min = c.sim_max = 0;
      }
      row.metrics.push_back(c);
    }
    const MetricComparison& first = row.metrics.front();
    row.runs = first.runs;
    row.sim_mean = first.sim_mean;
    row.sim_min = first.sim_min;
    row.sim_max = first.sim_max;
    row.measured = first.measured;
    row.error_pct = first.error;
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

std::string column_name(const MeasuredMetric& k) {
  if (k.is_fairness()) return k.name;
  if (!k.column.empty()) return k.column;
  if (has_own_column(k.metric)) return k.name + "_" + k.metric;
  return k.name + (k.metric == "retransmits" ? "_retransmits" : "_mbps");
}

// Fairness as the tables print it ("94.0%"), throughput in Mbit/s, ping times in ms.
std::string metric_text(const MeasuredMetric& k, double v) {
  return k.is_fairness() ? fixed(v * 100.0, 1) + "%" : fixed(v, metric_decimals(k.metric));
}

void write_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& table) {
  std::vector<std::size_t> width(table.front().size(), 0);
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  for (const auto& line : table) {
    std::string s;
    for (std::size_t i = 0; i < line.size(); ++i) s += "  " + line[i] + std::string(width[i] - line[i].size(), ' ');
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << "\n";
  }
}

// Whether any cell was measured more than once (repeated files for --data):
// the tables then show how many runs and their range.
bool measured_repeatedly(const std::vector<ComparisonRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const ComparisonRow& row) {
    return std::any_of(row.metrics.begin(), row.metrics.end(),
                       [](const MetricComparison& c) { return c.measured_runs > 1; });
  });
}

// With two or more throughputs per cell (T2's senders), whether the
// simulated means rank them as the measured values do: "same" or "differs".
std::string ranking_text(const ComparisonRow& row, const MeasuredSpec& m) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < m.metrics.size(); ++i) {
    if (m.metrics[i].is_fairness() || !is_throughput_metric(m.metrics[i].metric)) continue;
    if (row.metrics[i].runs == 0) return "-";
    idx.push_back(i);
  }
  for (std::size_t a = 0; a < idx.size(); ++a) {
    for (std::size_t b = a + 1; b < idx.size(); ++b) {
      const MetricComparison& x = row.metrics[idx[a]];
      const MetricComparison& y = row.metrics[idx[b]];
      if ((x.sim_mean > y.sim_mean) != (x.measured > y.measured) || (x.measured == y.measured)) return "differs";
    }
  }
  return "same";
}

// Several metrics per cell: for each, simulated mean, range over the runs,
// measured and error (% for throughput, index points for fairness).
void write_multi_text(std::ostream& out, const std::vector<ComparisonRow>& rows, const MeasuredSpec& m) {
  out << "\nsimulated vs measured" << (m.source.empty() ? "" : " (" + m.source + ")") << ":\n";
  const bool repeated = measured_repeatedly(rows);
  std::vector<std::string> header;
  for (const auto& k : m.keys) header.push_back(k.first);
  header.emplace_back("runs");
  if (repeated) header.emplace_back("measured runs");
  for (const MeasuredMetric& k : m.metrics) {
    header.push_back(k.name);
    header.emplace_back("range");
    header.emplace_back("measured");
    if (repeated) header.emplace_back("measured range");
    header.emplace_back(k.is_fairness() || k.in_points() ? "error pt" : "error %");
  }
  const bool ranked = std::count_if(m.metrics.begin(), m.metrics.end(), [](const MeasuredMetric& k) {
                        return !k.is_fairness() && is_throughput_metric(k.metric);
                      }) >= 2;
  if (ranked) header.emplace_back("ranking");
  std::vector<std::vector<std::string>> table{header};
  for (const ComparisonRow& row : rows) {
    std::vector<std::string> line = row.key_values;
    line.push_back(std::to_string(row.runs));
    if (repeated) line.push_back(std::to_string(row.metrics.front().measured_runs));
    for (std::size_t i = 0; i < m.metrics.size(); ++i) {
      const MeasuredMetric& k = m.metrics[i];
      const MetricComparison& c = row.metrics[i];
      line.push_back(c.runs > 0 ? metric_text(k, c.sim_mean) : "-");
      line.push_back(c.runs > 1 ? metric_text(k, c.sim_min) + "-" + metric_text(k, c.sim_max) : "");
      line.push_back(is_measured(c.measured) ? metric_text(k, c.measured) : "-");
      if (repeated) {
        line.push_back(c.measured_runs > 1 ? metric_text(k, c.measured_min) + "-" + metric_text(k, c.measured_max) : "");
      }
      line.push_back(c.runs > 0 && is_measured(c.measured) ? (c.error >= 0 ? "+" : "") + fixed(c.error, 1) : "-");
    }
    if (ranked) line.push_back(ranking_text(row, m));
    table.push_back(std::move(line));
  }
  write_aligned(out, table);
}

// The claimed ratios of the first metric's simulated means, beside the measured ones.
void write_claims(std::ostream& out, const std::vector<ComparisonRow>& rows, const MeasuredSpec& m) {
  if (m.claims.empty()) return;
  out << "claimed ratios (simulated vs measured):\n";
  auto mean_of = [&rows](const std::vector<std::string>& keys) -> std::optional<double> {
    for (const auto& row : rows) {
      if (row.key_values == keys && row.runs > 0) return row.sim_mean;
    }
    return std::nullopt;
  };
  for (const auto& c : m.claims) {
    const auto num = mean_of(c.numerator);
    const auto den = mean_of(c.denominator);
    out << "  " << (c.text.empty() ? "ratio" : c.text) << ": simulated "
        << (num && den && *den > 0 ? ratio_text(*num / *den) : std::string("-")) << ", measured "
        << ratio_text(c.measured) << "\n";
  }
}

}  // namespace

void write_comparison_text(std::ostream& out, const results::RunSet& runs, const MeasuredSpec& m) {
  const auto rows = compare(runs, m);
  if (m.multi) {
    write_multi_text(out, rows, m);
    write_claims(out, rows, m);
    return;
  }
  out << "\nsimulated vs measured (" << m.metric << (m.source.empty() ? "" : ", " + m.source) << "):\n";
  const bool repeated = measured_repeatedly(rows);
  std::vector<std::string> header;
  for (const auto& k : m.keys) header.push_back(k.first);
  header.emplace_back("runs");
  if (repeated) header.emplace_back("measured runs");
  for (const char* h : {"simulated", "range", "measured"}) header.emplace_back(h);
  if (repeated) header.emplace_back("measured range");
  header.emplace_back("error %");
  std::vector<std::vector<std::string>> table{header};
  for (const auto& row : rows) {
    const MetricComparison& c = row.metrics.front();
    std::vector<std::string> line = row.key_values;
    line.push_back(std::to_string(row.runs));
    if (repeated) line.push_back(std::to_string(c.measured_runs));
    const int d = metric_decimals(m.metric);
    line.push_back(row.runs > 0 ? fixed(row.sim_mean, d) : "-");
    line.push_back(row.runs > 1 ? fixed(row.sim_min, d) + "-" + fixed(row.sim_max, d) : "");
    line.push_back(fixed(row.measured, d));
    if (repeated) line.push_back(c.measured_runs > 1 ? fixed(c.measured_min, d) + "-" + fixed(c.measured_max, d) : "");
    line.push_back(row.runs > 0 ? (row.error_pct >= 0 ? "+" : "") + fixed(row.error_pct, 1) : "-");
    table.push_back(std::move(line));
  }
  write_aligned(out, table);
  write_claims(out, rows, m);
}

void write_comparison_csv(std::ostream& out, const results::RunSet& runs, const MeasuredSpec& m) {
  if (m.multi) {
    std::map<std::vector<std::string>, const MeasuredCell*> cells;
    for (const auto& c : m.cells) cells[c.key_values] = &c;
    for (const auto& k : m.keys) out << k.first << ",";
    out << "seed";
    for (const MeasuredMetric& k : m.metrics) out << "," << column_name(k);
    for (const MeasuredMetric& k : m.metrics) out << ",measured_" << column_name(k);
    out << ",error_pct\n";
    for (const auto& r : runs.runs()) {
      const std::vector<std::string> keys = run_keys(r, m);
      for (const auto& k : keys) out << k << ",";
      out << r.seed();
      std::optional<double> first;  // the first metric's value, for error_pct
      for (const MeasuredMetric& k : m.metrics) {
        const std::optional<double> v = r.error().empty() ? metric_value(r, k) : std::nullopt;
        if (&k == &m.metrics.front()) first = v;
        out << "," << (v ? format_double_roundtrip(*v) : "");
      }
      const auto it = cells.find(keys);
      for (std::size_t i = 0; i < m.metrics.size(); ++i) {
        const bool known = it != cells.end() && is_measured(it->second->values[i]);
        out << "," << (known ? format_double_roundtrip(it->second->values[i]) : "");
      }
      // error_pct: the first metric's error in this run (as the table's error column).
      out << ",";
      if (it != cells.end() && first) {
        out << format_double_roundtrip(measured_error(m.metrics.front(), *first, it->second->values.front()));
      }
      out << "\n";
    }
    return;
  }
  std::map<std::vector<std::string>, double> measured;
  for (const auto& c : m.cells) measured[c.key_values] = c.value;
  for (const auto& k : m.keys) out << k.first << ",";
  const bool own_column = has_own_column(m.metric);
  out << "seed,sender_mbps,receiver_mbps,retransmits," << (own_column ? m.metric + "," : "")
      << (m.metric == "retransmits" ? "measured_retransmits" : own_column ? "measured_" + m.metric : "measured_mbps")
      << ",error_pct";
  for (const auto& c : m.columns) out << "," << c.first;
  out << "\n";
  // The extra columns of a run: its compared flow's value of each metric.
  const auto extra = [&m, &out](const results::RunResult& r, const results::FlowStats* f) {
    for (const auto& c : m.columns) {
      out << ",";
      if (f != nullptr && flow_has_metric(*f, c.second)) out << format_double_roundtrip(flow_metric(r, *f, c.second));
    }
    out << "\n";
  };
  for (const auto& r : runs.runs()) {
    const std::vector<std::string> keys = run_keys(r, m);
    const results::FlowStats* f = compared_flow(r, m);
    for (const auto& k : keys) out << k << ",";
    out << r.seed() << ",";
    if (f == nullptr) {
      out << (own_column ? ",,,,," : ",,,,");
      extra(r, f);
      continue;
    }
    out << format_double_roundtrip(f->sender_mbps()) << "," << format_double_roundtrip(f->receiver_mbps()) << ","
        << (f->kind() == "tcp" ? f->retransmits() : f->packets_lost()) << ",";
    const bool has_value = flow_has_metric(*f, m.metric);
    if (own_column) out << (has_value ? format_double_roundtrip(metric(r, *f, m)) : "") << ",";
    const auto it = measured.find(keys);
    if (it == measured.end() || !has_value) {
      if (it != measured.end()) out << format_double_roundtrip(it->second);
      out << ",";
    } else {
      out << format_double_roundtrip(it->second) << ","
          << format_double_roundtrip(measured_error(m.metrics.front(), metric(r, *f, m), it->second));
    }
    extra(r, f);
  }
}

}  // namespace netsim
