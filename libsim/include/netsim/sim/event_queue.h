// Priority queue of events ordered by (time, insertion sequence).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "netsim/sim/event_handler.h"
#include "netsim/sim/event_wheel.h"
#include "netsim/sim/int128.h"
#include "netsim/sim/time.h"
#include "netsim/sim/timer.h"

namespace netsim {

// The pending events in one vector, in one of two layouts. Capacity only
// grows, so a simulation in steady state schedules and pops without touching
// the allocator.
//
// Sorted (up to kSortedMax events): keys descending, the next event last.
// A pop takes the last entry; a new event is shifted in from the back past the
// events due before it. A packet path keeps ~10 events pending, most of them
// due within microseconds, so an insertion moves two or three entries; a
// re-armed retransmit timer moves only past the events between its old and
// new time. With a 4-ary heap the same T1 run spent a third of its
// instructions sifting (docs/performance.md).
//
// Heap (more than kSortedMax): a 4-ary min-heap. The layouts meet cheaply:
// the sorted array reversed is a valid min-heap, and a heap that shrinks
// below kSortedMin is sorted again. The pop order is the (time, seq) order in
// both, so the layout never changes a result.
//
// Events due after the current wheel bucket (1.07 ms, netsim/sim/
// event_wheel.h) wait in the EventWheel instead: the heap holds what is due
// soon, and far timers are armed, moved and cancelled in O(1) however many
// connections keep one. A bucket moves into the heap before the heap pops
// anything due at or after its start, so the pop order is (time, seq) as if
// every event were in the heap.
//
// The hot path lives in this header so it inlines into the dispatch loop.
// Order compares (time, seq) as one unsigned 128-bit key; the heap picks the
// smallest of four children with a fixed two-round tournament: both avoid
// data-dependent branches, which dominate the cost of a heap whose keys are
// random.
class EventQueue {
 public:
  void reserve(std::size_t n) {
    if (heap_.size() < n) heap_.resize(n);
  }
  // Drops every event without touching the timers among them (some may be
  // gone already, at a simulation's teardown). Such a timer still looks
  // pending; cancel() and arm() recognize it as dropped.
  void abandon() {
    n_ = 0;
    heap_mode_ = false;
    wheel_.abandon();
  }

  void schedule(SimTime time, EventHandler* handler, std::uint64_t tag) {
    const QueuedEvent ev{time, next_seq_++, handler, tag, nullptr};
    if (wheel_.takes(time)) {
      wheel_.insert(ev);
    } else {
      push(ev);
    }
  }

  // Arms `timer` for `time`; an already pending timer is moved, and counts as
  // inserted now for FIFO tie-breaking.
  void arm(Timer& timer, SimTime time) {
    timer.when_ = time;
    const QueuedEvent ev{time, next_seq_++, timer.handler_, timer.tag_, &timer};
    const bool far = wheel_.takes(time);
    if (in_wheel(timer)) {
      wheel_.remove(timer);
    } else if (in_heap(timer)) {
      if (!far) {
        if (heap_mode_) {
          rearm_in_heap(timer.heap_index_, ev);
        } else {
          move_sorted(timer.heap_index_, ev);
        }
        return;
      }
      remove_at(timer.heap_index_);
    }
    if (far) {
      wheel_.insert(ev);
    } else {
      timer.bucket_ = Timer::kInHeap;
      push(ev);
    }
  }

  void cancel(Timer& timer) {
    if (in_wheel(timer)) {
      wheel_.remove(timer);
      return;
    }
    const bool queued = in_heap(timer);
    const std::size_t i = timer.heap_index_;
    timer.heap_index_ = Timer::kNotQueued;
    timer.bucket_ = Timer::kInHeap;
    if (queued) remove_at(i);
  }

  bool empty() const { return n_ == 0 && wheel_.empty(); }
  std::size_t size() const { return n_ + wheel_.size(); }
  // Events in the heap (the rest wait in the wheel).
  std::size_t heap_size() const { return n_; }
  SimTime next_time() {
    settle();
    return n_ == 0 ? kTimeNever : heap_[top()].time;
  }
  // Removes and returns the earliest event; a timer popped here is no longer pending.
  QueuedEvent pop() {
    settle();
    if (heap_mode_) return pop_from_heap();
    const QueuedEvent last = heap_[--n_];
    if (last.timer != nullptr) last.timer->heap_index_ = Timer::kNotQueued;
    return last;
  }

  // The layouts' bounds (hysteresis: a queue that hovers near one bound does
  // not switch back and forth).
  static constexpr std::size_t kSortedMax = 48;
  static constexpr std::size_t kSortedMin = 16;
  bool sorted_layout() const { return !heap_mode_; }

 private:
  static constexpr std::size_t kArity = 4;

  // Times are signed; flipping the sign bit orders them as unsigned.
  static UInt128 key(const QueuedEvent& e) {
    return (static_cast<UInt128>(static_cast<std::uint64_t>(e.time) ^ (1ULL << 63)) << 64) | e.seq;
  }
  std::size_t top() const { return heap_mode_ ? 0 : n_ - 1; }

  // Pending and really in the heap or the wheel (not dropped by abandon()).
  bool in_heap(const Timer& timer) const {
    return timer.pending() && timer.bucket_ == Timer::kInHeap && timer.heap_index_ < n_ &&
           heap_[timer.heap_index_].timer == &timer;
  }
  bool in_wheel(const Timer& timer) const {
    return timer.pending() && timer.bucket_ != Timer::kInHeap && wheel_.holds(timer);
  }

  // Moves wheel buckets into the heap until the heap's first event is due
  // before the next bucket with events, so that it is the earliest of all.
  void settle() {
    if (wheel_.empty()) {
      // Keep the current bucket with the clock, so that near events stay in the heap.
      if (n_ > 0 && EventWheel::bucket_of(heap_[top()].time) > wheel_.current()) {
        wheel_.skip_to(EventWheel::bucket_of(heap_[top()].time));
      }
      return;
    }
    while (!wheel_.empty()) {
      const std::uint64_t limit = n_ == 0 ? EventWheel::kNoBucket : EventWheel::bucket_of(heap_[top()].time);
      if (limit <= wheel_.current()) return;
      const std::uint64_t b = wheel_.next_bucket();
      if (b > limit) {
        wheel_.skip_to(limit);  // nothing waits before the heap's first event
        return;
      }
      wheel_.advance_to(b, [this](const QueuedEvent& ev) { push(ev); });
    }
  }

  void place(std::size_t i, const QueuedEvent& ev) {
    heap_[i] = ev;
    if (ev.timer != nullptr) ev.timer->heap_index_ = i;
  }

  void push(const QueuedEvent& ev) {
    if (heap_mode_ || n_ >= kSortedMax) {
      push_to_heap(ev);
      return;
    }
    if (n_ == heap_.size()) grow();
    // Shift in from the back past the events due before ev: move_sorted's
    // first half, written out because a new event can only move one way
    // (calling move_sorted here costs 2.6 % more instructions on a T1 run).
    std::size_t hole = n_++;
    const UInt128 k = key(ev);
    while (hole > 0 && key(heap_[hole - 1]) < k) {
      place(hole, heap_[hole - 1]);
      --hole;
    }
    place(hole, ev);
  }
  void push_to_heap(const QueuedEvent& ev) {
    if (!heap_mode_) to_heap();
    if (n_ == heap_.size()) grow();
    ++n_;
    sift_up(n_ - 1, ev);
  }
  // The storage is the vector's whole size, n_ of it in use: no push_back
  // call on the hot path, and growing (rare) stays out of line.
  [[gnu::noinline]] void grow() { heap_.resize(heap_.empty() ? 64 : 2 * heap_.size()); }
  QueuedEvent pop_from_heap() {
    const QueuedEvent first = heap_.front();
    if (first.timer != nullptr) first.timer->heap_index_ = Timer::kNotQueued;
    remove_from_heap(0);
    return first;
  }
  void rearm_in_heap(std::size_t i, const QueuedEvent& ev) {
    // The new key is later in sequence than every existing entry with the
    // same time, so comparing with the old key tells the direction to sift.
    if (key(ev) < key(heap_[i])) {
      sift_up(i, ev);
    } else {
      sift_down(i, ev);
    }
  }

  // Sorted layout: puts ev at slot i's place in the descending order, shifting
  // the entries between (the rest of the array is sorted without slot i).
  void move_sorted(std::size_t i, const QueuedEvent& ev) {
    const UInt128 k = key(ev);
    while (i > 0 && key(heap_[i - 1]) < k) {  // due before ev: toward the back
      place(i, heap_[i - 1]);
      --i;
    }
    const std::size_t last = n_ - 1;
    while (i < last && k < key(heap_[i + 1])) {  // due after ev: toward the front
      place(i, heap_[i + 1]);
      ++i;
    }
    place(i, ev);
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
    const std::size_t n = n_;
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
    if (heap_mode_) {
      remove_from_heap(i);
      return;
    }
    // Close the gap: the entries behind slot i (due earlier) move up one.
    const std::size_t n = --n_;
    for (; i < n; ++i) place(i, heap_[i + 1]);
  }
  void remove_from_heap(std::size_t i) {
    const QueuedEvent last = heap_[--n_];
    if (n_ < kSortedMin) {
      if (i < n_) place(i, last);
      to_sorted();
      return;
    }
    if (i == n_) return;
    if (i > 0 && key(last) < key(heap_[(i - 1) / kArity])) {
      sift_up(i, last);
    } else {
      sift_down(i, last);
    }
  }

  // Ascending order is a valid min-heap, so reversing the sorted layout heaps it.
  void to_heap() {
    std::reverse(heap_.begin(), heap_.begin() + static_cast<std::ptrdiff_t>(n_));
    reindex();
    heap_mode_ = true;
  }
  void to_sorted() {
    std::sort(heap_.begin(), heap_.begin() + static_cast<std::ptrdiff_t>(n_),
              [](const QueuedEvent& a, const QueuedEvent& b) { return key(b) < key(a); });
    reindex();
    heap_mode_ = false;
  }
  void reindex() {
    for (std::size_t i = 0; i < n_; ++i) {
      if (heap_[i].timer != nullptr) heap_[i].timer->heap_index_ = i;
    }
  }

  std::vector<QueuedEvent> heap_;
  EventWheel wheel_;
  std::size_t n_ = 0;
  std::uint64_t next_seq_ = 0;
  bool heap_mode_ = false;
};

}  // namespace netsim
