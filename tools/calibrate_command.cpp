// `netsim calibrate`: the command-line face of netsim::calibrate.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "calibrate_command.h"
#include "data_args.h"
#include "output_file.h"
#include "signal_stop.h"
#include "netsim/calibrate/calibration.h"
#include "netsim/calibrate/calibration_profile.h"
#include "netsim/scenario/scenario_loader.h"

namespace netsim::cli {
namespace {

std::string default_profile_path(const std::string& scenario_file) {
  return std::filesystem::path(scenario_file).stem().string() + ".profile.yaml";
}

}  // namespace

int command_calibrate(const Options& o, const std::vector<std::string>& args) {
  // Checked before minutes of fitting, not after.
  const std::string target = o.out_path ? *o.out_path : default_profile_path(o.scenario_file);
  if (const std::string why = cannot_write_atomically(target); !why.empty()) {
    std::cerr << "netsim: cannot write the profile " << target << ": " << why << "\n";
    return kOutputError;
  }
  calibrate::CalibrationOptions co;
  co.overrides = o.overrides;
  co.jobs = o.jobs;
  co.max_evaluations = o.max_evaluations;
  co.starts = o.starts;
  co.check_seeds = o.check_seeds;
  if (!o.data.empty()) {
    // The block says which keys and which metric; the files give the values.
    const ScenarioSpec spec = load_scenario(o.scenario_file, o.overrides);
    const std::optional<MeasuredSpec> block = parse_measured(spec, CellsFrom::data);
    if (!block) throw ScenarioError(SourceLoc{o.scenario_file, 0, 0}, "measured",
                                    "--data needs the scenario's measured: block (keys and metric)");
    std::optional<calibrate::DataCells> loaded = load_data_args(o, *block, "calibrate");
    if (!loaded) return kBadScenario;
    calibrate::DataCells& data = *loaded;
    co.cells = std::move(data.cells);
    co.data_sources = std::move(data.sources);
  }
  co.progress = [](const calibrate::EvaluationProgress& p) {
    if (p.start > 1) {
      std::fprintf(stderr, "calibrate: start %d, evaluation %d:", p.start, p.evaluation);
    } else {
      std::fprintf(stderr, "calibrate: evaluation %d:", p.evaluation);
    }
    for (const std::string& v : p.values) std::fprintf(stderr, " %s", v.c_str());
    std::fprintf(stderr, "  objective %.5f  best %.5f  %s\n", p.objective, p.best,
                 p.cached ? "(cached)" : (std::to_string(p.wall_seconds).substr(0, 5) + " s").c_str());
  };
  co.note = [](const std::string& line) { std::fprintf(stderr, "calibrate: %s\n", line.c_str()); };
  // SIGINT/SIGTERM: finish the evaluation in flight, then report and write
  // the profile for the best point so far; a second signal aborts.
  SignalStop stop(
      [](int) {
        std::fprintf(stderr,
                     "calibrate: stopping after the evaluation in flight; the best point so far is reported and "
                     "written (signal again to abort)\n");
      },
      kInterrupted);
  co.stop_requested = [&stop] { return stop.received() != 0; };
  const calibrate::CalibrationResult r = calibrate::run_calibration(o.scenario_file, co);
  calibrate::write_calibration_report(std::cout, r);
  std::cout.flush();

  const std::string command = command_line(args);
  if (!write_or_rescue(target, "profile",
                       [&](std::ostream& f) { calibrate::write_calibration_profile(f, r, command); })) {
    return kOutputError;
  }
  std::cerr << "calibrate: profile written to " << target << " (" << r.evaluations << " evaluations, "
            << r.simulation_runs << " runs, " << static_cast<int>(r.wall_seconds + 0.5) << " s"
            << (r.interrupted ? "; interrupted: the best point so far, not a converged fit" : "") << ")\n";
  return r.interrupted ? kInterrupted : kOk;
}

}  // namespace netsim::cli
