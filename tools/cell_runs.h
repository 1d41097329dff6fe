// The runs of a scenario's cells, as `netsim run` does them and `netsim plot
// compare` reuses: load every sweep cell with the command line's overrides,
// resolve the measured cells a comparison uses, run the cells in parallel.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli_args.h"
#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/measured_comparison.h"
#include "netsim/scenario/scenario_spec.h"

namespace netsim::cli {

// Loads the file once to learn its sweep, then every cell with its overrides
// (the cell's values first, so that --set wins on the same key).
std::vector<ScenarioSpec> load_cells(const Options& o);

// The measured cells a comparison uses: the scenario's measured: block, its
// cells replaced by those of --data when given (the block still says the
// keys and the metric). `measured` is nullopt when there is no block and no
// --data; `data_unusable` when --data gave no usable cell (said on stderr,
// prefixed with `command`). Throws ScenarioError for --data without a block.
struct ComparedCells {
  std::optional<MeasuredSpec> measured;
  bool data_unusable = false;
};
ComparedCells compared_cells(const Options& o, const ScenarioSpec& first_cell, const std::string& command);

// --trace-tcp / --trace-queue PATH for run i of n: PATH itself for a single
// run, else PATH with ".<i+1>" before its extension (trace.csv -> trace.3.csv).
std::string trace_path(const std::string& base, std::size_t i, std::size_t n);

// The capture directory of run i of n: DIR itself for a single run, else DIR/run-<i+1>.
std::string capture_dir(const std::string& base, std::size_t i, std::size_t n);

// Runs every cell on o.jobs worker threads, each writing only its own slot,
// so that the set's order does not depend on timing; with o.trace_tcp_path
// and o.trace_queue_path, each run's traces. A failed run keeps its
// scenario, seed and error (and is named on stderr).
results::RunSet run_cells(const std::vector<ScenarioSpec>& cells, const Options& o);

}  // namespace netsim::cli
