// Parsing scenario text into exactly one YAML document.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace netsim::scenario_internal {

// The single document in `text`. Throws ScenarioError (no field) on a syntax
// error, an empty text, or a second non-empty document.
YAML::Node parse_yaml_document(std::string_view text, const std::string& file);

}  // namespace netsim::scenario_internal
