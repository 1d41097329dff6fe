// Benchmark of the VMXNET3 path (docs/vmxnet3.md): a FreeBSD sender on a VM
// handing TSO frames to its vNIC, the ESXi vSwitch with its own CPU, the
// receiving VM's vmx receive path (4 KB buffers, tcp_lro) and guest CPUs.
// Arg: 1 = LRO on (frames whole), 0 = off (the vSwitch segments). Items are
// frames the vSwitch forwards; each iteration simulates 10 ms.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/sim/simulation.h"

namespace netsim {
namespace {

using namespace netsim::literals;

std::string vswitch_yaml(bool lro) {
  const std::string nic = std::string("{ driver: vmx, lro: ") + (lro ? "true" : "false") + " }";
  return "name: bench-vswitch\n"
         "duration: 1000s\n"
         "hosts:\n"
         "  vm1: { address: 10.0.0.1, hz: 100, nic: " + nic + ", cpu: { tx_packet: 4us, ack_input: 4us } }\n"
         "  vm2: { address: 10.0.0.2, hz: 100, nic: " + nic + ", cpu: { rx_packet: 500ns, rx_fragment: 100ns, tcp_input: 3us } }\n"
         "vswitches:\n"
         "  esxi: { cpu: { frame: 4us, segment: 600ns } }\n"
         "links:\n"
         "  vm1-esxi: { ends: [vm1, esxi] }\n"
         "  vm2-esxi: { ends: [vm2, esxi] }\n"
         "traffic:\n"
         "  bulk: { type: tcp, from: vm1, to: vm2 }\n";
}

void BM_VSwitchPath(benchmark::State& state) {
  const ScenarioSpec spec = parse_scenario_text(vswitch_yaml(state.range(0) != 0), "bench-vswitch.yaml");
  BuiltScenario built = build_scenario(spec);
  Simulation& sim = *built.sim;
  const VSwitch& v = *built.vswitches.front();
  sim.run_until(500_ms);  // past slow start: pool and heap at their steady size
  const std::uint64_t start_frames = v.counters().frames;
  const std::uint64_t start_events = sim.events_processed();
  for (auto _ : state) sim.run_until(sim.now() + 10_ms);
  const auto frames = static_cast<double>(v.counters().frames - start_frames);
  state.SetItemsProcessed(static_cast<std::int64_t>(frames));
  state.counters["events"] =
      benchmark::Counter(static_cast<double>(sim.events_processed() - start_events), benchmark::Counter::kIsRate);
  state.SetLabel(state.range(0) != 0 ? "LRO: frames whole; items = vSwitch frames"
                                     : "no LRO: segmented; items = vSwitch frames");
  if (frames == 0) state.SkipWithError("no frames forwarded");
}
BENCHMARK(BM_VSwitchPath)->ArgName("lro")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace netsim
