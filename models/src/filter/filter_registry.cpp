#include "netsim/filter/filter_registry.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "../common/element_name.h"

namespace netsim {

void FilterRegistry::add(std::string type, std::vector<std::string> params, FilterFactory make) {
  if (!is_element_name(type)) {
    throw std::invalid_argument("filter type name '" + type + "' must be made of letters, digits, '_' and '-'");
  }
  if (type == "nth" || type == "random") {
    throw std::invalid_argument("filter type '" + type + "' is netsim's own and cannot be replaced");
  }
  if (contains(type)) throw std::invalid_argument("filter type '" + type + "' is already registered");
  if (!make) throw std::invalid_argument("filter type '" + type + "' needs a factory");
  types_.push_back(Type{std::move(type), std::move(params), std::move(make)});
}

bool FilterRegistry::contains(std::string_view type) const {
  return std::ranges::any_of(types_, [type](const Type& t) { return t.name == type; });
}

std::vector<std::string> FilterRegistry::types() const {
  std::vector<std::string> out;
  out.reserve(types_.size());
  for (const Type& t : types_) out.push_back(t.name);
  return out;
}

const FilterRegistry::Type& FilterRegistry::find(std::string_view type) const {
  for (const Type& t : types_) {
    if (t.name == type) return t;
  }
  throw std::invalid_argument("unknown filter type '" + std::string(type) + "'");
}

const std::vector<std::string>& FilterRegistry::params(std::string_view type) const { return find(type).params; }

PacketFilter& FilterRegistry::make(std::string_view type, Simulation& sim, const FilterArgs& args) const {
  return find(type).make(sim, args);
}

}  // namespace netsim
