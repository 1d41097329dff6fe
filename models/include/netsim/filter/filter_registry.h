// Packet filter types by name, beyond netsim's own `nth` and `random`: what a
// scenario's `filters: NAME: { type: TYPE, params: {...} }` may name. Like
// cc::CcRegistry, an ordinary object handed to the scenario loader
// (netsim/scenario/scenario_registry.h), not a process-wide table.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "netsim/filter/packet_filter.h"
#include "netsim/sim/simulation.h"

namespace netsim {

// What one `filters:` entry gives its type's factory.
struct FilterArgs {
  std::string name;   // the entry's name: the filter component's name
  MatchRule match;    // the entry's `match:` block
  // The entry's `params:` block, scalar text by key: only keys the type
  // declared, each at most once (the validator checks both).
  std::map<std::string, std::string> params;

  // The text of `key`, or `fallback` when the entry does not give it.
  std::string param(const std::string& key, const std::string& fallback = {}) const {
    const auto it = params.find(key);
    return it == params.end() ? fallback : it->second;
  }
};

// Adds the filter to `sim` (sim.add<...>) and returns it; the scenario builder
// attaches it to the entry's host and hook. A bad parameter value is reported
// by throwing std::invalid_argument: the builder turns it into a ScenarioError
// at the entry's file and line.
using FilterFactory = std::function<PacketFilter&(Simulation& sim, const FilterArgs& args)>;

class FilterRegistry {
 public:
  // `type` must be new, not `nth` or `random`, and made of [A-Za-z0-9_-];
  // `params` are the keys its `params:` block accepts. Throws
  // std::invalid_argument otherwise.
  void add(std::string type, std::vector<std::string> params, FilterFactory make);

  bool contains(std::string_view type) const;
  std::vector<std::string> types() const;  // in the order added
  // The `params:` keys of a registered type; throws std::invalid_argument for an unknown one.
  const std::vector<std::string>& params(std::string_view type) const;
  // Calls the type's factory; throws std::invalid_argument for an unknown type.
  PacketFilter& make(std::string_view type, Simulation& sim, const FilterArgs& args) const;

 private:
  struct Type {
    std::string name;
    std::vector<std::string> params;
    FilterFactory make;
  };
  const Type& find(std::string_view type) const;

  std::vector<Type> types_;
};

}  // namespace netsim
