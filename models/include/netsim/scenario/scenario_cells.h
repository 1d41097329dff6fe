// The runs of a scenario's sweep cells, as `netsim run` does them (and
// `netsim plot compare` and the Python module's netsim.run): load every
// cell with the caller's overrides, resolve the measured cells a comparison
// uses, run the cells in parallel into one RunSet.
//
//   std::vector<Override> sets = with_profile("profiles/fit.yaml", {{"seed", "7"}});
//   std::vector<ScenarioSpec> cells = load_cells("scenarios/t1-loss-resilience.yaml", sets);
//   ComparedCells compared = compared_cells(cells.front(), {});
//   results::RunSet set = run_cells(cells, CellRunOptions{});
//   if (compared.measured) for (const ComparisonRow& row : compare(set, *compared.measured)) ...
//
// Nothing here writes to stdout or stderr: what the CLI prints is returned.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "netsim/calibrate/measured_data_cells.h"
#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/measured_comparison.h"
#include "netsim/scenario/scenario_spec.h"

namespace netsim {

// A calibration profile's parameters (calibrate::load_calibration_profile)
// before `overrides`, so that a later override still wins on the same key;
// `overrides` alone without a profile. Throws ScenarioError.
std::vector<Override> with_profile(const std::optional<std::string>& profile_path, std::vector<Override> overrides);

// Loads the file once to learn its sweep, then every cell with `overrides`
// (the cell's values first, so that an override wins on the same key; an
// axis whose key is overridden is dropped). Throws ScenarioError.
std::vector<ScenarioSpec> load_cells(const std::string& scenario_file, const std::vector<Override>& overrides);

// Measured cells from measurement files: `data` are --data arguments, each a
// mapping file (*.yaml or *.yml without '=') or one measurement file with its
// cell's keys ("logs/x.json:cc=cubic,hz=100"), read for `block`'s keys and
// metrics. `messages` are the lines `netsim <command>` prints on stderr, in
// order: each unusable file or run, then a summary (or why nothing is usable,
// when `data` is nullopt).
struct DataLoad {
  std::optional<calibrate::DataCells> data;
  std::vector<std::string> messages;
};
DataLoad load_data(const std::vector<std::string>& data, const MeasuredSpec& block, const std::string& scenario_file,
                   const std::string& command);

// The measured cells a comparison uses: the scenario's measured: block, its
// cells replaced by those of `data` when given (the block still says the
// keys and the metric). `measured` is nullopt when there is no block and no
// data; `data_unusable` when the data gave no usable cell. `messages` as in
// DataLoad. Throws ScenarioError for data without a block.
struct ComparedCells {
  std::optional<MeasuredSpec> measured;
  bool data_unusable = false;
  std::vector<std::string> messages;
};
ComparedCells compared_cells(const ScenarioSpec& first_cell, const std::vector<std::string>& data,
                             const std::string& command = "run");

// How run_cells runs the cells (the CLI's --trace-tcp, --trace-queue, --pcap, --siftr, -j).
struct CellRunOptions {
  unsigned jobs = 0;                            // worker threads; 0: all cores
  std::optional<std::string> trace_tcp_path;    // per-ACK sender state, CSV (trace_path per run)
  std::optional<std::string> trace_queue_path;  // switch port occupancy, CSV (trace_path per run)
  std::optional<std::string> pcap_dir;          // capture files (capture_dir per run); else a capture: block's dir
  std::optional<std::string> siftr_path;        // SIFTR logs (trace_path per run); else the hosts' siftr.log
};

// Where run i of n writes its SIFTR log (RunOptions::siftr_path): --siftr
// through trace_path, else with several runs the hosts' siftr.log through
// trace_path; empty: each host's siftr.log as written.
std::string cell_siftr_path(const ScenarioSpec& cell, const CellRunOptions& o, std::size_t i, std::size_t n);

// A trace PATH for run i of n: PATH itself for a single run, else PATH with
// ".<i+1>" before its extension (trace.csv -> trace.3.csv).
std::string trace_path(const std::string& base, std::size_t i, std::size_t n);

// The capture directory of run i of n: DIR itself for a single run, else DIR/run-<i+1>.
std::string capture_dir(const std::string& base, std::size_t i, std::size_t n);

// Where run i of n writes its capture files: o.pcap_dir, else the cell's
// capture: block dir, through capture_dir; nullopt when neither is given.
std::optional<std::string> cell_capture_dir(const ScenarioSpec& cell, const CellRunOptions& o, std::size_t i,
                                            std::size_t n);

// Runs every cell on o.jobs worker threads, each writing only its own slot,
// so that the set's order does not depend on timing; with the trace paths,
// each run's traces. A failed run keeps its scenario, seed and error.
results::RunSet run_cells(const std::vector<ScenarioSpec>& cells, const CellRunOptions& o);

}  // namespace netsim
