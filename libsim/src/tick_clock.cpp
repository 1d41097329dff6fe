#include "netsim/sim/tick_clock.h"

#include <stdexcept>
#include <string>

namespace netsim {

TickClock::TickClock(Simulation& sim, int hz, SimTime phase) : sim_(sim), hz_(hz), phase_(phase) {
  if (hz < kMinHz || hz > kMaxHz) {
    throw std::invalid_argument("kern.hz must be between " + std::to_string(kMinHz) + " and " +
                                std::to_string(kMaxHz) + ", got " + std::to_string(hz));
  }
  if (phase < 0 || phase >= kPicosPerSecond / hz) {
    throw std::invalid_argument("tick phase must lie within one tick period");
  }
}

SimTime TickClock::draw_phase(Rng& rng, int hz) {
  return static_cast<SimTime>(rng.uniform_below(static_cast<std::uint64_t>(kPicosPerSecond / hz)));
}

SimTime TickClock::edge(std::int64_t k) const {
  return phase_ + static_cast<SimTime>(static_cast<Int128>(k) * kPicosPerSecond / hz_);
}

std::int64_t TickClock::ticks_at(SimTime t) const {
  if (t < phase_) return 0;
  const Int128 d = t - phase_;
  // Largest k with floor(k * 1e12 / hz) <= d is floor(((d + 1) * hz - 1) / 1e12).
  const Int128 k = ((d + 1) * hz_ - 1) / kPicosPerSecond;
  return static_cast<std::int64_t>(k) + 1;
}

}  // namespace netsim
