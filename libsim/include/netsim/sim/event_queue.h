// Priority queue of events ordered by (time, insertion sequence).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "netsim/sim/event_handler.h"
#include "netsim/sim/int128.h"
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
//
// The hot path lives in this header so it inlines into the dispatch loop.
// Heap order compares (time, seq) as one unsigned 128-bit key, and the
// smallest of four children is picked with a fixed two-round tournament:
// both avoid data-dependent branches, which dominate the cost of a heap
// whose keys are random.
class EventQueue {
 public:
  void reserve(std::size_t n) { heap_.reserve(n); }

  // Drops every event without touching the timers among them (some may be
  // gone already, at a simulation's teardown). Such a timer still looks
  // pending; cancel() and arm() recognize it as dropped.
  void abandon() { heap_.clear(); }

  void schedule(SimTime time, EventHandler* handler, std::uint64_t tag) {
    push(QueuedEvent{time, next_seq_++, handler, tag, nullptr});
  }

  // Arms `timer` for `time`; an already pending timer is moved, and counts as
  // inserted now for FIFO tie-breaking.
  void arm(Timer& timer, SimTime time) {
    timer.when_ = time;
    const QueuedEvent ev{time, next_seq_++, timer.handler_, timer.tag_, &timer};
    if (!queued(timer)) {
      push(ev);
      return;
    }
    const std::size_t i = timer.heap_index_;
    // The new key is later in sequence than every existing entry with the
    // same time, so comparing with the old key tells the direction to sift.
    if (key(ev) < key(heap_[i])) {
      sift_up(i, ev);
    } else {
      sift_down(i, ev);
    }
  }

  void cancel(Timer& timer) {
    const bool in_heap = queued(timer);
    const std::size_t i = timer.heap_index_;
    timer.heap_index_ = Timer::kNotQueued;
    if (in_heap) remove_at(i);
  }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  SimTime next_time() const { return heap_.empty() ? kTimeNever : heap_.front().time; }

  // Removes and returns the earliest event; a timer popped here is no longer pending.
  QueuedEvent pop() {
    const QueuedEvent top = heap_.front();
    if (top.timer != nullptr) top.timer->heap_index_ = Timer::kNotQueued;
    remove_at(0);
    return top;
  }

 private:
  static constexpr std::size_t kArity = 4;

  // Times are signed; flipping the sign bit orders them as unsigned.
  static UInt128 key(const QueuedEvent& e) {
    return (static_cast<UInt128>(static_cast<std::uint64_t>(e.time) ^ (1ULL << 63)) << 64) | e.seq;
  }

  // Pending and really in the heap (not dropped by abandon()).
  bool queued(const Timer& timer) const {
    return timer.pending() && timer.heap_index_ < heap_.size() && heap_[timer.heap_index_].timer == &timer;
  }

  void place(std::size_t i, const QueuedEvent& ev) {
    heap_[i] = ev;
    if (ev.timer != nullptr) ev.timer->heap_index_ = i;
  }

  void push(const QueuedEvent& ev) {
    heap_.push_back(ev);
    sift_up(heap_.size() - 1, ev);
  }

  void sift_up(std::size_t i, const QueuedEvent& ev) {
    const UInt128 k = key(ev);
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!(k < key(heap_[parent]))) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, ev);
  }

  void sift_down(std::size_t i, const QueuedEvent& ev) {
    const UInt128 k = key(ev);
    const std::size_t n = heap_.size();
    for (;;) {
      const std::size_t first = i * kArity + 1;
      if (first >= n) break;
      std::size_t best;
      UInt128 best_key;
      if (first + kArity <= n) {
        // Full set of children: pairwise, then the winners.
        const UInt128 k0 = key(heap_[first]), k1 = key(heap_[first + 1]);
        const UInt128 k2 = key(heap_[first + 2]), k3 = key(heap_[first + 3]);
        const std::size_t a = k1 < k0 ? first + 1 : first;
        const UInt128 ka = k1 < k0 ? k1 : k0;
        const std::size_t b = k3 < k2 ? first + 3 : first + 2;
        const UInt128 kb = k3 < k2 ? k3 : k2;
        best = kb < ka ? b : a;
        best_key = kb < ka ? kb : ka;
      } else {
        best = first;
        best_key = key(heap_[first]);
        for (std::size_t c = first + 1; c < n; ++c) {
          const UInt128 kc = key(heap_[c]);
          if (kc < best_key) {
            best = c;
            best_key = kc;
          }
        }
      }
      if (!(best_key < k)) break;
      place(i, heap_[best]);
      i = best;
    }
    place(i, ev);
  }

  void remove_at(std::size_t i) {
    const QueuedEvent last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    if (i > 0 && key(last) < key(heap_[(i - 1) / kArity])) {
      sift_up(i, last);
    } else {
      sift_down(i, last);
    }
  }

  std::vector<QueuedEvent> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace netsim
