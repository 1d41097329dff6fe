// nuttcp's %TX and %RX: its own process's CPU time over real time.
//
// nuttcp (read: nuttcp 8.2.2, nuttcp.c: prep_timer, read_timer, prusage)
// reads getrusage(RUSAGE_SELF) and the clock when its timer starts and again
// at the end, and prints prusage's "%P": user + system time over real time,
// both in centiseconds, as an integer percent (truncated):
//   t  = user + system in centiseconds,  ms = real time in centiseconds,
//   %P = (int)(t * 100 / (ms ? ms : 1)).
// The transmitter prints its own figure as %TX and the server's as %RX.
//
// Which CPU work is "the nuttcp process" on a host is decided in one place,
// nuttcp_process_cpu_time(): here the host CPU model's user and system
// contexts, never its interrupt context (NIC polls, TCP input, hardclock).
// A finer split (which core, which softirq work is charged to the process)
// belongs there and nowhere else.
#pragma once

#include <optional>

#include "netsim/host/host_cpu.h"
#include "netsim/sim/time.h"

namespace netsim::app {

// The nuttcp process's CPU time among a host's CPU times.
inline SimTime nuttcp_process_cpu_time(const CpuTimes& t) { return t[CpuContext::user] + t[CpuContext::system]; }

// The process CPU time of host `cpu` from time 0 up to now.
inline SimTime nuttcp_process_cpu_time(const HostCpu& cpu) { return nuttcp_process_cpu_time(cpu.used()); }

// What nuttcp prints for `cpu` CPU time over `real` real time (prusage's %P).
inline int nuttcp_cpu_percent(SimTime cpu, SimTime real) {
  constexpr SimTime kCentisecond = kPicosPerSecond / 100;
  const SimTime t = cpu > 0 ? cpu / kCentisecond : 0;
  const SimTime ms = real > 0 ? real / kCentisecond : 0;
  return static_cast<int>(t * 100 / (ms != 0 ? ms : 1));
}

// The exact percentage (for metrics: no centisecond truncation).
inline double nuttcp_cpu_percent_exact(SimTime cpu, SimTime real) { return cpu_percent(cpu, real); }

// One nuttcp process's CPU time over its test: read at start() and stop().
class NuttcpCpuMeter {
 public:
  void set_cpu(const HostCpu* cpu) { cpu_ = cpu; }
  void start() {
    if (cpu_ != nullptr) at_start_ = nuttcp_process_cpu_time(*cpu_);
    started_ = true;
  }
  void stop() {
    if (!started_ || stopped_) return;
    if (cpu_ != nullptr) at_stop_ = nuttcp_process_cpu_time(*cpu_);
    stopped_ = true;
  }
  // The process's CPU time between start() and stop(); nothing without a CPU
  // model or before the test has stopped.
  std::optional<SimTime> cpu_time() const {
    if (cpu_ == nullptr || !stopped_) return std::nullopt;
    return at_stop_ > at_start_ ? at_stop_ - at_start_ : 0;
  }

 private:
  const HostCpu* cpu_ = nullptr;
  SimTime at_start_ = 0;
  SimTime at_stop_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace netsim::app
