#include "cell_runs.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "data_args.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/parallel_for.h"

namespace netsim::cli {
namespace {

std::vector<Override> cell_overrides(const std::vector<Override>& cell, const std::vector<Override>& cli) {
  std::vector<Override> all = cell;
  all.insert(all.end(), cli.begin(), cli.end());
  return all;
}

// Opens run i's file of a --trace-* option into `f`; nullptr when the option is absent.
std::ostream* open_trace(std::ofstream& f, const std::optional<std::string>& base, std::size_t i, std::size_t n,
                         const char* what) {
  if (!base) return nullptr;
  const std::string path = trace_path(*base, i, n);
  f.open(path, std::ios::trunc);
  if (!f) throw std::runtime_error(std::string("cannot write ") + what + " trace " + path);
  return &f;
}

}  // namespace

std::vector<ScenarioSpec> load_cells(const Options& o) {
  ScenarioSpec base = load_scenario(o.scenario_file, o.overrides);
  std::vector<ScenarioSpec> cells;
  for (const auto& cell : expand_sweep(base)) {
    if (cell.empty()) {
      cells.push_back(base);
    } else {
      cells.push_back(load_scenario(o.scenario_file, cell_overrides(cell, o.overrides)));
    }
  }
  return cells;
}

ComparedCells compared_cells(const Options& o, const ScenarioSpec& first_cell, const std::string& command) {
  ComparedCells out;
  out.measured = parse_measured(first_cell, o.data.empty() ? CellsFrom::block : CellsFrom::data);
  if (o.data.empty()) return out;
  // The block says which keys and which metric; the files give the cells.
  // The block's claims are the document's, not the data's: not read.
  if (!out.measured) {
    throw ScenarioError(SourceLoc{o.scenario_file, 0, 0}, "measured",
                        "--data needs the scenario's measured: block (keys and metric)");
  }
  std::optional<calibrate::DataCells> data = load_data_args(o, *out.measured, command);
  if (!data) {
    out.data_unusable = true;
    return out;
  }
  out.measured->cells = std::move(data->cells);
  out.measured->source = "--data";
  return out;
}

std::string trace_path(const std::string& base, std::size_t i, std::size_t n) {
  if (n == 1) return base;
  const std::filesystem::path p(base);
  std::filesystem::path out = p.parent_path() / p.stem();
  out += "." + std::to_string(i + 1) + p.extension().string();
  return out.string();
}

std::string capture_dir(const std::string& base, std::size_t i, std::size_t n) {
  if (n == 1) return base;
  return (std::filesystem::path(base) / ("run-" + std::to_string(i + 1))).string();
}

results::RunSet run_cells(const std::vector<ScenarioSpec>& cells, const Options& o) {
  results::RunSet set;
  for (std::size_t i = 0; i < cells.size(); ++i) set.add_runs();
  parallel_for(cells.size(), o.jobs, [&](std::size_t i) {
    results::RunResult* slot = set.mutable_runs(static_cast<int>(i));
    try {
      RunOptions ro;
      std::ofstream trace;
      std::ofstream queue_trace;
      ro.tcp_trace = open_trace(trace, o.trace_tcp_path, i, cells.size(), "TCP");
      ro.queue_trace = open_trace(queue_trace, o.trace_queue_path, i, cells.size(), "queue");
      // --pcap, else the block's own dir; per run, so that runs never share a file.
      const std::optional<std::string> pcap =
          o.pcap_dir ? o.pcap_dir
                     : cells[i].capture && !cells[i].capture->dir.empty() ? std::optional(cells[i].capture->dir)
                                                                          : std::nullopt;
      if (pcap) ro.pcap_dir = capture_dir(*pcap, i, cells.size());
      *slot = run_scenario(cells[i], ro);
      if (trace.is_open() && !trace.flush()) throw std::runtime_error("error while writing a TCP trace");
      if (queue_trace.is_open() && !queue_trace.flush()) throw std::runtime_error("error while writing a queue trace");
    } catch (const std::exception& e) {
      slot->set_scenario_name(cells[i].name);
      slot->set_scenario_file(cells[i].file);
      slot->set_seed(cells[i].seed);
      slot->set_error(e.what());
    }
  });
  for (const auto& r : set.runs()) {
    if (!r.error().empty()) std::cerr << "netsim: run failed: " << r.error() << "\n";
  }
  return set;
}

}  // namespace netsim::cli
