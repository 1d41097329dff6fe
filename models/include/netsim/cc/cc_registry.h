// Congestion-control modules by name (FreeBSD: net.inet.tcp.cc.algorithm /
// TCP_CONGESTION). One fresh module object per connection.
#pragma once

#include <memory>
#include <string_view>

#include "netsim/cc/cc_algo.h"

namespace netsim::cc {

// "newreno", "cubic" (stock, July 2024) or "cubic_d46046" (with review
// D46046). Throws std::invalid_argument naming the valid names otherwise.
std::unique_ptr<CcAlgo> make_cc(std::string_view name);

}  // namespace netsim::cc
