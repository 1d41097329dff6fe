// Registers GentleReno (gentle_reno.h) as `gentle_reno` in a registry object,
// loads gentle-reno.yaml with it (the file selects `cc: gentle_reno`), runs
// it, and runs the same file with NewReno for comparison. Then loads the file
// without the registry, which fails at the cc's file:line.
//
//   custom_cc [SCENARIO.yaml]
#include <iostream>
#include <memory>
#include <string>

#include "gentle_reno.h"
#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_registry.h"
#include "netsim/scenario/scenario_runner.h"

namespace {

void print(const char* cc, const netsim::results::RunResult& run) {
  const netsim::results::FlowStats& f = run.flows(0);
  std::cout << cc << ": throughput " << f.receiver_mbps() << " Mbit/s, retransmits " << f.retransmits()
            << ", recoveries " << f.recovery_episodes() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : EXAMPLE_SCENARIO;

  // The registry starts with netsim's newreno, cubic and cubic_d46046; this
  // program adds its own. Each connection gets a fresh GentleReno.
  auto registry = std::make_shared<netsim::ScenarioRegistry>();
  registry->cc.add<GentleReno>("gentle_reno");

  try {
    const netsim::ScenarioSpec gentle = netsim::load_scenario(scenario, {}, registry);
    // The same file with the flow's cc overridden, as `netsim run --set` does.
    const netsim::ScenarioSpec newreno =
        netsim::load_scenario(scenario, {netsim::parse_override("traffic.bulk.cc=newreno")}, registry);
    const netsim::results::RunResult a = netsim::run_scenario(gentle);
    const netsim::results::RunResult b = netsim::run_scenario(newreno);
    if (!a.error().empty() || !b.error().empty()) {
      std::cerr << "custom-cc: " << a.error() << b.error() << "\n";
      return 1;
    }
    print("gentle_reno", a);
    print("newreno", b);
  } catch (const netsim::ScenarioError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }

  // netsim's own modules only: the name is unknown, and the error says where.
  try {
    netsim::load_scenario(scenario);
    std::cerr << "custom-cc: the scenario loaded without the registry\n";
    return 1;
  } catch (const netsim::ScenarioError& e) {
    std::cout << "without the registry: " << e.what() << "\n";
  }
  return 0;
}
