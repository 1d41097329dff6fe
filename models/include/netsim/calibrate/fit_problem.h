// What the minimizers see of a calibration: a residual vector as a function
// of the parameters in unit coordinates (each parameter's [min, max] mapped
// to [0, 1]); the objective is the sum of the squared residuals.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace netsim::calibrate {

using ResidualFunction = std::function<std::vector<double>(const std::vector<double>& unit_point)>;

struct FitOutcome {
  std::vector<double> unit_point;  // the best point evaluated
  double objective = 0;            // its sum of squared residuals
  int evaluations = 0;             // calls of the residual function
  std::string stop_reason;
};

double sum_of_squares(const std::vector<double>& residuals);

// Nelder-Mead (Lagarias et al. 1998 coefficients: reflection 1, expansion 2,
// contraction 1/2, shrink 1/2) on the unit box, every point clamped into it.
// The first simplex is `start` and `start` + 0.25 along each axis (- 0.25 where
// that leaves the box). Stops after `max_evaluations` calls, or when the
// simplex spans less than `tolerance` along every axis.
FitOutcome minimize_nelder_mead(const ResidualFunction& f, const std::vector<double>& start, int max_evaluations,
                                double tolerance);

// Levenberg-Marquardt (Eigen's unsupported LevenbergMarquardt, MINPACK's
// lmdif) with forward differences of `step` (in unit coordinates) from
// Eigen's NumericalDiff; points are clamped into the box before evaluation.
FitOutcome minimize_levenberg_marquardt(const ResidualFunction& f, const std::vector<double>& start,
                                        int max_evaluations, double step);

}  // namespace netsim::calibrate
