// Per-operation cost against the population: a demultiplexing lookup among
// N bound (peer, port) keys, and re-arming one of N pending retransmit-like
// timers (200-300 ms ahead, so they live in the EventWheel) while packet
// events come and go. Flat in N is the target (docs/performance.md, Scale).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "netsim/sim/event_queue.h"
#include "netsim/sim/key_table.h"
#include "netsim/sim/rng.h"

namespace netsim {
namespace {

void BM_KeyTableLookup(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  KeyTable<int> t;
  std::vector<std::uint64_t> keys;
  for (std::uint32_t i = 0; i < n; ++i) {
    keys.push_back(peer_key(i / 16000, static_cast<std::uint16_t>(49152 + i % 16000)));
    t.set(keys.back(), static_cast<int>(i));
  }
  Rng rng(1, "bench/lookup");
  std::vector<std::uint64_t> order(4096);
  for (auto& k : order) k = keys[rng.uniform_below(keys.size())];
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(t.find(order[i++ & 4095]));
  }
}
BENCHMARK(BM_KeyTableLookup)->Arg(1)->Arg(1000)->Arg(100000);

struct Sink final : EventHandler {
  void handle_event(std::uint64_t) override {}
};

void BM_TimerRearmAmongPending(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  EventQueue q;
  Sink sink;
  Rng rng(2, "bench/timers");
  std::vector<std::unique_ptr<Timer>> timers;
  SimTime now = 0;
  for (std::size_t i = 0; i < n; ++i) {
    timers.push_back(std::make_unique<Timer>(&sink, i));
    q.arm(*timers.back(), kPicosPerMilli * 200 + static_cast<SimTime>(rng.uniform_below(100 * kPicosPerMilli)));
  }
  for (auto _ : state) {
    // One "ACK": a packet event 12 us ahead, the connection's timer pushed back, the next event popped.
    q.schedule(now + 12 * kPicosPerMicro, &sink, 0);
    q.arm(*timers[rng.uniform_below(n)], now + kPicosPerMilli * 200 + static_cast<SimTime>(rng.uniform_below(kPicosPerMilli)));
    const QueuedEvent e = q.pop();
    now = e.time;
    if (e.timer != nullptr) q.arm(*e.timer, now + kPicosPerMilli * 200);
  }
}
BENCHMARK(BM_TimerRearmAmongPending)->Arg(1)->Arg(1000)->Arg(100000);

// N active connections, each ACKed every 100 ms in turn (the steps come
// 100 ms / N apart): each ACK pushes its connection's retransmit timer to
// 200 ms ahead, so no timer fires; a packet event per ACK comes and goes.
void BM_TimerRearmActiveConnections(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  EventQueue q;
  Sink sink;
  std::vector<std::unique_ptr<Timer>> timers;
  for (std::size_t i = 0; i < n; ++i) {
    timers.push_back(std::make_unique<Timer>(&sink, i));
    q.arm(*timers.back(), kPicosPerMilli * 200);
  }
  const SimTime step = 100 * kPicosPerMilli / static_cast<SimTime>(n);
  SimTime now = 0;
  std::size_t k = 0;
  for (auto _ : state) {
    now += step;
    q.schedule(now, &sink, 0);
    q.arm(*timers[k], now + kPicosPerMilli * 200);
    k = k + 1 == n ? 0 : k + 1;
    benchmark::DoNotOptimize(q.pop());
  }
}
BENCHMARK(BM_TimerRearmActiveConnections)->Arg(1)->Arg(1000)->Arg(100000);

}  // namespace
}  // namespace netsim
