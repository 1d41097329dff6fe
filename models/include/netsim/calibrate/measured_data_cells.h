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

// The files give each of the block's metrics (a throughput, a count, a
// ping's rtt_min_ms, rtt_avg_ms and rtt_max_ms together) unless a mapping
// entry names another metric, which is an error for that entry. When the
// block compares several flows (T2's s1 and s2), each entry must say which
// flow its file measured (`flow:`), and a fairness index is computed from
// the cell's measured throughputs of its flows (Jain's index): run r of a
// flow is its r-th run in mapping order, and with as many runs of every flow
// the index is the mean of each run's index (the simulated side averages
// each seed's), otherwise the index of the mean throughputs. Each value
// carries how many runs gave it and their range. A cell some
// of whose metrics no file gives is left out with an error. A sample's
// params must name every key of the block, by its short name or by its
// scenario path, and nothing else. Throws ScenarioError (at `block_file`)
// for a fairness index over a flow whose throughput the block does not
// compare.
DataCells cells_from_data(const MeasuredSpec& block, const std::string& block_file,
                          const measure::MeasurementMapping& mapping);

}  // namespace netsim::calibrate
