#include "netsim/cc/cc_registry.h"

#include <stdexcept>
#include <string>

#include "netsim/cc/cubic.h"
#include "netsim/cc/newreno.h"

namespace netsim::cc {

std::unique_ptr<CcAlgo> make_cc(std::string_view name) {
  if (name == "newreno") return std::make_unique<NewReno>();
  if (name == "cubic") return std::make_unique<Cubic>();
  if (name == "cubic_d46046") return std::make_unique<CubicD46046>();
  throw std::invalid_argument("unknown congestion control '" + std::string(name) +
                              "' (valid: newreno, cubic, cubic_d46046)");
}

}  // namespace netsim::cc
