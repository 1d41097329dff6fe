// A host's processor: the time its network work takes, and what that leaves
// of the CPU. One core (a one-vCPU guest, or the one core a flow's work runs
// on), serving work items first come, first served; the hardclock preempts
// whatever runs at every kern.hz tick edge.
//
// Why a model at all: a sender whose CPU is the bottleneck (tables T4-T6), a
// guest whose 100 kHz hardclock eats its vCPU (review D46046's hz=100000
// figure), LRO's saving (one TCP input per aggregate instead of per segment)
// and the "CPU Utilization" figures iperf3 prints all need CPU time to exist.
//
// Work is charged where the kernel does it (the Host, the NIC and the TCP
// endpoints call run()); a packet whose work is charged leaves or arrives
// when that work ends. Costs are per event, set by the scenario (`cpu:` of a
// host), and zero by default: a host without costs behaves exactly as before.
//
// Equations (docs/models.md "Host CPU"): an item of cost c ready at t starts
// at s = max(t, end of the previous item), moved past a hardclock handler it
// falls in; it ends at e = s + c + n * tick, where n is the number of tick
// edges in (s, e] (solved by iteration: each edge stretches the item). The
// CPU time used in [a, b) is the work done in it plus (edges in it) * tick.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "netsim/sim/int128.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/time.h"

namespace netsim {

// CPU time per event. All zero: no CPU model.
struct HostCpuCosts {
  SimTime tick = 0;          // one hardclock (timer interrupt; in a guest the VM exits around it)
  SimTime interrupt = 0;     // one device interrupt: the start of a NAPI poll / ithread run
  SimTime rx_packet = 0;     // one wire packet taken from a NIC ring (driver, GRO/LRO)
  SimTime tcp_input = 0;     // one packet into IP/TCP input (a GRO aggregate is one packet)
  SimTime tx_packet = 0;     // one packet handed to the driver by the stack (a TSO burst is one)
  SimTime tx_segment = 0;    // one wire segment sent (per-frame driver or backend work)
  SimTime copy_per_kib = 0;  // copying 1024 bytes between user space and socket buffers
  SimTime rx_fragment = 0;   // one receive buffer of a frame (vmx: 4 KB body buffers chained by iflib)
  SimTime rx_aggregate = 0;  // extra TCP input for a packet of >= 2 segments (an LRO/GRO/device aggregate)
  SimTime ack_input = 0;     // extra TCP input for a pure ACK (no payload)
  // The core's clock, for work whose cost is given in cycles (a module's,
  // e.g. SIFTR's); 0: unknown. It is no cost itself (any() ignores it).
  std::int64_t frequency_hz = 0;
  // The core's speed relative to the one these costs were taken on (a
  // faster or slower machine, the same software): every cost, cycles
  // included, takes 1/speed as long. 1: as given. Not a cost either.
  double speed = 1.0;

  bool any() const {
    return tick > 0 || interrupt > 0 || rx_packet > 0 || tcp_input > 0 || tx_packet > 0 || tx_segment > 0 ||
           copy_per_kib > 0 || rx_fragment > 0 || rx_aggregate > 0 || ack_input > 0;
  }
};

// Where the time is accounted, as getrusage/top would: the application's own
// code (user), the kernel on its behalf or in its threads (system), and
// interrupt handlers including the hardclock (interrupt).
enum class CpuContext : int { user = 0, system = 1, interrupt = 2 };

struct CpuTimes {
  std::array<SimTime, 3> by_context{};  // indexed by CpuContext
  SimTime total() const { return by_context[0] + by_context[1] + by_context[2]; }
  SimTime operator[](CpuContext c) const { return by_context[static_cast<std::size_t>(c)]; }
  // The kernel's share as getrusage reports system time: system and interrupt work.
  SimTime kernel() const { return (*this)[CpuContext::system] + (*this)[CpuContext::interrupt]; }
  // The use between an earlier reading and this one, per context (never negative).
  CpuTimes since(const CpuTimes& earlier) const {
    CpuTimes d;
    for (std::size_t c = 0; c < d.by_context.size(); ++c) {
      d.by_context[c] = std::max<SimTime>(0, by_context[c] - earlier.by_context[c]);
    }
    return d;
  }
};

// CPU time as a percentage of a span of wall time (0 for an empty span).
inline double cpu_percent(SimTime used, SimTime span) {
  return span > 0 ? 100.0 * static_cast<double>(used) / static_cast<double>(span) : 0.0;
}

// How many cores a host has and where its kernel work runs: packet input
// (interrupts and softirq, what NAPI does) on `irq_core`, the application
// and the system calls it makes on `app_core`. One core (the default) is
// the model every table before T3 uses. A dual-CPU Linux 2.6 box of 2005
// with its NIC's interrupt bound to CPU 0 is {2, 0, 1}.
struct HostCpuLayout {
  int cores = 1;
  int irq_core = 0;
  int app_core = 0;
};

class HostCpu {
 public:
  // Throws std::invalid_argument if a cost is negative or the tick cost is
  // not shorter than the tick period (the CPU would never leave hardclock).
  HostCpu(TickClock& clock, const HostCpuCosts& costs);

  const HostCpuCosts& costs() const { return costs_; }
  // The time `cycles` take at the core's clock (0 if it has none).
  SimTime cycles(std::int64_t n) const {
    return costs_.frequency_hz > 0 ? static_cast<SimTime>(static_cast<Int128>(n) * kPicosPerSecond / costs_.frequency_hz)
                                   : 0;
  }

  // Runs `cost` of work in context `ctx`, starting when the CPU is free (not
  // before now). Returns the time the work ends (>= now). cost == 0 returns
  // max(now, end of the queued work) and charges nothing.
  SimTime run(SimTime cost, CpuContext ctx);
  // Copying `bytes` between user space and a socket buffer (copy_per_kib,
  // system context); returns when it ends.
  SimTime run_copy(std::uint64_t bytes) {
    return run(static_cast<SimTime>(bytes) * costs_.copy_per_kib / 1024, CpuContext::system);
  }
  // The end of the work queued so far (<= now when the CPU is idle).
  SimTime busy_until() const { return busy_until_; }

  // CPU time used from time 0 up to now, per context: work finished by now
  // (the unfinished part of queued work is taken off its context) plus every
  // hardclock so far.
  CpuTimes used() const;
  // Work items run so far (scheduled, finished or not; hardclocks not counted).
  std::uint64_t items() const { return items_; }

 private:
  // The first instant at or after `t` outside a hardclock handler.
  SimTime outside_tick(SimTime t) const;

  TickClock& clock_;
  HostCpuCosts costs_;
  SimTime busy_until_ = 0;
  std::array<SimTime, 3> charged_{};  // work scheduled per context (ticks not included)
  int last_context_ = 0;              // context of the last item: the unfinished tail is its
  std::uint64_t items_ = 0;
};

}  // namespace netsim
