// Measured cells from measurement files (netsim/measure) for a scenario's
// measured block: each file's parameters are mapped onto the block's keys,
// and repeated measurements of one cell are averaged into that cell.
#pragma once

#include <string>
#include <vector>

#include "netsim/measure/measured_cells.h"
#include "netsim/measure/measurement_mapping.h"
#include "netsim/scenario/measured_comparison.h"

namespace netsim::calibrate {

struct DataCells {
  std::vector<MeasuredCell> cells;  // in order of first appearance
  std::vector<std::string> sources; // "FILE:LINE (key=value, ...)" per sample, for the profile
  std::vector<std::string> errors;  // "FILE:LINE: error: ..." per file or run that could not be used
};

// The block's metrics must all be one flow's (a throughput, a count, or a
// ping's rtt_min_ms, rtt_avg_ms and rtt_max_ms together); the files give
// each of them unless a mapping entry names another, which is an error for
// that entry, and a cell some of whose metrics no file gives is left out
// with an error. A sample's params must name every key of the block, by its
// short name or by its scenario path, and nothing else. Throws ScenarioError
// (at `block_file`) for a fairness index or metrics of several flows.
DataCells cells_from_data(const MeasuredSpec& block, const std::string& block_file,
                          const measure::MeasurementMapping& mapping);

}  // namespace netsim::calibrate
