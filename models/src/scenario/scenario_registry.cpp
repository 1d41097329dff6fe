#include "netsim/scenario/scenario_registry.h"

namespace netsim {

const ScenarioRegistry& default_scenario_registry() {
  // Never changed after construction, so every thread may share it.
  static const ScenarioRegistry netsim_own;
  return netsim_own;
}

}  // namespace netsim
