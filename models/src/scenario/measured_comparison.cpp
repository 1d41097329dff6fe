#include "netsim/scenario/measured_comparison.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <ostream>

#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_loader.h"

namespace netsim {
namespace {

class BlockReader {
 public:
  explicit BlockReader(const ScenarioSpec& spec) : file_(spec.file) {}

  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& msg) const {
    SourceLoc loc{file_, n.Mark().line + 1, n.Mark().column + 1};
    throw ScenarioError(loc, field, msg);
  }
  std::string scalar(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "expected a scalar value");
    return n.Scalar();
  }
  double number(const YAML::Node& n, const std::string& field) const {
    const std::string s = scalar(n, field);
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) fail(n, field, "expected a number, got '" + s + "'");
    return v;
  }
  std::vector<std::string> key_values(const YAML::Node& cell, const MeasuredSpec& m, const std::string& field) const {
    if (!cell.IsMap()) fail(cell, field, "expected a map of key values");
    std::vector<std::string> values;
    for (const auto& [name, path] : m.keys) {
      const YAML::Node v = cell[name];
      if (!v) fail(cell, field + "." + name, "missing key value '" + name + "'");
      values.push_back(scalar(v, field + "." + name));
    }
    return values;
  }

 private:
  std::string file_;
};

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

double metric(const results::FlowStats& f, const MeasuredSpec& m) {
  return m.metric == "sender_mbps" ? f.sender_mbps() : f.receiver_mbps();
}

std::vector<std::string> run_keys(const results::RunResult& r, const MeasuredSpec& m) {
  std::vector<std::string> v;
  for (const auto& k : m.keys) v.push_back(override_value(r, k.second));
  return v;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// As measured-tables.md writes gains: "+4.5x" for a ratio of 5.5, "+65%" for 1.65.
std::string ratio_text(double r) {
  return r >= 2.0 ? "+" + fixed(r - 1.0, 2) + "x" : (r >= 1.0 ? "+" : "") + fixed((r - 1.0) * 100.0, 1) + "%";
}

}  // namespace

std::optional<MeasuredSpec> parse_measured(const ScenarioSpec& spec) {
  const YAML::Node& root = spec.measured;
  if (!root || !root.IsMap() || !root["cells"]) return std::nullopt;
  BlockReader r(spec);
  MeasuredSpec m;
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (key != "source" && key != "metric" && key != "flow" && key != "keys" && key != "cells" && key != "claims" &&
        key != "notes") {
      r.fail(kv.first, "measured." + key,
             "unknown key '" + key + "' (accepted: source, metric, flow, keys, cells, claims, notes)");
    }
  }
  if (root["source"]) m.source = r.scalar(root["source"], "measured.source");
  if (root["flow"]) m.flow = r.scalar(root["flow"], "measured.flow");
  if (root["metric"]) {
    m.metric = r.scalar(root["metric"], "measured.metric");
    if (m.metric != "receiver_mbps" && m.metric != "sender_mbps") {
      r.fail(root["metric"], "measured.metric", "metric must be receiver_mbps or sender_mbps");
    }
  }
  const YAML::Node keys = root["keys"];
  if (!keys || !keys.IsMap() || keys.size() == 0) r.fail(root, "measured.keys", "needs a map of column name -> sweep key");
  for (const auto& kv : keys) m.keys.emplace_back(kv.first.Scalar(), r.scalar(kv.second, "measured.keys." + kv.first.Scalar()));
  const YAML::Node cells = root["cells"];
  if (!cells.IsSequence()) r.fail(cells, "measured.cells", "expected a list of cells");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string field = "measured.cells[" + std::to_string(i) + "]";
    MeasuredCell c;
    c.key_values = r.key_values(cells[i], m, field);
    if (!cells[i]["value"]) r.fail(cells[i], field + ".value", "missing the measured value");
    c.value = r.number(cells[i]["value"], field + ".value");
    if (c.value <= 0) r.fail(cells[i]["value"], field + ".value", "a measured value must be positive");
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
      c.numerator = r.key_values(n["numerator"], m, field + ".numerator");
      c.denominator = r.key_values(n["denominator"], m, field + ".denominator");
      m.claims.push_back(std::move(c));
    }
  }
  return m;
}

std::vector<ComparisonRow> compare(const results::RunSet& runs, const MeasuredSpec& m) {
  std::vector<ComparisonRow> rows;
  for (const MeasuredCell& cell : m.cells) {
    ComparisonRow row;
    row.key_values = cell.key_values;
    row.measured = cell.value;
    double sum = 0;
    row.sim_min = std::numeric_limits<double>::infinity();
    row.sim_max = -std::numeric_limits<double>::infinity();
    for (const auto& r : runs.runs()) {
      if (!r.error().empty() || run_keys(r, m) != cell.key_values) continue;
      const results::FlowStats* f = compared_flow(r, m);
      if (f == nullptr) continue;
      const double v = metric(*f, m);
      sum += v;
      row.sim_min = std::min(row.sim_min, v);
      row.sim_max = std::max(row.sim_max, v);
      ++row.runs;
    }
    if (row.runs > 0) {
      row.sim_mean = sum / static_cast<double>(row.runs);
      row.error_pct = (row.sim_mean - row.measured) / row.measured * 100.0;
    } else {
      row.sim_min = row.sim_max = 0;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void write_comparison_text(std::ostream& out, const results::RunSet& runs, const MeasuredSpec& m) {
  const auto rows = compare(runs, m);
  out << "\nsimulated vs measured (" << m.metric << (m.source.empty() ? "" : ", " + m.source) << "):\n";
  std::vector<std::string> header;
  for (const auto& k : m.keys) header.push_back(k.first);
  for (const char* h : {"runs", "simulated", "range", "measured", "error %"}) header.emplace_back(h);
  std::vector<std::vector<std::string>> table{header};
  for (const auto& row : rows) {
    std::vector<std::string> line = row.key_values;
    line.push_back(std::to_string(row.runs));
    line.push_back(row.runs > 0 ? fixed(row.sim_mean, 1) : "-");
    line.push_back(row.runs > 1 ? fixed(row.sim_min, 1) + "-" + fixed(row.sim_max, 1) : "");
    line.push_back(fixed(row.measured, 1));
    line.push_back(row.runs > 0 ? (row.error_pct >= 0 ? "+" : "") + fixed(row.error_pct, 1) : "-");
    table.push_back(std::move(line));
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  for (const auto& line : table) {
    std::string s;
    for (std::size_t i = 0; i < line.size(); ++i) {
      s += "  " + line[i] + std::string(width[i] - line[i].size(), ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << "\n";
  }
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

void write_comparison_csv(std::ostream& out, const results::RunSet& runs, const MeasuredSpec& m) {
  std::map<std::vector<std::string>, double> measured;
  for (const auto& c : m.cells) measured[c.key_values] = c.value;
  for (const auto& k : m.keys) out << k.first << ",";
  out << "seed,sender_mbps,receiver_mbps,retransmits,measured_mbps,error_pct\n";
  for (const auto& r : runs.runs()) {
    const std::vector<std::string> keys = run_keys(r, m);
    const results::FlowStats* f = compared_flow(r, m);
    for (const auto& k : keys) out << k << ",";
    out << r.seed() << ",";
    if (f == nullptr) {
      out << ",,,,\n";
      continue;
    }
    out << format_double_roundtrip(f->sender_mbps()) << "," << format_double_roundtrip(f->receiver_mbps()) << ","
        << (f->kind() == "tcp" ? f->retransmits() : f->packets_lost()) << ",";
    const auto it = measured.find(keys);
    if (it == measured.end()) {
      out << ",\n";
    } else {
      out << format_double_roundtrip(it->second) << ","
          << format_double_roundtrip((metric(*f, m) - it->second) / it->second * 100.0) << "\n";
    }
  }
}

}  // namespace netsim
