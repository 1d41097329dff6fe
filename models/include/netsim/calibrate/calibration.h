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
  int start = 1;                    // which start of a multi-start fit (1-based)
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
  int starts = 0;                   // > 0: replaces calibrate.starts
  int check_seeds = -1;             // >= 0: replaces calibrate.check_seeds
  // Replaces the scenario's measured cells (data files); keys and metrics stay the block's.
  std::optional<std::vector<MeasuredCell>> cells;
  std::vector<std::string> data_sources;  // where the measurements came from, for the profile
  std::function<void(const EvaluationProgress&)> progress;
  // Polled before each evaluation; once it returns true the fit stops there
  // and the result is built from the best point evaluated so far (its cells
  // are still run for the report), with stop_reason "interrupted".
  std::function<bool()> stop_requested;
  // Lines about the phases after the fit (the runs at other starts' minima,
  // the uncertainty analysis), for stderr.
  std::function<void(const std::string&)> note;
};

struct CellResult {
  std::vector<std::string> key_values;  // in the order of MeasuredSpec::keys
  std::string metric;                   // MeasuredMetric::name
  bool fairness = false;
  bool points = false;  // its error is in points: Jain's index (x 100) or a CPU percentage
  bool count = false;  // a counter (retransmits, RTOs, ...): compared as max(value, 1)
  bool fitted = false;
  double measured = 0;
  double sim_mean = 0, sim_min = 0, sim_max = 0;
  std::size_t runs = 0;
  double error = 0;  // throughput: relative error in %; fairness: index points; count: % of max(measured, 1)
  // The uncertainty analysis (UncertaintyResult): the `level` interval of the
  // simulated mean from the parameters' uncertainty alone (band), and the
  // prediction interval that adds the fitted cells' scatter; both in the
  // metric's units. has_band is false when the analysis did not run or the
  // cell depends on an undetermined parameter.
  bool has_band = false;
  double band_lo = 0, band_hi = 0;
  double prediction_lo = 0, prediction_hi = 0;
  bool measured_in_prediction = false;
};

// One start of a (multi-start) fit and the local minimum it ended in.
struct StartResult {
  int index = 0;                          // 1-based; 1 is the declared start
  std::vector<std::string> start_values;  // as set
  std::vector<std::string> values;        // where the minimizer ended
  std::vector<double> unit_point;
  double objective = 0;
  int evaluations = 0;
  std::string stop_reason;
  int same_as = 0;          // > 0: ended in the same minimum as that earlier start (within 2% of every range)
  bool best = false;        // the minimum the result reports
  // Its objective is below the F-test threshold of the best (UncertaintyResult
  // ::equivalent_objective): the fitted cells cannot tell it from the best.
  bool equivalent = false;
  bool cells_run = false;   // all cells were run at `values` (false after an interruption)
  double fitted_mape = 0, predicted_mape = 0;
};

struct ParameterUncertainty {
  bool determined = true;   // false: the fitted cells do not depend on it (infinite error)
  double std_error = 0;     // base units
  double lo = 0, hi = 0;    // fitted -+ t * std_error, clipped to [min, max]
  bool clipped_lo = false, clipped_hi = false;
};

// Linearized uncertainty at the fit (netsim/calibrate/fit_statistics.h): a
// central-difference Jacobian of every cell's residual, step `step` of each
// parameter's range either side of the fitted value.
struct UncertaintyResult {
  bool available = false;
  std::string why_not;      // when not available
  double level = 0.95;
  double step = 0;
  std::size_t residuals = 0;
  int dof = 0;
  double s = 0;             // scatter of the fitted residuals, sqrt(SSR / dof)
  double t = 0;             // Student t quantile
  double equivalent_objective = 0;  // F-test threshold for "fits as well" (also without the Jacobian)
  std::vector<ParameterUncertainty> parameters;
  std::vector<std::vector<double>> correlation;
  std::size_t fitted_in = 0, fitted_with = 0;        // fitted cells: measured in the prediction interval / with one
  std::size_t predicted_in = 0, predicted_with = 0;  // predicted cells: the same
  int simulation_runs = 0;
};

struct ClaimResult {
  std::string text;
  double measured = 0;
  std::optional<double> simulated;
};

// The fitted values run again on seeds the fit never saw (`check_seeds`):
// the common random numbers that keep the optimizer from chasing noise can
// also let it fit the noise of its own seeds; this shows whether it did.
struct SeedCheckResult {
  bool available = false;
  std::vector<std::uint64_t> seeds;
  double objective = 0;                        // over the fitted cells, as the fit's
  double fitted_mape = 0, predicted_mape = 0;  // mean |relative error| in %
  std::size_t fitted_count = 0, predicted_count = 0;
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
  std::vector<StartResult> starts;         // one per start, in order
  UncertaintyResult uncertainty;
  SeedCheckResult seed_check;
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
