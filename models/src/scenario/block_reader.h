// Reading a free-form block of a loaded scenario (measured:, calibrate:):
// errors name the scenario file, the node's line and column, and the field.
#pragma once

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <string>
#include <vector>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_spec.h"
#include "yaml_reader.h"

namespace netsim::scenario_internal {

class BlockReader {
 public:
  explicit BlockReader(const ScenarioSpec& spec) : file_(spec.file) {}

  SourceLoc loc(const YAML::Node& n) const { return SourceLoc{file_, n.Mark().line + 1, n.Mark().column + 1}; }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& msg) const {
    throw ScenarioError(loc(n), field, msg);
  }
  std::string scalar(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "expected a scalar value");
    return n.Scalar();
  }
  double number(const YAML::Node& n, const std::string& field) const {
    const std::string s = scalar(n, field);
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) fail(n, field, "expected a number, got " + quoted(s));
    return v;
  }
  bool boolean(const YAML::Node& n, const std::string& field) const {
    const std::string s = scalar(n, field);
    if (s == "true") return true;
    if (s == "false") return false;
    fail(n, field, not_a_boolean(s));
  }
  // The values of `names` in a map, in that order.
  std::vector<std::string> values_of(const YAML::Node& map, const std::vector<std::string>& names,
                                     const std::string& field) const {
    if (!map.IsMap()) fail(map, field, "expected a map of key values");
    std::vector<std::string> values;
    for (const std::string& name : names) {
      const YAML::Node v = map[name];
      if (!v) fail(map, field + "." + name, "missing key value '" + name + "'");
      values.push_back(scalar(v, field + "." + name));
    }
    return values;
  }

 private:
  std::string file_;
};

}  // namespace netsim::scenario_internal
