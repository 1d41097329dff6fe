#include "netsim/calibrate/measured_data_cells.h"

#include <map>

#include "netsim/scenario/scenario_loader.h"

namespace netsim::calibrate {

DataCells cells_from_data(const MeasuredSpec& block, const std::string& block_file,
                          const measure::MeasurementMapping& mapping) {
  if (block.metrics.size() != 1 || block.metrics.front().is_fairness()) {
    throw ScenarioError(SourceLoc{block_file, 0, 0}, "measured",
                        "measurement files replace a measured block with one flow metric; this block has " +
                            std::to_string(block.metrics.size()) + " metrics (give the cells in the block instead)");
  }
  const std::string metric = block.metrics.front().metric;
  DataCells out;
  const measure::MeasuredCells loaded = measure::cells_from(mapping, metric);
  for (const measure::MeasureError& e : loaded.errors) out.errors.push_back(e.what());

  std::map<std::vector<std::string>, std::pair<double, int>> sums;  // key values -> sum, count
  std::vector<std::vector<std::string>> order;
  for (const measure::MeasuredCell& c : loaded.cells) {
    const std::string where = c.source + " (" + c.entry + ")";
    if (c.metric != metric) {
      out.errors.push_back(where + ": error: the measured block compares " + metric + ", the entry gives " + c.metric);
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
      out.errors.push_back(where + ": error: " + problem);
      continue;
    }
    auto [it, fresh] = sums.emplace(values, std::pair<double, int>{0.0, 0});
    if (fresh) order.push_back(values);
    it->second.first += c.value;
    ++it->second.second;
    std::string keys;
    for (std::size_t k = 0; k < values.size(); ++k) keys += (k ? ", " : "") + block.keys[k].first + "=" + values[k];
    out.sources.push_back(c.source + " (" + keys + ")");
  }
  for (const auto& values : order) {
    const auto& [sum, n] = sums.at(values);
    MeasuredCell cell;
    cell.key_values = values;
    cell.value = sum / n;
    cell.values = {cell.value};
    out.cells.push_back(std::move(cell));
  }
  return out;
}

}  // namespace netsim::calibrate
