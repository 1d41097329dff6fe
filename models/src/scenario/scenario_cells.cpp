#include "netsim/scenario/scenario_cells.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "netsim/calibrate/calibration_profile.h"
#include "netsim/measure/measure_error.h"
#include "netsim/measure/measurement_mapping.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/parallel_for.h"

namespace netsim {
namespace {

std::vector<Override> cell_overrides(const std::vector<Override>& cell, const std::vector<Override>& given) {
  std::vector<Override> all = cell;
  all.insert(all.end(), given.begin(), given.end());
  return all;
}

// Opens run i's file of a trace option into `f`; nullptr when the option is absent.
std::ostream* open_trace(std::ofstream& f, const std::optional<std::string>& base, std::size_t i, std::size_t n,
                         const char* what) {
  if (!base) return nullptr;
  const std::string path = trace_path(*base, i, n);
  f.open(path, std::ios::trunc);
  if (!f) throw std::runtime_error(std::string("cannot write ") + what + " trace " + path);
  return &f;
}

}  // namespace

std::vector<Override> with_profile(const std::optional<std::string>& profile_path, std::vector<Override> overrides) {
  if (!profile_path) return overrides;
  const calibrate::CalibrationProfile p = calibrate::load_calibration_profile(*profile_path);
  overrides.insert(overrides.begin(), p.overrides.begin(), p.overrides.end());
  return overrides;
}

std::vector<ScenarioSpec> load_cells(const std::string& scenario_file, const std::vector<Override>& overrides) {
  ScenarioSpec base = load_scenario(scenario_file, overrides);
  std::vector<ScenarioSpec> cells;
  for (const auto& cell : expand_sweep(base)) {
    if (cell.empty()) {
      cells.push_back(base);
    } else {
      cells.push_back(load_scenario(scenario_file, cell_overrides(cell, overrides)));
    }
  }
  return cells;
}

DataLoad load_data(const std::vector<std::string>& data, const MeasuredSpec& block, const std::string& scenario_file,
                   const std::string& command) {
  DataLoad out;
  measure::MeasurementMapping mapping;
  try {
    for (const std::string& arg : data) {
      const bool mapping_file = (arg.ends_with(".yaml") || arg.ends_with(".yml")) && arg.find('=') == std::string::npos;
      const measure::MeasurementMapping m =
          mapping_file ? measure::load_mapping(arg) : measure::MeasurementMapping{{measure::parse_data_arg(arg)}};
      mapping.entries.insert(mapping.entries.end(), m.entries.begin(), m.entries.end());
    }
  } catch (const measure::MeasureError& e) {
    out.messages.emplace_back(e.what());
    return out;
  }
  calibrate::DataCells cells = calibrate::cells_from_data(block, scenario_file, mapping);
  out.messages = cells.errors;
  if (cells.cells.empty()) {
    out.messages.push_back("netsim: " + command + ": no usable measurement in --data");
    return out;
  }
  out.messages.push_back(
      command + ": " + std::to_string(cells.sources.size()) + " measurements in " + std::to_string(cells.cells.size()) +
      " cells from --data" +
      (cells.errors.empty() ? "" : " (" + std::to_string(cells.errors.size()) + " not usable, above)"));
  out.data = std::move(cells);
  return out;
}

ComparedCells compared_cells(const ScenarioSpec& first_cell, const std::vector<std::string>& data,
                             const std::string& command) {
  ComparedCells out;
  out.measured = parse_measured(first_cell, data.empty() ? CellsFrom::block : CellsFrom::data);
  if (data.empty()) return out;
  // The block says which keys and which metric; the files give the cells.
  // The block's claims are the document's, not the data's: not read.
  if (!out.measured) {
    throw ScenarioError(SourceLoc{first_cell.file, 0, 0}, "measured",
                        "--data needs the scenario's measured: block (keys and metric)");
  }
  DataLoad loaded = load_data(data, *out.measured, first_cell.file, command);
  out.messages = std::move(loaded.messages);
  if (!loaded.data) {
    out.data_unusable = true;
    return out;
  }
  out.measured->cells = std::move(loaded.data->cells);
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

std::optional<std::string> cell_capture_dir(const ScenarioSpec& cell, const CellRunOptions& o, std::size_t i,
                                            std::size_t n) {
  // The option, else the block's own dir; per run, so that runs never share a file.
  if (o.pcap_dir) return capture_dir(*o.pcap_dir, i, n);
  if (cell.capture && !cell.capture->dir.empty()) return capture_dir(cell.capture->dir, i, n);
  return std::nullopt;
}

std::string cell_siftr_path(const ScenarioSpec& cell, const CellRunOptions& o, std::size_t i, std::size_t n) {
  if (o.siftr_path) return trace_path(*o.siftr_path, i, n);
  if (n == 1) return {};  // each host's siftr.log as written
  // Several runs: one file per run, after the (first) host's own log name.
  for (const HostSpec& h : cell.hosts) {
    if (h.siftr && !h.siftr->log.empty()) return trace_path(h.siftr->log, i, n);
  }
  return {};
}

results::RunSet run_cells(const std::vector<ScenarioSpec>& cells, const CellRunOptions& o) {
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
      if (const std::optional<std::string> pcap = cell_capture_dir(cells[i], o, i, cells.size())) ro.pcap_dir = *pcap;
      ro.siftr_path = cell_siftr_path(cells[i], o, i, cells.size());
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
  return set;
}

}  // namespace netsim
