#include "netsim/net/low_power_idle.h"

#include <algorithm>

namespace netsim {

LowPowerIdle::LowPowerIdle(const LowPowerIdleConfig& config) : config_(config) {}

SimTime LowPowerIdle::sleep_time(int dir) const {
  const auto d = static_cast<std::size_t>(dir);
  const std::size_t other = 1 - d;
  // A frame that starts the instant the previous one ended (back to back)
  // never finds the link idle, even with LPI asserted at once.
  const SimTime after = std::max<SimTime>(config_.lpi_after, 1);
  if (busy_[d]) return kTimeNever;
  if (!config_.symmetric) return idle_since_[d] + after;
  if (busy_[other]) return kTimeNever;
  return std::max(idle_since_[d], idle_since_[other]) + after;
}

SimTime LowPowerIdle::begin_frame(int dir, SimTime now) {
  const auto d = static_cast<std::size_t>(dir);
  LowPowerIdleCounters& c = counters_[d];
  SimTime wait = 0;
  if (now < awake_at_[d]) {
    // The other side's wake-up is under way (symmetric): this frame rides it.
    wait = awake_at_[d] - now;
    ++c.joined;
  } else if (now >= sleep_time(dir)) {
    wait = config_.wake;
    awake_at_[d] = now + wait;
    if (config_.symmetric) awake_at_[1 - d] = awake_at_[d];
    ++c.wakeups;
  }
  c.wait += wait;
  busy_[d] = true;
  return wait;
}

void LowPowerIdle::end_frame(int dir, SimTime now) {
  const auto d = static_cast<std::size_t>(dir);
  busy_[d] = false;
  idle_since_[d] = now;
}

}  // namespace netsim
