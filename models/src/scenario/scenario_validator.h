// Validation of a (possibly overridden) YAML tree into a ScenarioSpec.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>

#include "netsim/scenario/scenario_spec.h"
#include "yaml_reader.h"

namespace netsim::scenario_internal {

// Checks everything except the sweep values (see scenario_loader.cpp), in
// three passes, each in file order: every field on its own; then what needs
// the whole file (references between elements, limits that depend on other
// fields, sweep keys); then connectivity. The first problem is thrown.
// Without `with_sweep` the sweep section is skipped: used when trying out a
// single sweep value on a copy of the tree. `registry` (nullptr: netsim's
// own) decides which cc names and filter types exist; the spec keeps it.
// Throws unless the document's top level is a map (needed before overrides are applied).
void check_top_level(const YAML::Node& root, const Reader& reader);

ScenarioSpec validate_scenario(const YAML::Node& root, const Reader& reader, bool with_sweep,
                               std::shared_ptr<const ScenarioRegistry> registry);

// Tries every sweep value of a validated scenario on a copy of the tree and
// reports the first one that would make the scenario invalid, at the value,
// so that a bad sweep fails before any run starts.
void check_sweep_values(const YAML::Node& root, const ScenarioSpec& spec, const Reader& reader);

}  // namespace netsim::scenario_internal
