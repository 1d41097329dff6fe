// The `calibrate:` block of a scenario: which parameters are free, on which
// measured cells they are fitted, and how.
//
//   calibrate:
//     parameters:
//       "links.a.delay + links.b.delay": { min: 20us, max: 150us, start: 111us }
//       hosts.receiver.nic.irq_min_interval: { min: 100us, max: 600us }
//     fit_on: { cc: newreno }        # filter over measured.keys; the other cells are predicted
//     metrics: [value]               # measured metrics fitted (default: all of the block)
//     seeds: 2                       # runs per cell and evaluation, the same seeds every time
//     check_seeds: 2                 # after the fit, every cell again on this many other seeds (0: off)
//     objective: squared_log_ratio   # or squared_relative
//     method: nelder_mead            # or levenberg_marquardt
//     max_evaluations: 80
//     tolerance: 0.01                # nelder_mead: stop when the simplex spans < 1% of every range
//     step: 0.05                     # finite-difference step (levenberg_marquardt, uncertainty), fraction of the range
//     starts: 1                      # minimizer runs: the start above, then Halton points over the box
//     uncertainty: true              # linearized intervals of the parameters and of every cell
//     confidence: 0.95               # their level
//
// See docs/calibration.md.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netsim/calibrate/calibration_parameter.h"
#include "netsim/scenario/measured_comparison.h"
#include "netsim/scenario/scenario_spec.h"

namespace netsim::calibrate {

enum class Objective { squared_log_ratio, squared_relative };
enum class Method { nelder_mead, levenberg_marquardt };

struct CalibrationSpec {
  std::vector<CalibrationParameter> parameters;
  // measured key name -> accepted values; a cell is fitted if it matches every entry.
  std::vector<std::pair<std::string, std::vector<std::string>>> fit_on;
  std::vector<std::size_t> metrics;  // indices into MeasuredSpec::metrics
  int seeds = 1;
  int check_seeds = 0;  // held-out seeds run at the fitted values (0: none)
  Objective objective = Objective::squared_log_ratio;
  Method method = Method::nelder_mead;
  int max_evaluations = 80;
  double tolerance = 0.01;
  double step = 0.05;
  int starts = 1;
  bool uncertainty = true;
  double confidence = 0.95;
};

// Parses spec.calibrate against the scenario's measured block; nullopt when
// the scenario has no `calibrate:`. Throws ScenarioError (file, line,
// column, field) on a malformed block, a key not in measured.keys, a filter
// that selects no cell, bounds of different kinds, a parameter that is also a
// measured key, ... A filter may select every cell (nothing is predicted).
std::optional<CalibrationSpec> parse_calibration(const ScenarioSpec& spec, const MeasuredSpec& measured);

// Whether a measured cell is one the parameters are fitted on.
bool is_fitted(const CalibrationSpec& c, const MeasuredSpec& m, const MeasuredCell& cell);

std::string_view objective_name(Objective o);
std::string_view method_name(Method m);

}  // namespace netsim::calibrate
