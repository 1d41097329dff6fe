// Summary of a sample (for example one cell's throughput over N seeds): what
// a table prints as "mean (min-max)", plus the sample standard deviation.
#pragma once

#include <cstddef>
#include <span>

namespace netsim::stats {

struct SampleSummary {
  std::size_t n = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  double stddev = 0;  // sample standard deviation (n - 1 in the denominator); 0 for n = 1
};

// Throws std::invalid_argument for an empty sample or a non-finite value.
SampleSummary summarize(std::span<const double> values);

}  // namespace netsim::stats
