#include "netsim/calibrate/calibration_spec.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "../scenario/block_reader.h"
#include "../scenario/yaml_reader.h"
#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_loader.h"

namespace netsim::calibrate {
namespace {

using scenario_internal::BlockReader;
using scenario_internal::quoted;
using scenario_internal::suggestion;

// The value a scenario tree writes at a dotted path, if it writes one.
std::optional<std::string> value_at(const YAML::Node& root, const std::string& path) {
  YAML::Node n;
  n.reset(root);  // reset(), not operator=: assignment would edit the tree
  for (const std::string& seg : scenario_internal::split_path(path)) {
    if (!n.IsMap()) return std::nullopt;
    const YAML::Node next = std::as_const(n)[seg];  // the const lookup never inserts
    if (!next) return std::nullopt;
    n.reset(next);
  }
  return n.IsScalar() ? std::optional<std::string>(n.Scalar()) : std::nullopt;
}

class CalibrationReader {
 public:
  CalibrationReader(const ScenarioSpec& spec, const MeasuredSpec& m) : spec_(spec), m_(m), r_(spec) {}

  CalibrationSpec read() {
    const YAML::Node& root = spec_.calibrate;
    if (!root.IsMap()) r_.fail(root, "calibrate", "expected a map (parameters, fit_on, ...)");
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      const std::string field = "calibrate." + key;
      if (key == "parameters") {
        parameters(kv.second);
      } else if (key == "fit_on") {
        fit_on(kv.second);
      } else if (key == "metrics") {
        metrics(kv.second);
      } else if (key == "seeds") {
        c_.seeds = static_cast<int>(bounded(kv.second, field, 1, 1000));
      } else if (key == "check_seeds") {
        c_.check_seeds = whole(kv.second, field, 0, 1000, "seeds");
      } else if (key == "objective") {
        const std::string v = r_.scalar(kv.second, field);
        if (v == "squared_log_ratio") {
          c_.objective = Objective::squared_log_ratio;
        } else if (v == "squared_relative") {
          c_.objective = Objective::squared_relative;
        } else {
          r_.fail(kv.second, field, "expected squared_log_ratio or squared_relative, got " + quoted(v) +
                                                 suggestion(v, {"squared_log_ratio", "squared_relative"}));
        }
      } else if (key == "method") {
        const std::string v = r_.scalar(kv.second, field);
        if (v == "nelder_mead") {
          c_.method = Method::nelder_mead;
        } else if (v == "levenberg_marquardt") {
          c_.method = Method::levenberg_marquardt;
        } else {
          r_.fail(kv.second, field, "expected nelder_mead or levenberg_marquardt, got " + quoted(v) +
                                                 suggestion(v, {"nelder_mead", "levenberg_marquardt"}));
        }
      } else if (key == "max_evaluations") {
        c_.max_evaluations = static_cast<int>(bounded(kv.second, field, 1, 100000));
      } else if (key == "tolerance") {
        c_.tolerance = bounded(kv.second, field, 1e-9, 1.0);
      } else if (key == "step") {
        c_.step = bounded(kv.second, field, 1e-6, 0.5);
      } else if (key == "starts") {
        c_.starts = whole(kv.second, field, 1, 64, "starts");
      } else if (key == "uncertainty") {
        c_.uncertainty = r_.boolean(kv.second, field);
      } else if (key == "confidence") {
        c_.confidence = bounded(kv.second, field, 0.5, 0.999);
      } else {
        r_.fail(kv.first, field,
                "unknown key " + quoted(key) +
                    " (accepted: parameters, fit_on, metrics, seeds, check_seeds, objective, method, max_evaluations, tolerance, step, starts, uncertainty, confidence)");
      }
    }
    if (c_.parameters.empty()) r_.fail(root, "calibrate.parameters", "needs at least one parameter");
    if (c_.metrics.empty()) {
      for (std::size_t i = 0; i < m_.metrics.size(); ++i) c_.metrics.push_back(i);
    }
    std::size_t fitted = 0;
    for (const MeasuredCell& cell : m_.cells) fitted += is_fitted(c_, m_, cell) ? 1 : 0;
    if (fitted == 0) r_.fail(root, "calibrate.fit_on", "selects none of the measured cells");
    return c_;
  }

 private:
  double bounded(const YAML::Node& n, const std::string& field, double lo, double hi) const {
    const double v = r_.number(n, field);
    if (!(v >= lo && v <= hi)) {
      r_.fail(n, field, "out of range: must be in [" + format_double_roundtrip(lo) + ", " + format_double_roundtrip(hi) + "]");
    }
    return v;
  }

  // A count in [lo, hi] that must be a whole number ("expected a whole number of <what>").
  int whole(const YAML::Node& n, const std::string& field, int lo, int hi, const std::string& what) const {
    const double v = bounded(n, field, lo, hi);
    if (v != static_cast<int>(v)) r_.fail(n, field, "expected a whole number of " + what);
    return static_cast<int>(v);
  }

  ParsedQuantity quantity(const YAML::Node& n, const std::string& field) const {
    try {
      return parse_quantity(r_.scalar(n, field));
    } catch (const std::invalid_argument& e) {
      r_.fail(n, field, e.what());
    }
  }

  void parameters(const YAML::Node& n) {
    if (!n.IsMap() || n.size() == 0) r_.fail(n, "calibrate.parameters", "expected a map of path -> { min, max, start }");
    for (const auto& kv : n) {
      CalibrationParameter p;
      p.key = kv.first.Scalar();
      p.paths = split_linked_key(p.key);
      p.loc = r_.loc(kv.first);
      const std::string field = "calibrate.parameters." + p.key;
      for (const std::string& path : p.paths) {
        if (path.empty()) r_.fail(kv.first, field, "empty path in " + quoted(p.key));
        if (is_measured_key_path(m_, path)) {
          r_.fail(kv.first, field, quoted(path) + " is a measured key; it cannot be fitted");
        }
        for (const CalibrationParameter& q : c_.parameters) {
          if (std::find(q.paths.begin(), q.paths.end(), path) != q.paths.end()) {
            r_.fail(kv.first, field, quoted(path) + " is already set by parameter " + quoted(q.key));
          }
        }
      }
      const YAML::Node def = kv.second;
      if (!def.IsMap()) r_.fail(def, field, "expected { min: ..., max: ..., start: ... }");
      std::optional<ParsedQuantity> lo, hi, start;
      for (const auto& d : def) {
        const std::string dk = d.first.Scalar();
        if (dk == "min") {
          lo = quantity(d.second, field + ".min");
        } else if (dk == "max") {
          hi = quantity(d.second, field + ".max");
        } else if (dk == "start") {
          start = quantity(d.second, field + ".start");
        } else {
          r_.fail(d.first, field + "." + dk, "unknown key " + quoted(dk) + " (accepted: min, max, start)");
        }
      }
      if (!lo || !hi) r_.fail(def, field, "needs both min and max");
      p.kind = merged_kind(def, field, lo->kind, hi->kind);
      p.unit = !lo->unit.empty() ? lo->unit : hi->unit;
      p.min = lo->value;
      p.max = hi->value;
      if (!(p.min < p.max)) r_.fail(def["max"], field + ".max", "max must be greater than min");
      if (!start) {
        // The scenario's own value, where the file writes one; else the middle.
        if (const auto text = value_at(file_tree(), p.paths.front())) {
          try {
            start = parse_quantity(*text);
          } catch (const std::invalid_argument&) {
          }
        }
      }
      if (start) {
        p.kind = merged_kind(def, field, p.kind, start->kind);
        p.start = start->value;
        if (p.start < p.min || p.start > p.max) {
          r_.fail(def["start"] ? def["start"] : def, field + ".start", "start must lie within [min, max]");
        }
      } else {
        p.start = (p.min + p.max) / 2;
      }
      c_.parameters.push_back(std::move(p));
    }
  }

  ParameterKind merged_kind(const YAML::Node& at, const std::string& field, ParameterKind a, ParameterKind b) const {
    const auto plain = [](ParameterKind k) { return k == ParameterKind::integer || k == ParameterKind::real; };
    if (a == b) return a;
    if (plain(a) && plain(b)) return ParameterKind::real;
    r_.fail(at, field, "min, max and start must be quantities of one kind (" + std::string(kind_name(a)) + " vs " +
                           std::string(kind_name(b)) + ")");
  }

  void fit_on(const YAML::Node& n) {
    if (!n.IsMap()) r_.fail(n, "calibrate.fit_on", "expected a map of measured key -> value or list of values");
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      const std::string field = "calibrate.fit_on." + key;
      const bool known = std::any_of(m_.keys.begin(), m_.keys.end(), [&](const auto& k) { return k.first == key; });
      if (!known) r_.fail(kv.first, field, quoted(key) + " is not a key of the measured block");
      std::vector<std::string> values;
      if (kv.second.IsSequence()) {
        for (std::size_t i = 0; i < kv.second.size(); ++i) values.push_back(r_.scalar(kv.second[i], field));
      } else {
        values.push_back(r_.scalar(kv.second, field));
      }
      c_.fit_on.emplace_back(key, std::move(values));
    }
  }

  void metrics(const YAML::Node& n) {
    const std::string field = "calibrate.metrics";
    if (!n.IsSequence() || n.size() == 0) r_.fail(n, field, "expected a list of measured metric names");
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string name = r_.scalar(n[i], field);
      std::size_t k = 0;
      while (k < m_.metrics.size() && m_.metrics[k].name != name) ++k;
      if (k == m_.metrics.size()) r_.fail(n[i], field, quoted(name) + " is not a metric of the measured block");
      c_.metrics.push_back(k);
    }
  }

  // The scenario file as written, read once for the starts it provides.
  const YAML::Node& file_tree() {
    if (!tree_loaded_) {
      tree_loaded_ = true;
      try {
        tree_ = YAML::LoadFile(spec_.file);
      } catch (const std::exception&) {
        tree_ = YAML::Node();  // unreadable here: the starts default to the middle
      }
    }
    return tree_;
  }

  const ScenarioSpec& spec_;
  const MeasuredSpec& m_;
  YAML::Node tree_;
  bool tree_loaded_ = false;
  BlockReader r_;
  CalibrationSpec c_;
};

}  // namespace

std::optional<CalibrationSpec> parse_calibration(const ScenarioSpec& spec, const MeasuredSpec& measured) {
  if (!spec.calibrate || spec.calibrate.IsNull()) return std::nullopt;  // absent, or `calibrate:` with nothing
  return CalibrationReader(spec, measured).read();
}

bool is_fitted(const CalibrationSpec& c, const MeasuredSpec& m, const MeasuredCell& cell) {
  for (const auto& [key, values] : c.fit_on) {
    std::size_t k = 0;
    while (k < m.keys.size() && m.keys[k].first != key) ++k;
    if (k == m.keys.size()) return false;
    if (std::find(values.begin(), values.end(), cell.key_values[k]) == values.end()) return false;
  }
  return true;
}

std::string_view objective_name(Objective o) {
  return o == Objective::squared_log_ratio ? "squared_log_ratio" : "squared_relative";
}

std::string_view method_name(Method m) { return m == Method::nelder_mead ? "nelder_mead" : "levenberg_marquardt"; }

}  // namespace netsim::calibrate
