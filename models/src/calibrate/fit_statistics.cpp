#include "netsim/calibrate/fit_statistics.h"

#include <Eigen/Dense>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace netsim::calibrate {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A singular value below this fraction of the largest counts as zero: the
// residuals do not move along its direction at the Jacobian's resolution.
constexpr double kRankTolerance = 1e-9;

// A parameter whose weight in a null direction exceeds this is not determined.
constexpr double kNullWeight = 0.1;

}  // namespace

std::vector<double> halton_point(std::uint64_t index, std::size_t dims) {
  static constexpr unsigned kPrimes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
  if (index == 0) throw std::invalid_argument("Halton points are numbered from 1");
  if (dims > std::size(kPrimes)) throw std::invalid_argument("Halton points: at most 16 dimensions");
  std::vector<double> p(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    const unsigned base = kPrimes[d];
    double f = 1.0, x = 0.0;
    for (std::uint64_t i = index; i > 0; i /= base) {
      f /= base;
      x += f * static_cast<double>(i % base);
    }
    p[d] = x;
  }
  return p;
}

double student_t_quantile(double probability, double dof) {
  return boost::math::quantile(boost::math::students_t_distribution<double>(dof), probability);
}

double fisher_f_quantile(double probability, double dof1, double dof2) {
  return boost::math::quantile(boost::math::fisher_f_distribution<double>(dof1, dof2), probability);
}

LinearizedFit linearize_fit(const std::vector<std::vector<double>>& jacobian, double ssr, double level) {
  const std::size_t n = jacobian.size();
  const std::size_t p = n > 0 ? jacobian.front().size() : 0;
  if (p == 0 || n <= p) throw std::invalid_argument("linearize_fit needs more residuals than parameters (n > p >= 1)");
  if (!(ssr >= 0)) throw std::invalid_argument("linearize_fit: the sum of squares must be >= 0");
  if (!(level > 0 && level < 1)) throw std::invalid_argument("linearize_fit: level must lie in (0, 1)");
  Eigen::MatrixXd J(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
  for (std::size_t i = 0; i < n; ++i) {
    if (jacobian[i].size() != p) throw std::invalid_argument("linearize_fit: ragged Jacobian");
    for (std::size_t k = 0; k < p; ++k) J(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = jacobian[i][k];
  }
  LinearizedFit f;
  f.residuals = n;
  f.parameters = p;
  f.dof = static_cast<int>(n - p);
  f.level = level;
  f.s = std::sqrt(ssr / f.dof);
  f.t = student_t_quantile(0.5 + level / 2, f.dof);

  // J = U S V': (J'J)^+ = V S^-2 V' over the nonzero singular values; the
  // columns of V with zero singular values span the directions the fitted
  // residuals cannot see.
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeThinV);
  const Eigen::VectorXd& sv = svd.singularValues();
  const Eigen::MatrixXd& V = svd.matrixV();
  const double largest = sv.size() > 0 ? sv(0) : 0.0;
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
  f.determined.assign(p, true);
  for (Eigen::Index k = 0; k < sv.size(); ++k) {
    if (largest > 0 && sv(k) > kRankTolerance * largest) {
      cov += (V.col(k) * V.col(k).transpose()) / (sv(k) * sv(k));
    } else {
      std::vector<double> dir(p);
      for (std::size_t i = 0; i < p; ++i) {
        dir[i] = V(static_cast<Eigen::Index>(i), k);
        if (std::abs(dir[i]) > kNullWeight) f.determined[i] = false;
      }
      f.null_directions.push_back(std::move(dir));
    }
  }
  cov *= f.s * f.s;
  f.covariance.assign(p, std::vector<double>(p, 0.0));
  f.correlation.assign(p, std::vector<double>(p, 0.0));
  f.std_error.assign(p, kInf);
  for (std::size_t i = 0; i < p; ++i) {
    for (std::size_t k = 0; k < p; ++k) {
      f.covariance[i][k] = cov(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k));
    }
    if (f.determined[i]) f.std_error[i] = std::sqrt(std::max(0.0, f.covariance[i][i]));
  }
  for (std::size_t i = 0; i < p; ++i) {
    for (std::size_t k = 0; k < p; ++k) {
      if (i == k) {
        f.correlation[i][k] = 1.0;
      } else if (f.determined[i] && f.determined[k] && f.std_error[i] > 0 && f.std_error[k] > 0) {
        f.correlation[i][k] = f.covariance[i][k] / (f.std_error[i] * f.std_error[k]);
      }
    }
  }
  return f;
}

namespace {

// g' C g, or infinity when g has a component along a null direction.
double variance_along(const LinearizedFit& fit, const std::vector<double>& g) {
  if (g.size() != fit.parameters) throw std::invalid_argument("gradient has the wrong length");
  double norm = 0;
  for (double x : g) norm += x * x;
  norm = std::sqrt(norm);
  for (const std::vector<double>& dir : fit.null_directions) {
    double dot = 0;
    for (std::size_t i = 0; i < g.size(); ++i) dot += dir[i] * g[i];
    if (std::abs(dot) > 1e-9 * std::max(norm, 1e-300)) return kInf;
  }
  double v = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    for (std::size_t k = 0; k < g.size(); ++k) v += g[i] * fit.covariance[i][k] * g[k];
  }
  return std::max(0.0, v);
}

}  // namespace

double confidence_half_width(const LinearizedFit& fit, const std::vector<double>& g) {
  return fit.t * std::sqrt(variance_along(fit, g));
}

double prediction_half_width(const LinearizedFit& fit, const std::vector<double>& g) {
  return fit.t * std::sqrt(variance_along(fit, g) + fit.s * fit.s);
}

double equivalent_objective(double ssr_min, std::size_t n, std::size_t p, double level) {
  if (p == 0 || n <= p) throw std::invalid_argument("equivalent_objective needs n > p >= 1");
  const double dof = static_cast<double>(n - p);
  return ssr_min * (1.0 + static_cast<double>(p) / dof * fisher_f_quantile(level, static_cast<double>(p), dof));
}

}  // namespace netsim::calibrate
