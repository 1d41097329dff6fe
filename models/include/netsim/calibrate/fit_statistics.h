// What a least-squares fit can say about its own precision, for the
// calibration report: how well the fitted cells pin each parameter, how
// much a predicted cell depends on that, and which other local minima fit
// as well. Pure functions of residuals and Jacobians (no simulation).
//
// The model is the classical one of nonlinear regression (Bates & Watts,
// "Nonlinear Regression Analysis and Its Applications", 1988, ch. 2):
// residuals r(theta) with n entries, p parameters, SSR = |r|^2 at the fit,
// the scatter s^2 = SSR / (n - p) standing for an unknown noise variance,
// and the linearization r(theta) ~ r(theta_hat) + J (theta - theta_hat). Then
// Cov(theta_hat) ~ s^2 (J'J)^-1, a one-parameter `level` interval is
// theta_hat_i +- t(level, n - p) sqrt(Cov_ii), and a derived quantity with
// gradient g has the confidence half-width t sqrt(g' Cov g) and, for a new
// observation with the same scatter, the prediction half-width
// t sqrt(g' Cov g + s^2). For a simulator, s is mostly model error, not
// noise: the intervals say what the fitted cells allow, not what is true.
#pragma once

#include <cstdint>
#include <vector>

namespace netsim::calibrate {

// Point `index` (>= 1) of the Halton sequence in `dims` dimensions (radical
// inverses in the bases 2, 3, 5, 7, 11, ...): deterministic points spread
// evenly over the unit box, the further starts of a multi-start fit.
// Supports up to 16 dimensions.
std::vector<double> halton_point(std::uint64_t index, std::size_t dims);

// Quantiles of Student's t and Fisher's F distributions (Boost.Math).
double student_t_quantile(double probability, double dof);
double fisher_f_quantile(double probability, double dof1, double dof2);

struct LinearizedFit {
  std::size_t residuals = 0;   // n
  std::size_t parameters = 0;  // p
  int dof = 0;                 // n - p (> 0)
  double level = 0;            // e.g. 0.95
  double s = 0;                // sqrt(SSR / dof)
  double t = 0;                // two-sided Student t quantile for `level` with dof
  // Per parameter, in the Jacobian's coordinates. A parameter the fitted
  // residuals do not depend on (it lies along a null direction of J) is not
  // determined: infinite standard error.
  std::vector<bool> determined;
  std::vector<double> std_error;
  std::vector<std::vector<double>> covariance;   // p x p, s^2 (J'J)^+ (pseudo-inverse)
  std::vector<std::vector<double>> correlation;  // p x p; 0 off the diagonal where not determined
  std::vector<std::vector<double>> null_directions;  // unit vectors of J's (numerical) null space
};

// `jacobian`: n rows of p derivatives of the residuals at the fit; `ssr`:
// the sum of squared residuals there. Throws std::invalid_argument unless
// n > p >= 1, every row has p entries, ssr >= 0 and 0 < level < 1.
LinearizedFit linearize_fit(const std::vector<std::vector<double>>& jacobian, double ssr, double level);

// Half-widths, in residual units, of the `level` interval of a quantity with
// gradient g (p entries): confidence from the parameters alone, t sqrt(g'Cg),
// and prediction of a new observation, t sqrt(g'Cg + s^2). Infinite when g
// has a component along a null direction.
double confidence_half_width(const LinearizedFit& fit, const std::vector<double>& g);
double prediction_half_width(const LinearizedFit& fit, const std::vector<double>& g);

// The objective below which another parameter vector fits the n residuals
// as well as the best one (SSR_min) by the F test at `level`:
// SSR_min (1 + p / (n - p) F(level; p, n - p)), the boundary of the
// likelihood-ratio confidence region. Requires n > p >= 1.
double equivalent_objective(double ssr_min, std::size_t n, std::size_t p, double level);

}  // namespace netsim::calibrate
