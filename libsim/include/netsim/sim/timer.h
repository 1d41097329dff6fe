// A cancellable, re-armable event slot.
#pragma once

#include <cstddef>
#include <cstdint>

#include "netsim/sim/event_handler.h"
#include "netsim/sim/time.h"

namespace netsim {

class EventQueue;
class EventWheel;

// A Timer occupies at most one place in the event queue and knows where, so
// cancel and re-arm move it in place with no stale entries left behind: TCP's
// retransmit and delayed-ACK timers are re-armed on nearly every ACK.
// A Timer must outlive its pending event and is neither copied nor moved.
class Timer {
 public:
  Timer(EventHandler* handler, std::uint64_t tag) : handler_(handler), tag_(tag) {}
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  bool pending() const { return heap_index_ != kNotQueued; }
  SimTime when() const { return when_; }
  EventHandler* handler() const { return handler_; }
  std::uint64_t tag() const { return tag_; }

 private:
  friend class EventQueue;
  friend class EventWheel;
  static constexpr std::size_t kNotQueued = SIZE_MAX;
  static constexpr std::uint32_t kInHeap = UINT32_MAX;
  EventHandler* handler_;
  std::uint64_t tag_;
  std::size_t heap_index_ = kNotQueued;  // in the heap, or in the wheel's bucket list
  std::uint32_t bucket_ = kInHeap;       // the wheel's bucket list holding it, or kInHeap
  SimTime when_ = 0;
};

}  // namespace netsim
