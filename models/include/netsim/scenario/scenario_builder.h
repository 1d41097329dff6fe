// Turns a validated ScenarioSpec into a ready-to-run Simulation.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "netsim/app/udp_sink.h"
#include "netsim/app/udp_source.h"
#include "netsim/filter/packet_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/hub.h"
#include "netsim/net/link.h"
#include "netsim/net/switch.h"
#include "netsim/scenario/scenario_spec.h"
#include "netsim/topology/topology.h"

namespace netsim {

struct BuiltFilter {
  const FilterSpec* spec;
  PacketFilter* filter;
};

struct BuiltUdpFlow {
  const UdpFlowSpec* spec;
  UdpSource* source;
  UdpSink* sink;
};

// Everything a run needs, owned together. The spec must outlive it.
struct BuiltScenario {
  const ScenarioSpec* spec = nullptr;
  std::unique_ptr<Simulation> sim;
  Topology topology;
  std::vector<Node*> nodes;  // indexed by NodeId
  std::vector<Link*> links;  // in spec order
  std::vector<BuiltFilter> filters;
  std::vector<BuiltUdpFlow> udp_flows;

  Node* node(const std::string& name) const;
};

// Topology only (no simulation objects): for `netsim topo` and validation.
Topology build_topology(const ScenarioSpec& spec);

// Builds the whole simulation. Throws ScenarioError (naming the element's
// file and line) for problems only visible once parts are combined, such as
// two flows bound to the same port of one host.
BuiltScenario build_scenario(const ScenarioSpec& spec);

}  // namespace netsim
