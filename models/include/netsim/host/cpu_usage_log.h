// A host CPU's cumulative use sampled on a fixed grid, so that the CPU
// utilization over any window of the run (a flow's measurement window,
// known only once the flow has run) can be read afterwards: the use between
// two grid points is interpolated linearly, an error of at most one grid
// step's use at each end of the window.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netsim/host/host_cpu.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/timer.h"

namespace netsim {

class CpuUsageLog final : public Component, public EventHandler {
 public:
  // Samples cpu.used() at 0, period, 2 period, ... up to `until` (the grid is
  // allocated here, nothing per sample).
  CpuUsageLog(Simulation& sim, std::string name, const HostCpu& cpu, SimTime period, SimTime until);

  void handle_event(std::uint64_t tag) override;

  // CPU time used in [from, to) (clamped to the sampled range), per context.
  CpuTimes used_between(SimTime from, SimTime to) const;
  // used_between(from, to).total() as a percentage of (to - from); 0 for an empty window.
  double utilization_pct(SimTime from, SimTime to) const;

 private:
  CpuTimes at(SimTime t) const;  // interpolated cumulative use at t

  const HostCpu& cpu_;
  SimTime period_;
  std::vector<CpuTimes> samples_;  // samples_[k]: used() at k * period
  std::size_t expected_ = 0;
  Timer timer_;
};

}  // namespace netsim
