// Energy-Efficient Ethernet (IEEE 802.3az) low power idle on one link.
//
// A PHY pair whose transmitters have been idle for `lpi_after` (the MAC's LPI
// entry timer) stops signalling; the next frame waits `wake` (Tw_sys_tx) for
// the link to come back before its first bit leaves. Frames already queued
// behind it follow back to back, so a wake-up delays a burst, not each frame.
//
// On 1000BASE-T the link goes quiet only when BOTH directions request LPI
// (the four pairs carry both directions at once), and a wake-up requested by
// either end wakes both: `symmetric`. 100BASE-TX and 10GBASE-T sleep each
// direction on its own. Refresh signalling during the quiet period and the
// energy saved are not modelled: only the latency a frame sees.
//
// The state is computed lazily from when each direction last went idle, so
// an idle link costs no events. A link is asleep when the simulation starts
// (it idled before), so the first frame waits too.
#pragma once

#include <array>
#include <cstdint>

#include "netsim/sim/time.h"

namespace netsim {

struct LowPowerIdleConfig {
  SimTime wake = 0;       // Tw_sys_tx: from the first frame's arrival at an idle transmitter to its first bit
  SimTime lpi_after = 0;  // idle time before the transmitter asserts LPI (0: at once)
  bool symmetric = true;  // 1000BASE-T: quiet only while both directions are idle
};

struct LowPowerIdleCounters {
  std::uint64_t wakeups = 0;  // frames that found the link (their direction) asleep and woke it
  std::uint64_t joined = 0;   // frames that arrived while the other side's wake-up was under way
  SimTime wait = 0;           // total time both kinds waited before their first bit
};

class LowPowerIdle {
 public:
  explicit LowPowerIdle(const LowPowerIdleConfig& config);

  // Direction `dir` (0 or 1) starts a frame at `now`: returns how long the
  // frame waits before its first bit (0 when the link is awake).
  SimTime begin_frame(int dir, SimTime now);
  // Direction `dir` finished a frame at `now`; back-to-back frames call
  // begin_frame at the same instant, so the link never sees them idle.
  void end_frame(int dir, SimTime now);

  const LowPowerIdleConfig& config() const { return config_; }
  // Wake-ups and waits of frames sent in direction `dir`.
  const LowPowerIdleCounters& counters(int dir) const { return counters_[static_cast<std::size_t>(dir)]; }

 private:
  // When the transmitter of `dir` asserts LPI given the current state
  // (kTimeNever while it, or under `symmetric` the other side, is busy).
  SimTime sleep_time(int dir) const;

  LowPowerIdleConfig config_;
  // The link has idled since long before the simulation starts: its first
  // frame finds it asleep.
  static constexpr SimTime kIdleSinceStart = -(SimTime{1} << 62);
  std::array<bool, 2> busy_{false, false};
  std::array<SimTime, 2> idle_since_{kIdleSinceStart, kIdleSinceStart};
  // End of the last wake-up, per direction (both entries move together when
  // symmetric): a frame that arrives while one is under way waits for it.
  std::array<SimTime, 2> awake_at_{0, 0};
  std::array<LowPowerIdleCounters, 2> counters_{};
};

}  // namespace netsim
