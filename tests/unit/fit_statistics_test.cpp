// The statistics behind the calibration report's intervals and multi-start:
// Halton points, t and F quantiles, and the linearized covariance checked
// against straight-line regression, whose intervals have closed forms.
#include "netsim/calibrate/fit_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace netsim::calibrate {
namespace {

TEST(FitStatistics, HaltonPointsAreRadicalInverses) {
  EXPECT_EQ(halton_point(1, 2), (std::vector<double>{0.5, 1.0 / 3}));
  EXPECT_EQ(halton_point(2, 2), (std::vector<double>{0.25, 2.0 / 3}));
  const std::vector<double> p3 = halton_point(3, 3);
  EXPECT_DOUBLE_EQ(p3[0], 0.75);
  EXPECT_DOUBLE_EQ(p3[1], 1.0 / 9);
  EXPECT_DOUBLE_EQ(p3[2], 3.0 / 5);
  EXPECT_THROW(halton_point(0, 2), std::invalid_argument);
  EXPECT_THROW(halton_point(1, 17), std::invalid_argument);
}

TEST(FitStatistics, QuantilesMatchTables) {
  EXPECT_NEAR(student_t_quantile(0.975, 5), 2.570582, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706205, 1e-6);
  EXPECT_NEAR(fisher_f_quantile(0.95, 1, 5), 6.607891, 1e-6);
  EXPECT_NEAR(fisher_f_quantile(0.95, 3, 5), 5.409451, 1e-6);
}

// y = a + b x by least squares: residual a + b x_i - y_i, Jacobian rows [1, x_i].
TEST(FitStatistics, StraightLineIntervalsHaveTheirClosedForms) {
  const std::vector<double> x{0, 1, 2, 3, 4}, y{1.1, 2.9, 5.2, 7.1, 8.8};
  const double n = 5;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  const double b = sxy / sxx, a = my - b * mx;
  double ssr = 0;
  std::vector<std::vector<double>> J;
  for (std::size_t i = 0; i < x.size(); ++i) {
    ssr += (a + b * x[i] - y[i]) * (a + b * x[i] - y[i]);
    J.push_back({1.0, x[i]});
  }
  const LinearizedFit f = linearize_fit(J, ssr, 0.95);
  const double s = std::sqrt(ssr / 3);
  EXPECT_EQ(f.dof, 3);
  EXPECT_NEAR(f.s, s, 1e-12);
  EXPECT_NEAR(f.t, 3.182446, 1e-6);
  ASSERT_TRUE(f.determined[0] && f.determined[1]);
  EXPECT_NEAR(f.std_error[1], s / std::sqrt(sxx), 1e-12);
  EXPECT_NEAR(f.std_error[0], s * std::sqrt(1 / n + mx * mx / sxx), 1e-12);
  EXPECT_NEAR(f.correlation[0][1], -mx / std::sqrt(sxx / n + mx * mx), 1e-12);
  EXPECT_DOUBLE_EQ(f.correlation[0][0], 1.0);
  // The mean response at x0 and a new observation there.
  const double x0 = 6;
  const double lever = 1 / n + (x0 - mx) * (x0 - mx) / sxx;
  EXPECT_NEAR(confidence_half_width(f, {1.0, x0}), f.t * s * std::sqrt(lever), 1e-12);
  EXPECT_NEAR(prediction_half_width(f, {1.0, x0}), f.t * s * std::sqrt(1 + lever), 1e-12);
}

TEST(FitStatistics, AParameterTheResidualsIgnoreIsNotDetermined) {
  const std::vector<std::vector<double>> J{{1, 0}, {2, 0}, {3, 0}};
  const LinearizedFit f = linearize_fit(J, 0.5, 0.95);
  EXPECT_TRUE(f.determined[0]);
  EXPECT_FALSE(f.determined[1]);
  EXPECT_TRUE(std::isinf(f.std_error[1]));
  EXPECT_NEAR(f.std_error[0], std::sqrt(0.5 / 1 / 14.0), 1e-12);
  EXPECT_TRUE(std::isfinite(confidence_half_width(f, {1, 0})));
  EXPECT_TRUE(std::isinf(confidence_half_width(f, {1, 1})));
  // Two parameters that only act together: each alone is undetermined, their
  // combination along the seen direction is not.
  const LinearizedFit g = linearize_fit({{1, 2}, {2, 4}, {1, 2}}, 0.2, 0.95);
  EXPECT_FALSE(g.determined[0]);
  EXPECT_FALSE(g.determined[1]);
  EXPECT_TRUE(std::isfinite(confidence_half_width(g, {1, 2})));
  EXPECT_TRUE(std::isinf(confidence_half_width(g, {1, 0})));
}

TEST(FitStatistics, EquivalentObjectiveIsTheFTestBoundary) {
  EXPECT_NEAR(equivalent_objective(0.03, 8, 3, 0.95), 0.03 * (1 + 3.0 / 5 * 5.409451), 1e-7);
  EXPECT_THROW(equivalent_objective(0.03, 3, 3, 0.95), std::invalid_argument);
  EXPECT_THROW(linearize_fit({{1, 2}, {3, 4}}, 0.1, 0.95), std::invalid_argument);  // n = p
  EXPECT_THROW(linearize_fit({{1}, {2}}, -1, 0.95), std::invalid_argument);
  EXPECT_THROW(linearize_fit({{1}, {2}}, 0.1, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace netsim::calibrate
