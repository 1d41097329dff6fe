#include "netsim/sim/tick_clock.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace netsim {

TickClock::TickClock(Simulation& sim, int hz, SimTime phase)
    : sim_(sim), hz_(hz), phase_(phase),
      max_offset64_(hz > 0 ? std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(hz) - 1 : 0) {
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
  if (k >= 0 && k <= kMaxEdge64) return phase_ + k * kPicosPerSecond / hz_;
  return phase_ + static_cast<SimTime>(static_cast<Int128>(k) * kPicosPerSecond / hz_);
}

std::int64_t TickClock::ticks_at(SimTime t) const {
  if (t < phase_) return 0;
  const auto d64 = static_cast<std::uint64_t>(t - phase_);
  if (d64 <= max_offset64_) {
    return static_cast<std::int64_t>(((d64 + 1) * static_cast<std::uint64_t>(hz_) - 1) /
                                     static_cast<std::uint64_t>(kPicosPerSecond)) +
           1;
  }
  const Int128 d = t - phase_;
  // Largest k with floor(k * 1e12 / hz) <= d is floor(((d + 1) * hz - 1) / 1e12).
  const Int128 k = ((d + 1) * hz_ - 1) / kPicosPerSecond;
  return static_cast<std::int64_t>(k) + 1;
}

}  // namespace netsim
