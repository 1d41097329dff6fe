#include "netsim/calibrate/measured_data_cells.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/stats/fairness.h"

namespace netsim::calibrate {
namespace {

std::string key_text(const MeasuredSpec& block, const std::vector<std::string>& values) {
  std::string keys;
  for (std::size_t k = 0; k < values.size(); ++k) keys += (k ? ", " : "") + block.keys[k].first + "=" + values[k];
  return keys;
}

// An entry's params as the block's key values, or the problem with them:
// every key by its short name or scenario path, and nothing else.
std::vector<std::string> key_values(const MeasuredSpec& block, const std::map<std::string, std::string>& params,
                                    std::string& problem) {
  std::vector<std::string> values;
  std::size_t used = 0;  // params taken
  for (std::size_t k = 0; k < block.keys.size(); ++k) {
    const auto& [name, path] = block.keys[k];
    const MeasuredKeyPaths& lp = key_paths_of(block, k);
    auto it = params.find(name);
    if (it == params.end() && !lp.labelled()) it = params.find(path);
    if (it != params.end()) {
      if (lp.labelled() && key_value_paths(block, k, it->second).empty()) {
        problem = "'" + it->second + "' is not a label of the measured key '" + name + "'";
        return {};
      }
      values.push_back(it->second);
      ++used;
      continue;
    }
    // A labelled key from its paths' values, as `netsim lab` records them.
    bool all = lp.labelled();
    for (const std::string& p : lp.paths) all = all && params.count(p) > 0;
    if (!all) {
      problem = "no value for the measured key '" + name + "' (or '" + path + "')";
      return {};
    }
    const std::string label = key_column_value(block, k, [&params](const std::string& p) { return params.at(p); });
    if (key_value_paths(block, k, label).empty()) {
      problem = "the values of '" + path + "' (" + label + ") match no label of the measured key '" + name + "'";
      return {};
    }
    values.push_back(label);
    used += lp.paths.size();
  }
  if (used != params.size()) {
    for (const auto& [key, v] : params) {
      bool known = false;
      for (std::size_t k = 0; k < block.keys.size(); ++k) {
        known = known || key == block.keys[k].first || is_measured_key_path(block, key);
      }
      if (!known) problem = "'" + key + "' is not a key of the measured block";
    }
  }
  return values;
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
  // The metrics each flow's files give, in the block's order.
  std::map<std::string, std::vector<std::string>> names;
  for (const MeasuredMetric& k : block.metrics) {
    if (k.is_fairness()) continue;
    std::vector<std::string>& n = names[k.flow];
    if (std::find(n.begin(), n.end(), k.metric) == n.end()) n.push_back(k.metric);
  }
  // Samples per (metric index, key values), in mapping and file order, and
  // the cells in order of first appearance. Each entry is checked once (its
  // flow, its params) and its file read once, for all of its flow's metrics.
  std::vector<std::map<std::vector<std::string>, std::vector<double>>> samples(block.metrics.size());
  std::vector<std::vector<std::string>> order;
  for (const measure::MappingEntry& e : mapping.entries) {
    std::string problem;
    if (several_flows && e.flow.empty()) {
      problem = "the measured block compares several flows; say which this file measured (flow: ...)";
    } else if (!e.flow.empty() && flows.count(e.flow) == 0 && !(flows.size() == 1 && flows.count(""))) {
      problem = "the measured block compares no flow '" + e.flow + "'";
    }
    std::vector<std::string> values;
    if (problem.empty()) values = key_values(block, e.params, problem);
    if (!problem.empty()) {
      out.errors.push_back(e.source + ": error: " + problem);
      continue;
    }
    const std::string& flow = several_flows ? e.flow : *flows.begin();
    const std::vector<std::string>& wanted = names.at(flow);
    const measure::MeasuredCells loaded = measure::cells_from(measure::MeasurementMapping{{e}}, wanted);
    for (const measure::MeasureError& err : loaded.errors) out.errors.push_back(err.what());
    for (const measure::MeasuredCell& c : loaded.cells) {
      if (std::find(wanted.begin(), wanted.end(), c.metric) == wanted.end()) {
        out.errors.push_back(c.source + " (" + c.entry + "): error: the measured block compares " + wanted.front() +
                             ", the entry gives " + c.metric);
        continue;
      }
      if (std::find(order.begin(), order.end(), values) == order.end()) order.push_back(values);
      for (std::size_t i = 0; i < block.metrics.size(); ++i) {
        const MeasuredMetric& k = block.metrics[i];
        if (k.is_fairness() || k.flow != flow || k.metric != c.metric) continue;
        samples[i][values].push_back(c.value);
      }
      if (c.metric == wanted.front()) out.sources.push_back(c.source + " (" + key_text(block, values) + ")");
    }
  }
  for (const auto& values : order) {
    MeasuredCell cell;
    cell.key_values = values;
    cell.values.assign(block.metrics.size(), 0.0);
    cell.runs.assign(block.metrics.size(), 1);
    cell.min_values.assign(block.metrics.size(), 0.0);
    cell.max_values.assign(block.metrics.size(), 0.0);
    bool complete = true;
    for (std::size_t i = 0; i < block.metrics.size() && complete; ++i) {
      const MeasuredMetric& k = block.metrics[i];
      if (k.is_fairness()) continue;
      const auto it = samples[i].find(values);
      if (it == samples[i].end()) {
        out.errors.push_back("cell (" + key_text(block, values) + "): error: no measured " + k.metric +
                             (k.flow.empty() ? "" : " of flow '" + k.flow + "'") +
                             " in its files, which the measured block compares as " + k.name);
        complete = false;
        continue;
      }
      const std::vector<double>& v = it->second;
      cell.values[i] = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
      cell.runs[i] = v.size();
      cell.min_values[i] = *std::min_element(v.begin(), v.end());
      cell.max_values[i] = *std::max_element(v.begin(), v.end());
    }
    if (!complete) continue;
    for (std::size_t i = 0; i < block.metrics.size(); ++i) {
      const MeasuredMetric& k = block.metrics[i];
      if (!k.is_fairness()) continue;
      // Run r of a flow is its r-th sample (mapping order, then file order).
      // With as many runs of every flow, the index is the mean of each run's
      // index, as the simulated one is the mean of each seed's; otherwise it
      // is the index of the flows' mean throughputs.
      std::vector<const std::vector<double>*> runs;
      std::vector<double> means;
      for (const std::string& f : k.fairness) {
        for (std::size_t j = 0; j < block.metrics.size(); ++j) {
          const MeasuredMetric& m = block.metrics[j];
          if (!m.is_fairness() && m.flow == f && is_throughput(m.metric)) {
            runs.push_back(&samples[j].at(values));
            means.push_back(cell.values[j]);
            break;
          }
        }
      }
      const std::size_t n = runs.front()->size();
      const bool paired = std::all_of(runs.begin(), runs.end(), [n](const auto* r) { return r->size() == n; });
      if (!paired) {
        cell.values[i] = cell.min_values[i] = cell.max_values[i] = stats::jain_index(means);
        continue;
      }
      double sum = 0;
      std::vector<double> shares(runs.size());
      for (std::size_t r = 0; r < n; ++r) {
        for (std::size_t f = 0; f < runs.size(); ++f) shares[f] = (*runs[f])[r];
        const double index = stats::jain_index(shares);
        sum += index;
        cell.min_values[i] = r == 0 ? index : std::min(cell.min_values[i], index);
        cell.max_values[i] = r == 0 ? index : std::max(cell.max_values[i], index);
      }
      cell.values[i] = sum / static_cast<double>(n);
      cell.runs[i] = n;
    }
    cell.value = cell.values.front();
    out.cells.push_back(std::move(cell));
  }
  return out;
}

}  // namespace netsim::calibrate
