// The ScenarioError a scenario file that must fail to load throws.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "netsim/scenario/scenario_loader.h"

namespace netsim {

inline ScenarioError load_error(const std::string& path, const std::vector<Override>& overrides = {}) {
  try {
    load_scenario(path, overrides);
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << path << " loaded without error";
  return ScenarioError(SourceLoc{}, "", "no error");
}

// The same for scenario text given inline (named `file` in the error).
inline ScenarioError scenario_text_error(const std::string& yaml, const std::string& file = "inline.yaml") {
  try {
    parse_scenario_text(yaml, file);
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error:\n" << yaml;
  return ScenarioError(SourceLoc{}, "", "no error");
}

}  // namespace netsim
