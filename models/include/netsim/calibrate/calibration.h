// netsim's calibration mode: fit a scenario's declared free parameters
// (`calibrate:`) on some of its measured cells, then run every measured cell
// with the fitted values and report fitted and predicted cells apart.
//
// An evaluation runs each fitted cell with `seeds` seeds, always the same
// ones (common random numbers: two parameter vectors are compared on the
// same random draws, so noise does not steer the minimizer), and averages
// each metric over them; its residuals are log(simulated / measured) (or the
// relative error) per fitted cell and metric. Evaluations are cached by the
// exact parameter text, so a point the minimizer revisits costs nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "netsim/calibrate/calibration_spec.h"
#include "netsim/scenario/measured_comparison.h"
#include "netsim/scenario/scenario_spec.h"

namespace netsim::calibrate {

struct EvaluationProgress {
  int evaluation = 0;               // 1-based
  std::vector<std::string> values;  // parameter values as set
  double objective = 0;
  double best = 0;                  // best objective so far
  bool cached = false;
  double wall_seconds = 0;          // of this evaluation's runs
};

struct CalibrationOptions {
  std::vector<Override> overrides;  // applied to every run (the command line's --set, a profile)
  unsigned jobs = 0;                // worker threads; 0: all cores
  int max_evaluations = 0;          // > 0: replaces calibrate.max_evaluations
  // Replaces the scenario's measured cells (data files); keys and metrics stay the block's.
  std::optional<std::vector<MeasuredCell>> cells;
  std::vector<std::string> data_sources;  // where the measurements came from, for the profile
  std::function<void(const EvaluationProgress&)> progress;
  // Polled before each evaluation; once it returns true the fit stops there
  // and the result is built from the best point evaluated so far (its cells
  // are still run for the report), with stop_reason "interrupted".
  std::function<bool()> stop_requested;
};

struct CellResult {
  std::vector<std::string> key_values;  // in the order of MeasuredSpec::keys
  std::string metric;                   // MeasuredMetric::name
  bool fairness = false;
  bool fitted = false;
  double measured = 0;
  double sim_mean = 0, sim_min = 0, sim_max = 0;
  std::size_t runs = 0;
  double error = 0;  // throughput: relative error in %; fairness: index points
};

struct ClaimResult {
  std::string text;
  double measured = 0;
  std::optional<double> simulated;
};

struct CalibrationResult {
  std::string scenario_file;
  std::string scenario_name;
  CalibrationSpec spec;
  MeasuredSpec measured;
  std::vector<std::uint64_t> seeds;
  std::vector<std::string> start_values;   // as set in the scenario
  std::vector<std::string> fitted_values;
  std::vector<double> fitted;              // base units
  double start_objective = 0;
  double objective = 0;
  int evaluations = 0;
  int simulation_runs = 0;                 // the fit's, the final report's excluded
  std::string stop_reason;
  bool interrupted = false;
  double wall_seconds = 0;
  std::vector<std::string> data_sources;
  std::vector<CellResult> cells;           // every measured cell x fitted metric, at the fitted values
  std::size_t fitted_count = 0, predicted_count = 0;
  double fitted_mape = 0, predicted_mape = 0;  // mean |relative error| in %
  std::vector<ClaimResult> claims;
};

// Loads `scenario_file` (with options.overrides), fits, and evaluates every
// cell at the result. Throws ScenarioError for input problems (no measured
// cells, no calibrate block, an override of a fitted path) and
// std::runtime_error if a run fails.
CalibrationResult run_calibration(const std::string& scenario_file, const CalibrationOptions& options);

// The report: the fitted parameters, then every cell with measured,
// simulated (mean and range over the seeds), error and fitted/predicted,
// the MAPE of fitted and of predicted cells, and the claimed ratios.
void write_calibration_report(std::ostream& out, const CalibrationResult& r);

}  // namespace netsim::calibrate
