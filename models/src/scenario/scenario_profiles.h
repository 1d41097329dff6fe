// Reusable element blocks: top-level `profiles:` and `include:`.
//
// A profile is a named partial element (say, a receive path's `nic:` block
// and `hz`); a host, switch, hub or link that says `profile: NAME` (or a
// list of names) gets the profile's keys deep-merged under its own. Profiles
// come from the scenario itself and from the files it includes (paths
// relative to the including file, recursively; an included file holds only
// `include`, `profiles` and `description`).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "netsim/scenario/scenario_spec.h"
#include "yaml_reader.h"

namespace netsim::scenario_internal {

// Reads the profiles of `root` (the scenario `text` of `file`) and of every
// file it includes, then merges them into the elements that name them: a key
// the element has wins over the profile's (maps merge key by key, lists and
// scalars are taken whole); with `profile: [a, b]` b's keys win over a's.
// Runs before overrides, so --set and sweeps reach fields a profile provided.
// Every node copied from a profile is recorded in `origins`, so that a
// problem inside it is reported at the profile's file and line. Returns the
// included files in the order they were first read.
std::vector<std::string> apply_profiles(YAML::Node& root, std::string_view text, const std::string& file,
                                        ProfileOrigins& origins);

// Refuses an override of what apply_profiles has already used: an element's
// `profile`, and anything under `profiles` or `include`.
void check_not_profile_override(const Override& o);

}  // namespace netsim::scenario_internal
