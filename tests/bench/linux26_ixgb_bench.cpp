// Benchmarks of T3's path (docs/t3.md): the Linux 2.6 sender (netsim/tcp/
// linux26) streaming with nuttcp's write loop over an ixgb NIC on 133 MHz /
// 64-bit PCI-X to a Linux receiver behind another ixgb, MTU 9000 through a
// switch; and the ixgb NIC + PCI-X bus transmit path alone, fed by a UDP
// flow at line rate into a plain interface. Built from scenario text with
// the builder `netsim run` uses, so they time the objects a run creates.
// Each iteration simulates 10 ms after a warm-up.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "netsim/nic/ixgb_nic.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/sim/simulation.h"

namespace netsim {
namespace {

using namespace netsim::literals;

// T3's hosts and CPU costs (scenarios/t3-linux-2.6-regression.yaml).
constexpr const char* kIxgbNic = "{ driver: ixgb, rx_int_delay: 72, bus: { type: pcix, mhz: 133, width_bits: 64 } }";

std::string linux26_path_yaml(std::int64_t kernel_minor) {
  const std::string hz = kernel_minor == 12 ? "1000" : "100";  // T3's configs: HZ 1000 for 2.6.12, else 100
  return std::string("name: bench-linux26-path\n"
                     "duration: 1000s\n"
                     "hosts:\n"
                     "  chance:\n"
                     "    address: 192.168.88.10\n"
                     "    os: linux\n"
                     "    kernel: \"2.6.") + std::to_string(kernel_minor) + "\"\n"
         "    hz: " + hz + "\n"
         "    nic: " + kIxgbNic + "\n"
         "    cpu: { frequency: 3.06GHz, cores: 2, irq_core: 0, app_core: 1, interrupt: 2us, rx_packet: 1us,\n"
         "           tcp_input: 1us, ack_input: 3us, tx_packet: 5us, copy_per_kib: 1100ns }\n"
         "  chance4:\n"
         "    address: 192.168.88.8\n"
         "    os: linux\n"
         "    hz: " + hz + "\n"
         "    nic: " + kIxgbNic + "\n"
         "    cpu: { frequency: 3.06GHz, cores: 2, irq_core: 0, app_core: 1, interrupt: 2us, rx_packet: 1us,\n"
         "           tcp_input: 2us, copy_per_kib: 600ns }\n"
         "switches:\n"
         "  sw: { buffer: 4MB }\n"
         "links:\n"
         "  chance-sw:  { ends: [chance, sw], rate: 10Gbps, delay: 1us, mtu: 9000 }\n"
         "  sw-chance4: { ends: [sw, chance4], rate: 10Gbps, delay: 1us, mtu: 9000 }\n"
         "traffic:\n"
         "  nut: { type: tcp, app: nuttcp, from: chance, to: chance4, window: 2MiB, time: 900s, cc: bic }\n";
}

// Arg: the 2.6 kernel's minor version (14: deferring TSO; 12: whole-skb sends).
// Items are wire segments delivered to the receiver's stack.
void BM_Linux26SenderIxgbPath(benchmark::State& state) {
  const ScenarioSpec spec = parse_scenario_text(linux26_path_yaml(state.range(0)), "bench-linux26-path.yaml");
  BuiltScenario built = build_scenario(spec);
  Simulation& sim = *built.sim;
  const tcp::TcpReceiveEndpoint& rx = *built.tcp_flows.front().receiver;
  sim.run_until(200_ms);  // past slow start: pool, rings and heap at their steady size
  const std::uint64_t start_segs = rx.total_stats().segments_received;
  const std::uint64_t start_events = sim.events_processed();
  for (auto _ : state) sim.run_until(sim.now() + 10_ms);
  const auto segs = static_cast<double>(rx.total_stats().segments_received - start_segs);
  const auto events = static_cast<double>(sim.events_processed() - start_events);
  state.SetItemsProcessed(static_cast<std::int64_t>(segs));
  state.counters["events"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["events/seg"] = segs > 0 ? events / segs : 0.0;
  state.SetLabel("nuttcp over ixgb/PCI-X; items = delivered wire segments");
  if (segs == 0) state.SkipWithError("no segments delivered");
}
BENCHMARK(BM_Linux26SenderIxgbPath)->ArgName("kernel_2_6")->Arg(14)->Arg(12)->Unit(benchmark::kMillisecond);

// 8972-byte datagrams (MTU 9000) through the qdisc, the transmit ring, the
// PCI-X reads and the wire of one ixgb NIC; the receiver's plain interface
// only counts them. 7 Gbit/s is just under what the bus lets through (about
// 7.5 Gbit/s of such frames): a max-rate source would spend the time on
// qdisc drops (63 per sent frame), not on the transmit path.
std::string ixgb_tx_yaml() {
  return std::string("name: bench-ixgb-tx\n"
                     "duration: 1000s\n"
                     "hosts:\n"
                     "  tx: { address: 10.0.0.1, hz: 1000, nic: ") + kIxgbNic + " }\n"
         "  rx: { address: 10.0.0.2, hz: 1000 }\n"
         "links:\n"
         "  tx-rx: { ends: [tx, rx], rate: 10Gbps, delay: 1us, mtu: 9000 }\n"
         "traffic:\n"
         "  blast: { type: udp, from: tx, to: rx, dst_port: 5001, size: 8972B, rate: 7Gbps }\n";
}

// Items are frames the NIC puts on the wire.
void BM_IxgbPcixTransmit(benchmark::State& state) {
  const ScenarioSpec spec = parse_scenario_text(ixgb_tx_yaml(), "bench-ixgb-tx.yaml");
  BuiltScenario built = build_scenario(spec);
  Simulation& sim = *built.sim;
  const IxgbNic* nic = nullptr;
  for (const BuiltNic& n : built.nics) {
    if (n.ixgb != nullptr) nic = n.ixgb;
  }
  if (nic == nullptr) {
    state.SkipWithError("no ixgb NIC built");
    return;
  }
  sim.run_until(50_ms);
  const std::uint64_t start_frames = nic->counters().tx_wire_segments;
  const std::uint64_t start_drops = nic->counters().tx_queue_drops;
  const std::uint64_t start_events = sim.events_processed();
  for (auto _ : state) sim.run_until(sim.now() + 10_ms);
  const auto frames = static_cast<double>(nic->counters().tx_wire_segments - start_frames);
  const auto events = static_cast<double>(sim.events_processed() - start_events);
  state.SetItemsProcessed(static_cast<std::int64_t>(frames));
  state.counters["events"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["events/frame"] = frames > 0 ? events / frames : 0.0;
  state.counters["qdisc_drops/frame"] =
      frames > 0 ? static_cast<double>(nic->counters().tx_queue_drops - start_drops) / frames : 0.0;
  state.SetLabel("UDP at 7 Gbit/s; items = wire frames");
  if (frames == 0) state.SkipWithError("no frames sent");
}
BENCHMARK(BM_IxgbPcixTransmit)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace netsim
