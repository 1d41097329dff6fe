// A scenario text shared by tests: two hosts on one 1 Gbit/s link with 5 us
// of delay, and one ping flow p from a to b (ping_test.cpp works out its
// round trip by hand: 2 x (5 us + 976 ns)).
#pragma once

#include <string>
#include <vector>

#include "netsim/scenario/scenario_loader.h"

namespace netsim::test_support {

inline const std::string kTwoHostsPing = R"(name: ping-two-hosts
duration: 10s
hosts:
  a: { address: 10.0.0.1 }
  b: { address: 10.0.0.2 }
links:
  a-b: { ends: [a, b], rate: 1Gbps, delay: 5us }
traffic:
  p: { type: ping, from: a, to: b, count: 4 }
)";

// The error kTwoHostsPing with these overrides loads with, or "no error".
inline std::string two_hosts_error(const std::vector<Override>& overrides) {
  try {
    parse_scenario_text(kTwoHostsPing, "inline.yaml", overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace netsim::test_support
