#include "netsim/calibrate/measured_data_cells.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/stats/fairness.h"

namespace netsim::calibrate {
namespace {

// One metric's samples, averaged per cell, in order of first appearance.
struct MetricCells {
  std::map<std::vector<std::string>, std::pair<double, int>> sums;  // key values -> sum, count
  std::vector<std::vector<std::string>> order;
  std::vector<std::string> sources;
};

std::string key_text(const MeasuredSpec& block, const std::vector<std::string>& values) {
  std::string keys;
  for (std::size_t k = 0; k < values.size(); ++k) keys += (k ? ", " : "") + block.keys[k].first + "=" + values[k];
  return keys;
}

MetricCells collect(const MeasuredSpec& block, const std::string& metric, const measure::MeasurementMapping& mapping,
                    std::vector<std::string>& errors) {
  MetricCells out;
  const measure::MeasuredCells loaded = measure::cells_from(mapping, metric);
  for (const measure::MeasureError& e : loaded.errors) errors.push_back(e.what());
  for (const measure::MeasuredCell& c : loaded.cells) {
    const std::string where = c.source + " (" + c.entry + ")";
    if (c.metric != metric) {
      errors.push_back(where + ": error: the measured block compares " + metric + ", the entry gives " + c.metric);
      continue;
    }
    std::vector<std::string> values;
    std::size_t used = 0;
    std::string problem;
    for (const auto& [name, path] : block.keys) {
      auto it = c.params.find(name);
      if (it == c.params.end()) it = c.params.find(path);
      if (it == c.params.end()) {
        problem = "no value for the measured key '" + name + "' (or '" + path + "')";
        break;
      }
      values.push_back(it->second);
      ++used;
    }
    if (problem.empty() && used != c.params.size()) {
      for (const auto& [k, v] : c.params) {
        bool known = false;
        for (const auto& [name, path] : block.keys) known = known || k == name || k == path;
        if (!known) problem = "'" + k + "' is not a key of the measured block";
      }
    }
    if (!problem.empty()) {
      errors.push_back(where + ": error: " + problem);
      continue;
    }
    auto [it, fresh] = out.sums.emplace(values, std::pair<double, int>{0.0, 0});
    if (fresh) out.order.push_back(values);
    it->second.first += c.value;
    ++it->second.second;
    out.sources.push_back(c.source + " (" + key_text(block, values) + ")");
  }
  return out;
}

bool is_throughput(const std::string& metric) { return metric == "receiver_mbps" || metric == "sender_mbps"; }

}  // namespace

DataCells cells_from_data(const MeasuredSpec& block, const std::string& block_file,
                          const measure::MeasurementMapping& mapping) {
  // The flows the block's own metrics compare; a fairness index is computed
  // from those flows' measured throughputs in the same cell.
  std::set<std::string> flows;
  for (const MeasuredMetric& k : block.metrics) {
    if (!k.is_fairness()) flows.insert(k.flow);
  }
  for (const MeasuredMetric& k : block.metrics) {
    if (!k.is_fairness()) continue;
    for (const std::string& f : k.fairness) {
      const bool measured = std::any_of(block.metrics.begin(), block.metrics.end(), [&](const MeasuredMetric& m) {
        return !m.is_fairness() && m.flow == f && is_throughput(m.metric);
      });
      if (!measured) {
        throw ScenarioError(SourceLoc{block_file, 0, 0}, "measured",
                            "measurement files give " + k.name + " only from the throughputs the block compares; flow '" +
                                f + "' has none (give the cells in the block instead)");
      }
    }
  }
  const bool several_flows = flows.size() > 1;
  DataCells out;
  std::vector<std::string> errors;
  // Entries by the flow they measured: with several flows each must say which.
  for (const measure::MappingEntry& e : mapping.entries) {
    if (several_flows && e.flow.empty()) {
      errors.push_back(e.source + ": error: the measured block compares several flows; say which this file measured "
                       "(flow: ...)");
    } else if (!e.flow.empty() && flows.count(e.flow) == 0 && !(flows.size() == 1 && flows.count(""))) {
      errors.push_back(e.source + ": error: the measured block compares no flow '" + e.flow + "'");
    }
  }
  std::vector<MetricCells> per_metric(block.metrics.size());
  for (std::size_t i = 0; i < block.metrics.size(); ++i) {
    const MeasuredMetric& k = block.metrics[i];
    if (k.is_fairness()) continue;
    measure::MeasurementMapping mine;
    for (const measure::MappingEntry& e : mapping.entries) {
      if (several_flows ? e.flow == k.flow : (e.flow.empty() || e.flow == k.flow || k.flow.empty())) mine.entries.push_back(e);
    }
    per_metric[i] = collect(block, k.metric, mine, errors);
  }
  // The same file or entry problem is found once per metric: report it once.
  std::set<std::string> seen;
  for (std::string& e : errors) {
    if (seen.insert(e).second) out.errors.push_back(std::move(e));
  }
  // Cells in order of first appearance over the metrics.
  std::vector<std::vector<std::string>> order;
  for (const MetricCells& m : per_metric) {
    for (const auto& values : m.order) {
      if (std::find(order.begin(), order.end(), values) == order.end()) order.push_back(values);
    }
    out.sources.insert(out.sources.end(), m.sources.begin(), m.sources.end());
  }
  for (const auto& values : order) {
    MeasuredCell cell;
    cell.key_values = values;
    cell.values.assign(block.metrics.size(), 0.0);
    bool complete = true;
    for (std::size_t i = 0; i < block.metrics.size() && complete; ++i) {
      const MeasuredMetric& k = block.metrics[i];
      if (k.is_fairness()) continue;
      const auto it = per_metric[i].sums.find(values);
      if (it == per_metric[i].sums.end()) {
        out.errors.push_back("cell (" + key_text(block, values) + "): error: no measured " + k.metric +
                             (k.flow.empty() ? "" : " of flow '" + k.flow + "'") +
                             " in its files, which the measured block compares as " + k.name);
        complete = false;
        continue;
      }
      cell.values[i] = it->second.first / it->second.second;
    }
    if (!complete) continue;
    for (std::size_t i = 0; i < block.metrics.size(); ++i) {
      const MeasuredMetric& k = block.metrics[i];
      if (!k.is_fairness()) continue;
      std::vector<double> shares;
      for (const std::string& f : k.fairness) {
        for (std::size_t j = 0; j < block.metrics.size(); ++j) {
          const MeasuredMetric& m = block.metrics[j];
          if (!m.is_fairness() && m.flow == f && is_throughput(m.metric)) {
            shares.push_back(cell.values[j]);
            break;
          }
        }
      }
      cell.values[i] = stats::jain_index(shares);
    }
    cell.value = cell.values.front();
    out.cells.push_back(std::move(cell));
  }
  return out;
}

}  // namespace netsim::calibrate
