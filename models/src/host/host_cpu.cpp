#include "netsim/host/host_cpu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace netsim {

namespace {

// Every cost of HostCpuCosts (the fields that are times).
constexpr SimTime HostCpuCosts::* kCostFields[] = {
    &HostCpuCosts::tick,      &HostCpuCosts::interrupt,  &HostCpuCosts::rx_packet,    &HostCpuCosts::tcp_input,
    &HostCpuCosts::tx_packet, &HostCpuCosts::tx_segment, &HostCpuCosts::copy_per_kib, &HostCpuCosts::rx_fragment,
    &HostCpuCosts::rx_aggregate, &HostCpuCosts::ack_input};

// The costs on a core `speed` times as fast (rounded to the picosecond).
HostCpuCosts at_speed(HostCpuCosts c) {
  if (!(c.speed > 0)) throw std::invalid_argument("the CPU speed must be > 0");
  if (c.speed == 1.0) return c;
  for (SimTime HostCpuCosts::*m : kCostFields) c.*m = static_cast<SimTime>(std::llround(static_cast<double>(c.*m) / c.speed));
  // A cycle takes 1/speed as long: as if the clock ran `speed` times faster.
  c.frequency_hz = static_cast<std::int64_t>(std::llround(static_cast<double>(c.frequency_hz) * c.speed));
  return c;
}

}  // namespace

HostCpu::HostCpu(TickClock& clock, const HostCpuCosts& costs) : clock_(clock), costs_(at_speed(costs)) {
  for (SimTime HostCpuCosts::*m : kCostFields) {
    if (costs.*m < 0) throw std::invalid_argument("CPU costs must be >= 0");
  }
  // The hardclock the core runs: at its speed.
  if (costs_.tick >= clock.tick_period()) {
    throw std::invalid_argument("the hardclock cost (" + std::to_string(costs_.tick) +
                                " ps) is not shorter than the tick period (" + std::to_string(clock.tick_period()) +
                                " ps at hz=" + std::to_string(clock.hz()) + "): the CPU would do nothing else");
  }
}

SimTime HostCpu::outside_tick(SimTime t) const {
  if (costs_.tick == 0) return t;
  const std::int64_t n = clock_.ticks_at(t);
  if (n == 0) return t;
  const SimTime handler_end = clock_.time_of_tick(n) + costs_.tick;
  return t < handler_end ? handler_end : t;
}

SimTime HostCpu::run(SimTime cost, CpuContext ctx) {
  const SimTime now = clock_.sim().now();
  SimTime start = std::max(now, busy_until_);
  if (cost <= 0) return start;
  start = outside_tick(start);
  SimTime end = start + cost;
  if (costs_.tick > 0) {
    // Every hardclock edge in (start, end] stretches the item by one handler;
    // the stretch can reach further edges, hence the iteration (it ends
    // because a handler is shorter than a tick period).
    const std::int64_t first = clock_.ticks_at(start);
    std::int64_t counted = 0;
    for (;;) {
      const std::int64_t edges = clock_.ticks_at(end) - first;
      if (edges == counted) break;
      end += (edges - counted) * costs_.tick;
      counted = edges;
    }
  }
  busy_until_ = end;
  charged_[static_cast<std::size_t>(ctx)] += cost;
  last_context_ = static_cast<int>(ctx);
  ++items_;
  return end;
}

CpuTimes HostCpu::used() const {
  const SimTime now = clock_.sim().now();
  CpuTimes t;
  t.by_context = charged_;
  if (busy_until_ > now) {
    // Queued work not yet done: its length less the hardclocks inside it.
    SimTime tail = busy_until_ - now;
    if (costs_.tick > 0) tail -= (clock_.ticks_at(busy_until_) - clock_.ticks_at(now)) * costs_.tick;
    // The tail belongs to the latest items: take it off the last item's
    // context first (exact while the queue holds one context's work).
    for (int k = 0; k < 3 && tail > 0; ++k) {
      SimTime& c = t.by_context[static_cast<std::size_t>((last_context_ + 3 - k) % 3)];
      const SimTime off = std::min(c, tail);
      c -= off;
      tail -= off;
    }
  }
  t.by_context[static_cast<std::size_t>(CpuContext::interrupt)] += clock_.ticks_at(now) * costs_.tick;
  return t;
}

}  // namespace netsim
