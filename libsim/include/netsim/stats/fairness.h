// Jain's fairness index (R. Jain, D. Chiu, W. Hawe, "A Quantitative Measure
// of Fairness and Discrimination for Resource Allocation in Shared Computer
// Systems", DEC-TR-301, 1984):
//
//   J(x_1..x_n) = (sum x_i)^2 / (n * sum x_i^2)
//
// 1 when all shares are equal, 1/n when one flow takes everything. Shares are
// throughputs (any unit; J is scale-free).
#pragma once

#include <span>

namespace netsim::stats {

// Throws std::invalid_argument for an empty set, a negative or non-finite
// share, or all shares zero (J is undefined there).
double jain_index(std::span<const double> shares);

}  // namespace netsim::stats
