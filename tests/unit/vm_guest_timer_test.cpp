// A VM guest's kernel timers as bhyve runs them: late by the VM host's
// callout precision (kern.timecounter.alloweddeviation), set per host.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "two_host_scenario.h"

namespace netsim {
namespace {

const std::string& kTwoHosts = test_support::kTwoHostsPing;

TEST(VmHostAllowedDeviation, SetsTheGuestClocksLatenessAsFreeBsdsTcAdjprecision) {
  // tc_adjprecision: t = (99 + p) / p, shift = fls(t + t / 2) - 1.
  for (const auto& [percent, shift] : {std::pair{5, 4}, std::pair{1, 7}, std::pair{50, 1}, std::pair{100, 0}}) {
    SCOPED_TRACE(percent);
    const ScenarioSpec spec =
        parse_scenario_text(kTwoHosts, "inline.yaml", {{"hosts.a.vm_host_alloweddeviation", std::to_string(percent)}});
    const BuiltScenario b = build_scenario(spec);
    EXPECT_EQ(static_cast<Host*>(b.node("a"))->clock().late_shift(), shift);
    EXPECT_EQ(static_cast<Host*>(b.node("b"))->clock().late_shift(), -1);
  }
  const BuiltScenario off = build_scenario(
      parse_scenario_text(kTwoHosts, "inline.yaml", {{"hosts.a.vm_host_alloweddeviation", "0"}}));
  EXPECT_EQ(static_cast<Host*>(off.node("a"))->clock().late_shift(), -1);
  EXPECT_THROW(parse_scenario_text(kTwoHosts, "inline.yaml", {{"hosts.a.vm_host_alloweddeviation", "101"}}),
               ScenarioError);
}

}  // namespace
}  // namespace netsim
