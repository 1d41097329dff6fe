#include "netsim/calibrate/calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>
#include <stdexcept>

#include "netsim/calibrate/fit_problem.h"
#include "netsim/calibrate/fit_statistics.h"
#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/parallel_for.h"

namespace netsim::calibrate {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Runs scenario_file once per override list, on `jobs` threads; each run
// writes only its own slot, so the results do not depend on timing.
std::vector<results::RunResult> run_all(const std::string& file, const std::vector<std::vector<Override>>& runs,
                                        unsigned jobs) {
  std::vector<results::RunResult> out(runs.size());
  std::vector<std::string> errors(runs.size());
  parallel_for(runs.size(), jobs, [&](std::size_t i) {
    try {
      out[i] = run_scenario(load_scenario(file, runs[i]));
      if (!out[i].error().empty()) errors[i] = out[i].error();
    } catch (const std::exception& e) {
      errors[i] = e.what();
    }
  });
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (errors[i].empty()) continue;
    std::string where;
    for (const Override& o : runs[i]) where += " " + format_override(o);
    throw std::runtime_error("calibration run failed (" + where.substr(1) + "): " + errors[i]);
  }
  return out;
}

// Thrown from an evaluation once a stop is requested; caught in run().
struct StopRequested {};

struct Summary {
  double mean = 0, min = 0, max = 0;
  std::size_t runs = 0;
};

class Calibrator {
 public:
  Calibrator(const std::string& file, const CalibrationOptions& options) : file_(file), options_(options) {
    const ScenarioSpec spec = load_scenario(file, options.overrides);
    sweep_ = spec.sweep;
    std::optional<MeasuredSpec> m = parse_measured(spec, options.cells ? CellsFrom::data : CellsFrom::block);
    const SourceLoc at{file, 0, 0};
    if (!m) throw ScenarioError(at, "measured", "a calibration needs a measured: block with cells");
    measured_ = std::move(*m);
    if (options.cells) measured_.cells = *options.cells;
    if (measured_.cells.empty()) throw ScenarioError(at, "measured.cells", "no measured cells to fit on");
    std::optional<CalibrationSpec> c = parse_calibration(spec, measured_);
    if (!c) throw ScenarioError(at, "calibrate", "the scenario has no calibrate: block (see docs/calibration.md)");
    spec_ = std::move(*c);
    if (options.max_evaluations > 0) spec_.max_evaluations = options.max_evaluations;
    if (options.starts > 0) spec_.starts = options.starts;
    if (options.check_seeds >= 0) spec_.check_seeds = options.check_seeds;
    for (const CalibrationParameter& p : spec_.parameters) {
      for (const Override& o : options.overrides) {
        if (std::find(p.paths.begin(), p.paths.end(), o.key) != p.paths.end()) {
          throw ScenarioError(p.loc, "calibrate.parameters." + p.key,
                              "'" + o.key + "' is set on the command line or by a profile; a fitted path cannot be");
        }
      }
    }
    for (int i = 0; i < spec_.seeds; ++i) seeds_.push_back(spec.seed + static_cast<std::uint64_t>(i));
    for (std::size_t i = 0; i < measured_.cells.size(); ++i) {
      if (is_fitted(spec_, measured_, measured_.cells[i])) fitted_cells_.push_back(i);
    }
    if (fitted_cells_.empty()) throw ScenarioError(at, "calibrate.fit_on", "selects none of the measured cells");
    result_.scenario_file = file;
    result_.scenario_name = spec.name;
  }

  CalibrationResult run() {
    const auto t0 = Clock::now();
    std::vector<double> start;
    for (const CalibrationParameter& p : spec_.parameters) {
      start.push_back((quantize(p, p.start) - p.min) / (p.max - p.min));
      result_.start_values.push_back(format_value(p, p.start));
    }
    const ResidualFunction f = [this](const std::vector<double>& u) { return residuals(u); };
    // Start 1 is the declared start; the others are Halton points over the
    // box, so a second basin the first start cannot see shows up in the report.
    FitOutcome fit;
    int evaluations_before = 0;
    for (int k = 1; k <= spec_.starts && !result_.interrupted; ++k) {
      const std::vector<double> from = k == 1 ? start : halton_point(static_cast<std::uint64_t>(k - 1), start.size());
      start_ = k;
      StartResult sr;
      sr.index = k;
      sr.start_values = texts(from);
      FitOutcome one;
      try {
        one = spec_.method == Method::nelder_mead
                  ? minimize_nelder_mead(f, from, spec_.max_evaluations, spec_.tolerance)
                  : minimize_levenberg_marquardt(f, from, spec_.max_evaluations, spec_.step);
      } catch (const StopRequested&) {
        if (best_point_.empty()) throw std::runtime_error("calibration interrupted before its first evaluation");
        // Nothing computed is lost: the best point so far becomes the result.
        one.unit_point = best_point_;
        one.objective = best_;
        one.evaluations = evaluations_ - 1 - evaluations_before;  // the refused one did not run
        one.stop_reason = "interrupted";
        result_.interrupted = true;
      }
      evaluations_before += one.evaluations;
      sr.unit_point = one.unit_point;
      sr.values = texts(one.unit_point);
      sr.objective = one.objective;
      sr.evaluations = one.evaluations;
      sr.stop_reason = one.stop_reason;
      result_.starts.push_back(std::move(sr));
      // The lowest objective wins; a tie keeps the earlier start. After a
      // stop, `one` is already the best point over every start.
      if (k == 1 || one.objective < fit.objective || result_.interrupted) {
        fit.unit_point = one.unit_point;
        fit.objective = one.objective;
        fit.stop_reason = one.stop_reason;
      }
    }
    fit.evaluations = evaluations_before;
    result_.spec = spec_;
    result_.measured = measured_;
    result_.seeds = seeds_;
    result_.start_objective = start_objective_;
    result_.objective = fit.objective;
    result_.evaluations = fit.evaluations;
    result_.stop_reason = fit.stop_reason;
    result_.data_sources = options_.data_sources;
    const std::vector<std::string> values = texts(fit.unit_point);
    result_.fitted_values = values;
    for (std::size_t i = 0; i < values.size(); ++i) result_.fitted.push_back(base_value(i, fit.unit_point[i]));
    report(values);
    result_.simulation_runs = simulation_runs_;
    compare_starts(fit.unit_point);
    if (spec_.check_seeds > 0 && !result_.interrupted) seed_check(values);
    if (spec_.uncertainty && !result_.interrupted) uncertainty(fit.unit_point);
    result_.wall_seconds = seconds_since(t0);
    return result_;
  }

 private:
  double base_value(std::size_t i, double u) const {
    const CalibrationParameter& p = spec_.parameters[i];
    return quantize(p, p.min + u * (p.max - p.min));
  }

  std::vector<std::string> texts(const std::vector<double>& u) const {
    std::vector<std::string> v;
    for (std::size_t i = 0; i < u.size(); ++i) v.push_back(format_value(spec_.parameters[i], base_value(i, u[i])));
    return v;
  }

  // The measured key of a scenario path, or -1.
  int key_of(const std::string& path) const {
    for (std::size_t k = 0; k < measured_.keys.size(); ++k) {
      if (measured_.keys[k].second == path) return static_cast<int>(k);
    }
    return -1;
  }

  // A cell's key values as the sweep sets them: a measured key on a linked
  // axis ("hosts.s1.hz + hosts.s2.hz") sets every path of the axis value it
  // selects, as the sweep cell the measurement stands for does; other keys
  // set their own path.
  std::vector<Override> key_overrides(const MeasuredCell& cell) const {
    std::vector<Override> o;
    std::vector<bool> done(measured_.keys.size(), false);
    for (const SweepAxis& axis : sweep_) {
      if (axis.paths.size() < 2) continue;
      for (const std::vector<std::string>& v : axis.values) {
        bool matches = false;
        bool conflicts = false;
        for (std::size_t p = 0; p < axis.paths.size(); ++p) {
          const int k = key_of(axis.paths[p]);
          if (k < 0) continue;
          (v[p] == cell.key_values[static_cast<std::size_t>(k)] ? matches : conflicts) = true;
        }
        if (!matches || conflicts) continue;
        for (std::size_t p = 0; p < axis.paths.size(); ++p) {
          o.push_back({axis.paths[p], v[p]});
          if (const int k = key_of(axis.paths[p]); k >= 0) done[static_cast<std::size_t>(k)] = true;
        }
        break;
      }
    }
    for (std::size_t k = 0; k < measured_.keys.size(); ++k) {
      if (done[k]) continue;
      for (auto& [path, value] : key_value_paths(measured_, k, cell.key_values[k])) o.push_back({path, value});
    }
    return o;
  }

  std::vector<Override> cell_overrides(const MeasuredCell& cell, const std::vector<std::string>& values) const {
    std::vector<Override> o = key_overrides(cell);
    o.insert(o.end(), options_.overrides.begin(), options_.overrides.end());
    for (std::size_t i = 0; i < values.size(); ++i) {
      for (const std::string& path : spec_.parameters[i].paths) o.push_back({path, values[i]});
    }
    return o;
  }

  // Mean, min and max of every metric of every listed cell over the seeds.
  std::vector<std::vector<Summary>> simulate(const std::vector<std::size_t>& cells,
                                             const std::vector<std::string>& values) {
    return simulate(cells, values, seeds_);
  }

  std::vector<std::vector<Summary>> simulate(const std::vector<std::size_t>& cells,
                                             const std::vector<std::string>& values,
                                             const std::vector<std::uint64_t>& seeds) {
    std::vector<std::vector<Override>> runs;
    for (std::size_t c : cells) {
      for (std::uint64_t seed : seeds) {
        std::vector<Override> o = cell_overrides(measured_.cells[c], values);
        o.push_back({"seed", std::to_string(seed)});
        runs.push_back(std::move(o));
      }
    }
    const std::vector<results::RunResult> results = run_all(file_, runs, options_.jobs);
    std::vector<std::vector<Summary>> out;
    std::size_t r = 0;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::vector<Summary> per_metric(measured_.metrics.size());
      for (std::size_t s = 0; s < seeds.size(); ++s, ++r) {
        for (std::size_t k = 0; k < measured_.metrics.size(); ++k) {
          const std::optional<double> v = metric_value(results[r], measured_.metrics[k]);
          if (!v) continue;
          Summary& x = per_metric[k];
          x.min = x.runs == 0 ? *v : std::min(x.min, *v);
          x.max = x.runs == 0 ? *v : std::max(x.max, *v);
          x.mean += *v;
          ++x.runs;
        }
      }
      for (Summary& x : per_metric) x.mean = x.runs > 0 ? x.mean / static_cast<double>(x.runs) : 0;
      out.push_back(std::move(per_metric));
    }
    return out;
  }

  // A count (retransmits, RTOs, ...) may be 0, measured or simulated: both
  // are compared as compared_value(), at least 1.
  double residual(double sim, double measured, bool count) const {
    const double base = compared_value(count, measured);
    if (spec_.objective == Objective::squared_relative) return (sim - measured) / base;
    if (count) return std::log(compared_value(true, sim) / base);
    // A collapsed cell (0 Mbit/s) must still pull the fit, not poison it: floor at 1/1000 of measured.
    return std::log(std::max(sim, measured * 1e-3) / measured);
  }
  double residual(const CellResult& x, double sim) const { return residual(sim, x.measured, x.count); }

  std::vector<double> residuals(const std::vector<double>& u) {
    if (options_.stop_requested && options_.stop_requested()) {
      ++evaluations_;
      throw StopRequested{};
    }
    const std::vector<std::string> values = texts(u);
    EvaluationProgress progress;
    progress.evaluation = ++evaluations_;
    progress.start = start_;
    progress.values = values;
    const auto t0 = Clock::now();
    auto hit = cache_.find(values);
    progress.cached = hit != cache_.end();
    if (!progress.cached) {
      const std::vector<std::vector<Summary>> sims = simulate(fitted_cells_, values);
      simulation_runs_ += static_cast<int>(fitted_cells_.size() * seeds_.size());
      std::vector<double> r;
      for (std::size_t c = 0; c < fitted_cells_.size(); ++c) {
        const MeasuredCell& cell = measured_.cells[fitted_cells_[c]];
        for (std::size_t k : spec_.metrics) {
          if (!is_measured(cell.values[k])) continue;  // a metric this cell left out
          r.push_back(residual(sims[c][k].mean, cell.values[k], measured_.metrics[k].is_count()));
        }
      }
      hit = cache_.emplace(values, std::move(r)).first;
    }
    progress.objective = sum_of_squares(hit->second);
    if (evaluations_ == 1) start_objective_ = progress.objective;
    if (evaluations_ == 1 || progress.objective < best_) best_point_ = u;
    best_ = evaluations_ == 1 ? progress.objective : std::min(best_, progress.objective);
    progress.best = best_;
    progress.wall_seconds = seconds_since(t0);
    if (options_.progress) options_.progress(progress);
    return hit->second;
  }

  struct CellSet {
    std::vector<CellResult> cells;
    std::size_t fitted_count = 0, predicted_count = 0;
    double fitted_mape = 0, predicted_mape = 0;
  };

  // Every measured cell and metric at `values`, on `seeds` (the fit's by default).
  CellSet all_cells(const std::vector<std::string>& values) { return all_cells(values, seeds_); }

  CellSet all_cells(const std::vector<std::string>& values, const std::vector<std::uint64_t>& seeds) {
    std::vector<std::size_t> all(measured_.cells.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    const std::vector<std::vector<Summary>> sims = simulate(all, values, seeds);
    CellSet out;
    double fitted_sum = 0, predicted_sum = 0;
    for (std::size_t c = 0; c < all.size(); ++c) {
      const MeasuredCell& cell = measured_.cells[c];
      const bool cell_fitted = is_fitted(spec_, measured_, cell);
      for (std::size_t k = 0; k < measured_.metrics.size(); ++k) {
        if (!is_measured(cell.values[k])) continue;  // a metric this cell left out
        const Summary& s = sims[c][k];
        CellResult x;
        x.key_values = cell.key_values;
        x.metric = measured_.metrics[k].name;
        x.fairness = measured_.metrics[k].is_fairness();
        x.points = x.fairness || measured_.metrics[k].in_points();
        x.fitted = cell_fitted && std::find(spec_.metrics.begin(), spec_.metrics.end(), k) != spec_.metrics.end();
        x.measured = cell.values[k];
        x.sim_mean = s.mean;
        x.sim_min = s.min;
        x.sim_max = s.max;
        x.runs = s.runs;
        x.count = measured_.metrics[k].is_count();
        x.error = measured_error(measured_.metrics[k], s.mean, x.measured);
        // The MAPE is in percent for every metric, Jain's index included.
        const double relative = (s.mean - x.measured) / compared_value(x.count, x.measured) * 100.0;
        (x.fitted ? fitted_sum : predicted_sum) += std::abs(relative);
        ++(x.fitted ? out.fitted_count : out.predicted_count);
        out.cells.push_back(std::move(x));
      }
    }
    out.fitted_mape = out.fitted_count > 0 ? fitted_sum / static_cast<double>(out.fitted_count) : 0;
    out.predicted_mape = out.predicted_count > 0 ? predicted_sum / static_cast<double>(out.predicted_count) : 0;
    return out;
  }

  // Every cell again at the fitted values, on the seeds after the fit's.
  void seed_check(const std::vector<std::string>& values) {
    SeedCheckResult& out = result_.seed_check;
    for (int i = 0; i < spec_.check_seeds; ++i) out.seeds.push_back(seeds_.back() + 1 + static_cast<std::uint64_t>(i));
    const CellSet set = all_cells(values, out.seeds);
    std::vector<double> r;
    for (const CellResult& x : set.cells) {
      if (x.fitted && x.runs > 0) r.push_back(residual(x, x.sim_mean));
    }
    out.objective = sum_of_squares(r);
    out.fitted_mape = set.fitted_mape;
    out.predicted_mape = set.predicted_mape;
    out.fitted_count = set.fitted_count;
    out.predicted_count = set.predicted_count;
    out.available = true;
  }

  void report(const std::vector<std::string>& values) {
    CellSet set = all_cells(values);
    std::map<std::vector<std::string>, double> first_metric;
    for (const CellResult& x : set.cells) {
      if (x.metric == measured_.metrics.front().name && x.runs > 0) first_metric[x.key_values] = x.sim_mean;
    }
    result_.cells = std::move(set.cells);
    result_.fitted_count = set.fitted_count;
    result_.predicted_count = set.predicted_count;
    result_.fitted_mape = set.fitted_mape;
    result_.predicted_mape = set.predicted_mape;
    for (const MeasuredClaim& claim : measured_.claims) {
      ClaimResult c;
      c.text = claim.text;
      c.measured = claim.measured;
      const auto num = first_metric.find(claim.numerator);
      const auto den = first_metric.find(claim.denominator);
      if (num != first_metric.end() && den != first_metric.end() && den->second > 0) {
        c.simulated = num->second / den->second;
      }
      result_.claims.push_back(std::move(c));
    }
  }

  std::size_t fitted_residual_count() const {
    std::size_t n = 0;
    for (std::size_t c : fitted_cells_) {
      for (std::size_t k : spec_.metrics) n += is_measured(measured_.cells[c].values[k]) ? 1 : 0;
    }
    return n;
  }

  void note(const std::string& line) const {
    if (options_.note) options_.note(line);
  }

  // Marks the best start, the starts that ended in an earlier start's
  // minimum, and those the fitted cells cannot tell from the best; runs all
  // cells at every other distinct minimum for its fitted and predicted MAPE.
  void compare_starts(const std::vector<double>& best_point) {
    const double same = std::max(0.02, 2 * spec_.tolerance);
    const std::size_t n = fitted_residual_count();
    const std::size_t p = spec_.parameters.size();
    if (n > p) {
      result_.uncertainty.equivalent_objective =
          equivalent_objective(result_.objective, n, p, spec_.confidence);
    }
    auto close = [same](const std::vector<double>& a, const std::vector<double>& b) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::abs(a[i] - b[i]) > same) return false;
      }
      return true;
    };
    bool best_marked = false;
    for (std::size_t k = 0; k < result_.starts.size(); ++k) {
      StartResult& sr = result_.starts[k];
      for (std::size_t j = 0; j < k && sr.same_as == 0; ++j) {
        if (close(sr.unit_point, result_.starts[j].unit_point)) sr.same_as = result_.starts[j].index;
      }
      if (!best_marked && sr.unit_point == best_point) {
        // The report's cells were run at this point.
        sr.best = best_marked = sr.cells_run = true;
        sr.fitted_mape = result_.fitted_mape;
        sr.predicted_mape = result_.predicted_mape;
      }
      sr.equivalent = !sr.best && n > p && sr.objective <= result_.uncertainty.equivalent_objective;
    }
    if (result_.starts.size() < 2) return;
    for (StartResult& sr : result_.starts) {
      if (sr.cells_run) continue;
      if (sr.same_as > 0) {
        const StartResult& first = result_.starts[static_cast<std::size_t>(sr.same_as - 1)];
        if (first.cells_run && sr.values == first.values) {
          sr.cells_run = true;
          sr.fitted_mape = first.fitted_mape;
          sr.predicted_mape = first.predicted_mape;
          continue;
        }
      }
      if (result_.interrupted || (options_.stop_requested && options_.stop_requested())) return;
      note("every cell at the minimum of start " + std::to_string(sr.index));
      const CellSet set = all_cells(sr.values);
      sr.cells_run = true;
      sr.fitted_mape = set.fitted_mape;
      sr.predicted_mape = set.predicted_mape;
    }
  }

  // The metric value whose residual is r (the inverse of residual()).
  double value_of_residual(const CellResult& x, double r) const {
    const double base = compared_value(x.count, x.measured);
    return spec_.objective == Objective::squared_relative ? x.measured + base * r : base * std::exp(r);
  }

  // The linearized uncertainty at the fit: runs every cell at the fitted
  // value +- step along each parameter, differences the residuals, and
  // derives the parameter intervals and every cell's band from them.
  void uncertainty(const std::vector<double>& u0) {
    UncertaintyResult& out = result_.uncertainty;
    out.level = spec_.confidence;
    out.step = spec_.step;
    const std::size_t p = spec_.parameters.size();
    const std::size_t n = fitted_residual_count();
    out.residuals = n;
    if (n <= p) {
      out.why_not = std::to_string(n) + " fitted values for " + std::to_string(p) +
                    (p == 1 ? " parameter" : " parameters") + ": no degrees of freedom left to judge the fit by";
      return;
    }
    // gradient[cell][parameter] of the residual, in unit coordinates.
    std::vector<std::vector<double>> gradient(result_.cells.size(), std::vector<double>(p, 0.0));
    for (std::size_t i = 0; i < p; ++i) {
      std::vector<double> up = u0, down = u0;
      up[i] = std::min(1.0, u0[i] + spec_.step);
      down[i] = std::max(0.0, u0[i] - spec_.step);
      const double span = unit_of(i, up[i]) - unit_of(i, down[i]);
      if (options_.stop_requested && options_.stop_requested()) {
        out.why_not = "interrupted";
        return;
      }
      note("uncertainty: " + spec_.parameters[i].key + " at " + texts(down)[i] + " and " + texts(up)[i]);
      const CellSet hi = all_cells(texts(up));
      const CellSet lo = all_cells(texts(down));
      out.simulation_runs += 2 * static_cast<int>(measured_.cells.size() * seeds_.size());
      if (span <= 0) continue;  // a parameter too coarse to move: no slope, not determined
      for (std::size_t c = 0; c < result_.cells.size(); ++c) {
        const CellResult& x = result_.cells[c];
        if (hi.cells[c].runs == 0 || lo.cells[c].runs == 0) continue;
        gradient[c][i] = (residual(x, hi.cells[c].sim_mean) - residual(x, lo.cells[c].sim_mean)) / span;
      }
    }
    std::vector<std::vector<double>> jacobian;
    for (std::size_t c = 0; c < result_.cells.size(); ++c) {
      if (result_.cells[c].fitted) jacobian.push_back(gradient[c]);
    }
    const LinearizedFit lin = linearize_fit(jacobian, result_.objective, spec_.confidence);
    out.available = true;
    out.dof = lin.dof;
    out.s = lin.s;
    out.t = lin.t;
    out.correlation = lin.correlation;
    for (std::size_t i = 0; i < p; ++i) {
      const CalibrationParameter& par = spec_.parameters[i];
      ParameterUncertainty pu;
      pu.determined = lin.determined[i];
      pu.std_error = lin.std_error[i] * (par.max - par.min);
      const double v = result_.fitted[i];
      pu.lo = pu.determined ? v - lin.t * pu.std_error : par.min;
      pu.hi = pu.determined ? v + lin.t * pu.std_error : par.max;
      pu.clipped_lo = pu.lo < par.min;
      pu.clipped_hi = pu.hi > par.max;
      pu.lo = std::max(pu.lo, par.min);
      pu.hi = std::min(pu.hi, par.max);
      out.parameters.push_back(pu);
    }
    for (std::size_t c = 0; c < result_.cells.size(); ++c) {
      CellResult& x = result_.cells[c];
      if (x.runs == 0) continue;
      const double band = confidence_half_width(lin, gradient[c]);
      if (!std::isfinite(band)) continue;
      const double prediction = prediction_half_width(lin, gradient[c]);
      const double r0 = residual(x, x.sim_mean);
      x.has_band = true;
      x.band_lo = value_of_residual(x, r0 - band);
      x.band_hi = value_of_residual(x, r0 + band);
      x.prediction_lo = value_of_residual(x, r0 - prediction);
      x.prediction_hi = value_of_residual(x, r0 + prediction);
      x.measured_in_prediction = std::abs(r0) <= prediction;  // the measured value's own residual is 0
      ++(x.fitted ? out.fitted_with : out.predicted_with);
      if (x.measured_in_prediction) ++(x.fitted ? out.fitted_in : out.predicted_in);
    }
  }

  // The unit coordinate of the value u quantizes to (what was really run).
  double unit_of(std::size_t i, double u) const {
    const CalibrationParameter& p = spec_.parameters[i];
    return (base_value(i, u) - p.min) / (p.max - p.min);
  }

  std::string file_;
  const CalibrationOptions& options_;
  MeasuredSpec measured_;
  CalibrationSpec spec_;
  std::vector<std::uint64_t> seeds_;
  std::vector<SweepAxis> sweep_;  // to set linked axes whole (key_overrides)
  std::vector<std::size_t> fitted_cells_;
  std::map<std::vector<std::string>, std::vector<double>> cache_;
  int evaluations_ = 0;
  int start_ = 1;  // the start being minimized from
  int simulation_runs_ = 0;
  double start_objective_ = 0;
  double best_ = 0;
  std::vector<double> best_point_;  // unit coordinates of best_
  CalibrationResult result_;
};


std::string pad(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

// Rows as columns padded to their widest cell, indented two spaces.
void write_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < row.size(); ++i) line += " " + pad(row[i], widths[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

void write_uncertainty(std::ostream& out, const CalibrationResult& r, std::size_t w) {
  const UncertaintyResult& u = r.uncertainty;
  if (!r.spec.uncertainty || r.interrupted) return;
  const std::string level = format_fixed(u.level * 100, 0) + "%";
  if (!u.available) {
    out << "Uncertainty: not computed (" << u.why_not << ")\n\n";
    return;
  }
  const std::size_t p = r.spec.parameters.size();
  out << "Uncertainty, linearized at the fit (central differences of +-" << format_fixed(u.step * 100, 1)
      << "% of each range; " << u.residuals << " fitted values - " << p << (p == 1 ? " parameter = " : " parameters = ")
      << u.dof << (u.dof == 1 ? " degree" : " degrees") << " of freedom; scatter s = " << format_fixed(u.s, 4) << ", t = " << format_fixed(u.t, 3)
      << "):\n";
  bool cut = false;
  for (std::size_t i = 0; i < u.parameters.size(); ++i) {
    const CalibrationParameter& p = r.spec.parameters[i];
    const ParameterUncertainty& pu = u.parameters[i];
    out << "  " << pad(p.key, w) << "  ";
    if (!pu.determined) {
      out << "not determined: the fitted cells do not depend on it\n";
      continue;
    }
    out << level << " " << format_value(p, pu.lo) << (pu.clipped_lo ? " (bound)" : "") << " .. "
        << format_value(p, pu.hi) << (pu.clipped_hi ? " (bound)" : "") << "  (standard error "
        << format_amount(p, pu.std_error) << ")\n";
    cut = cut || pu.clipped_lo || pu.clipped_hi;
  }
  if (cut) {
    out << "  (an interval cut by a bound: the fitted cells do not rule out values beyond it, so there\n"
           "   the bound, not the data, limits the parameter)\n";
  }
  if (u.parameters.size() > 1) {
    out << "  correlations:";
    for (std::size_t i = 0; i < u.correlation.size(); ++i) {
      for (std::size_t k = i + 1; k < u.correlation.size(); ++k) {
        out << " [" << i + 1 << "," << k + 1 << "] " << format_fixed(u.correlation[i][k], 2);
      }
    }
    out << "\n";
  }
  out << "  (the scatter of the fitted cells stands in for noise: with model error the intervals say what\n"
         "   the fitted cells allow, not what is true; they are linear around this minimum and do not see\n"
         "   another one: use starts: for that)\n\n";
}

void write_starts(std::ostream& out, const CalibrationResult& r) {
  if (r.starts.size() < 2) return;
  out << "Starts (" << r.starts.size() << "; the declared start, then Halton points over the box):\n";
  std::vector<std::vector<std::string>> rows{
      {"start", "from", "to", "objective", "evaluations", "fitted MAPE", "predicted MAPE", ""}};
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
    return s;
  };
  for (const StartResult& s : r.starts) {
    std::string verdict = s.best ? "best" : s.same_as > 0 ? "same minimum as " + std::to_string(s.same_as) : "";
    if (s.equivalent) verdict += std::string(verdict.empty() ? "" : "; ") + "fits as well as the best (F test)";
    if (verdict.empty()) verdict = "worse";
    rows.push_back({std::to_string(s.index), join(s.start_values), join(s.values), format_fixed(s.objective, 4),
                    std::to_string(s.evaluations), s.cells_run ? format_fixed(s.fitted_mape, 1) + "%" : "-",
                    s.cells_run && r.predicted_count > 0 ? format_fixed(s.predicted_mape, 1) + "%" : "-", verdict});
  }
  write_table(out, rows);
  bool differ = false;
  const StartResult* best = nullptr;
  for (const StartResult& s : r.starts) {
    if (s.best) best = &s;
  }
  for (const StartResult& s : r.starts) {
    if (best && s.equivalent && s.same_as == 0 && s.cells_run && best->cells_run &&
        std::abs(s.predicted_mape - best->predicted_mape) >= 1.0) {
      differ = true;
    }
  }
  if (differ) {
    out << "  The fitted cells do not decide between minima that predict differently: the predictions\n"
           "  depend on which one the bounds and the start select.\n";
  }
  out << "\n";
}

}  // namespace

CalibrationResult run_calibration(const std::string& scenario_file, const CalibrationOptions& options) {
  return Calibrator(scenario_file, options).run();
}

void write_calibration_report(std::ostream& out, const CalibrationResult& r) {
  out << "Calibration of " << r.scenario_name << " (" << r.scenario_file << ")\n";
  out << "method " << method_name(r.spec.method) << ", objective " << objective_name(r.spec.objective) << ", "
      << r.evaluations << " evaluations, " << r.simulation_runs << " runs, " << r.seeds.size()
      << (r.seeds.size() == 1 ? " seed" : " seeds") << " per cell; " << r.stop_reason << "\n";
  out << "objective " << format_fixed(r.start_objective, 4) << " -> " << format_fixed(r.objective, 4) << "\n\n";
  std::size_t w = 0;
  for (const CalibrationParameter& p : r.spec.parameters) w = std::max(w, p.key.size());
  bool on_bound = false;
  for (std::size_t i = 0; i < r.spec.parameters.size(); ++i) {
    const CalibrationParameter& p = r.spec.parameters[i];
    out << "  " << pad(p.key, w) << "  " << pad(r.fitted_values[i], 12) << " (start " << r.start_values[i]
        << ", bounds " << format_value(p, p.min) << " .. " << format_value(p, p.max) << ")";
    if (i < r.fitted.size()) {
      if (const std::string_view hit = bound_hit(p, r.fitted[i]); !hit.empty()) {
        out << "  ON ITS " << (hit == "lower" ? "LOWER" : "UPPER") << " BOUND";
        on_bound = true;
      }
    }
    out << "\n";
  }
  if (on_bound) {
    out << "  (a value on a bound: the data pull it outside the range; widen the bound if that is\n"
           "   physical, otherwise the parameter is standing in for something the model lacks)\n";
  }
  out << "\n";
  write_uncertainty(out, r, w);
  write_starts(out, r);
  std::vector<std::string> header;
  for (const auto& k : r.measured.keys) header.push_back(k.first);
  const bool multi = r.measured.metrics.size() > 1;
  if (multi) header.push_back("metric");
  const bool bands = r.uncertainty.available;
  for (const char* h : {"measured", "simulated", "range", "error", "role"}) header.push_back(h);
  if (bands) {
    header.push_back(format_fixed(r.uncertainty.level * 100, 0) + "% band");
    header.push_back("in PI");
  }
  std::vector<std::vector<std::string>> rows{header};
  for (const CellResult& c : r.cells) {
    std::vector<std::string> row = c.key_values;
    if (multi) row.push_back(c.metric);
    const int d = c.fairness ? 3 : 1;
    row.push_back(format_fixed(c.measured, d));
    row.push_back(c.runs > 0 ? format_fixed(c.sim_mean, d) : "-");
    row.push_back(c.runs > 1 ? format_fixed(c.sim_min, d) + "-" + format_fixed(c.sim_max, d) : "");
    row.push_back(c.runs == 0 ? "-" : (c.error >= 0 ? "+" : "") + format_fixed(c.error, 1) + (c.points ? " pt" : "%"));
    row.push_back(c.fitted ? "fitted" : "predicted");
    if (bands) {
      row.push_back(c.has_band ? format_fixed(c.band_lo, d) + "-" + format_fixed(c.band_hi, d) : "undetermined");
      row.push_back(c.has_band ? (c.measured_in_prediction ? "yes" : "no") : "-");
    }
    rows.push_back(std::move(row));
  }
  write_table(out, rows);
  // With several metrics a "cell" of the MAPE is one metric of one measured cell.
  const char* unit = multi ? " values" : " cells";
  out << "\nMAPE: fitted " << format_fixed(r.fitted_mape, 1) << "% (" << r.fitted_count << unit << "), predicted "
      << (r.predicted_count > 0 ? format_fixed(r.predicted_mape, 1) + "%" : std::string("-")) << " (" << r.predicted_count
      << unit << ")\n";
  const UncertaintyResult& u = r.uncertainty;
  if (u.available) {
    const std::string level = format_fixed(u.level * 100, 0) + "%";
    out << "Measured inside the " << level << " prediction interval: fitted " << u.fitted_in << " of " << u.fitted_with
        << ", predicted " << u.predicted_in << " of " << u.predicted_with << "\n";
  }
  const SeedCheckResult& sc = r.seed_check;
  if (sc.available && !sc.seeds.empty()) {
    out << "On seeds " << sc.seeds.front();
    if (sc.seeds.size() > 1) out << "-" << sc.seeds.back();
    out << ", which the fit never ran: objective " << format_fixed(sc.objective, 4) << " (fit: "
        << format_fixed(r.objective, 4) << "), MAPE fitted " << format_fixed(sc.fitted_mape, 1) << "%, predicted "
        << (sc.predicted_count > 0 ? format_fixed(sc.predicted_mape, 1) + "%" : std::string("-")) << "\n";
  }
  if (!r.claims.empty()) {
    out << "\nClaimed ratios at the fitted values, simulated vs measured:\n";
    for (const ClaimResult& c : r.claims) {
      out << "  " << c.text << ": simulated " << (c.simulated ? format_fixed(*c.simulated, 2) : std::string("-"))
          << ", measured " << format_fixed(c.measured, 2) << "\n";
    }
  }
}

}  // namespace netsim::calibrate
