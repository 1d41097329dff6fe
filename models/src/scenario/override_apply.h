// Applying a --set override to a YAML tree before it is validated.
#pragma once

#include <yaml-cpp/yaml.h>

#include "netsim/scenario/scenario_spec.h"
#include "yaml_reader.h"

namespace netsim::scenario_internal {

// Walks the dotted key through maps and sets the last key to the override's
// text as a scalar, adding the key if it is absent (so defaults can be
// overridden). Every intermediate key must exist. The nodes it creates are
// recorded in `origins` so that validation errors point at the override.
void apply_override(YAML::Node& root, const Override& o, OverrideOrigins& origins);

}  // namespace netsim::scenario_internal
