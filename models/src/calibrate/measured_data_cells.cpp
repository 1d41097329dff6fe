#include "netsim/calibrate/measured_data_cells.h"

#include <algorithm>
#include <map>
#include <set>

#include "netsim/scenario/scenario_loader.h"

namespace netsim::calibrate {
namespace {

// One metric's samples, averaged per cell, in order of first appearance.
struct MetricCells {
  std::map<std::vector<std::string>, std::pair<double, int>> sums;  // key values -> sum, count
  std::vector<std::vector<std::string>> order;
  std::vector<std::string> sources;
};

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
    std::string keys;
    for (std::size_t k = 0; k < values.size(); ++k) keys += (k ? ", " : "") + block.keys[k].first + "=" + values[k];
    out.sources.push_back(c.source + " (" + keys + ")");
  }
  return out;
}

}  // namespace

DataCells cells_from_data(const MeasuredSpec& block, const std::string& block_file,
                          const measure::MeasurementMapping& mapping) {
  // Every metric must come from the same runs: one flow's figures (a ping's
  // min, avg and max), never a fairness index or two flows' throughputs,
  // which one measurement file cannot tell apart.
  const bool one_flow = !block.metrics.empty() && std::all_of(block.metrics.begin(), block.metrics.end(), [&](const MeasuredMetric& k) {
    return !k.is_fairness() && k.flow == block.metrics.front().flow;
  });
  if (!one_flow) {
    throw ScenarioError(SourceLoc{block_file, 0, 0}, "measured",
                        "measurement files replace the cells of a measured block whose metrics are one flow's; this "
                        "block has " + std::to_string(block.metrics.size()) +
                            " metrics of several flows or a fairness index (give the cells in the block instead)");
  }
  DataCells out;
  std::vector<MetricCells> per_metric;
  std::vector<std::string> errors;
  for (const MeasuredMetric& k : block.metrics) per_metric.push_back(collect(block, k.metric, mapping, errors));
  // The same file or entry problem is found once per metric: report it once.
  std::set<std::string> seen;
  for (std::string& e : errors) {
    if (seen.insert(e).second) out.errors.push_back(std::move(e));
  }
  out.sources = per_metric.front().sources;
  for (const auto& values : per_metric.front().order) {
    MeasuredCell cell;
    cell.key_values = values;
    bool complete = true;
    for (std::size_t i = 0; i < block.metrics.size(); ++i) {
      const auto it = per_metric[i].sums.find(values);
      if (it == per_metric[i].sums.end()) {
        std::string keys;
        for (std::size_t k = 0; k < values.size(); ++k) keys += (k ? ", " : "") + block.keys[k].first + "=" + values[k];
        out.errors.push_back("cell (" + keys + "): error: no measured " + block.metrics[i].metric +
                             " in its files, which the measured block compares as " + block.metrics[i].name);
        complete = false;
        continue;
      }
      cell.values.push_back(it->second.first / it->second.second);
    }
    if (!complete) continue;
    cell.value = cell.values.front();
    out.cells.push_back(std::move(cell));
  }
  return out;
}

}  // namespace netsim::calibrate
