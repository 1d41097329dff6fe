// Jain's fairness index and sample summaries on vectors worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "netsim/stats/fairness.h"
#include "netsim/stats/sample_summary.h"

namespace netsim::stats {
namespace {

TEST(JainIndex, EqualSharesGiveOne) {
  const std::vector<double> x{470, 470};
  EXPECT_DOUBLE_EQ(jain_index(x), 1.0);
  const std::vector<double> y{3, 3, 3, 3, 3};
  EXPECT_DOUBLE_EQ(jain_index(y), 1.0);
}

TEST(JainIndex, OneFlowTakingEverythingGivesOneOverN) {
  const std::vector<double> x{0, 941, 0, 0};
  EXPECT_DOUBLE_EQ(jain_index(x), 0.25);
}

TEST(JainIndex, KnownVectors) {
  // T2 row 1 (measured): 317 and 533 -> 850^2 / (2 (317^2 + 533^2))
  // = 722500 / (2 x 384578) = 0.93934...; the table prints 94%.
  const std::vector<double> t2{317, 533};
  EXPECT_NEAR(jain_index(t2), 722500.0 / 769156.0, 1e-15);
  EXPECT_NEAR(jain_index(t2), 0.9393, 1e-4);
  // 1, 2, 3: 36 / (3 x 14) = 6/7.
  const std::vector<double> v{1, 2, 3};
  EXPECT_NEAR(jain_index(v), 6.0 / 7.0, 1e-15);
  // Scale-free.
  const std::vector<double> w{1e6, 2e6, 3e6};
  EXPECT_NEAR(jain_index(w), 6.0 / 7.0, 1e-15);
}

TEST(JainIndex, RejectsWhatIsUndefined) {
  EXPECT_THROW(jain_index(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(jain_index(std::vector<double>{0, 0}), std::invalid_argument);
  EXPECT_THROW(jain_index(std::vector<double>{1, -1}), std::invalid_argument);
  EXPECT_THROW(jain_index(std::vector<double>{1, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
}

TEST(SampleSummary, MeanRangeAndSampleStddev) {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum 32, sample
  // variance 32/7.
  const std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};
  const SampleSummary s = summarize(x);
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_NEAR(s.stddev, std::sqrt(32.0 / 7.0), 1e-15);
}

TEST(SampleSummary, SingleValueAndLargeOffset) {
  const SampleSummary one = summarize(std::vector<double>{941.3});
  EXPECT_EQ(one.n, 1u);
  EXPECT_DOUBLE_EQ(one.mean, 941.3);
  EXPECT_DOUBLE_EQ(one.stddev, 0.0);
  // A two-pass variance keeps its precision far from zero: 1e9 + {1, 2, 3}.
  const SampleSummary big = summarize(std::vector<double>{1e9 + 1, 1e9 + 2, 1e9 + 3});
  EXPECT_DOUBLE_EQ(big.mean, 1e9 + 2);
  EXPECT_NEAR(big.stddev, 1.0, 1e-9);
}

TEST(SampleSummary, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{1, std::numeric_limits<double>::infinity()}), std::invalid_argument);
}

}  // namespace
}  // namespace netsim::stats
