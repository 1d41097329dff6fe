// Receive interrupt moderation with a one-shot timer, as FreeBSD's re(4)
// driver runs a Realtek RTL8111/8168 NIC with MSI: the physical NIC under the
// bhyve VMs of measured-tables.md T1/T2 (small AMD mini PCs carry these
// Realtek parts). Own code after:
//   freebsd/freebsd-src sys/dev/re/if_re.c @ 0c8e1e63b752dbb6e027357660e0fa039253fc7c
//     re_intr_msi (the moderation), re_init_locked (RL_TIMERINT_8169 loaded
//     with RL_USECS(rl_int_rx_mod) when MSI is used and hw.re.intr_filter=0)
//   sys/dev/rl/if_rlreg.h: RL_TIMER_DEFAULT = RL_TIMER_MAX = 65 (65.528 us:
//     13 bits of the 125 MHz PCIe clock); sysctl dev.re.N.int_rx_mod
//
// The rule (re_intr_msi):
//   - RX interrupts enabled: a frame raises an interrupt at once; the handler
//     takes what is in the ring (re_rxeof), masks RX interrupts and starts the
//     chip's one-shot timer.
//   - Frames that arrive while RX interrupts are masked wait in the ring. The
//     timer's interrupt takes them all (possibly none) and unmasks RX
//     interrupts without restarting the timer, so the next frame interrupts at
//     once again.
// A lone frame (a ping) is therefore never delayed, while a train of frames
// reaches the host as [first frame] [frames of the next interval] [first
// frame] ...: a burst is split after its first frame.
//
// The handler (re_intr_msi) is an ithread handler (bus_setup_intr with no
// filter), so it runs some microseconds after the chip raises the interrupt:
// MSI delivery, the ithread's wake-up or preemption of whatever the core ran.
// With a handler latency (fixed part plus a uniform draw per interrupt), the
// frames that arrive in that time go with the one that raised the
// interrupt, and the one-shot timer starts when the handler re-arms it; at a
// timer expiry the same latency passes before the ring is taken and RX
// unmasked. The varying latency is what makes the number of frames in the
// first piece vary from burst to burst (1, or 2 when a back-to-back frame
// lands within it). The rest of the host's forwarding latency (bridge,
// tap, bhyve) is left to the link delay; without a handler latency this
// stage hands the first frame on at once.
//
// Wiring: attach the next stage (the guest's GroReceiveNic, or the host) to
// the channel first, then interpose this stage:
//   nic.attach(channel);
//   auto& mod = sim.add<OneShotRxModeration>("host-nic", 65_us);
//   mod.attach(channel);   // channel -> mod -> nic
// No per-packet allocation: the ring is an intrusive FIFO.
#pragma once

#include <cstdint>
#include <string>

#include "netsim/net/channel.h"
#include "netsim/net/packet_receiver.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/packet_queue.h"
#include "netsim/sim/rng.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/timer.h"

namespace netsim {

struct OneShotRxModerationCounters {
  std::uint64_t frames = 0;           // frames received from the wire
  std::uint64_t rx_interrupts = 0;    // immediate interrupts (RX interrupts were enabled)
  std::uint64_t irq_frames = 0;       // frames handed on by their handlers (>= 1 each)
  std::uint64_t timer_interrupts = 0; // expiries of the one-shot timer
  std::uint64_t timer_frames = 0;     // frames handed on at a timer expiry
  std::uint64_t max_timer_batch = 0;  // most frames handed on at one expiry
};

class OneShotRxModeration final : public Component, public PacketReceiver, public EventHandler {
 public:
  // `interval`: the one-shot timer (re(4): dev.re.N.int_rx_mod, 65 us by
  // default and at most). Must be > 0.
  // `handler_latency`: from the interrupt to the handler's re_rxeof (MSI
  // delivery and the ithread's wake-up on the host); frames that arrive
  // meanwhile are taken with the one that raised it. 0 = at once.
  OneShotRxModeration(Simulation& sim, std::string name, SimTime interval, SimTime handler_latency = 0,
                      SimTime handler_jitter = 0);
  ~OneShotRxModeration() override;

  // Takes the place of the channel's current receiver and hands frames on to it.
  void attach(Channel& channel);

  void receive(Packet* p, int port) override;
  void handle_event(std::uint64_t tag) override;

  SimTime interval() const { return interval_; }
  bool rx_masked() const { return masked_; }
  std::size_t ring_occupancy() const { return ring_.packets(); }
  const OneShotRxModerationCounters& counters() const { return counters_; }

 private:
  // With a handler latency, interrupts are served by `run_handler()` after
  // handler_delay(); without, at once (the original timing, event for event).
  bool delayed_handler() const { return handler_latency_ > 0 || handler_jitter_ > 0; }
  // Kept out of line so that receive()'s common case (RX masked) stays small.
  [[gnu::noinline]] void rx_interrupt(Packet* p);
  [[gnu::noinline]] void defer_handler(Packet* p);
  SimTime handler_delay();
  void run_handler();
  void timer_handler();  // the expiry's handler: the ring on, RX unmasked
  void hand_on_ring();

  SimTime interval_;
  SimTime handler_latency_;
  SimTime handler_jitter_;
  Rng rng_;
  PacketReceiver* next_ = nullptr;
  int next_port_ = 0;
  PacketQueue ring_;
  bool masked_ = false;
  bool timer_pending_ = false;  // the handler in flight is the timer's (unmask), not an RX interrupt's
  Timer timer_;
  Timer handler_timer_;
  OneShotRxModerationCounters counters_;
};

}  // namespace netsim
