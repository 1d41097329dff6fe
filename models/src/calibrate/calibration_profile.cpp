#include "netsim/calibrate/calibration_profile.h"

#include <yaml-cpp/yaml.h>

#include "../common/file_text.h"

#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/version.h"

namespace netsim::calibrate {
namespace {

// A YAML double-quoted scalar.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string number(double v) { return format_double_roundtrip(v); }

SourceLoc loc_of(const std::string& file, const YAML::Node& n) {
  return SourceLoc{file, n.Mark().line + 1, n.Mark().column + 1};
}

}  // namespace

void write_calibration_profile(std::ostream& out, const CalibrationResult& r, const std::string& command) {
  const CalibrationSpec& c = r.spec;
  out << "# netsim calibration profile for scenario " << r.scenario_name << " (" << r.scenario_file << ")\n";
  out << "# Produced by netsim " << NETSIM_VERSION << " with:\n#   " << command << "\n";
  out << "# Use it with: netsim run " << r.scenario_file << " --profile <this file>\n";
  out << "# Only `parameters` is read back; the rest records how the values were obtained.\n";
  out << "scenario: " << quoted(r.scenario_name) << "\n";
  out << "command: " << quoted(command) << "\n";
  out << "fit:\n";
  out << "  method: " << method_name(c.method) << "\n";
  out << "  objective: " << objective_name(c.objective) << "\n";
  out << "  fit_on: {";
  for (std::size_t i = 0; i < c.fit_on.size(); ++i) {
    out << (i > 0 ? ", " : " ") << c.fit_on[i].first << ": [";
    for (std::size_t j = 0; j < c.fit_on[i].second.size(); ++j) out << (j > 0 ? ", " : "") << quoted(c.fit_on[i].second[j]);
    out << "]";
  }
  out << (c.fit_on.empty() ? "}" : " }") << "\n";
  out << "  metrics: [";
  for (std::size_t i = 0; i < c.metrics.size(); ++i) out << (i > 0 ? ", " : "") << r.measured.metrics[c.metrics[i]].name;
  out << "]\n  seeds: [";
  for (std::size_t i = 0; i < r.seeds.size(); ++i) out << (i > 0 ? ", " : "") << r.seeds[i];
  out << "]\n";
  out << "  evaluations: " << r.evaluations << "\n";
  out << "  simulation_runs: " << r.simulation_runs << "\n";
  out << "  stop: " << quoted(r.stop_reason) << "\n";
  out << "  objective_start: " << number(r.start_objective) << "\n";
  out << "  objective_fitted: " << number(r.objective) << "\n";
  out << "  wall_seconds: " << format_fixed(r.wall_seconds, 1) << "\n";
  out << "data:\n";
  if (r.data_sources.empty()) {
    out << "  - " << quoted("measured: block of " + r.scenario_file + (r.measured.source.empty() ? "" : " (" + r.measured.source + ")")) << "\n";
  }
  for (const std::string& d : r.data_sources) out << "  - " << quoted(d) << "\n";
  out << "parameters:\n";
  for (std::size_t i = 0; i < c.parameters.size(); ++i) {
    const CalibrationParameter& p = c.parameters[i];
    out << "  " << quoted(p.key) << ": { value: " << r.fitted_values[i] << ", min: " << format_value(p, p.min)
        << ", max: " << format_value(p, p.max) << ", start: " << r.start_values[i];
    if (i < r.fitted.size()) {
      if (const std::string_view hit = bound_hit(p, r.fitted[i]); !hit.empty()) out << ", at_bound: " << hit;
    }
    out << " }\n";
  }
  out << "residuals:\n";
  for (const CellResult& x : r.cells) {
    out << "  - {";
    for (std::size_t k = 0; k < r.measured.keys.size(); ++k) {
      out << (k > 0 ? ", " : " ") << r.measured.keys[k].first << ": " << quoted(x.key_values[k]);
    }
    out << ", metric: " << x.metric << ", measured: " << number(x.measured) << ", simulated: "
        << (x.runs > 0 ? number(x.sim_mean) : std::string("null")) << ", error: " << format_fixed(x.error, 2)
        << (x.points ? ", error_unit: points" : ", error_unit: percent") << ", role: " << (x.fitted ? "fitted" : "predicted");
    if (x.has_band) {
      out << ", band: [" << number(x.band_lo) << ", " << number(x.band_hi) << "], prediction: [" << number(x.prediction_lo)
          << ", " << number(x.prediction_hi) << "]";
    }
    out << " }\n";
  }
  const UncertaintyResult& u = r.uncertainty;
  if (u.available) {
    out << "uncertainty:\n";
    out << "  method: \"linearized at the fit, central differences of " << format_fixed(u.step * 100, 1)
        << "% of each range\"\n";
    out << "  confidence: " << number(u.level) << "\n";
    out << "  degrees_of_freedom: " << u.dof << "\n";
    out << "  scatter: " << number(u.s) << "\n";
    out << "  parameters:\n";
    for (std::size_t i = 0; i < u.parameters.size() && i < c.parameters.size(); ++i) {
      const CalibrationParameter& p = c.parameters[i];
      const ParameterUncertainty& pu = u.parameters[i];
      out << "    " << quoted(p.key) << ": ";
      if (!pu.determined) {
        out << "{ determined: false }\n";
        continue;
      }
      out << "{ standard_error: " << format_amount(p, pu.std_error) << ", interval: ["
          << format_value(p, pu.lo) << ", " << format_value(p, pu.hi) << "] }\n";
    }
    if (u.parameters.size() > 1) {
      out << "  correlation:\n";
      for (const std::vector<double>& row : u.correlation) {
        out << "    - [";
        for (std::size_t k = 0; k < row.size(); ++k) out << (k > 0 ? ", " : "") << format_fixed(row[k], 3);
        out << "]\n";
      }
    }
    out << "  measured_in_prediction_interval: { fitted: " << u.fitted_in << ", fitted_of: " << u.fitted_with
        << ", predicted: " << u.predicted_in << ", predicted_of: " << u.predicted_with << " }\n";
  }
  const SeedCheckResult& sc = r.seed_check;
  if (sc.available) {
    out << "seed_check: { seeds: [";
    for (std::size_t i = 0; i < sc.seeds.size(); ++i) out << (i > 0 ? ", " : "") << sc.seeds[i];
    out << "], objective: " << number(sc.objective) << ", fitted_mape_pct: " << format_fixed(sc.fitted_mape, 2)
        << ", predicted_mape_pct: " << format_fixed(sc.predicted_mape, 2) << " }\n";
  }
  if (r.starts.size() > 1) {
    out << "starts:\n";
    const auto list = [](const std::vector<std::string>& v) {
      std::string t = "[";
      for (std::size_t i = 0; i < v.size(); ++i) t += (i > 0 ? ", " : "") + v[i];
      return t + "]";
    };
    for (const StartResult& st : r.starts) {
      out << "  - { from: " << list(st.start_values) << ", to: " << list(st.values)
          << ", objective: " << number(st.objective) << ", evaluations: " << st.evaluations;
      if (st.cells_run) {
        out << ", fitted_mape_pct: " << format_fixed(st.fitted_mape, 2)
            << ", predicted_mape_pct: " << format_fixed(st.predicted_mape, 2);
      }
      if (st.best) out << ", best: true";
      if (st.same_as > 0) out << ", same_as: " << st.same_as;
      if (st.equivalent) out << ", equivalent: true";
      out << " }\n";
    }
  }
  out << "summary:\n";
  out << "  fitted_cells: " << r.fitted_count << "\n";
  out << "  fitted_mape_pct: " << format_fixed(r.fitted_mape, 2) << "\n";
  out << "  predicted_cells: " << r.predicted_count << "\n";
  out << "  predicted_mape_pct: " << format_fixed(r.predicted_mape, 2) << "\n";
}

CalibrationProfile parse_calibration_profile(const std::string& text, const std::string& filename) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ScenarioError(SourceLoc{filename, e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax: " + e.msg);
  }
  CalibrationProfile p;
  p.file = filename;
  if (!root.IsMap()) throw ScenarioError(SourceLoc{filename, 1, 1}, "", "a calibration profile is a YAML map");
  if (root["scenario"] && root["scenario"].IsScalar()) p.scenario = root["scenario"].Scalar();
  const YAML::Node params = root["parameters"];
  if (!params) throw ScenarioError(loc_of(filename, root), "parameters", "a calibration profile needs parameters:");
  if (!params.IsMap() || params.size() == 0) {
    throw ScenarioError(loc_of(filename, params), "parameters", "expected a map of scenario path -> value");
  }
  for (const auto& kv : params) {
    const std::string key = kv.first.Scalar();
    const std::string field = "parameters." + key;
    YAML::Node value = kv.second;
    if (value.IsMap()) {
      if (!value["value"]) throw ScenarioError(loc_of(filename, value), field, "needs value:");
      value.reset(kv.second["value"]);
    }
    if (!value.IsScalar() || value.Scalar().empty()) {
      throw ScenarioError(loc_of(filename, value), field, "expected a scalar value");
    }
    for (const std::string& path : split_linked_key(key)) {
      if (path.empty()) throw ScenarioError(loc_of(filename, kv.first), field, "empty path in '" + key + "'");
      p.overrides.push_back({path, value.Scalar()});
    }
  }
  return p;
}

CalibrationProfile load_calibration_profile(const std::string& path) {
  std::string text;
  if (const std::string why = read_file_text(path, text); !why.empty()) {
    throw ScenarioError(SourceLoc{path, 0, 0}, "", "cannot read the calibration profile: " + why);
  }
  return parse_calibration_profile(text, path);
}

}  // namespace netsim::calibrate
