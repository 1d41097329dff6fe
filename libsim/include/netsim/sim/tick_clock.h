// A host's kern.hz clock: tick edges, the `ticks` counter, tick-aligned callouts.
//
// FreeBSD's hardclock() runs kern.hz times per second and increments `ticks`;
// callout_reset(c, n, ...) fires at the n-th hardclock after the call. Two
// boxes' hardclocks are not aligned, so each host draws a random phase.
//
// Tick edge k (k >= 0) is at phase + floor(k * 1e12 / hz) picoseconds: exact
// for any hz, including ones that do not divide a second.
#pragma once

#include <cstdint>

#include "netsim/sim/event_handler.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/timer.h"

namespace netsim {

class TickClock {
 public:
  static constexpr int kMinHz = 10;
  static constexpr int kMaxHz = 100000;

  // phase must lie in [0, tick period); use draw_phase() for a random one.
  TickClock(Simulation& sim, int hz, SimTime phase);
  static SimTime draw_phase(Rng& rng, int hz);

  int hz() const { return hz_; }
  SimTime phase() const { return phase_; }
  // Nominal tick length (rounded down for hz that do not divide 1e12).
  SimTime tick_period() const { return kPicosPerSecond / hz_; }

  // Time of tick edge k.
  SimTime edge(std::int64_t k) const;
  // FreeBSD's `ticks`: number of tick edges at or before `t` (0 before the first).
  std::int64_t ticks_at(SimTime t) const;
  std::int64_t ticks() const { return ticks_at(sim_.now()); }
  // When `ticks` reaches value n (the edge that makes ticks == n), n >= 1.
  SimTime time_of_tick(std::int64_t n) const { return edge(n - 1); }

  Simulation& sim() const { return sim_; }

  // A VM guest's timers: the guest programs its virtual LAPIC for a timer's
  // expiry when it goes idle, and bhyve arms a host callout for it
  // (vlapic_icrtmr_write_handler: callout_reset_sbt with no precision given),
  // which the host may fire up to 1/2^shift of the interval late (shift =
  // tc_precexp of the host's kern.timecounter.alloweddeviation, 4 for its
  // default 5%) and does, at the end of that window, when its core is idle.
  // Callouts on this clock then fire that much after their tick edge,
  // counted from the moment they are armed. -1 (the default): exact.
  void set_late_shift(int shift) { late_shift_ = shift; }
  int late_shift() const { return late_shift_; }
  // When a callout armed now for `nominal` fires.
  SimTime fire_time(SimTime nominal) const {
    return late_shift_ < 0 || nominal <= sim_.now() ? nominal : nominal + ((nominal - sim_.now()) >> late_shift_);
  }

 private:
  Simulation& sim_;
  int hz_;
  SimTime phase_;
  int late_shift_ = -1;
  // Largest offset from the phase for which (d + 1) * hz fits 64 bits
  // unsigned, and largest k for which k * 1e12 does: below them edge() and
  // ticks_at() take exact 64-bit paths (a 128-bit division costs several
  // times more, and every TCP timestamp and callout asks for ticks).
  std::uint64_t max_offset64_;
  static constexpr std::int64_t kMaxEdge64 = INT64_MAX / kPicosPerSecond;
};

// A callout on a host's tick clock: callout_reset(n) fires on the tick edge
// at which `ticks` becomes ticks_now + n (n <= 0 is treated as 1, as in
// FreeBSD's callout_reset).
class Callout {
 public:
  Callout(TickClock& clock, EventHandler* handler, std::uint64_t tag) : clock_(clock), timer_(handler, tag) {}

  void reset(std::int64_t n_ticks) {
    if (n_ticks <= 0) n_ticks = 1;
    expires_tick_ = clock_.ticks() + n_ticks;
    clock_.sim().arm_at(timer_, clock_.fire_time(clock_.time_of_tick(expires_tick_)));
  }
  void stop() { clock_.sim().cancel(timer_); }
  bool pending() const { return timer_.pending(); }
  // The `ticks` value at which it fires (meaningful while pending).
  std::int64_t expires_tick() const { return expires_tick_; }

 private:
  TickClock& clock_;
  Timer timer_;
  std::int64_t expires_tick_ = 0;
};

}  // namespace netsim
