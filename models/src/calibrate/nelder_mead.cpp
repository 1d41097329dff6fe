#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "netsim/calibrate/fit_problem.h"

namespace netsim::calibrate {

double sum_of_squares(const std::vector<double>& residuals) {
  double s = 0;
  for (double r : residuals) s += r * r;
  return s;
}

namespace {

using Point = std::vector<double>;

Point clamp_unit(Point p) {
  for (double& x : p) x = std::clamp(x, 0.0, 1.0);
  return p;
}

// p + t (q - p)
Point along(const Point& p, const Point& q, double t) {
  Point r(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) r[i] = p[i] + t * (q[i] - p[i]);
  return clamp_unit(r);
}

}  // namespace

FitOutcome minimize_nelder_mead(const ResidualFunction& f, const std::vector<double>& start, int max_evaluations,
                                double tolerance) {
  const std::size_t n = start.size();
  if (n == 0) throw std::invalid_argument("Nelder-Mead needs at least one parameter");
  FitOutcome out;
  auto eval = [&](const Point& p) {
    ++out.evaluations;
    return sum_of_squares(f(p));
  };
  std::vector<Point> simplex{clamp_unit(start)};
  for (std::size_t i = 0; i < n; ++i) {
    Point p = simplex.front();
    p[i] += p[i] + 0.25 <= 1.0 ? 0.25 : -0.25;
    simplex.push_back(clamp_unit(p));
  }
  std::vector<double> value;
  for (const Point& p : simplex) value.push_back(eval(p));

  std::vector<std::size_t> order(n + 1);
  auto sort_simplex = [&] {
    std::iota(order.begin(), order.end(), 0);
    // Ties keep the older vertex first: deterministic, as the whole fit must be.
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return value[a] < value[b]; });
    std::vector<Point> s;
    std::vector<double> v;
    for (std::size_t i : order) {
      s.push_back(simplex[i]);
      v.push_back(value[i]);
    }
    simplex = std::move(s);
    value = std::move(v);
  };
  auto spread = [&] {
    double worst = 0;
    for (std::size_t d = 0; d < n; ++d) {
      double lo = 1, hi = 0;
      for (const Point& p : simplex) {
        lo = std::min(lo, p[d]);
        hi = std::max(hi, p[d]);
      }
      worst = std::max(worst, hi - lo);
    }
    return worst;
  };

  out.stop_reason = "evaluation budget used";
  while (true) {
    sort_simplex();
    if (spread() < tolerance) {
      out.stop_reason = "simplex smaller than the tolerance";
      break;
    }
    if (out.evaluations >= max_evaluations) break;
    Point centroid(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t d = 0; d < n; ++d) centroid[d] += simplex[i][d] / static_cast<double>(n);
    }
    const Point& worst = simplex[n];
    const Point reflected = along(centroid, worst, -1.0);
    const double fr = eval(reflected);
    if (fr < value[0]) {
      const Point expanded = along(centroid, worst, -2.0);
      const double fe = out.evaluations < max_evaluations ? eval(expanded) : fr + 1;
      if (fe < fr) {
        simplex[n] = expanded;
        value[n] = fe;
      } else {
        simplex[n] = reflected;
        value[n] = fr;
      }
      continue;
    }
    if (fr < value[n - 1]) {
      simplex[n] = reflected;
      value[n] = fr;
      continue;
    }
    // Contract: outside if the reflection improved on the worst, else inside.
    const bool outside = fr < value[n];
    const Point contracted = outside ? along(centroid, worst, -0.5) : along(centroid, worst, 0.5);
    if (out.evaluations >= max_evaluations) break;
    const double fc = eval(contracted);
    if (fc < (outside ? fr : value[n])) {
      simplex[n] = contracted;
      value[n] = fc;
      continue;
    }
    // Shrink towards the best vertex.
    for (std::size_t i = 1; i <= n && out.evaluations < max_evaluations; ++i) {
      simplex[i] = along(simplex[0], simplex[i], 0.5);
      value[i] = eval(simplex[i]);
    }
  }
  sort_simplex();
  out.unit_point = simplex[0];
  out.objective = value[0];
  return out;
}

}  // namespace netsim::calibrate
