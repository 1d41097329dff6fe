#include "cell_runs.h"

#include <iostream>

namespace netsim::cli {

std::vector<ScenarioSpec> load_cells(const Options& o) { return netsim::load_cells(o.scenario_file, o.overrides); }

ComparedCells compared_cells(const Options& o, const ScenarioSpec& first_cell, const std::string& command) {
  ComparedCells out = netsim::compared_cells(first_cell, o.data, command);
  for (const std::string& line : out.messages) std::cerr << line << "\n";
  return out;
}

CellRunOptions cell_run_options(const Options& o) {
  CellRunOptions ro;
  ro.jobs = o.jobs;
  ro.trace_tcp_path = o.trace_tcp_path;
  ro.trace_queue_path = o.trace_queue_path;
  ro.pcap_dir = o.pcap_dir;
  ro.siftr_path = o.siftr_path;
  return ro;
}

results::RunSet run_cells(const std::vector<ScenarioSpec>& cells, const Options& o) {
  results::RunSet set = netsim::run_cells(cells, cell_run_options(o));
  for (const auto& r : set.runs()) {
    if (!r.error().empty()) std::cerr << "netsim: run failed: " << r.error() << "\n";
  }
  return set;
}

}  // namespace netsim::cli
