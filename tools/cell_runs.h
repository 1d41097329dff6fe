// The command line's face of netsim/scenario/scenario_cells.h, for `netsim
// run` and `netsim plot compare`: the cells of Options' scenario and
// overrides, what the library returns to say printed on stderr.
#pragma once

#include <string>
#include <vector>

#include "cli_args.h"
#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/scenario_cells.h"
#include "netsim/scenario/scenario_spec.h"

namespace netsim::cli {

// netsim::load_cells of o.scenario_file with o.overrides.
std::vector<ScenarioSpec> load_cells(const Options& o);

// netsim::compared_cells with o.data; its messages go to stderr (the
// summary of --data prefixed with `command`).
ComparedCells compared_cells(const Options& o, const ScenarioSpec& first_cell, const std::string& command);

// -j, --trace-tcp, --trace-queue and --pcap.
CellRunOptions cell_run_options(const Options& o);

// netsim::run_cells; each failed run is named on stderr.
results::RunSet run_cells(const std::vector<ScenarioSpec>& cells, const Options& o);

}  // namespace netsim::cli
