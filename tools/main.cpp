// netsim command-line tool: run, validate and draw scenarios; sweep into result directories.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "calibrate_command.h"
#include "cli_args.h"
#include "data_args.h"
#include "output_file.h"
#include "lab_command.h"
#include "sweep_commands.h"
#include "netsim/app/iperf2_from_result.h"
#include "netsim/app/ping_report.h"
#include "netsim/app/iperf3_from_result.h"
#include "netsim/calibrate/calibration_profile.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/measured_comparison.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/parallel_for.h"
#include "netsim/version.h"

namespace netsim::cli {
namespace {

// The overrides of one sweep cell: the cell's values first, so that the
// command line's --set, applied after them, wins on the same key.
std::vector<Override> cell_overrides(const std::vector<Override>& cell, const std::vector<Override>& cli) {
  std::vector<Override> all = cell;
  all.insert(all.end(), cli.begin(), cli.end());
  return all;
}

// Loads the file once to learn its sweep, then every cell with its overrides.
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

// Text adds the simulated-vs-measured table after the runs; CSV becomes one
// row per run of the compared flow with the measured value beside it.
// iperf3's own report of every iperf3 flow of every run: text blocks under a
// "== run" header when there are several, or -J JSON (one object, else an array).
void write_iperf3(std::ostream& out, const Options& o, const results::RunSet& set) {
  const app::Iperf3Side side = o.iperf3_server ? app::Iperf3Side::server : app::Iperf3Side::client;
  std::size_t count = 0;
  for (const auto& r : set.runs()) count += static_cast<std::size_t>(r.iperf3_size());
  if (count == 0) throw std::runtime_error("--format iperf3: the scenario has no flow with app: iperf3");
  const bool many = count > 1;
  if (o.iperf3 == Iperf3Format::json && many) out << "[\n";
  std::size_t n = 0;
  for (int i = 0; i < set.runs_size(); ++i) {
    const results::RunResult& r = set.runs(i);
    for (const results::Iperf3Result& x : r.iperf3()) {
      const app::Iperf3Test t = app::iperf3_test_from_result(x, r.seed());
      if (o.iperf3 == Iperf3Format::json) {
        if (n > 0) out << ",\n";
        app::write_iperf3_json(out, t, side);
      } else {
        if (many) {
          out << (n > 0 ? "\n" : "") << "== run " << (i + 1) << "/" << set.runs_size() << ": " << r.scenario_name()
              << " flow " << x.flow();
          for (const auto& ov : r.overrides()) out << "  " << ov.key() << "=" << ov.value();
          out << "\n";
        }
        app::write_iperf3_text(out, t, side);
      }
      ++n;
    }
  }
  if (o.iperf3 == Iperf3Format::json && many) out << "\n]\n";
}

// write(x) for every app record x of every run (records(run): its iperf2
// or ping results), under a "== run" header when there are several.
template <typename Records, typename Write>
void write_app_reports(std::ostream& out, const results::RunSet& set, Records records, Write write) {
  std::size_t count = 0;
  for (const auto& r : set.runs()) count += static_cast<std::size_t>(records(r).size());
  std::size_t n = 0;
  for (int i = 0; i < set.runs_size(); ++i) {
    const results::RunResult& r = set.runs(i);
    for (const auto& x : records(r)) {
      if (count > 1) {
        out << (n > 0 ? "\n" : "") << "== run " << (i + 1) << "/" << set.runs_size() << ": " << r.scenario_name()
            << " flow " << x.flow();
        for (const auto& ov : r.overrides()) out << "  " << ov.key() << "=" << ov.value();
        out << "\n";
      }
      write(x);
      ++n;
    }
  }
}

// iperf 2.1.8's -e report of every iperf2 flow of every run.
void write_iperf2(std::ostream& out, const Options& o, const results::RunSet& set) {
  const app::Iperf2Side side = o.iperf3_server ? app::Iperf2Side::server : app::Iperf2Side::client;
  std::size_t count = 0;
  for (const auto& r : set.runs()) count += static_cast<std::size_t>(r.iperf2_size());
  if (count == 0) throw std::runtime_error("--format iperf2: the scenario has no flow with app: iperf2");
  write_app_reports(
      out, set, [](const results::RunResult& r) -> const auto& { return r.iperf2(); },
      [&](const results::Iperf2Result& x) { app::write_iperf2_text(out, app::iperf2_test_from_result(x), side); });
}

// ping(8)'s output for every ping flow of every run.
void write_ping(std::ostream& out, const results::RunSet& set) {
  write_app_reports(
      out, set, [](const results::RunResult& r) -> const auto& { return r.ping(); },
      [&](const results::PingResult& x) { app::write_ping_text(out, x); });
}

void write_all(std::ostream& out, const Options& o, const results::RunSet& set, const std::optional<MeasuredSpec>& m) {
  if (o.ping) {
    write_ping(out, set);
    return;
  }
  if (o.iperf2) {
    write_iperf2(out, o, set);
    return;
  }
  if (o.iperf3 != Iperf3Format::none) {
    write_iperf3(out, o, set);
    return;
  }
  if (m && o.format == OutputFormat::csv) {
    write_comparison_csv(out, set, *m);
    return;
  }
  write_results(out, set, o.format);
  if (m && !m->cells.empty() && o.format == OutputFormat::text) write_comparison_text(out, set, *m);
}

int write_output(const Options& o, const results::RunSet& set, const std::optional<MeasuredSpec>& m) {
  if (!o.out_path) {
    write_all(std::cout, o, set, m);
    std::cout.flush();
    return std::cout ? kOk : kOutputError;
  }
  const bool written = write_or_rescue(*o.out_path, "results", [&](std::ostream& f) { write_all(f, o, set, m); });
  return written ? kOk : kOutputError;
}

// --trace-tcp / --trace-queue PATH for run i of n: PATH itself for a single run, else
// PATH with ".<i+1>" before its extension (trace.csv -> trace.3.csv).
std::string trace_path(const std::string& base, std::size_t i, std::size_t n) {
  if (n == 1) return base;
  const std::filesystem::path p(base);
  std::filesystem::path out = p.parent_path() / p.stem();
  out += "." + std::to_string(i + 1) + p.extension().string();
  return out.string();
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

int command_run(const Options& o) {
  std::vector<ScenarioSpec> cells = load_cells(o);
  std::optional<MeasuredSpec> measured =
      parse_measured(cells.front(), o.data.empty() ? CellsFrom::block : CellsFrom::data);
  if (!o.data.empty()) {
    // The block says which keys and which metric; the files give the cells.
    // The block's claims are the document's, not the data's: not read.
    if (!measured) {
      throw ScenarioError(SourceLoc{o.scenario_file, 0, 0}, "measured",
                          "--data needs the scenario's measured: block (keys and metric)");
    }
    std::optional<calibrate::DataCells> data = load_data_args(o, *measured, "run");
    if (!data) return kBadScenario;
    measured->cells = std::move(data->cells);
    measured->source = "--data";
  }
  if (o.iperf3 != Iperf3Format::none) {
    const auto& flows = cells.front().tcp_flows;
    if (std::none_of(flows.begin(), flows.end(), [](const TcpFlowSpec& f) { return f.app == "iperf3"; })) {
      std::cerr << "netsim: --format iperf3: " << o.scenario_file << " has no flow with app: iperf3\n";
      return kUsage;
    }
  }
  if (o.ping && cells.front().ping_flows.empty()) {
    std::cerr << "netsim: --format ping: " << o.scenario_file << " has no flow with type: ping\n";
    return kUsage;
  }
  if (o.iperf2) {
    const auto& flows = cells.front().tcp_flows;
    if (std::none_of(flows.begin(), flows.end(), [](const TcpFlowSpec& f) { return f.app == "iperf2"; })) {
      std::cerr << "netsim: --format iperf2: " << o.scenario_file << " has no flow with app: iperf2\n";
      return kUsage;
    }
  }
  // Every file the run will write is checked now, not after the simulation.
  if (o.out_path) {
    if (const std::string why = cannot_write_atomically(*o.out_path); !why.empty()) {
      std::cerr << "netsim: cannot write " << *o.out_path << ": " << why << "\n";
      return kOutputError;
    }
  }
  for (const auto& [base, what] : {std::pair{o.trace_tcp_path, "TCP"}, std::pair{o.trace_queue_path, "queue"}}) {
    if (!base) continue;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string path = trace_path(*base, i, cells.size());
      if (const std::string why = cannot_create(path); !why.empty()) {
        std::cerr << "netsim: cannot write " << what << " trace " << path << ": " << why << "\n";
        return kOutputError;
      }
    }
  }
  results::RunSet set;
  for (std::size_t i = 0; i < cells.size(); ++i) set.add_runs();
  // Cells are independent simulations: run them on worker threads, each
  // writing only its own slot, so output order does not depend on timing.
  std::atomic<bool> failed{false};
  parallel_for(cells.size(), o.jobs, [&](std::size_t i) {
    results::RunResult* slot = set.mutable_runs(static_cast<int>(i));
    try {
      RunOptions ro;
      std::ofstream trace;
      std::ofstream queue_trace;
      ro.tcp_trace = open_trace(trace, o.trace_tcp_path, i, cells.size(), "TCP");
      ro.queue_trace = open_trace(queue_trace, o.trace_queue_path, i, cells.size(), "queue");
      *slot = run_scenario(cells[i], ro);
      if (trace.is_open() && !trace.flush()) throw std::runtime_error("error while writing a TCP trace");
      if (queue_trace.is_open() && !queue_trace.flush()) throw std::runtime_error("error while writing a queue trace");
    } catch (const std::exception& e) {
      slot->set_scenario_name(cells[i].name);
      slot->set_scenario_file(cells[i].file);
      slot->set_seed(cells[i].seed);
      slot->set_error(e.what());
      failed = true;
    }
  });
  for (const auto& r : set.runs()) {
    if (!r.error().empty()) std::cerr << "netsim: run failed: " << r.error() << "\n";
  }
  const int written = write_output(o, set, measured);
  if (written != kOk) return written;
  return failed ? kRunFailed : kOk;
}

int command_validate(const Options& o) {
  std::vector<ScenarioSpec> cells = load_cells(o);
  parse_measured(cells.front());  // a malformed measured block is an input error too
  for (const ScenarioSpec& spec : cells) build_scenario(spec);  // catches combination errors too
  std::cout << o.scenario_file << ": ok (" << cells.size() << (cells.size() == 1 ? " run" : " runs") << ")\n";
  return kOk;
}

int command_topo(const Options& o) {
  ScenarioSpec spec = load_scenario(o.scenario_file, o.overrides);
  build_topology(spec).write_dot(std::cout, spec.name);
  return kOk;
}

int dispatch(const std::vector<std::string>& args) {
  Options o;
  try {
    o = parse_args(args);
  } catch (const UsageError& e) {
    std::cerr << "netsim: " << e.what() << "\n" << "Try 'netsim --help'.\n";
    return kUsage;
  }
  if (o.command == "version") {
    std::cout << "netsim " << NETSIM_VERSION << "\n";
    return kOk;
  }
  if (o.command == "help" || o.help) {
    std::cout << usage(o.command);
    return kOk;
  }
  try {
    if (o.profile_path) {
      // The profile's parameters come first, so that --set still wins on the same key.
      const calibrate::CalibrationProfile p = calibrate::load_calibration_profile(*o.profile_path);
      o.overrides.insert(o.overrides.begin(), p.overrides.begin(), p.overrides.end());
    }
    if (o.command == "run") return command_run(o);
    if (o.command == "validate") return command_validate(o);
    if (o.command == "sweep") return command_sweep(o, args);
    if (o.command == "results") return command_results(o);
    if (o.command == "calibrate") return command_calibrate(o, args);
    if (o.command == "lab") return command_lab(o, args);
    return command_topo(o);
  } catch (const ScenarioError& e) {
    std::cerr << e.what() << "\n";
    return kBadScenario;
  }
}

}  // namespace
}  // namespace netsim::cli

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return netsim::cli::dispatch(args);
  } catch (const std::exception& e) {
    std::cerr << "netsim: internal error: " << e.what() << "\n";
    return netsim::cli::kRunFailed;
  }
}
