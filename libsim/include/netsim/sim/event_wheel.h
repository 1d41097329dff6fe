// The far-future part of the event queue: a timing wheel of fixed-width
// time buckets, as both kernels keep their callouts (FreeBSD's callwheel,
// Linux's timer wheel). A TCP connection keeps a retransmit and a delayed-
// ACK timer pending, due tens to hundreds of milliseconds ahead and re-armed
// on nearly every ACK; with thousands of connections those timers would
// fill a heap that every packet event sifts through. Here arming, moving
// and cancelling such a timer is O(1): it is put in (or taken out of) the
// bucket of its time, unordered.
//
// Buckets are 2^30 ps (1.07 ms) wide; the ring holds the 1024 buckets after
// the current one (1.1 s), later events wait in an overflow list that is
// sorted into the ring as the window reaches them. EventQueue moves a
// bucket's events into its heap, where they are ordered by (time, seq) like
// every other event, before the heap can pop anything due at or after that
// bucket's start: the pop order is exactly the heap's alone, so using the
// wheel cannot change a result.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
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

class EventWheel {
 public:
  static constexpr int kBucketShift = 30;  // 2^30 ps = 1.073741824 ms
  static constexpr std::uint64_t kBuckets = 1024;
  static constexpr std::uint64_t kNoBucket = std::numeric_limits<std::uint64_t>::max();

  static std::uint64_t bucket_of(SimTime t) { return t <= 0 ? 0 : static_cast<std::uint64_t>(t) >> kBucketShift; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Buckets up to current() have been handed to the heap.
  std::uint64_t current() const { return current_; }
  // Whether an event at `t` belongs here: at least one whole bucket after
  // the current one (what is due sooner, a packet's next hop, goes straight
  // to the heap; the wheel may hold any bucket after the current one).
  bool takes(SimTime t) const { return bucket_of(t) > current_ + 1; }

  void insert(const QueuedEvent& ev) {
    const std::uint64_t b = bucket_of(ev.time);
    if (b <= current_ + kBuckets) {
      std::vector<QueuedEvent>& v = ring_[b & kMask];
      if (v.empty()) occupied_[(b & kMask) / 64] |= std::uint64_t{1} << (b % 64);
      place(v, static_cast<std::uint32_t>(b & kMask), v.size(), ev, true);
    } else {
      place(overflow_, kOverflow, overflow_.size(), ev, true);
      if (b < overflow_min_) overflow_min_ = b;
    }
    ++size_;
  }

  // Whether `timer` (pending, not in the heap) really is here.
  bool holds(const Timer& timer) const {
    if (timer.bucket_ > kOverflow) return false;
    const std::vector<QueuedEvent>& v = list(timer.bucket_);
    return timer.heap_index_ < v.size() && v[timer.heap_index_].timer == &timer;
  }
  // Takes `timer` (held here) out, leaving it not pending.
  void remove(Timer& timer) {
    const std::uint32_t id = timer.bucket_;
    std::vector<QueuedEvent>& v = list(id);
    const std::size_t i = timer.heap_index_;
    timer.heap_index_ = Timer::kNotQueued;
    timer.bucket_ = Timer::kInHeap;
    if (i + 1 != v.size()) place(v, id, i, v.back(), false);
    v.pop_back();
    if (v.empty() && id != kOverflow) occupied_[id / 64] &= ~(std::uint64_t{1} << (id % 64));
    --size_;
  }

  // The first bucket after current() that holds an event (kNoBucket if none).
  std::uint64_t next_bucket() const {
    if (size_ == overflow_.size()) return overflow_.empty() ? kNoBucket : overflow_min_;
    const std::uint64_t base = current_ + 1;
    const std::uint64_t start = base & kMask;
    for (std::uint64_t scanned = 0; scanned < kBuckets;) {
      const std::uint64_t pos = (start + scanned) & kMask;
      const std::uint64_t word = occupied_[pos / 64] >> (pos % 64);
      if (word != 0) {
        const std::uint64_t found = scanned + static_cast<std::uint64_t>(std::countr_zero(word));
        if (found < kBuckets) return base + found;
        break;
      }
      scanned += 64 - pos % 64;
    }
    return overflow_min_;  // unreachable while the ring holds an event
  }

  // Makes `b` (> current(), the next_bucket()) the current bucket: hands
  // every event of bucket b to `take` (buckets between hold none) and brings
  // the overflow events that the window now reaches into the ring.
  template <typename Take>
  void advance_to(std::uint64_t b, Take take) {
    current_ = b - 1;  // buckets before b are empty: the window may start there
    if (!overflow_.empty() && overflow_min_ <= current_ + kBuckets) refill();
    std::vector<QueuedEvent>& v = ring_[b & kMask];
    if (!v.empty()) {
      occupied_[(b & kMask) / 64] &= ~(std::uint64_t{1} << (b % 64));
      size_ -= v.size();
      for (const QueuedEvent& ev : v) {
        if (ev.timer != nullptr) ev.timer->bucket_ = Timer::kInHeap;
        take(ev);
      }
      v.clear();
    }
    current_ = b;
    if (!overflow_.empty() && overflow_min_ <= current_ + kBuckets) refill();
  }

  // Makes `b` (> current(), before next_bucket()) the current bucket, which
  // moves no event: the buckets up to b are empty.
  void skip_to(std::uint64_t b) {
    current_ = b;
    if (!overflow_.empty() && overflow_min_ <= current_ + kBuckets) refill();
  }

  // Forgets every event (EventQueue::abandon).
  void abandon() {
    for (auto& v : ring_) v.clear();
    overflow_.clear();
    occupied_.fill(0);
    size_ = 0;
    overflow_min_ = kNoBucket;
  }

 private:
  static constexpr std::uint64_t kMask = kBuckets - 1;
  static constexpr std::uint32_t kOverflow = static_cast<std::uint32_t>(kBuckets);

  std::vector<QueuedEvent>& list(std::uint32_t id) { return id == kOverflow ? overflow_ : ring_[id]; }
  const std::vector<QueuedEvent>& list(std::uint32_t id) const { return id == kOverflow ? overflow_ : ring_[id]; }

  static void place(std::vector<QueuedEvent>& v, std::uint32_t id, std::size_t i, const QueuedEvent& ev, bool append) {
    if (append) {
      v.push_back(ev);
    } else {
      v[i] = ev;
    }
    if (ev.timer != nullptr) {
      ev.timer->heap_index_ = i;
      ev.timer->bucket_ = id;
    }
  }

  // Moves the overflow events inside the window into their ring buckets.
  void refill() {
    std::uint64_t min = kNoBucket;
    std::size_t keep = 0;
    for (std::size_t i = 0; i < overflow_.size(); ++i) {
      const QueuedEvent ev = overflow_[i];
      const std::uint64_t b = bucket_of(ev.time);
      if (b <= current_ + kBuckets) {
        --size_;
        insert(ev);
      } else {
        place(overflow_, kOverflow, keep++, ev, false);
        if (b < min) min = b;
      }
    }
    overflow_.resize(keep);
    overflow_min_ = min;
  }

  std::array<std::vector<QueuedEvent>, kBuckets> ring_;
  std::array<std::uint64_t, kBuckets / 64> occupied_{};
  std::vector<QueuedEvent> overflow_;
  std::uint64_t overflow_min_ = kNoBucket;
  std::uint64_t current_ = 0;
  std::size_t size_ = 0;
};

}  // namespace netsim
