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
// sorted into the ring as the window reaches them. Events are nodes of one
// array linked into their bucket's list, so the steady state allocates
// nothing. EventQueue moves a
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
    const std::uint32_t node = allocate();
    nodes_[node].ev = ev;
    if (b <= current_ + kBuckets) {
      link(node, static_cast<std::uint32_t>(b & kMask));
    } else {
      link(node, kOverflow);
      if (b < overflow_min_) overflow_min_ = b;
    }
    ++size_;
  }

  // Whether `timer` (pending, not in the heap) really is here.
  bool holds(const Timer& timer) const {
    return timer.bucket_ <= kOverflow && timer.heap_index_ < nodes_.size() &&
           nodes_[timer.heap_index_].list == timer.bucket_ && nodes_[timer.heap_index_].ev.timer == &timer;
  }
  // Takes `timer` (held here) out, leaving it not pending.
  void remove(Timer& timer) {
    const auto node = static_cast<std::uint32_t>(timer.heap_index_);
    timer.heap_index_ = Timer::kNotQueued;
    timer.bucket_ = Timer::kInHeap;
    unlink(node);
    release(node);
    --size_;
  }

  // The first bucket after current() that holds an event (kNoBucket if none).
  std::uint64_t next_bucket() const {
    if (ring_size_ == 0) return head_[kOverflow] == kNil ? kNoBucket : overflow_min_;
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
    refill_reached();
    const auto list = static_cast<std::uint32_t>(b & kMask);
    for (std::uint32_t node = head_[list]; node != kNil;) {
      const std::uint32_t next = nodes_[node].next;
      const QueuedEvent ev = nodes_[node].ev;
      release(node);
      --size_;
      --ring_size_;
      if (ev.timer != nullptr) ev.timer->bucket_ = Timer::kInHeap;
      take(ev);
      node = next;
    }
    head_[list] = kNil;
    occupied_[list / 64] &= ~(std::uint64_t{1} << (list % 64));
    current_ = b;
    refill_reached();
  }

  // Makes `b` (> current(), before next_bucket()) the current bucket, which
  // moves no event: the buckets up to b are empty.
  void skip_to(std::uint64_t b) {
    current_ = b;
    refill_reached();
  }

  // Forgets every event (EventQueue::abandon).
  void abandon() {
    head_.fill(kNil);
    occupied_.fill(0);
    free_ = kNil;
    for (std::size_t i = nodes_.size(); i-- > 0;) release(static_cast<std::uint32_t>(i));
    size_ = ring_size_ = 0;
    overflow_min_ = kNoBucket;
  }

 private:
  static constexpr std::uint64_t kMask = kBuckets - 1;
  static constexpr std::uint32_t kOverflow = static_cast<std::uint32_t>(kBuckets);
  static constexpr std::uint32_t kNil = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint32_t kFree = kNil;  // Node::list of a node on the free list

  // The events live in one node array, each bucket a doubly linked list
  // through it (as FreeBSD's callwheel keeps a TAILQ per bucket): a node
  // freed is reused, so a wheel whose population has peaked allocates no more.
  struct Node {
    QueuedEvent ev;
    std::uint32_t prev;
    std::uint32_t next;
    std::uint32_t list;  // bucket (kOverflow for the overflow list), kFree when free
  };

  std::uint32_t allocate() {
    if (free_ == kNil) [[unlikely]] grow();
    const std::uint32_t node = free_;
    free_ = nodes_[node].next;
    return node;
  }
  [[gnu::noinline]] void grow() {
    const std::size_t old = nodes_.size();
    nodes_.resize(old == 0 ? 256 : 2 * old);
    for (std::size_t i = nodes_.size(); i-- > old;) release(static_cast<std::uint32_t>(i));
  }
  void release(std::uint32_t node) {
    nodes_[node].list = kFree;
    nodes_[node].next = free_;
    free_ = node;
  }
  void link(std::uint32_t node, std::uint32_t list) {
    Node& n = nodes_[node];
    n.list = list;
    n.prev = kNil;
    n.next = head_[list];
    if (n.next != kNil) nodes_[n.next].prev = node;
    head_[list] = node;
    if (list != kOverflow) {
      occupied_[list / 64] |= std::uint64_t{1} << (list % 64);
      ++ring_size_;
    }
    if (n.ev.timer != nullptr) {
      n.ev.timer->heap_index_ = node;
      n.ev.timer->bucket_ = list;
    }
  }
  void unlink(std::uint32_t node) {
    const Node& n = nodes_[node];
    if (n.prev != kNil) {
      nodes_[n.prev].next = n.next;
    } else {
      head_[n.list] = n.next;
    }
    if (n.next != kNil) nodes_[n.next].prev = n.prev;
    if (n.list != kOverflow) {
      --ring_size_;
      if (head_[n.list] == kNil) occupied_[n.list / 64] &= ~(std::uint64_t{1} << (n.list % 64));
    }
  }

  // After current_ moved: the overflow events the window now reaches go to the ring.
  void refill_reached() {
    if (head_[kOverflow] != kNil && overflow_min_ <= current_ + kBuckets) refill();
  }
  // Moves the overflow events inside the window into their ring buckets.
  void refill() {
    std::uint64_t min = kNoBucket;
    for (std::uint32_t node = head_[kOverflow]; node != kNil;) {
      const std::uint32_t next = nodes_[node].next;
      const std::uint64_t b = bucket_of(nodes_[node].ev.time);
      if (b <= current_ + kBuckets) {
        unlink(node);
        link(node, static_cast<std::uint32_t>(b & kMask));
      } else if (b < min) {
        min = b;
      }
      node = next;
    }
    overflow_min_ = min;
  }

  std::vector<Node> nodes_;
  std::uint32_t free_ = kNil;
  std::array<std::uint32_t, kBuckets + 1> head_ = make_heads();
  std::array<std::uint64_t, kBuckets / 64> occupied_{};
  std::uint64_t overflow_min_ = kNoBucket;
  std::uint64_t current_ = 0;
  std::size_t size_ = 0;
  std::size_t ring_size_ = 0;

  static constexpr std::array<std::uint32_t, kBuckets + 1> make_heads() {
    std::array<std::uint32_t, kBuckets + 1> h{};
    h.fill(kNil);
    return h;
  }
};

}  // namespace netsim
