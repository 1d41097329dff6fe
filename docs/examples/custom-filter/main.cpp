// BurstDropFilter (burst_drop_filter.h) two ways:
//  1. attached by hand to a host's ingress hook of a built scenario, and the
//     simulation run directly;
//  2. registered as filter type `burst` in a registry object and selected
//     from burst-drop.yaml (`type: burst`, `params: {every, burst}`).
// Both runs send 100 datagrams through a 3-of-10 burst rule: 30 must be lost.
//
//   custom_filter [SCENARIO.yaml]
#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "burst_drop_filter.h"
#include "netsim/host/host.h"
#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_registry.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/scenario/topology_builder.h"

namespace {

using namespace netsim::literals;

// A `params:` value as a count; std::invalid_argument becomes a ScenarioError
// at the filter's file and line.
std::uint64_t count_param(const netsim::FilterArgs& args, const std::string& key) {
  const std::string text = args.param(key);
  std::size_t used = 0;
  const unsigned long long v = text.empty() || text[0] == '-' ? 0 : std::stoull(text, &used);
  if (text.empty() || used != text.size()) throw std::invalid_argument(key + " must be a count, got '" + text + "'");
  return v;
}

// 1. By hand: the scenario without the rule, then the rule on b's ingress.
int run_attached_by_hand() {
  netsim::TopologyBuilder t("burst-by-hand");
  t.duration(100_ms);
  t.add_host("a", "10.0.0.1").add_host("b", "10.0.0.2");
  t.add_link("a-b", "a", "b", 1_Gbps, {{"delay", "5us"}});
  t.add_flow("datagrams", "udp", "a", "b", {{"size", "1000B"}, {"rate", 8_Mbps}});
  const netsim::ScenarioSpec spec = t.build();
  netsim::BuiltScenario built = netsim::build_scenario(spec);

  auto& b = static_cast<netsim::Host&>(*built.node("b"));
  netsim::MatchRule udp;
  udp.protocol = netsim::IpProtocol::udp;
  auto& rule = built.sim->add<BurstDropFilter>("bursts", udp, 10, 3);
  b.add_filter(netsim::Hook::ingress, &rule);
  built.sim->run_until(spec.duration + 10_ms);  // the last datagram lands

  const netsim::BuiltUdpFlow& flow = built.udp_flows.at(0);
  std::cout << "by hand: sent " << flow.source->packets_sent() << ", received " << flow.sink->packets_received()
            << ", dropped " << rule.dropped() << "\n";
  return rule.dropped() == 30 && flow.sink->packets_received() == 70 ? 0 : 1;
}

// 2. From YAML, through the registry.
int run_from_yaml(const std::string& scenario) {
  auto registry = std::make_shared<netsim::ScenarioRegistry>();
  registry->filters.add("burst", {"every", "burst"},
                        [](netsim::Simulation& sim, const netsim::FilterArgs& args) -> netsim::PacketFilter& {
                          return sim.add<BurstDropFilter>(args.name, args.match, count_param(args, "every"),
                                                          count_param(args, "burst"));
                        });
  const netsim::results::RunResult run = netsim::run_scenario(netsim::load_scenario(scenario, {}, registry));
  if (!run.error().empty()) {
    std::cerr << "custom-filter: " << run.error() << "\n";
    return 1;
  }
  const netsim::results::FilterStats& f = run.filters(0);
  std::cout << "from yaml: filter " << f.name() << " (type " << f.type() << ") matched " << f.matched()
            << ", dropped " << f.dropped() << "; flow received " << run.flows(0).packets_received() << "\n";
  return f.dropped() == 30 && run.flows(0).packets_received() == 70 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int by_hand = run_attached_by_hand();
    const int from_yaml = run_from_yaml(argc > 1 ? argv[1] : EXAMPLE_SCENARIO);
    std::cout << (by_hand == 0 && from_yaml == 0 ? "custom-filter: OK\n" : "custom-filter: WRONG COUNTS\n");
    return by_hand | from_yaml;
  } catch (const netsim::ScenarioError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
