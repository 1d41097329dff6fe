#include "netsim/sim/event_queue.h"

namespace netsim {

void EventQueue::push(const QueuedEvent& ev) {
  heap_.push_back(ev);
  sift_up(heap_.size() - 1, ev);
}

void EventQueue::sift_up(std::size_t i, QueuedEvent ev) {
  while (i > 0) {
    std::size_t parent = (i - 1) / kArity;
    if (!before(ev, heap_[parent])) break;
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, ev);
}

void EventQueue::sift_down(std::size_t i, QueuedEvent ev) {
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t last = first + kArity < n ? first + kArity : n;
    std::size_t best = first;
    for (std::size_t c = first + 1; c < last; ++c) {
      if (before(heap_[c], heap_[best])) best = c;
    }
    if (!before(heap_[best], ev)) break;
    place(i, heap_[best]);
    i = best;
  }
  place(i, ev);
}

void EventQueue::remove_at(std::size_t i) {
  QueuedEvent last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;
  if (i > 0 && before(last, heap_[(i - 1) / kArity])) {
    sift_up(i, last);
  } else {
    sift_down(i, last);
  }
}

QueuedEvent EventQueue::pop() {
  QueuedEvent top = heap_.front();
  if (top.timer != nullptr) top.timer->heap_index_ = Timer::kNotQueued;
  remove_at(0);
  return top;
}

void EventQueue::arm(Timer& timer, SimTime time) {
  timer.when_ = time;
  QueuedEvent ev{time, next_seq_++, timer.handler_, timer.tag_, &timer};
  if (!timer.pending()) {
    push(ev);
    return;
  }
  std::size_t i = timer.heap_index_;
  // The new key is later in sequence than any existing entry with the same
  // time, so comparing against the old key tells the direction to sift.
  if (before(ev, heap_[i])) {
    sift_up(i, ev);
  } else {
    sift_down(i, ev);
  }
}

void EventQueue::cancel(Timer& timer) {
  if (!timer.pending()) return;
  std::size_t i = timer.heap_index_;
  timer.heap_index_ = Timer::kNotQueued;
  remove_at(i);
}

}  // namespace netsim
