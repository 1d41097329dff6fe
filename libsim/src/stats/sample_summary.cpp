#include "netsim/stats/sample_summary.h"

#include <Eigen/Core>
#include <cmath>
#include <stdexcept>

namespace netsim::stats {

SampleSummary summarize(std::span<const double> values) {
  if (values.empty()) throw std::invalid_argument("summary of an empty sample");
  const Eigen::Map<const Eigen::ArrayXd> x(values.data(), static_cast<Eigen::Index>(values.size()));
  if (!x.isFinite().all()) throw std::invalid_argument("summary of a sample with a non-finite value");
  SampleSummary s;
  s.n = values.size();
  s.mean = x.mean();
  s.min = x.minCoeff();
  s.max = x.maxCoeff();
  // Two-pass variance: the deviations from the mean, not sum x^2 - n mean^2.
  s.stddev = s.n > 1 ? std::sqrt((x - s.mean).square().sum() / static_cast<double>(s.n - 1)) : 0.0;
  return s;
}

}  // namespace netsim::stats
