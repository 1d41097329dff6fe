#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "netsim/calibrate/fit_problem.h"

namespace netsim::calibrate {
namespace {

// Unit coordinates u are handed to Eigen as x = 1 + u: NumericalDiff's step
// is sqrt(epsfcn) * |x|, so with x in [1, 2] it stays close to the requested
// step everywhere in the box instead of vanishing at u = 0.
constexpr double kOffset = 1.0;

struct BudgetUsed {};

class ResidualFunctor {
 public:
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  ResidualFunctor(const ResidualFunction& f, int inputs, int values, int budget, FitOutcome& out)
      : f_(&f), inputs_(inputs), values_(values), budget_(budget), out_(&out) {}

  int inputs() const { return inputs_; }
  int values() const { return values_; }

  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& fvec) const {
    if (out_->evaluations >= budget_) throw BudgetUsed{};
    std::vector<double> u(static_cast<std::size_t>(inputs_));
    for (int i = 0; i < inputs_; ++i) u[static_cast<std::size_t>(i)] = std::clamp(x[i] - kOffset, 0.0, 1.0);
    const std::vector<double> r = (*f_)(u);
    ++out_->evaluations;
    if (static_cast<int>(r.size()) != values_) throw std::logic_error("residual vector changed size");
    for (int i = 0; i < values_; ++i) fvec[i] = r[static_cast<std::size_t>(i)];
    const double s = sum_of_squares(r);
    if (out_->unit_point.empty() || s < out_->objective) {
      out_->unit_point = u;
      out_->objective = s;
    }
    return 0;
  }

 private:
  const ResidualFunction* f_;
  int inputs_;
  int values_;
  int budget_;
  FitOutcome* out_;
};

}  // namespace

FitOutcome minimize_levenberg_marquardt(const ResidualFunction& f, const std::vector<double>& start,
                                        int max_evaluations, double step) {
  if (start.empty()) throw std::invalid_argument("Levenberg-Marquardt needs at least one parameter");
  FitOutcome out;
  // One evaluation to learn the number of residuals (and the starting point's objective).
  const std::vector<double> r0 = f(start);
  ++out.evaluations;
  out.unit_point = start;
  out.objective = sum_of_squares(r0);
  const int n = static_cast<int>(start.size());
  const int m = static_cast<int>(r0.size());
  if (m < n) throw std::invalid_argument("Levenberg-Marquardt needs at least as many residuals as parameters");

  ResidualFunctor functor(f, n, m, max_evaluations, out);
  Eigen::NumericalDiff<ResidualFunctor> numdiff(functor, step * step);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<ResidualFunctor>> lm(numdiff);
  lm.parameters.maxfev = max_evaluations;
  lm.parameters.xtol = 1e-4;
  lm.parameters.ftol = 1e-8;
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = kOffset + start[static_cast<std::size_t>(i)];
  try {
    const auto status = lm.minimize(x);
    switch (status) {
      case Eigen::LevenbergMarquardtSpace::RelativeReductionTooSmall: out.stop_reason = "relative reduction below ftol"; break;
      case Eigen::LevenbergMarquardtSpace::RelativeErrorTooSmall: out.stop_reason = "relative step below xtol"; break;
      case Eigen::LevenbergMarquardtSpace::RelativeErrorAndReductionTooSmall: out.stop_reason = "converged (ftol and xtol)"; break;
      case Eigen::LevenbergMarquardtSpace::CosinusTooSmall: out.stop_reason = "residuals orthogonal to the Jacobian"; break;
      case Eigen::LevenbergMarquardtSpace::TooManyFunctionEvaluation: out.stop_reason = "evaluation budget used"; break;
      default: out.stop_reason = "stopped (Eigen status " + std::to_string(static_cast<int>(status)) + ")"; break;
    }
  } catch (const BudgetUsed&) {
    out.stop_reason = "evaluation budget used";
  }
  return out;
}

}  // namespace netsim::calibrate
