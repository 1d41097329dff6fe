// Entry points: read the file, parse YAML, apply overrides, validate.
#include "netsim/scenario/scenario_loader.h"

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <utility>

#include "../common/file_text.h"
#include "scenario_templates.h"

#include "netsim/calibrate/calibration_profile.h"

#include "override_apply.h"
#include "scenario_profiles.h"
#include "scenario_validator.h"
#include "yaml_document.h"
#include "yaml_reader.h"

namespace netsim {
namespace {

// The top-level `calibration: FILE` (relative to the scenario), if any.
std::optional<std::string> calibration_profile_path(const YAML::Node& root, const std::string& filename,
                                                    const scenario_internal::Reader& reader) {
  const YAML::Node n = root["calibration"];
  if (!n) return std::nullopt;
  const scenario_internal::Field f{n, YAML::Node(), "calibration"};
  const std::string& name = reader.string(f);
  if (name.empty()) reader.fail(f, "expected the path of a calibration profile");
  const std::filesystem::path rel(name);
  return rel.is_absolute() ? name : (std::filesystem::path(filename).parent_path() / rel).string();
}

}  // namespace

ScenarioSpec parse_scenario_text(std::string_view yaml, const std::string& filename,
                                 const std::vector<Override>& overrides,
                                 std::shared_ptr<const ScenarioRegistry> registry) {
  const auto wall_start = std::chrono::steady_clock::now();
  YAML::Node root = scenario_internal::parse_yaml_document(yaml, filename);
  scenario_internal::OverrideOrigins origins;
  scenario_internal::ProfileOrigins profiles;
  const scenario_internal::Reader reader(filename, origins, &profiles);
  // Overrides walk maps, so the shape of the top level is checked before they are applied.
  scenario_internal::check_top_level(root, reader);
  // Profiles first, so that overrides and sweep values reach the fields they provide.
  for (const auto& o : overrides) scenario_internal::check_not_profile_override(o);
  std::vector<std::string> includes = scenario_internal::apply_profiles(root, yaml, filename, profiles);
  // A calibration profile's fitted values, as if given with --profile: before the overrides, so --set wins.
  if (const std::optional<std::string> file = calibration_profile_path(root, filename, reader)) {
    const calibrate::CalibrationProfile p = calibrate::load_calibration_profile(*file);
    for (const auto& o : p.overrides) {
      scenario_internal::check_not_profile_override(o);
      scenario_internal::apply_override(root, o, origins);
    }
    includes.push_back(*file);  // its text is part of what a run depends on (sweep run keys)
  }
  for (const auto& o : overrides) scenario_internal::apply_override(root, o, origins);
  // Templates (`repeat:`) after the overrides, so --set and sweeps reach their counts and vars.
  const YAML::Node expanded = scenario_internal::expand_templates(root, reader);
  ScenarioSpec spec = scenario_internal::validate_scenario(expanded, reader, true, std::move(registry));
  scenario_internal::check_sweep_values(root, spec, reader);
  spec.overrides = overrides;
  spec.includes = std::move(includes);
  spec.load_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return spec;
}

ScenarioSpec load_scenario(const std::string& path, const std::vector<Override>& overrides,
                           std::shared_ptr<const ScenarioRegistry> registry) {
  std::string text;
  if (const std::string why = read_file_text(path, text); !why.empty()) {
    throw ScenarioError(SourceLoc{path, 0, 0}, "", "cannot read scenario file '" + path + "': " + why);
  }
  return parse_scenario_text(text, path, overrides, std::move(registry));
}

}  // namespace netsim
