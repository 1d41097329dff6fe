// Linux's netem qdisc as `tc qdisc add dev IF root netem delay D limit N`
// sets it up: every packet the host sends waits D before it reaches the
// interface, in order; beyond N queued packets the qdisc drops (the sending
// socket is not told). Used on the testbeds to emulate a WAN path.
//
// netem releases packets from an hrtimer (qdisc_watchdog) set for the head
// packet's time. In a VM that timer is the guest's virtual LAPIC, so it
// fires late by the host's callout precision when the host clock says so
// (TickClock::fire_time; docs/models.md "kern.hz tick clock").
#pragma once

#include <cstdint>

#include "netsim/sim/event_handler.h"
#include "netsim/sim/packet_queue.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/timer.h"

namespace netsim {

class Host;

class NetemDelay final : public EventHandler {
 public:
  static constexpr std::uint32_t kDefaultLimit = 1000;  // tc's default

  NetemDelay(Host& host, SimTime delay, std::uint32_t limit);
  ~NetemDelay();

  // Takes `p`: queued for `delay`, or dropped when `limit` packets wait.
  void enqueue(Packet* p);
  void handle_event(std::uint64_t tag) override;

  SimTime delay() const { return delay_; }
  std::uint32_t limit() const { return limit_; }
  std::uint64_t packets() const { return packets_; }   // passed through
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t max_queued() const { return max_queued_; }

 private:
  void arm_for_head();

  Host& host_;
  SimTime delay_;
  std::uint32_t limit_;
  PacketQueue queue_;  // hop_time: when each may leave
  Timer timer_;
  std::uint64_t packets_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t max_queued_ = 0;
};

}  // namespace netsim
