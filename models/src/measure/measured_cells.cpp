#include "netsim/measure/measured_cells.h"

#include <stdexcept>

#include "netsim/measure/measurement_file.h"

namespace netsim::measure {
namespace {

std::string present_metrics(const MeasuredRun& run) {
  std::string out;
  for (const auto& name : metric_names()) {
    if (metric_value(run, name)) out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

}  // namespace

MeasuredCells cells_from(const MeasurementMapping& mapping, std::string_view metric) {
  return cells_from(mapping, std::vector<std::string>{std::string(metric)});
}

MeasuredCells cells_from(const MeasurementMapping& mapping, const std::vector<std::string>& metrics) {
  for (const std::string& m : metrics) {
    if (!is_metric(m)) throw std::invalid_argument("unknown metric '" + m + "'");
  }
  MeasuredCells out;
  for (const MappingEntry& entry : mapping.entries) {
    const std::vector<std::string> wanted = entry.metric.empty() ? metrics : std::vector<std::string>{entry.metric};
    LoadedMeasurements loaded = load_measurement_file(entry.file, entry.format);
    for (auto& e : loaded.errors) out.errors.push_back(std::move(e));
    for (const MeasuredRun& run : loaded.runs) {
      for (const std::string& name : wanted) {
        const auto value = metric_value(run, name);
        if (!value) {
          out.errors.emplace_back(run.file, run.line,
                                  "this " + run.tool + (run.side.empty() ? "" : " " + run.side) + " report has no " +
                                      name + " (it has " + present_metrics(run) + "; set 'metric' for " +
                                      entry.source + ")");
          continue;
        }
        out.cells.push_back(MeasuredCell{entry.params, name, *value, run.file + ":" + std::to_string(run.line),
                                         entry.source});
      }
    }
  }
  return out;
}

}  // namespace netsim::measure
