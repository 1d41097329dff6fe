#include "netsim/cc/cc_registry.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "netsim/cc/cubic.h"
#include "netsim/cc/newreno.h"

#include "../common/element_name.h"

namespace netsim::cc {

CcRegistry::CcRegistry() {
  add<NewReno>("newreno");
  add<Cubic>("cubic");
  add<CubicD46046>("cubic_d46046");
}

void CcRegistry::add(std::string name, CcFactory make) {
  if (!is_element_name(name)) {
    throw std::invalid_argument("congestion control name '" + name + "' must be made of letters, digits, '_' and '-'");
  }
  if (contains(name)) throw std::invalid_argument("congestion control '" + name + "' is already registered");
  if (!make) throw std::invalid_argument("congestion control '" + name + "' needs a factory");
  modules_.emplace_back(std::move(name), std::move(make));
}

bool CcRegistry::contains(std::string_view name) const {
  return std::ranges::any_of(modules_, [name](const auto& m) { return m.first == name; });
}

std::vector<std::string> CcRegistry::names() const {
  std::vector<std::string> out;
  out.reserve(modules_.size());
  for (const auto& m : modules_) out.push_back(m.first);
  return out;
}

std::unique_ptr<CcAlgo> CcRegistry::make(std::string_view name) const {
  for (const auto& m : modules_) {
    if (m.first == name) return m.second();
  }
  std::string valid;
  for (const auto& m : modules_) valid += (valid.empty() ? "" : ", ") + m.first;
  throw std::invalid_argument("unknown congestion control '" + std::string(name) + "' (valid: " + valid + ")");
}

std::unique_ptr<CcAlgo> make_cc(std::string_view name) {
  // Immutable after construction, so sharing it between threads is safe.
  static const CcRegistry netsim_modules;
  return netsim_modules.make(name);
}

}  // namespace netsim::cc
