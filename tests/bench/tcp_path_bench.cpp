// Benchmark of the TCP packet path as T1 runs it: FreeBSD sender (TSO),
// 1 Gbit/s links through a router, the receiver's virtio-like NIC with
// interrupt batching and GRO, the nth drop rule after GRO, the Linux
// receiver's ACK/SACK generation, and the ACKs back through the sender's NIC.
// Built from a scenario text with the same builder `netsim run` uses, so it
// times exactly the objects a run creates.
//
// Arg: the rule's `every` (0: no rule, a loss-free bulk flow). Items are wire
// segments delivered to the receiver's stack; each iteration simulates 10 ms.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_captures.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/sim/simulation.h"

namespace netsim {
namespace {

using namespace netsim::literals;

// With `host_cpus`, both hosts get a CPU model whose costs (a few us per
// event) do not bind at 1 Gbit/s: what the model's bookkeeping costs.
// `linux_sender`: the sender is the Linux stack (os: linux, Reno) instead of
// FreeBSD's (NewReno), on the same path: the per-segment cost of the two ports.
std::string tcp_path_yaml(std::int64_t every, bool host_cpus = false, bool linux_sender = false) {
  const std::string sender_cpu = host_cpus ? ", cpu: { tick: 2us, tx_packet: 2us, tx_segment: 1us, tcp_input: 1us }" : "";
  const std::string receiver_cpu =
      host_cpus ? "    cpu: { interrupt: 3us, rx_packet: 1us, tcp_input: 2us, copy_per_kib: 50ns }\n" : "";
  std::string y =
      "name: bench-tcp-path\n"
      "duration: 1000s\n"
      "hosts:\n"
      "  sender: { address: 10.0.0.1, hz: 1000" + std::string(linux_sender ? ", os: linux" : "") + ", nic: { host_int_rx_mod: 65us, irq_delay: 20us, irq_jitter: 20us }" +
      sender_cpu +
      " }\n"
      "  receiver:\n"
      "    address: 10.0.0.2\n"
      "    hz: 250\n"
      "    nic: { host_int_rx_mod: 65us, gro: true, irq_delay: 20us, irq_jitter: 20us, filter_position: after_gro }\n" +
      receiver_cpu +
      "switches:\n"
      "  router: { buffer: 256KB }\n"
      "links:\n"
      "  sender-router:   { ends: [sender, router], rate: 1Gbps, delay: 11us }\n"
      "  router-receiver: { ends: [router, receiver], rate: 1Gbps, delay: 11us }\n"
      "traffic:\n"
      "  bulk: { type: tcp, from: sender, to: receiver, dst_port: 5201, cc: " +
      std::string(linux_sender ? "reno" : "newreno") + " }\n";
  if (every > 0) {
    y += "filters:\n"
         "  drop: { host: receiver, hook: ingress, type: nth, every: " +
         std::to_string(every) +
         ", packet: 0, match: { protocol: tcp, dst_port: 5201 } }\n";
  }
  return y;
}

void run_tcp_path(benchmark::State& state, bool host_cpus, bool linux_sender = false, bool capture = false) {
  const ScenarioSpec spec =
      parse_scenario_text(tcp_path_yaml(state.range(0), host_cpus, linux_sender), "bench-tcp-path.yaml");
  BuiltScenario built = build_scenario(spec);
  Simulation& sim = *built.sim;
  const std::string capture_dir =
      (std::filesystem::temp_directory_path() / ("netsim-bench-pcap-" + std::to_string(::getpid()))).string();
  std::optional<ScenarioCaptures> captures;
  if (capture) captures.emplace(built, default_capture(spec), capture_dir);
  const tcp::TcpReceiveEndpoint& rx = *built.tcp_flows.front().receiver;
  // Past the handshake (with a rule, the SYN is its first victim and is
  // retried after 1 s) and slow start: pool and heap reach their steady size.
  sim.run_until(1500_ms);
  const std::uint64_t start_segs = rx.total_stats().segments_received;
  const std::uint64_t start_events = sim.events_processed();
  for (auto _ : state) sim.run_until(sim.now() + 10_ms);
  const auto segs = static_cast<double>(rx.total_stats().segments_received - start_segs);
  const auto events = static_cast<double>(sim.events_processed() - start_events);
  state.SetItemsProcessed(static_cast<std::int64_t>(segs));  // simulated wire segments delivered
  state.counters["events"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["events/seg"] = segs > 0 ? events / segs : 0.0;
  state.SetLabel(state.range(0) > 0 ? "nth rule after GRO; items = delivered wire segments"
                                    : "loss-free; items = delivered wire segments");
  if (segs == 0) state.SkipWithError("no segments delivered");
  if (captures) {
    results::RunResult r;
    captures->finish(r);
    std::uint64_t frames = 0;
    for (const auto& c : r.captures()) frames += c.frames();
    state.counters["frames/seg"] = segs > 0 ? static_cast<double>(frames) / segs : 0.0;
    std::filesystem::remove_all(capture_dir);
  }
}
void BM_TcpPath(benchmark::State& state) { run_tcp_path(state, false); }
BENCHMARK(BM_TcpPath)->ArgName("every")->Arg(0)->Arg(100)->Arg(25)->Unit(benchmark::kMillisecond);

// The same path with host CPU models on both ends (docs/models.md "Host CPU").
void BM_TcpPathHostCpu(benchmark::State& state) { run_tcp_path(state, true); }
BENCHMARK(BM_TcpPathHostCpu)->ArgName("every")->Arg(0)->Arg(100)->Unit(benchmark::kMillisecond);

// The same path with the Linux sender: compare with BM_TcpPath in the same run
// (docs/performance.md: within 1.3x of the FreeBSD sender per segment).
void BM_TcpPathLinuxSender(benchmark::State& state) { run_tcp_path(state, false, true); }
BENCHMARK(BM_TcpPathLinuxSender)->ArgName("every")->Arg(0)->Arg(100)->Arg(25)->Unit(benchmark::kMillisecond);

// The same path with pcap captures at all ten points of both hosts (snaplen
// 128, files in the temp directory): compare with BM_TcpPath/every:100 in the
// same run for the cost per captured frame (docs/capture.md).
void BM_TcpPathCaptureAll(benchmark::State& state) { run_tcp_path(state, false, false, true); }
BENCHMARK(BM_TcpPathCaptureAll)->ArgName("every")->Arg(100)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace netsim
