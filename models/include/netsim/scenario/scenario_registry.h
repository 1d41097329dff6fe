// The congestion controls and packet filter types a scenario may name: what
// the loader accepts for a tcp flow's `cc:` (FreeBSD senders) and a filter's
// `type:`, and what the builder then makes. Pass one to load_scenario,
// parse_scenario_text or TopologyBuilder::build; the spec keeps it
// (ScenarioSpec::registry), so run_scenario(spec) finds the same modules.
// Without one, netsim's own modules and filter types only.
#pragma once

#include <memory>

#include "netsim/cc/cc_registry.h"
#include "netsim/filter/filter_registry.h"

namespace netsim {

struct ScenarioRegistry {
  cc::CcRegistry cc;       // starts with netsim's newreno, cubic and cubic_d46046
  FilterRegistry filters;  // starts empty: nth and random are always there
};

// netsim's own modules and types only: what a spec without a registry uses.
const ScenarioRegistry& default_scenario_registry();

// The registry a spec was validated against (ScenarioSpec::registry), or the default.
inline const ScenarioRegistry& registry_or_default(const std::shared_ptr<const ScenarioRegistry>& r) {
  return r ? *r : default_scenario_registry();
}

}  // namespace netsim
