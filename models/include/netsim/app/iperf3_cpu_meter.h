// iperf3's cpu_util for one side (iperf_api.c: rusage and wall clock read at
// the test's start and end, user + system over wall): here from the side's
// host CPU model (netsim/host/host_cpu.h), system being the host's kernel
// work (system and interrupt contexts). Without a CPU model the results
// message keeps fixed representative figures, for its length on the wire.
//
// On FreeBSD the receive path and callouts run in kernel threads of their
// own (ithreads, netisr, softclock), and calcru (kern_resource.c) splits the
// process's own runtime by its statclock ticks, those that hit an interrupt
// handler going to neither user nor system: the process's rusage leaves the
// interrupt context out (set_cpu's `own_interrupt_threads`). On Linux the
// figure keeps it, as it always has here.
#pragma once

#include <array>
#include <optional>

#include "netsim/host/host_cpu.h"
#include "netsim/sim/time.h"

namespace netsim::app {

class Iperf3CpuMeter {
 public:
  void set_cpu(const HostCpu* cpu, bool own_interrupt_threads = false) {
    cpu_ = cpu;
    own_interrupt_threads_ = own_interrupt_threads;
  }
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
  // {total, user, system} in percent over the test; nothing without a CPU
  // model or before the test has run.
  std::optional<std::array<double, 3>> measured() const {
    if (cpu_ == nullptr || t_stop_ <= t_start_) return std::nullopt;
    const CpuTimes used = at_stop_.since(at_start_);
    const SimTime span = t_stop_ - t_start_;
    const SimTime system = own_interrupt_threads_ ? used[CpuContext::system] : used.kernel();
    return std::array<double, 3>{cpu_percent(used[CpuContext::user] + system, span),
                                 cpu_percent(used[CpuContext::user], span), cpu_percent(system, span)};
  }
  // measured(), or `fallback` (the results message's fixed figures).
  std::array<double, 3> figures(const double (&fallback)[3]) const {
    return measured().value_or(std::array<double, 3>{fallback[0], fallback[1], fallback[2]});
  }

 private:
  const HostCpu* cpu_ = nullptr;
  CpuTimes at_start_;
  CpuTimes at_stop_;
  SimTime t_start_ = 0;
  SimTime t_stop_ = 0;
  bool started_ = false;
  bool own_interrupt_threads_ = false;
};

}  // namespace netsim::app
