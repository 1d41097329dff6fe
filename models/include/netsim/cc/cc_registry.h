// Congestion-control modules by name (FreeBSD: net.inet.tcp.cc.available and
// net.inet.tcp.cc.algorithm / TCP_CONGESTION). A registry is an ordinary
// object, not a process-wide table: each scenario names the one it was
// validated against, so simulations with different modules can run side by
// side in one process. A fresh module object is made per connection.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "netsim/cc/cc_algo.h"

namespace netsim::cc {

// Makes one module object for one connection.
using CcFactory = std::function<std::unique_ptr<CcAlgo>()>;

class CcRegistry {
 public:
  // netsim's own modules: "newreno", "cubic" (stock, July 2024) and
  // "cubic_d46046" (cubic with review D46046).
  CcRegistry();

  // Adds a module under `name`, which must be new and made of [A-Za-z0-9_-]
  // (a name a scenario file can hold); throws std::invalid_argument otherwise.
  void add(std::string name, CcFactory make);
  template <typename Module>
  void add(std::string name) {
    add(std::move(name), [] { return std::make_unique<Module>(); });
  }

  bool contains(std::string_view name) const;
  // In the order added, netsim's own first.
  std::vector<std::string> names() const;
  // A new module object; throws std::invalid_argument naming the valid names
  // for an unknown one.
  std::unique_ptr<CcAlgo> make(std::string_view name) const;

 private:
  std::vector<std::pair<std::string, CcFactory>> modules_;
};

// A module from netsim's own (a default CcRegistry); throws
// std::invalid_argument naming the valid names otherwise.
std::unique_ptr<CcAlgo> make_cc(std::string_view name);

}  // namespace netsim::cc
