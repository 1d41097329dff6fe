#include "netsim/stats/fairness.h"

#include <Eigen/Core>
#include <cmath>
#include <stdexcept>

namespace netsim::stats {

double jain_index(std::span<const double> shares) {
  if (shares.empty()) throw std::invalid_argument("Jain's index of an empty set of flows");
  const Eigen::Map<const Eigen::ArrayXd> x(shares.data(), static_cast<Eigen::Index>(shares.size()));
  if (!x.isFinite().all() || (x < 0).any()) {
    throw std::invalid_argument("Jain's index needs finite, non-negative shares");
  }
  const double sum_sq = x.square().sum();
  if (sum_sq == 0) throw std::invalid_argument("Jain's index is undefined when every share is zero");
  const double sum = x.sum();
  return sum * sum / (static_cast<double>(x.size()) * sum_sq);
}

}  // namespace netsim::stats
