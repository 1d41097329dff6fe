// Priority queue of events ordered by (time, insertion sequence).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "netsim/sim/event_handler.h"
#include "netsim/sim/time.h"
#include "netsim/sim/timer.h"

namespace netsim {

struct QueuedEvent {
  SimTime time;
  std::uint64_t seq;  // ties on time are broken FIFO by this
  EventHandler* handler;
  std::uint64_t tag;
  Timer* timer;  // non-null for timer events, so the timer can track its slot
};

// A 4-ary min-heap in one vector. Capacity only grows, so a simulation in
// steady state schedules and pops without touching the allocator.
class EventQueue {
 public:
  void reserve(std::size_t n) { heap_.reserve(n); }

  void schedule(SimTime time, EventHandler* handler, std::uint64_t tag) {
    push(QueuedEvent{time, next_seq_++, handler, tag, nullptr});
  }

  // Arms `timer` for `time`; an already pending timer is moved, and counts as
  // inserted now for FIFO tie-breaking.
  void arm(Timer& timer, SimTime time);
  void cancel(Timer& timer);

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  SimTime next_time() const { return heap_.empty() ? kTimeNever : heap_.front().time; }

  // Removes and returns the earliest event; a timer popped here is no longer pending.
  QueuedEvent pop();

 private:
  static constexpr std::size_t kArity = 4;
  static bool before(const QueuedEvent& a, const QueuedEvent& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  void push(const QueuedEvent& ev);
  void place(std::size_t i, const QueuedEvent& ev) {
    heap_[i] = ev;
    if (ev.timer != nullptr) ev.timer->heap_index_ = i;
  }
  void sift_up(std::size_t i, QueuedEvent ev);
  void sift_down(std::size_t i, QueuedEvent ev);
  void remove_at(std::size_t i);

  std::vector<QueuedEvent> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace netsim
