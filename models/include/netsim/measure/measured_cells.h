// Measured values by scenario parameters: what calibration fits against.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measure_error.h"
#include "netsim/measure/measurement_mapping.h"

namespace netsim::measure {

inline constexpr std::string_view kDefaultMetric = "receiver_mbps";

// One measured sample. Several runs for the same parameters (a file with
// several runs, or several entries with equal params) give several cells,
// one per run, in mapping order: repeated measurements stay separate samples
// so that the caller sees their spread.
struct MeasuredCell {
  std::map<std::string, std::string> params;  // from the mapping entry
  std::string metric;                         // e.g. "receiver_mbps"
  double value = 0;                           // in the metric's unit (see measured_run.h)
  std::string source;                         // the run: "FILE:LINE"
  std::string entry;                          // the mapping entry: "measurements.yaml:4" or "--data ARG"
};

struct MeasuredCells {
  std::vector<MeasuredCell> cells;
  // One per unreadable or broken measurement file, and one per run that lacks
  // the metric; the other files and runs still give their cells.
  std::vector<MeasureError> errors;
};

// Loads every entry's file and takes `metric` (an entry's own `metric` wins)
// from each of its runs. Throws std::invalid_argument if `metric` is not one
// of metric_names().
MeasuredCells cells_from(const MeasurementMapping& mapping, std::string_view metric = kDefaultMetric);
// The same for several metrics at once (a ping's rtt_min_ms, rtt_avg_ms and
// rtt_max_ms): each file is read once, and each of its runs gives one cell
// per metric, in the order of `metrics` (an entry's own `metric` replaces
// them all). A run without one of them is an error for that metric.
MeasuredCells cells_from(const MeasurementMapping& mapping, const std::vector<std::string>& metrics);

}  // namespace netsim::measure
