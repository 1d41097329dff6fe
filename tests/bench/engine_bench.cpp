// Micro-benchmarks of the engine (event queue, timers, dispatch loop) and of
// the UDP packet path through the network models.
//
// Build Release and run build-bench/bin/netsim_bench; docs/performance.md
// lists the targets and the figures measured. Random inputs are drawn from
// netsim::Rng before the timed loop, so the loops time only the engine.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "netsim/app/udp_sink.h"
#include "netsim/app/udp_source.h"
#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/net/switch.h"
#include "netsim/sim/event_queue.h"
#include "netsim/sim/rng.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/timer.h"

namespace netsim {
namespace {

using namespace netsim::literals;

// Pre-generated inputs are read round-robin from tables of this size: large
// enough that the pattern does not repeat within a cache-friendly period,
// small enough to stay in L2.
constexpr std::size_t kTable = std::size_t{1} << 16;
constexpr std::size_t kMask = kTable - 1;

struct NullHandler final : EventHandler {
  std::uint64_t calls = 0;
  void handle_event(std::uint64_t) override { ++calls; }
};

std::vector<SimTime> random_offsets(std::string_view stream, SimTime max) {
  Rng rng(42, stream);
  std::vector<SimTime> v(kTable);
  for (auto& x : v) x = 1 + static_cast<SimTime>(rng.uniform_below(static_cast<std::uint64_t>(max)));
  return v;
}

std::vector<std::uint32_t> random_indices(std::string_view stream, std::uint32_t n) {
  Rng rng(42, stream);
  std::vector<std::uint32_t> v(kTable);
  for (auto& x : v) x = static_cast<std::uint32_t>(rng.uniform_below(n));
  return v;
}

// Hold model: N events pending; each iteration pops the earliest and
// schedules a replacement at its time plus a random offset (0..1 us].
void BM_EventQueueSchedulePop(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<SimTime> offsets = random_offsets("bench/hold", 1'000'000);
  NullHandler h;
  EventQueue q;
  q.reserve(n + 1);
  for (std::size_t i = 0; i < n; ++i) q.schedule(offsets[i & kMask], &h, i);
  std::size_t k = n;
  for (auto _ : state) {
    const QueuedEvent ev = q.pop();
    q.schedule(ev.time + offsets[k++ & kMask], &h, ev.tag);
  }
  benchmark::DoNotOptimize(q.next_time());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));  // schedule+pop pairs
  state.SetLabel("items = schedule+pop pairs");
}
BENCHMARK(BM_EventQueueSchedulePop)->Arg(1 << 10)->Arg(1 << 16);

// TCP-style timer churn: K timers; each iteration re-arms one random timer to
// a new time and cancels another; every 16th iteration the earliest pending
// event fires (pop), advancing the clock.
void BM_TimerChurn(benchmark::State& state) {
  const auto k_timers = static_cast<std::uint32_t>(state.range(0));
  const std::vector<SimTime> offsets = random_offsets("bench/timer-offsets", 200'000'000);  // up to 200 us
  const std::vector<std::uint32_t> arm_idx = random_indices("bench/timer-arm", k_timers);
  const std::vector<std::uint32_t> cancel_idx = random_indices("bench/timer-cancel", k_timers);
  NullHandler h;
  std::vector<std::unique_ptr<Timer>> timers;
  timers.reserve(k_timers);
  for (std::uint32_t i = 0; i < k_timers; ++i) timers.push_back(std::make_unique<Timer>(&h, i));
  EventQueue q;
  q.reserve(k_timers + 1);
  SimTime now = 0;
  for (std::uint32_t i = 0; i < k_timers; ++i) q.arm(*timers[i], offsets[i & kMask]);
  std::size_t k = 0;
  for (auto _ : state) {
    const std::size_t j = k & kMask;
    q.arm(*timers[arm_idx[j]], now + offsets[j]);
    q.cancel(*timers[cancel_idx[j]]);
    if ((k & 15) == 15 && !q.empty()) now = q.pop().time;
    ++k;
  }
  benchmark::DoNotOptimize(q.size());
  state.SetItemsProcessed(2 * static_cast<std::int64_t>(state.iterations()));  // one arm + one cancel each
  state.SetLabel("items = arm/cancel ops");
}
BENCHMARK(BM_TimerChurn)->Arg(64)->Arg(4096);

// The dispatch loop: Simulation::run_until over M self-rescheduling handlers
// (pop, clock update, virtual call, schedule). About one event per simulated
// nanosecond whatever M; each iteration runs 10 us of simulated time.
struct Ticker final : EventHandler {
  Simulation* sim = nullptr;
  SimTime period = 0;
  void handle_event(std::uint64_t) override { sim->schedule_in(period, this); }
};

void BM_SimulationDispatch(benchmark::State& state) {
  const auto m = static_cast<std::size_t>(state.range(0));
  Simulation sim(1);
  std::vector<Ticker> tickers(m);
  for (std::size_t i = 0; i < m; ++i) {
    tickers[i].sim = &sim;
    tickers[i].period = static_cast<SimTime>(m) * 1_ns + static_cast<SimTime>(i);  // distinct periods
    sim.schedule_at(static_cast<SimTime>(i), &tickers[i]);
  }
  sim.run_until(10_us);  // warm-up
  const std::uint64_t start_events = sim.events_processed();
  for (auto _ : state) sim.run_until(sim.now() + 10_us);
  state.SetItemsProcessed(static_cast<std::int64_t>(sim.events_processed() - start_events));
  state.SetLabel("items = events");
}
BENCHMARK(BM_SimulationDispatch)->Arg(1)->Arg(64);

// Two hosts at 10 Gbit/s, directly linked (arg 0) or through a switch
// (arg 1); a full-rate UdpSource keeps the sender's interface busy and a
// UdpSink counts deliveries. Each iteration simulates 10 ms more.
struct UdpPath {
  Simulation sim{1};
  Host* a = nullptr;
  Host* b = nullptr;
  UdpSink* sink = nullptr;
  UdpSource* src = nullptr;

  explicit UdpPath(bool via_switch) {
    a = &sim.add<Host>("a", 0, "10.0.0.1", IpVersion::v4, 1000);
    b = &sim.add<Host>("b", 1, "10.0.0.2", IpVersion::v4, 1000);
    ChannelConfig c;
    c.rate = 10_Gbps;
    c.delay = 1_us;
    if (via_switch) {
      Switch& sw = sim.add<Switch>("sw", 2);
      sim.add<Link>("a-sw", *a, sw, c, c);    // port 0 at a, port 0 at sw
      sim.add<Link>("sw-b", sw, *b, c, c);    // port 1 at sw, port 0 at b
      sw.set_forwarding({0, 1});
    } else {
      sim.add<Link>("a-b", *a, *b, c, c);
    }
    a->set_forwarding({-1, 0});
    b->set_forwarding({0, -1});
    sink = &sim.add<UdpSink>("sink", *b, 5001);
    UdpSourceConfig cfg;
    cfg.dst = b->id();
    cfg.dst_port = 5001;
    cfg.payload_bytes = 1472;
    cfg.rate = std::nullopt;  // full rate: as fast as the first hop takes them
    src = &sim.add<UdpSource>("src", *a, cfg);
  }
};

void BM_UdpPath(benchmark::State& state) {
  UdpPath net(state.range(0) != 0);
  net.sim.run_until(1_ms);  // warm-up: pool and heap reach their steady size
  const std::uint64_t start_pkts = net.sink->packets_received();
  const std::uint64_t start_events = net.sim.events_processed();
  for (auto _ : state) net.sim.run_until(net.sim.now() + 10_ms);
  const auto pkts = static_cast<double>(net.sink->packets_received() - start_pkts);
  const auto events = static_cast<double>(net.sim.events_processed() - start_events);
  state.SetItemsProcessed(static_cast<std::int64_t>(pkts));  // simulated packets delivered
  state.counters["events"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["events/pkt"] = pkts > 0 ? events / pkts : 0.0;
  state.SetLabel(state.range(0) != 0 ? "via switch; items = delivered packets" : "direct link; items = delivered packets");
  if (pkts == 0) state.SkipWithError("no packets delivered");
}
BENCHMARK(BM_UdpPath)->ArgName("switch")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace netsim

BENCHMARK_MAIN();
