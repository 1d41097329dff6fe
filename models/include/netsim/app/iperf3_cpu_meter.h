// iperf3's cpu_util for one side (iperf_api.c: rusage and wall clock read at
// the test's start and end, user + system over wall): here from the side's
// host CPU model (netsim/host/host_cpu.h), system being the host's kernel
// work (system and interrupt contexts). Without a CPU model the results
// message keeps fixed representative figures, for its length on the wire.
#pragma once

#include <array>

#include "netsim/host/host_cpu.h"
#include "netsim/sim/time.h"

namespace netsim::app {

class Iperf3CpuMeter {
 public:
  void set_cpu(const HostCpu* cpu) { cpu_ = cpu; }
  // The test starts / ends (a stop without a start is ignored: no test ran).
  void start(SimTime now) {
    if (cpu_ != nullptr) at_start_ = cpu_->used();
    t_start_ = now;
    started_ = true;
  }
  void stop(SimTime now) {
    if (!started_) return;
    if (cpu_ != nullptr) at_stop_ = cpu_->used();
    t_stop_ = now;
  }
  // {total, user, system} in percent; `fallback` without a CPU model or an
  // empty window.
  std::array<double, 3> figures(const double (&fallback)[3]) const {
    if (cpu_ == nullptr || t_stop_ <= t_start_) return {fallback[0], fallback[1], fallback[2]};
    const double span = static_cast<double>(t_stop_ - t_start_);
    auto pct = [span](SimTime t) { return 100.0 * static_cast<double>(t) / span; };
    const SimTime user = at_stop_[CpuContext::user] - at_start_[CpuContext::user];
    const SimTime kernel = (at_stop_[CpuContext::system] + at_stop_[CpuContext::interrupt]) -
                           (at_start_[CpuContext::system] + at_start_[CpuContext::interrupt]);
    return {pct(user + kernel), pct(user), pct(kernel)};
  }

 private:
  const HostCpu* cpu_ = nullptr;
  CpuTimes at_start_;
  CpuTimes at_stop_;
  SimTime t_start_ = 0;
  SimTime t_stop_ = 0;
  bool started_ = false;
};

}  // namespace netsim::app
