// Calibration mode: quantities, the calibrate: block, the minimizers, recovery
// of known parameters from measurements netsim made itself, profiles and the
// report's fitted/predicted split.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>

#include "netsim/calibrate/calibration.h"
#include "netsim/calibrate/calibration_parameter.h"
#include "netsim/calibrate/calibration_profile.h"
#include "netsim/calibrate/calibration_spec.h"
#include "netsim/calibrate/fit_problem.h"
#include "netsim/calibrate/measured_data_cells.h"
#include "netsim/measure/measurement_file.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"

namespace netsim::calibrate {
namespace {

namespace fs = std::filesystem;

class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(fs::temp_directory_path() / ("netsim-calibrate-" + std::to_string(::getpid()) + "-" + name)) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// UDP at 200 or 900 Mbit/s into a link of rate R behind a random loss p: the
// slow cell pins p, the fast one R (1 - p).
std::string udp_scenario(const std::string& rate, const std::string& loss, const std::string& extra) {
  return R"(
name: udp-synthetic
duration: 200ms
hosts:
  tx: { address: 10.0.0.1 }
  rx: { address: 10.0.0.2 }
switches:
  sw: { buffer: 256KiB }
links:
  tx-sw: { ends: [tx, sw], rate: 10Gbps, delay: 1us }
  sw-rx: { ends: [sw, rx], rate: )" +
         rate + R"(, delay: 50us }
filters:
  loss: { host: rx, type: random, probability: )" +
         loss + R"(, match: { protocol: udp } }
traffic:
  flow: { type: udp, from: tx, to: rx, size: 1472B, rate: 200Mbps }
)" + extra;
}

std::string report_of(const CalibrationResult& r) {
  std::ostringstream out;
  write_calibration_report(out, r);
  return out.str();
}

std::string profile_of(const CalibrationResult& r, const std::string& command) {
  std::ostringstream out;
  write_calibration_profile(out, r, command);
  return out.str();
}

double simulated(const std::string& yaml, const std::string& flow_rate) {
  const ScenarioSpec spec = parse_scenario_text(yaml, "truth.yaml", {{"traffic.flow.rate", flow_rate}});
  return run_scenario(spec).flows(0).receiver_mbps();
}

std::string measured_and_calibrate(double slow, double fast, const std::string& method) {
  std::ostringstream s;
  s.precision(17);
  s << "measured:\n  keys: { rate: traffic.flow.rate }\n  cells:\n"
    << "    - { rate: 200Mbps, value: " << slow << " }\n"
    << "    - { rate: 900Mbps, value: " << fast << " }\n"
    << "calibrate:\n  parameters:\n"
    << "    links.sw-rx.rate: { min: 100Mbps, max: 1Gbps }\n"
    << "    filters.loss.probability: { min: 0, max: 0.2 }\n"
    << "  method: " << method << "\n  max_evaluations: 80\n  tolerance: 0.002\n";
  return s.str();
}

TEST(CalibrationParameter, QuantitiesKeepTheirUnitAndPrintExactly) {
  ParsedQuantity q = parse_quantity("250us");
  EXPECT_EQ(q.kind, ParameterKind::duration);
  EXPECT_EQ(q.unit, "us");
  EXPECT_DOUBLE_EQ(q.value, 250e6);  // picoseconds
  q = parse_quantity("1.5Gbps");
  EXPECT_EQ(q.kind, ParameterKind::rate);
  EXPECT_DOUBLE_EQ(q.value, 1.5e9);
  EXPECT_EQ(parse_quantity("64KiB").kind, ParameterKind::size);
  EXPECT_EQ(parse_quantity("3").kind, ParameterKind::integer);
  EXPECT_EQ(parse_quantity("0.05").kind, ParameterKind::real);
  EXPECT_THROW(parse_quantity("5 parsecs"), std::invalid_argument);
  EXPECT_THROW(parse_quantity("fast"), std::invalid_argument);

  CalibrationParameter d;
  d.kind = ParameterKind::duration;
  d.unit = "us";
  d.min = 0;
  d.max = 1e9;
  EXPECT_EQ(format_value(d, 63.5e6), "63.5us");
  EXPECT_EQ(format_value(d, 63'500'400.0), "63.5us");  // 1 ns resolution
  EXPECT_EQ(format_value(d, 63'501'600.0), "63.502us");
  EXPECT_EQ(format_value(d, 2e9), "1000us");           // clamped to max
  CalibrationParameter r;
  r.kind = ParameterKind::rate;
  r.unit = "Mbps";
  r.min = 1e6;
  r.max = 1e9;
  EXPECT_EQ(format_value(r, 612'250'000.0), "612.25Mbps");
  CalibrationParameter s;
  s.kind = ParameterKind::size;
  s.unit = "KiB";
  s.min = 0;
  s.max = 1e6;
  EXPECT_EQ(format_value(s, 2048), "2KiB");
  EXPECT_EQ(format_value(s, 2049), "2049B");  // not a whole KiB: bytes, still exact
  CalibrationParameter i;
  i.kind = ParameterKind::integer;
  i.min = 1;
  i.max = 100;
  EXPECT_EQ(format_value(i, 7.6), "8");
  CalibrationParameter x;
  x.kind = ParameterKind::real;
  x.min = 0;
  x.max = 1;
  EXPECT_EQ(format_value(x, 1.0 + 0.02 - 1.0), "0.02");  // arithmetic noise does not make a new point
}

TEST(CalibrationSpec, ParsesTheBlockAndRejectsMistakesWithTheirLine) {
  const std::string base = udp_scenario("600Mbps", "0.05", "");
  const std::string measured =
      "measured:\n  keys: { rate: traffic.flow.rate }\n  cells:\n    - { rate: 200Mbps, value: 191 }\n"
      "    - { rate: 900Mbps, value: 557 }\n";
  auto parse = [&](const std::string& block) {
    const ScenarioSpec spec = parse_scenario_text(base + measured + block, "c.yaml");
    return parse_calibration(spec, *parse_measured(spec));
  };
  const auto c = parse(
      "calibrate:\n  parameters:\n    \"links.sw-rx.rate + links.tx-sw.rate\": { min: 100Mbps, max: 10Gbps, start: 1Gbps }\n"
      "  fit_on: { rate: [200Mbps] }\n  seeds: 3\n  method: levenberg_marquardt\n");
  ASSERT_TRUE(c);
  ASSERT_EQ(c->parameters.size(), 1u);
  EXPECT_EQ(c->parameters[0].paths, (std::vector<std::string>{"links.sw-rx.rate", "links.tx-sw.rate"}));
  EXPECT_EQ(c->parameters[0].kind, ParameterKind::rate);
  EXPECT_DOUBLE_EQ(c->parameters[0].start, 1e9);
  EXPECT_EQ(c->seeds, 3);
  EXPECT_EQ(c->method, Method::levenberg_marquardt);
  const ScenarioSpec spec = parse_scenario_text(base + measured, "c.yaml");
  EXPECT_FALSE(parse_calibration(spec, *parse_measured(spec)));

  auto error_of = [&](const std::string& block) -> std::string {
    try {
      parse(block);
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "no error";
  };
  const int line = static_cast<int>(std::count(base.begin(), base.end(), '\n') +
                                    std::count(measured.begin(), measured.end(), '\n')) + 1;
  const std::string at = "c.yaml:" + std::to_string(line + 2) + ":";
  EXPECT_NE(error_of("calibrate:\n  parameters:\n    links.sw-rx.rate: { min: 1Gbps, max: 100Mbps }\n").find(at), std::string::npos);
  EXPECT_NE(error_of("calibrate:\n  parameters:\n    links.sw-rx.rate: { min: 100Mbps, max: 1Gbps }\n  fit_on: { speed: 1 }\n")
                .find("'speed' is not a key of the measured block"),
            std::string::npos);
  EXPECT_NE(error_of("calibrate:\n  parameters:\n    links.sw-rx.rate: { min: 100Mbps, max: 1ms }\n").find("one kind"),
            std::string::npos);
  EXPECT_NE(error_of("calibrate:\n  parameters:\n    traffic.flow.rate: { min: 100Mbps, max: 1Gbps }\n").find("measured key"),
            std::string::npos);
  EXPECT_NE(error_of("calibrate:\n  parameters:\n    links.sw-rx.rate: { min: 100Mbps, max: 1Gbps }\n  fit_on: { rate: 5Mbps }\n")
                .find("selects none"),
            std::string::npos);
  EXPECT_NE(error_of("calibrate:\n  parameters:\n    links.sw-rx.rate: { min: 100Mbps, max: 1Gbps }\n  method: magic\n")
                .find("calibrate.method"),
            std::string::npos);
  EXPECT_NE(error_of("calibrate:\n  parameters:\n    links.sw-rx.rate: { min: 100Mbps, max: 1Gbps, start: 5Gbps }\n")
                .find("within [min, max]"),
            std::string::npos);
  // Values echoed from these blocks print as text, as the scenario's own do,
  // and a near miss gets its suggestion.
  const std::string bad_method =
      error_of("calibrate:\n  parameters:\n    links.sw-rx.rate: { min: 100Mbps, max: 1Gbps }\n  method: \"nelder_mead\\x01\"\n");
  EXPECT_NE(bad_method.find("got 'nelder_mead\\x01'; did you mean 'nelder_mead'?"), std::string::npos) << bad_method;
  const std::string bad_key = error_of("calibrate:\n  parameters:\n    links.sw-rx.rate: { min: 100Mbps, max: 1Gbps }\n"
                                       "  \"seeds\\x1b[2J\": 2\n");
  EXPECT_NE(bad_key.find("unknown key 'seeds\\x1b[2J'"), std::string::npos) << bad_key;
  for (const std::string& m : {bad_method, bad_key}) {
    for (const char ch : m) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << m;
  }
}

// A residual function with a known minimum at (0.3, 0.7).
std::vector<double> bowl(const std::vector<double>& u) { return {u[0] - 0.3, 2 * (u[1] - 0.7), 0.1 * (u[0] + u[1] - 1.0)}; }

TEST(Minimizers, NelderMeadFindsTheMinimumAndRespectsTheBudget) {
  const FitOutcome f = minimize_nelder_mead(bowl, {0.9, 0.1}, 400, 1e-6);
  EXPECT_NEAR(f.unit_point[0], 0.3, 1e-4);
  EXPECT_NEAR(f.unit_point[1], 0.7, 1e-4);
  EXPECT_EQ(f.stop_reason, "simplex smaller than the tolerance");
  const FitOutcome g = minimize_nelder_mead(bowl, {0.9, 0.1}, 400, 1e-6);
  EXPECT_EQ(f.unit_point, g.unit_point);  // deterministic
  const FitOutcome h = minimize_nelder_mead(bowl, {0.9, 0.1}, 10, 1e-6);
  EXPECT_LE(h.evaluations, 10);
  EXPECT_EQ(h.stop_reason, "evaluation budget used");
  // The box holds: a minimum outside it ends on its edge.
  const FitOutcome e = minimize_nelder_mead([](const std::vector<double>& u) { return std::vector<double>{u[0] - 1.5}; },
                                            {0.5}, 200, 1e-6);
  EXPECT_NEAR(e.unit_point[0], 1.0, 1e-6);
}

TEST(Minimizers, LevenbergMarquardtSolvesALinearProblem) {
  const FitOutcome f = minimize_levenberg_marquardt(bowl, {0.9, 0.1}, 100, 0.01);
  EXPECT_NEAR(f.unit_point[0], 0.3, 1e-6);
  EXPECT_NEAR(f.unit_point[1], 0.7, 1e-6);
  EXPECT_NEAR(f.objective, 0.0, 1e-12);
  EXPECT_LE(f.evaluations, 100);
}

class Recovery : public ::testing::TestWithParam<std::string> {};

TEST_P(Recovery, RecoversParametersFromNetsimsOwnMeasurements) {
  // The truth: 600 Mbit/s and 5% loss. The calibration starts from 400 Mbit/s and 2%.
  const std::string truth = udp_scenario("600Mbps", "0.05", "");
  const double slow = simulated(truth, "200Mbps");
  const double fast = simulated(truth, "900Mbps");
  TempFile f("recovery.yaml", udp_scenario("400Mbps", "0.02", measured_and_calibrate(slow, fast, GetParam())));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_EQ(r.fitted.size(), 2u);
  // No start in the block: the values the file writes.
  EXPECT_EQ(r.start_values, (std::vector<std::string>{"400Mbps", "0.02"}));
  EXPECT_NEAR(r.fitted[0] / 600e6, 1.0, 0.02) << r.fitted_values[0];
  EXPECT_NEAR(r.fitted[1] / 0.05, 1.0, 0.02) << r.fitted_values[1];
  EXPECT_LT(r.objective, r.start_objective);
  EXPECT_EQ(r.fitted_count, 2u);
  EXPECT_EQ(r.predicted_count, 0u);
  // Common random numbers: the same file gives the same fit.
  CalibrationOptions two_jobs;
  two_jobs.jobs = 2;
  const CalibrationResult again = run_calibration(f.path(), two_jobs);
  EXPECT_EQ(again.fitted_values, r.fitted_values);
}

INSTANTIATE_TEST_SUITE_P(Methods, Recovery, ::testing::Values("nelder_mead", "levenberg_marquardt"));

// A measured CPU figure as the metric: the receiver's per-packet TCP input
// cost is recovered from its CPU use (made by netsim with 3 us) at two
// sender speeds, from a start of 1 us.
std::string cpu_scenario(const std::string& tcp_input, const std::string& extra) {
  return R"(
name: cpu-synthetic
duration: 1s
hosts:
  tx: { address: 10.0.0.1, hz: 1000, cpu: { tx_segment: 20us } }
  rx: { address: 10.0.0.2, hz: 250, nic: { gro: false }, cpu: { tcp_input: )" +
         tcp_input + R"( } }
switches:
  sw: { buffer: 1MB }
links:
  tx-sw: { ends: [tx, sw], rate: 1Gbps, delay: 50us }
  sw-rx: { ends: [sw, rx], rate: 1Gbps, delay: 50us }
traffic:
  flow: { type: tcp, from: tx, to: rx, dst_port: 5201, cc: newreno, tso: false }
)" + extra;
}

TEST(Calibration, RecoversACpuCostFromMeasuredCpuUse) {
  std::ostringstream block;
  block.precision(17);
  block << "measured:\n  metric: cpu_receiver_pct\n  keys: { tx: hosts.tx.cpu.tx_segment }\n  cells:\n";
  for (const char* tx : {"20us", "40us"}) {
    const ScenarioSpec truth = parse_scenario_text(cpu_scenario("3us", ""), "truth.yaml", {{"hosts.tx.cpu.tx_segment", tx}});
    const results::RunResult run = run_scenario(truth);
    ASSERT_TRUE(run.flows(0).has_receiver_cpu_pct());
    block << "    - { tx: " << tx << ", value: " << run.flows(0).receiver_cpu_pct() << " }\n";
  }
  block << "calibrate:\n  parameters:\n    hosts.rx.cpu.tcp_input: { min: 0.1us, max: 10us }\n"
        << "  method: nelder_mead\n  max_evaluations: 40\n  tolerance: 0.001\n";
  TempFile f("cpu.yaml", cpu_scenario("1us", block.str()));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_EQ(r.fitted.size(), 1u);
  EXPECT_NEAR(r.fitted[0] / 3e6, 1.0, 0.02) << r.fitted_values[0];  // fitted in picoseconds
  EXPECT_EQ(r.fitted_count, 2u);
  EXPECT_LT(r.fitted_mape, 1.0);
}

TEST(Calibration, CountsAreComparedAsAtLeastOne) {
  // A loss-free flow retransmits nothing. Measured 0 and 4 retransmissions:
  // 0 against 0 is a hit, 0 against 4 a miss of log(1/4), and neither is a
  // division by zero.
  const std::string block =
      "measured:\n  metric: retransmits\n  keys: { tx: hosts.tx.cpu.tx_segment }\n  cells:\n"
      "    - { tx: 20us, value: 0 }\n    - { tx: 40us, value: 4 }\n"
      "calibrate:\n  parameters:\n    hosts.rx.cpu.tcp_input: { min: 0.1us, max: 10us }\n"
      "  method: nelder_mead\n  max_evaluations: 4\n  uncertainty: false\n";
  TempFile f("counts.yaml", cpu_scenario("1us", block));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_EQ(r.cells.size(), 2u);
  EXPECT_TRUE(r.cells[0].count);
  EXPECT_DOUBLE_EQ(r.cells[0].sim_mean, 0.0);
  EXPECT_DOUBLE_EQ(r.cells[0].error, 0.0);
  EXPECT_DOUBLE_EQ(r.cells[1].error, -100.0);
  EXPECT_DOUBLE_EQ(r.objective, std::log(4.0) * std::log(4.0));
  EXPECT_DOUBLE_EQ(r.fitted_mape, 50.0);
  EXPECT_EQ(report_of(r).find("nan"), std::string::npos) << report_of(r);
}

TEST(CalibrationReport, SplitsFittedAndPredictedCells) {
  // Three cells; only the 200 Mbit/s one is fitted, on the loss alone.
  const std::string text = udp_scenario("600Mbps", "0.02", R"(
measured:
  keys: { rate: traffic.flow.rate }
  cells:
    - { rate: 200Mbps, value: 190 }
    - { rate: 400Mbps, value: 380 }
    - { rate: 900Mbps, value: 500 }
  claims:
    - { text: "900 over 200", measured: 2.6, numerator: { rate: 900Mbps }, denominator: { rate: 200Mbps } }
calibrate:
  parameters:
    filters.loss.probability: { min: 0, max: 0.2 }
  fit_on: { rate: 200Mbps }
  max_evaluations: 30
)");
  TempFile f("split.yaml", text);
  std::vector<EvaluationProgress> seen;
  CalibrationOptions o;
  o.progress = [&seen](const EvaluationProgress& p) { seen.push_back(p); };
  const CalibrationResult r = run_calibration(f.path(), o);
  ASSERT_EQ(r.cells.size(), 3u);
  EXPECT_TRUE(r.cells[0].fitted);
  EXPECT_FALSE(r.cells[1].fitted);
  EXPECT_FALSE(r.cells[2].fitted);
  EXPECT_EQ(r.fitted_count, 1u);
  EXPECT_EQ(r.predicted_count, 2u);
  EXPECT_NEAR(r.fitted_mape, std::abs(r.cells[0].error), 1e-9);
  EXPECT_NEAR(r.predicted_mape, (std::abs(r.cells[1].error) + std::abs(r.cells[2].error)) / 2, 1e-9);
  EXPECT_NEAR(r.cells[0].sim_mean, 190, 190 * 0.02);  // 5% loss gives 190 of 200
  ASSERT_EQ(r.claims.size(), 1u);
  ASSERT_TRUE(r.claims[0].simulated);
  EXPECT_NEAR(*r.claims[0].simulated, r.cells[2].sim_mean / r.cells[0].sim_mean, 1e-12);
  ASSERT_EQ(static_cast<int>(seen.size()), r.evaluations);
  EXPECT_EQ(seen.front().evaluation, 1);
  EXPECT_DOUBLE_EQ(seen.back().best, r.objective);

  std::ostringstream report;
  write_calibration_report(report, r);
  EXPECT_NE(report.str().find("fitted"), std::string::npos);
  EXPECT_NE(report.str().find("predicted"), std::string::npos);
  EXPECT_NE(report.str().find("MAPE: fitted"), std::string::npos);

  // A fitted path may not also be pinned from outside.
  CalibrationOptions pinned;
  pinned.overrides = {{"filters.loss.probability", "0.1"}};
  EXPECT_THROW(run_calibration(f.path(), pinned), ScenarioError);
}

// Two fitted cells that want 5% and 5.5% loss, the loss probability free
// within 0 .. max; the simplex stops after max_evaluations.
std::string two_cell_loss_fit(const std::string& max, const std::string& max_evaluations = "30") {
  return udp_scenario("600Mbps", "0.02", R"(
measured:
  keys: { rate: traffic.flow.rate }
  cells:
    - { rate: 200Mbps, value: 190 }
    - { rate: 400Mbps, value: 378 }
calibrate:
  parameters:
    filters.loss.probability: { min: 0, max: )" + max + R"( }
  max_evaluations: )" + max_evaluations + R"(
)");
}

TEST(CalibrationReport, SaysWhenABoundCutsAnInterval) {
  // The bound stops the fit at 5.2%: the value sits on it and its interval is cut there.
  TempFile f("cut.yaml", two_cell_loss_fit("0.052"));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_TRUE(r.uncertainty.available) << r.uncertainty.why_not;
  ASSERT_EQ(r.uncertainty.parameters.size(), 1u);
  const std::string report = report_of(r);
  EXPECT_TRUE(r.uncertainty.parameters[0].clipped_hi) << report;
  EXPECT_NE(report.find("ON ITS UPPER BOUND"), std::string::npos) << report;
  EXPECT_NE(report.find("0.052 (bound)"), std::string::npos) << report;
  EXPECT_NE(report.find("an interval cut by a bound"), std::string::npos) << report;
}

TEST(CalibrationReport, NoBoundNoteWhenTheIntervalsAreInside) {
  TempFile f("inside.yaml", two_cell_loss_fit("0.2"));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_TRUE(r.uncertainty.available) << r.uncertainty.why_not;
  EXPECT_FALSE(r.uncertainty.parameters[0].clipped_hi);
  EXPECT_FALSE(r.uncertainty.parameters[0].clipped_lo);
  EXPECT_EQ(report_of(r).find("an interval cut by a bound"), std::string::npos);
}

TEST(CalibrationReport, ChecksTheFitOnSeedsItNeverRan) {
  // seeds: 2 fits on seeds 1-2; check_seeds: 2 runs every cell again on 3-4.
  const std::string text = udp_scenario("600Mbps", "0.02", R"(
measured:
  keys: { rate: traffic.flow.rate }
  cells:
    - { rate: 200Mbps, value: 190 }
    - { rate: 400Mbps, value: 378 }
    - { rate: 900Mbps, value: 560 }
calibrate:
  parameters:
    filters.loss.probability: { min: 0, max: 0.2 }
  fit_on: { rate: [200Mbps, 400Mbps] }
  seeds: 2
  check_seeds: 2
  max_evaluations: 30
)");
  TempFile f("check.yaml", text);
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_TRUE(r.seed_check.available);
  EXPECT_EQ(r.seed_check.seeds, (std::vector<std::uint64_t>{3, 4}));
  EXPECT_EQ(r.seed_check.fitted_count, 2u);
  EXPECT_EQ(r.seed_check.predicted_count, 1u);

  // The same numbers from plain runs at the fitted value on seeds 3 and 4.
  double objective = 0, fitted_mape = 0, predicted_mape = 0;
  for (const auto& [rate, measured] : std::vector<std::pair<std::string, double>>{{"200Mbps", 190}, {"400Mbps", 378},
                                                                                    {"900Mbps", 560}}) {
    double mean = 0;
    for (const char* seed : {"3", "4"}) {
      const ScenarioSpec spec = parse_scenario_text(
          text, "check.yaml",
          {{"traffic.flow.rate", rate}, {"filters.loss.probability", r.fitted_values[0]}, {"seed", seed}});
      mean += run_scenario(spec).flows(0).receiver_mbps() / 2;
    }
    const double e = std::abs(mean / measured - 1) * 100;
    if (rate == "900Mbps") {
      predicted_mape = e;
    } else {
      objective += std::pow(std::log(mean / measured), 2);
      fitted_mape += e / 2;
    }
  }
  EXPECT_NEAR(r.seed_check.objective, objective, 1e-12);
  EXPECT_NEAR(r.seed_check.fitted_mape, fitted_mape, 1e-9);
  EXPECT_NEAR(r.seed_check.predicted_mape, predicted_mape, 1e-9);
  EXPECT_NE(r.seed_check.objective, r.objective);  // other seeds, other noise

  const std::string report = report_of(r);
  EXPECT_NE(report.find("On seeds 3-4, which the fit never ran: objective"), std::string::npos) << report;
  const std::string profile = profile_of(r, "netsim calibrate check.yaml");
  EXPECT_NE(profile.find("seed_check: { seeds: [3, 4], objective: "), std::string::npos) << profile;
}

TEST(CalibrationSpec, CheckSeedsIsAWholeNumberAndOffByDefault) {
  const std::string base = two_cell_loss_fit("0.2", "5");
  TempFile f("nocheck.yaml", base);
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  EXPECT_FALSE(r.seed_check.available);
  EXPECT_EQ(report_of(r).find("which the fit never ran"), std::string::npos);
  for (const char* bad : {"-1", "1.5", "1001", "many"}) {
    TempFile g("badcheck.yaml", base + "  check_seeds: " + bad + "\n");
    EXPECT_THROW(run_calibration(g.path(), CalibrationOptions{}), ScenarioError) << bad;
  }
}

TEST(CalibrationProfile, RoundTripsTheFittedValuesOfEveryPath) {
  const std::string truth = udp_scenario("600Mbps", "0.05", "");
  TempFile f("profile.yaml", udp_scenario("400Mbps", "0.02",
                                          measured_and_calibrate(simulated(truth, "200Mbps"),
                                                                 simulated(truth, "900Mbps"), "nelder_mead")));
  CalibrationOptions o;
  o.max_evaluations = 12;
  const CalibrationResult r = run_calibration(f.path(), o);
  std::ostringstream out;
  write_calibration_profile(out, r, "netsim calibrate x.yaml");
  const CalibrationProfile p = parse_calibration_profile(out.str(), "p.yaml");
  EXPECT_EQ(p.scenario, "udp-synthetic");
  ASSERT_EQ(p.overrides.size(), 2u);
  EXPECT_EQ(p.overrides[0].key, "links.sw-rx.rate");
  EXPECT_EQ(p.overrides[0].value, r.fitted_values[0]);
  EXPECT_EQ(p.overrides[1].key, "filters.loss.probability");
  EXPECT_EQ(p.overrides[1].value, r.fitted_values[1]);
  // Applying the profile reproduces the fitted cells exactly.
  std::vector<Override> with = p.overrides;
  with.push_back({"traffic.flow.rate", "200Mbps"});
  EXPECT_DOUBLE_EQ(run_scenario(load_scenario(f.path(), with)).flows(0).receiver_mbps(), r.cells[0].sim_mean);

  const CalibrationProfile linked =
      parse_calibration_profile("parameters:\n  \"a.x + b.y\": 5us\n  c.z: { value: 3 }\n", "l.yaml");
  ASSERT_EQ(linked.overrides.size(), 3u);
  EXPECT_EQ(linked.overrides[1].key, "b.y");
  EXPECT_EQ(linked.overrides[1].value, "5us");
  EXPECT_EQ(linked.overrides[2].value, "3");
  try {
    parse_calibration_profile("scenario: x\nparameters:\n  a.b: [1, 2]\n", "bad.yaml");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:3:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_calibration_profile("scenario: x\n", "none.yaml"), ScenarioError);
  EXPECT_THROW(parse_calibration_profile("parameters: {a: \n", "syntax.yaml"), ScenarioError);
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

TEST(CalibrationProfile, AScenarioIncludesOneWithCalibrationKey) {
  const fs::path dir = fs::temp_directory_path() / ("netsim-calibration-key-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "fit.profile.yaml") << "scenario: x\nparameters:\n  \"links.sw-rx.rate\": { value: 123Mbps }\n"
                                          << "  filters.loss.probability: 0.25\n";
  std::ofstream(dir / "s.yaml") << udp_scenario("400Mbps", "0.02", "calibration: fit.profile.yaml\n");
  const ScenarioSpec s = load_scenario((dir / "s.yaml").string());
  ASSERT_EQ(s.links.size(), 2u);
  EXPECT_EQ(s.links[1].rate.bps(), 123'000'000);
  ASSERT_EQ(s.filters.size(), 1u);
  EXPECT_DOUBLE_EQ(s.filters[0].probability, 0.25);
  ASSERT_FALSE(s.includes.empty());
  EXPECT_EQ(fs::path(s.includes.back()).filename(), "fit.profile.yaml");
  // The command line still wins.
  const ScenarioSpec t = load_scenario((dir / "s.yaml").string(), {{"links.sw-rx.rate", "200Mbps"}});
  EXPECT_EQ(t.links[1].rate.bps(), 200'000'000);
  // A missing profile is an error naming it.
  std::ofstream(dir / "m.yaml") << udp_scenario("400Mbps", "0.02", "calibration: none.yaml\n");
  try {
    load_scenario((dir / "m.yaml").string());
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("none.yaml"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

TEST(MeasuredDataCells, MapsKeysAveragesRepeatsAndReportsWhatItCannotUse) {
  const std::string data = std::string(NETSIM_SOURCE_DIR) + "/tests/data/measure/";
  MeasuredSpec block;
  block.keys = {{"kernel", "hosts.tx.hz"}, {"rate", "traffic.flow.rate"}};
  MeasuredMetric m;
  m.name = "value";
  m.metric = "receiver_mbps";
  block.metrics = {m};
  measure::MeasurementMapping mapping;
  auto entry = [&](const std::string& file, std::map<std::string, std::string> params) {
    measure::MappingEntry e;
    e.file = data + file;
    e.params = std::move(params);
    e.source = "test";
    return e;
  };
  // Three nuttcp runs of one cell (by short key and by scenario path), one
  // iperf3 run of another, a broken file, and an entry with an unknown key.
  mapping.entries = {entry("nuttcp-tcp.txt", {{"kernel", "100"}, {"traffic.flow.rate", "max"}}),
                     entry("iperf3-client.json", {{"kernel", "1000"}, {"rate", "max"}}),
                     entry("broken-iperf3-garbled.txt", {{"kernel", "250"}, {"rate", "max"}}),
                     entry("iperf3-client.json", {{"kernel", "1000"}, {"rate", "max"}, {"cc", "cubic"}})};
  const DataCells d = cells_from_data(block, "s.yaml", mapping);
  ASSERT_EQ(d.cells.size(), 2u);
  EXPECT_EQ(d.cells[0].key_values, (std::vector<std::string>{"100", "max"}));
  EXPECT_EQ(d.cells[1].key_values, (std::vector<std::string>{"1000", "max"}));
  // nuttcp reports what the receiver got: the mean of the three runs.
  const measure::LoadedMeasurements n = measure::load_measurement_file(data + "nuttcp-tcp.txt");
  ASSERT_EQ(n.runs.size(), 3u);
  double sum = 0;
  for (const auto& r : n.runs) sum += *r.receiver_mbps;
  EXPECT_NEAR(d.cells[0].value, sum / 3, 1e-9);
  EXPECT_EQ(d.cells[0].values, std::vector<double>{d.cells[0].value});
  EXPECT_EQ(d.sources.size(), 4u);  // 3 + 1 samples
  ASSERT_EQ(d.errors.size(), 2u);
  EXPECT_NE(d.errors[0].find("broken-iperf3-garbled.txt:"), std::string::npos) << d.errors[0];
  EXPECT_NE(d.errors[1].find("'cc' is not a key of the measured block"), std::string::npos) << d.errors[1];

  // A fairness index over flows whose throughputs the block does not compare.
  MeasuredSpec fairness = block;
  MeasuredMetric jain;
  jain.name = "jain";
  jain.fairness = {"s1", "s2"};
  fairness.metrics = {jain};
  EXPECT_THROW(cells_from_data(fairness, "s.yaml", mapping), ScenarioError);
}

// T2's block: each sender's throughput and Jain's index of the two.
MeasuredSpec t2_block() {
  MeasuredSpec block;
  block.keys = {{"hz", "hosts.s1.hz"}};
  block.multi = true;
  for (const char* flow : {"s1", "s2"}) {
    MeasuredMetric k;
    k.name = flow;
    k.flow = flow;
    block.metrics.push_back(k);
  }
  MeasuredMetric jain;
  jain.name = "jain";
  jain.fairness = {"s1", "s2"};
  block.metrics.push_back(jain);
  return block;
}

TEST(MeasuredDataCells, SeveralFlowsByTheirEntriesAndJainFromTheirThroughputs) {
  const std::string data = std::string(NETSIM_SOURCE_DIR) + "/tests/data/measure/";
  const MeasuredSpec block = t2_block();
  auto entry = [&](const std::string& file, const std::string& flow, const std::string& hz) {
    measure::MappingEntry e;
    e.file = data + file;
    e.params = {{"hz", hz}};
    e.flow = flow;
    e.source = file + "/" + flow;
    return e;
  };
  const measure::MeasurementMapping mapping{{entry("iperf3-client.json", "s1", "100"),
                                             entry("nuttcp-tcp.txt", "s2", "100"),
                                             entry("iperf3-client.json", "", "1000"),
                                             entry("iperf3-client.json", "s3", "1000")}};
  const DataCells d = cells_from_data(block, "s.yaml", mapping);
  ASSERT_EQ(d.cells.size(), 1u);
  EXPECT_EQ(d.cells[0].key_values, std::vector<std::string>{"100"});
  const auto s1 = measure::load_measurement_file(data + "iperf3-client.json").runs;
  const auto s2 = measure::load_measurement_file(data + "nuttcp-tcp.txt").runs;
  ASSERT_EQ(s1.size(), 1u);
  ASSERT_EQ(s2.size(), 3u);
  const double x1 = *s1[0].receiver_mbps;
  const double x2 = (*s2[0].receiver_mbps + *s2[1].receiver_mbps + *s2[2].receiver_mbps) / 3;
  ASSERT_EQ(d.cells[0].values.size(), 3u);
  EXPECT_DOUBLE_EQ(d.cells[0].values[0], x1);
  EXPECT_NEAR(d.cells[0].values[1], x2, 1e-9);
  EXPECT_NEAR(d.cells[0].values[2], (x1 + x2) * (x1 + x2) / (2 * (x1 * x1 + x2 * x2)), 1e-12);
  // One run of s1 and three of s2 cannot be paired into runs: the index of
  // the two means, a single value.
  EXPECT_EQ(d.cells[0].runs, (std::vector<std::size_t>{1, 3, 1}));
  EXPECT_EQ(d.cells[0].min_values[2], d.cells[0].values[2]);
  EXPECT_EQ(d.cells[0].max_values[2], d.cells[0].values[2]);
  // The entry without a flow and the one for a flow the block does not compare.
  ASSERT_EQ(d.errors.size(), 2u);
  EXPECT_NE(d.errors[0].find("say which this file measured"), std::string::npos) << d.errors[0];
  EXPECT_NE(d.errors[1].find("compares no flow 's3'"), std::string::npos) << d.errors[1];
}

TEST(MeasuredDataCells, RepeatedRunsGiveTheMeanOfEachRunsJainIndex) {
  // Two runs of one pairing (as tools/testbed/t2-measure.sh -n 2 maps them):
  // 279 / 647 Mbit/s, then 647 / 279. Each run's index is 0.864, and so is
  // their mean, as the simulated column averages each seed's index; the
  // index of the mean throughputs (463 / 463) would be 1.
  const std::string data = std::string(NETSIM_SOURCE_DIR) + "/tests/data/measure/";
  auto entry = [&](const std::string& file, const std::string& flow) {
    measure::MappingEntry e;
    e.file = data + file;
    e.params = {{"hz", "100"}};
    e.flow = flow;
    e.source = file + "/" + flow;
    return e;
  };
  const measure::MeasurementMapping mapping{{entry("iperf2-t2-s1-server.txt", "s1"),
                                             entry("iperf2-t2-s2-server.txt", "s2"),
                                             entry("iperf2-t2-s2-server.txt", "s1"),
                                             entry("iperf2-t2-s1-server.txt", "s2")}};
  const DataCells d = cells_from_data(t2_block(), "s.yaml", mapping);
  ASSERT_TRUE(d.errors.empty()) << d.errors.front();
  ASSERT_EQ(d.cells.size(), 1u);
  const double a = *measure::load_measurement_file(data + "iperf2-t2-s1-server.txt").runs.at(0).receiver_mbps;
  const double b = *measure::load_measurement_file(data + "iperf2-t2-s2-server.txt").runs.at(0).receiver_mbps;
  ASSERT_NEAR(a, 279, 0.5);
  ASSERT_NEAR(b, 647, 0.5);
  const double per_run = (a + b) * (a + b) / (2 * (a * a + b * b));
  EXPECT_NEAR(d.cells[0].values[0], (a + b) / 2, 1e-9);
  EXPECT_NEAR(d.cells[0].values[1], (a + b) / 2, 1e-9);
  EXPECT_NEAR(d.cells[0].values[2], per_run, 1e-12);
  EXPECT_NEAR(per_run, 0.864, 0.001);
  // How many runs and their range, per metric.
  EXPECT_EQ(d.cells[0].runs, (std::vector<std::size_t>{2, 2, 2}));
  EXPECT_EQ(d.cells[0].min_values[0], a);
  EXPECT_EQ(d.cells[0].max_values[1], b);
  EXPECT_NEAR(d.cells[0].min_values[2], per_run, 1e-12);
  EXPECT_NEAR(d.cells[0].max_values[2], per_run, 1e-12);
}

TEST(MeasuredDataCells, OneFlowsSeveralMetricsComeFromTheSameFiles) {
  // A ping's min, avg and max, as scenarios/t1-idle-ping.yaml compares them.
  const std::string data = std::string(NETSIM_SOURCE_DIR) + "/tests/data/measure/";
  MeasuredSpec block;
  block.keys = {{"hz", "hosts.sender.hz"}};
  for (const char* name : {"min", "avg", "max"}) {
    MeasuredMetric k;
    k.name = name;
    k.flow = "ping";
    k.metric = std::string("rtt_") + name + "_ms";
    block.metrics.push_back(k);
  }
  block.multi = true;
  measure::MappingEntry freebsd;
  freebsd.file = data + "ping-freebsd.txt";
  freebsd.params = {{"hz", "1000"}};
  freebsd.source = "test";
  measure::MappingEntry lost = freebsd;  // its second ping got no reply: no rtt figures
  lost.file = data + "ping-two-runs.txt";
  lost.params = {{"hz", "100"}};
  const DataCells d = cells_from_data(block, "s.yaml", measure::MeasurementMapping{{freebsd, lost}});
  const measure::LoadedMeasurements f = measure::load_measurement_file(data + "ping-freebsd.txt");
  ASSERT_EQ(f.runs.size(), 1u);
  ASSERT_GE(d.cells.size(), 1u);
  EXPECT_EQ(d.cells[0].key_values, std::vector<std::string>{"1000"});
  EXPECT_EQ(d.cells[0].values, (std::vector<double>{*f.runs[0].rtt_min_ms, *f.runs[0].rtt_avg_ms, *f.runs[0].rtt_max_ms}));
  EXPECT_EQ(d.cells[0].value, *f.runs[0].rtt_min_ms);
  // The run without replies is an error for each metric's entry, reported once.
  std::set<std::string> unique(d.errors.begin(), d.errors.end());
  EXPECT_EQ(unique.size(), d.errors.size());
  EXPECT_FALSE(d.errors.empty());
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

// Options that let `evaluations` evaluations run and refuse the next one (a
// stop request), recording each evaluation's progress in `seen`.
CalibrationOptions stop_after(int evaluations, int& polls, std::vector<EvaluationProgress>& seen) {
  CalibrationOptions o;
  o.stop_requested = [&polls, evaluations] { return ++polls > evaluations; };
  o.progress = [&seen](const EvaluationProgress& p) { seen.push_back(p); };
  return o;
}

const EvaluationProgress& best_seen(const std::vector<EvaluationProgress>& seen) {
  return *std::min_element(seen.begin(), seen.end(),
                           [](const auto& a, const auto& b) { return a.objective < b.objective; });
}

TEST(Calibration, AStopKeepsTheBestPointSoFar) {
  const std::string truth = udp_scenario("600Mbps", "0.05", "");
  TempFile f("stop.yaml", udp_scenario("400Mbps", "0.02",
                                       measured_and_calibrate(simulated(truth, "200Mbps"),
                                                              simulated(truth, "900Mbps"), "nelder_mead")));
  int polls = 0;
  std::vector<EvaluationProgress> seen;
  const CalibrationResult r = run_calibration(f.path(), stop_after(5, polls, seen));  // the sixth is refused
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.stop_reason, "interrupted");
  EXPECT_EQ(r.evaluations, 5);
  ASSERT_EQ(seen.size(), 5u);
  const EvaluationProgress* best = &best_seen(seen);
  EXPECT_EQ(r.fitted_values, best->values);
  EXPECT_DOUBLE_EQ(r.objective, best->objective);
  EXPECT_EQ(r.cells.size(), 2u);  // the report still runs at that point

  CalibrationOptions at_once;
  at_once.stop_requested = [] { return true; };
  EXPECT_THROW(run_calibration(f.path(), at_once), std::runtime_error);
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

TEST(Calibration, AMeasuredKeyOnALinkedAxisSetsTheWholeAxisValue) {
  // The cell rate=300Mbps stands for the sweep cell that also sets a 10% loss.
  TempFile f("linked.yaml", udp_scenario("600Mbps", "0", R"(
sweep:
  "links.sw-rx.rate + filters.loss.probability": [[300Mbps, 0.1], [600Mbps, 0]]
measured:
  keys: { rate: links.sw-rx.rate }
  cells:
    - { rate: 300Mbps, value: 180 }
    - { rate: 600Mbps, value: 200 }
calibrate:
  parameters:
    links.tx-sw.delay: { min: 1us, max: 10us }
  max_evaluations: 3
)"));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_EQ(r.cells.size(), 2u);
  // 200 Mbit/s offered: 10% lost in the first cell, none in the second.
  EXPECT_NEAR(r.cells[0].sim_mean, 180, 180 * 0.03);
  EXPECT_NEAR(r.cells[1].sim_mean, 200, 1);
}

TEST(Calibration, ALabelledMeasuredKeySetsEveryPathOfItsLabel) {
  // shape: lossy = (300 Mbit/s, 10% loss), clean = (600 Mbit/s, no loss).
  TempFile f("labelled.yaml", udp_scenario("600Mbps", "0", R"(
measured:
  keys:
    shape:
      paths: [links.sw-rx.rate, filters.loss.probability]
      labels: { lossy: [300Mbps, 0.1], clean: [600Mbps, 0] }
  cells:
    - { shape: lossy, value: 180 }
    - { shape: clean, value: 200 }
calibrate:
  parameters:
    links.tx-sw.delay: { min: 1us, max: 10us }
  max_evaluations: 3
)"));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_EQ(r.cells.size(), 2u);
  EXPECT_EQ(r.cells[0].key_values, std::vector<std::string>{"lossy"});
  EXPECT_NEAR(r.cells[0].sim_mean, 180, 180 * 0.03);
  EXPECT_NEAR(r.cells[1].sim_mean, 200, 1);
  // A labelled key's paths are measured keys: they cannot be fitted.
  TempFile g("labelled-fit.yaml", udp_scenario("600Mbps", "0", R"(
measured:
  keys:
    shape: { paths: "links.sw-rx.rate + filters.loss.probability", labels: { lossy: [300Mbps, 0.1] } }
  cells:
    - { shape: lossy, value: 180 }
calibrate:
  parameters:
    filters.loss.probability: { min: 0, max: 0.5 }
)"));
  try {
    run_calibration(g.path(), CalibrationOptions{});
    ADD_FAILURE() << "a labelled key's path was fitted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("is a measured key"), std::string::npos) << e.what();
  }
}

TEST(MeasuredDataCells, ALabelledKeyFromItsLabelOrFromItsPathsValues) {
  const std::string file = std::string(NETSIM_SOURCE_DIR) + "/tests/data/measure/iperf3-client.json";
  const ScenarioSpec spec = parse_scenario_text(udp_scenario("600Mbps", "0", R"(
measured:
  keys:
    cc: traffic.flow.cc
    offload: { paths: [traffic.flow.tso, hosts.rx.nic.gro], labels: { per-packet: [false, false], tso: [true, false] } }
)"), "s.yaml");
  const std::optional<MeasuredSpec> block = parse_measured(spec, CellsFrom::data);
  ASSERT_TRUE(block.has_value());
  auto entry = [&](std::map<std::string, std::string> params) {
    measure::MappingEntry e;
    e.file = file;
    e.params = std::move(params);
    e.source = "test";
    return e;
  };
  const DataCells d = cells_from_data(
      *block, "s.yaml",
      measure::MeasurementMapping{{entry({{"cc", "reno"}, {"offload", "tso"}}),
                                   entry({{"cc", "reno"}, {"traffic.flow.tso", "false"}, {"hosts.rx.nic.gro", "false"}}),
                                   entry({{"cc", "reno"}, {"traffic.flow.tso", "false"}, {"hosts.rx.nic.gro", "true"}}),
                                   entry({{"cc", "reno"}, {"offload", "gro"}}),
                                   entry({{"cc", "reno"}, {"traffic.flow.tso", "true"}})}});
  ASSERT_EQ(d.cells.size(), 2u);
  EXPECT_EQ(d.cells[0].key_values, (std::vector<std::string>{"reno", "tso"}));
  EXPECT_EQ(d.cells[1].key_values, (std::vector<std::string>{"reno", "per-packet"}));
  ASSERT_EQ(d.errors.size(), 3u);
  EXPECT_NE(d.errors[0].find("(false+true) match no label of the measured key 'offload'"), std::string::npos)
      << d.errors[0];
  EXPECT_NE(d.errors[1].find("'gro' is not a label of the measured key 'offload'"), std::string::npos) << d.errors[1];
  EXPECT_NE(d.errors[2].find("no value for the measured key 'offload'"), std::string::npos) << d.errors[2];
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

TEST(MeasuredDataCells, RetransmitsFromIperf3Reports) {
  const std::string file = std::string(NETSIM_SOURCE_DIR) + "/tests/data/measure/iperf3-client.json";
  MeasuredSpec block;
  block.keys = {{"cc", "traffic.f.cc"}};
  MeasuredMetric m;
  m.name = "value";
  m.metric = "retransmits";
  block.metrics = {m};
  measure::MappingEntry e;
  e.file = file;
  e.params = {{"cc", "newreno"}};
  e.source = "test";
  const DataCells d = cells_from_data(block, "s.yaml", measure::MeasurementMapping{{e}});
  ASSERT_EQ(d.cells.size(), 1u) << (d.errors.empty() ? "" : d.errors.front());
  const measure::LoadedMeasurements runs = measure::load_measurement_file(file);
  ASSERT_EQ(runs.runs.size(), 1u);
  ASSERT_TRUE(runs.runs[0].retransmits.has_value());
  EXPECT_DOUBLE_EQ(d.cells[0].value, static_cast<double>(*runs.runs[0].retransmits));
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

TEST(CalibrationParameter, BoundHitWithinATenthOfAPercentOfTheRange) {
  CalibrationParameter p;
  p.min = 1e6;    // 1 us in ps
  p.max = 120e6;  // 120 us
  EXPECT_EQ(bound_hit(p, 1e6), "lower");
  EXPECT_EQ(bound_hit(p, 1e6 + 0.119e6), "lower");  // within 0.1% of 119 us
  EXPECT_EQ(bound_hit(p, 1e6 + 0.12e6), "");
  EXPECT_EQ(bound_hit(p, 60e6), "");
  EXPECT_EQ(bound_hit(p, 120e6), "upper");
}

// Measurements made with a 5% loss, fitted within [0, 2%]: the fit ends on
// the upper bound, and the report and the profile say so.
TEST(CalibrationReport, AFitThatEndsOnABoundIsFlagged) {
  const std::string truth = udp_scenario("1Gbps", "0.05", "");
  std::ostringstream block;
  block.precision(17);
  block << "measured:\n  keys: { rate: traffic.flow.rate }\n  cells:\n"
        << "    - { rate: 200Mbps, value: " << simulated(truth, "200Mbps") << " }\n"
        << "calibrate:\n  parameters:\n    filters.loss.probability: { min: 0, max: 0.02, start: 0.01 }\n"
        << "  max_evaluations: 30\n";
  TempFile f("bound.yaml", udp_scenario("1Gbps", "0.01", block.str()));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_EQ(r.fitted.size(), 1u);
  EXPECT_EQ(r.fitted_values[0], "0.02");
  std::ostringstream report;
  write_calibration_report(report, r);
  EXPECT_NE(report.str().find("(start 0.01, bounds 0 .. 0.02)  ON ITS UPPER BOUND\n"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("the data pull it outside the range"), std::string::npos);
  std::ostringstream profile;
  write_calibration_profile(profile, r, "netsim calibrate bound.yaml");
  EXPECT_NE(profile.str().find("start: 0.01, at_bound: upper }"), std::string::npos) << profile.str();
  // A fit inside its range carries no flag.
  std::ostringstream plain;
  CalibrationResult inside = r;
  inside.fitted[0] = 0.01;
  write_calibration_report(plain, inside);
  EXPECT_EQ(plain.str().find("BOUND"), std::string::npos);
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

// One parameter (the bottleneck's rate R) fitted on three UDP cells that
// saturate it with datagrams of different sizes; the measurements are
// netsim's own with known errors of +2%, -1% and 0%. Every simulated value
// is R times a constant of its cell, so every residual is log R plus a
// constant, and the linearized standard error of R has the closed form
// s R / sqrt(3); a predicted cell's band follows it. (A 16 KiB switch
// buffer: 256 KiB would add its backlog's drain to 200 ms of traffic, and
// the values would be R times a constant plus an offset.)
std::string saturating_scenario(const std::string& rate, const std::string& extra) {
  std::string s = udp_scenario(rate, "0", extra);
  s.replace(s.find("buffer: 256KiB"), 14, "buffer: 16KiB");
  return s;
}

double saturated(const std::string& yaml, const std::string& size) {
  const ScenarioSpec spec = parse_scenario_text(yaml, "truth.yaml", {{"traffic.flow.size", size}});
  return run_scenario(spec).flows(0).receiver_mbps();
}

TEST(CalibrationUncertainty, IntervalsFollowTheScatterOfTheFittedCells) {
  const std::string truth = saturating_scenario("100Mbps", "");
  std::ostringstream block;
  block.precision(17);
  block << "measured:\n  keys: { size: traffic.flow.size }\n  cells:\n"
        << "    - { size: 1472B, value: " << saturated(truth, "1472B") * 1.02 << " }\n"
        << "    - { size: 1000B, value: " << saturated(truth, "1000B") * 0.99 << " }\n"
        << "    - { size: 600B, value: " << saturated(truth, "600B") << " }\n"
        << "    - { size: 200B, value: " << saturated(truth, "200B") << " }\n"
        << "calibrate:\n  parameters:\n    links.sw-rx.rate: { min: 50Mbps, max: 190Mbps, start: 80Mbps }\n"
        << "  fit_on: { size: [1472B, 1000B, 600B] }\n  max_evaluations: 60\n  tolerance: 0.0005\n";
  TempFile f("uncertainty.yaml", saturating_scenario("80Mbps", block.str()));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  const UncertaintyResult& u = r.uncertainty;
  ASSERT_TRUE(u.available) << u.why_not;
  EXPECT_EQ(u.dof, 2);
  EXPECT_EQ(u.residuals, 3u);
  EXPECT_NEAR(u.s, std::sqrt(r.objective / 2), 1e-12);
  EXPECT_GT(u.s, 0.005);  // the +2% / -1% put there
  ASSERT_EQ(u.parameters.size(), 1u);
  const double rate = r.fitted[0];
  EXPECT_NEAR(rate / 100e6, 1.0, 0.01) << r.fitted_values[0];
  const ParameterUncertainty& pu = u.parameters[0];
  ASSERT_TRUE(pu.determined);
  EXPECT_NEAR(pu.std_error / (u.s * rate / std::sqrt(3.0)), 1.0, 0.02);
  EXPECT_NEAR(pu.lo, rate - u.t * pu.std_error, 1e3);  // the interval's ends are quantized to 1 kbit/s
  EXPECT_NEAR(pu.hi, rate + u.t * pu.std_error, 1e3);
  EXPECT_LT(pu.lo, 100e6);  // the truth is inside
  EXPECT_GT(pu.hi, 100e6);
  // The predicted 200-byte cell: log band t s / sqrt(3), prediction t s sqrt(1 + 1/3).
  ASSERT_EQ(r.cells.size(), 4u);
  const CellResult& pred = r.cells[3];
  ASSERT_FALSE(pred.fitted);
  ASSERT_TRUE(pred.has_band);
  EXPECT_NEAR(std::log(pred.band_hi / pred.sim_mean) / (u.t * u.s / std::sqrt(3.0)), 1.0, 0.02);
  EXPECT_NEAR(std::log(pred.sim_mean / pred.band_lo) / (u.t * u.s / std::sqrt(3.0)), 1.0, 0.02);
  EXPECT_NEAR(std::log(pred.prediction_hi / pred.sim_mean) / (u.t * u.s * std::sqrt(4.0 / 3)), 1.0, 0.02);
  EXPECT_TRUE(pred.measured_in_prediction);  // an unperturbed measurement
  EXPECT_EQ(u.predicted_with, 1u);
  EXPECT_EQ(u.predicted_in, 1u);
  EXPECT_EQ(u.fitted_with, 3u);
  EXPECT_GT(u.simulation_runs, 0);

  std::ostringstream report;
  write_calibration_report(report, r);
  EXPECT_NE(report.str().find("Uncertainty, linearized at the fit"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("95% band"), std::string::npos);
  EXPECT_NE(report.str().find("Measured inside the 95% prediction interval: fitted "), std::string::npos);
  std::ostringstream profile;
  write_calibration_profile(profile, r, "netsim calibrate uncertainty.yaml");
  EXPECT_NE(profile.str().find("uncertainty:\n"), std::string::npos) << profile.str();
  EXPECT_NE(profile.str().find("degrees_of_freedom: 2\n"), std::string::npos);
  // The extra blocks do not disturb reading the profile back.
  const CalibrationProfile back = parse_calibration_profile(profile.str(), "p.yaml");
  ASSERT_EQ(back.overrides.size(), 1u);
  EXPECT_EQ(back.overrides[0].value, r.fitted_values[0]);
}

TEST(CalibrationUncertainty, NeedsMoreFittedValuesThanParametersAndCanBeSwitchedOff) {
  const std::string truth = udp_scenario("600Mbps", "0.05", "");
  TempFile f("nodof.yaml", udp_scenario("400Mbps", "0.02",
                                        measured_and_calibrate(simulated(truth, "200Mbps"),
                                                               simulated(truth, "900Mbps"), "nelder_mead")));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  EXPECT_FALSE(r.uncertainty.available);
  EXPECT_NE(r.uncertainty.why_not.find("no degrees of freedom"), std::string::npos) << r.uncertainty.why_not;
  std::ostringstream report;
  write_calibration_report(report, r);
  EXPECT_NE(report.str().find("Uncertainty: not computed (2 fitted values for 2 parameters"), std::string::npos)
      << report.str();
  CalibrationOptions off;
  off.overrides = {{"calibrate.uncertainty", "false"}};
  const CalibrationResult q = run_calibration(f.path(), off);
  EXPECT_FALSE(q.uncertainty.available);
  EXPECT_TRUE(q.uncertainty.why_not.empty());
  std::ostringstream quiet;
  write_calibration_report(quiet, q);
  EXPECT_EQ(quiet.str().find("Uncertainty"), std::string::npos);
}

// Three starts: the declared one, then Halton points 1 and 2 over the box;
// every start's minimum is reported, the best becomes the result.
TEST(CalibrationStarts, EveryStartIsReportedAndTheBestWins) {
  const std::string truth = udp_scenario("600Mbps", "0.05", "");
  TempFile f("starts.yaml", udp_scenario("400Mbps", "0.02",
                                         measured_and_calibrate(simulated(truth, "200Mbps"),
                                                                simulated(truth, "900Mbps"), "nelder_mead") +
                                             "  starts: 3\n"));
  std::vector<int> starts_seen;
  CalibrationOptions o;
  o.progress = [&starts_seen](const EvaluationProgress& p) { starts_seen.push_back(p.start); };
  const CalibrationResult r = run_calibration(f.path(), o);
  ASSERT_EQ(r.starts.size(), 3u);
  EXPECT_EQ(r.starts[0].start_values, (std::vector<std::string>{"400Mbps", "0.02"}));
  // Halton point 1 is (1/2, 1/3): 100 + 450 Mbit/s and 0.2 / 3.
  EXPECT_EQ(r.starts[1].start_values[0], "550Mbps");
  EXPECT_EQ(r.starts[2].start_values[0], "325Mbps");  // (1/4, 2/3)
  int best = 0, evaluations = 0;
  for (const StartResult& s : r.starts) {
    best += s.best ? 1 : 0;
    evaluations += s.evaluations;
    EXPECT_TRUE(s.cells_run);
    EXPECT_GE(s.objective, r.objective);
    EXPECT_NEAR(s.objective == r.objective ? 1.0 : 0.0, s.best ? 1.0 : 0.0, s.best ? 0.0 : 1.0);
  }
  EXPECT_EQ(best, 1);
  EXPECT_EQ(evaluations, r.evaluations);
  EXPECT_EQ(static_cast<int>(starts_seen.size()), r.evaluations);
  EXPECT_EQ(starts_seen.front(), 1);
  EXPECT_EQ(starts_seen.back(), 3);
  for (const StartResult& s : r.starts) {
    if (s.best) {
      EXPECT_EQ(s.values, r.fitted_values);
    }
  }
  // All three end in the truth's basin: the later ones say so.
  EXPECT_EQ(r.starts[1].same_as + r.starts[2].same_as > 0, true);
  std::ostringstream report;
  write_calibration_report(report, r);
  EXPECT_NE(report.str().find("Starts (3; the declared start, then Halton points over the box):"), std::string::npos)
      << report.str();
  EXPECT_NE(report.str().find("same minimum as 1"), std::string::npos) << report.str();
  std::ostringstream profile;
  write_calibration_profile(profile, r, "netsim calibrate starts.yaml");
  EXPECT_NE(profile.str().find("starts:\n  - { from: [400Mbps, 0.02]"), std::string::npos) << profile.str();
}

TEST(CalibrationSpec, StartsUncertaintyAndConfidenceAreChecked) {
  const std::string head = udp_scenario("400Mbps", "0.02", R"(
measured:
  keys: { rate: traffic.flow.rate }
  cells:
    - { rate: 200Mbps, value: 190 }
calibrate:
  parameters:
    filters.loss.probability: { min: 0, max: 0.2 }
)");
  auto error_of = [&](const std::string& line) {
    try {
      const ScenarioSpec spec = parse_scenario_text(head + line, "s.yaml", {});
      const std::optional<MeasuredSpec> m = parse_measured(spec);
      parse_calibration(spec, *m);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("  starts: 0\n").find("calibrate.starts"), std::string::npos);
  EXPECT_NE(error_of("  starts: 2.5\n").find("whole number"), std::string::npos);
  EXPECT_NE(error_of("  uncertainty: maybe\n").find("expected true or false"), std::string::npos);
  EXPECT_NE(error_of("  confidence: 1.5\n").find("calibrate.confidence"), std::string::npos);
  EXPECT_EQ(error_of("  starts: 4\n  uncertainty: false\n  confidence: 0.68\n"), "");
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

// The fitted cells all saturate the bottleneck, so they see only R (1 - p):
// a valley of minima. Starts from different points end at different places
// on it with objectives the F test cannot tell apart, and the predicted cell
// (offered 40 Mbit/s, below every R) depends on p alone: the report says
// the fitted cells do not decide.
TEST(CalibrationStarts, AValleyOfEqualMinimaIsReportedAsUndecided) {
  const std::string truth = saturating_scenario("100Mbps", "");
  auto value = [&](const std::string& size, const std::string& rate) {
    const ScenarioSpec spec = parse_scenario_text(
        truth, "truth.yaml",
        {{"traffic.flow.size", size}, {"traffic.flow.rate", rate}, {"filters.loss.probability", "0.1"}});
    return run_scenario(spec).flows(0).receiver_mbps();
  };
  std::ostringstream block;
  block.precision(17);
  block << "measured:\n  keys: { size: traffic.flow.size, rate: traffic.flow.rate }\n  cells:\n"
        << "    - { size: 1472B, rate: 200Mbps, value: " << value("1472B", "200Mbps") * 1.02 << " }\n"
        << "    - { size: 1000B, rate: 200Mbps, value: " << value("1000B", "200Mbps") * 0.99 << " }\n"
        << "    - { size: 600B, rate: 200Mbps, value: " << value("600B", "200Mbps") << " }\n"
        << "    - { size: 1472B, rate: 40Mbps, value: " << value("1472B", "40Mbps") << " }\n"
        << "calibrate:\n  parameters:\n"
        << "    links.sw-rx.rate: { min: 50Mbps, max: 190Mbps, start: 120Mbps }\n"
        << "    filters.loss.probability: { min: 0, max: 0.4, start: 0.2 }\n"
        << "  fit_on: { rate: 200Mbps }\n  max_evaluations: 80\n  tolerance: 0.002\n  starts: 3\n";
  TempFile f("valley.yaml", saturating_scenario("80Mbps", block.str()));
  const CalibrationResult r = run_calibration(f.path(), CalibrationOptions{});
  ASSERT_EQ(r.starts.size(), 3u);
  int equivalent = 0;
  double lo = 1e9, hi = 0;
  for (const StartResult& s : r.starts) {
    equivalent += s.equivalent ? 1 : 0;
    ASSERT_TRUE(s.cells_run);
    lo = std::min(lo, s.predicted_mape);
    hi = std::max(hi, s.predicted_mape);
  }
  EXPECT_GE(equivalent, 1);
  EXPECT_GT(hi - lo, 1.0);  // the minima predict the 40 Mbit/s cell differently
  std::ostringstream report;
  write_calibration_report(report, r);
  EXPECT_NE(report.str().find("fits as well as the best (F test)"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("The fitted cells do not decide between minima that predict differently"),
            std::string::npos)
      << report.str();
  // Along the valley R (1 - p) is constant: R and p rise together.
  ASSERT_TRUE(r.uncertainty.available);
  ASSERT_EQ(r.uncertainty.correlation.size(), 2u);
  EXPECT_GT(r.uncertainty.correlation[0][1], 0.9);
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

// Standard errors and widths are amounts, not values: never clamped into
// the bounds (a 20 KB error of a buffer bounded at 64-1000 KB stays 20 KB).
CalibrationParameter bounded(ParameterKind kind, const std::string& unit, double min, double max) {
  CalibrationParameter p;
  p.kind = kind;
  p.unit = unit;
  p.min = min;
  p.max = max;
  return p;
}

TEST(CalibrationParameter, AmountsAreNeitherQuantizedNorClamped) {
  const CalibrationParameter buffer = bounded(ParameterKind::size, "KB", 64e3, 1000e3);
  EXPECT_EQ(format_amount(buffer, 20e3), "20KB");
  EXPECT_EQ(format_amount(buffer, 64.0123e3), "64.01KB");
  const CalibrationParameter delay = bounded(ParameterKind::duration, "us", 1e6, 120e6);
  EXPECT_EQ(format_amount(delay, 3.1164e6), "3.116us");
  EXPECT_EQ(format_amount(delay, 0.5e6), "0.5us");
  const CalibrationParameter loss = bounded(ParameterKind::real, "", 0.01, 0.2);
  EXPECT_EQ(format_amount(loss, 0.0012345), "0.001234");
}

}  // namespace
}  // namespace netsim::calibrate

namespace netsim::calibrate {
namespace {

// A stop during the second of three starts keeps everything evaluated so
// far: the first start's minimum, the second start's partial run, and the
// best point over both as the result; no uncertainty analysis after it.
TEST(CalibrationStarts, AStopDuringALaterStartKeepsTheBestSoFar) {
  const std::string truth = udp_scenario("600Mbps", "0.05", "");
  TempFile f("stopstarts.yaml", udp_scenario("400Mbps", "0.02",
                                             measured_and_calibrate(simulated(truth, "200Mbps"),
                                                                    simulated(truth, "900Mbps"), "nelder_mead") +
                                                 "  starts: 3\n"));
  // How many evaluations the first start takes on its own.
  CalibrationOptions one_start;
  one_start.starts = 1;
  const CalibrationResult first = run_calibration(f.path(), one_start);
  ASSERT_EQ(first.starts.size(), 1u);
  const int limit = first.evaluations + 4;  // four evaluations into start 2
  int polls = 0;
  std::vector<EvaluationProgress> seen;
  const CalibrationResult r = run_calibration(f.path(), stop_after(limit, polls, seen));
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.stop_reason, "interrupted");
  ASSERT_EQ(r.starts.size(), 2u);
  EXPECT_EQ(r.evaluations, limit);
  EXPECT_EQ(r.starts[0].evaluations + r.starts[1].evaluations, limit);
  EXPECT_EQ(r.starts[0].values, first.fitted_values);
  EXPECT_EQ(r.starts[1].stop_reason, "interrupted");
  ASSERT_EQ(static_cast<int>(seen.size()), limit);
  EXPECT_EQ(seen.back().start, 2);
  EXPECT_DOUBLE_EQ(r.objective, best_seen(seen).objective);
  EXPECT_EQ(r.fitted_values, best_seen(seen).values);
  EXPECT_FALSE(r.uncertainty.available);
  EXPECT_EQ(r.cells.size(), 2u);  // the report still runs at the best point
}

}  // namespace
}  // namespace netsim::calibrate
