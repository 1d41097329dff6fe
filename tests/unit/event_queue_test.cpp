#include "netsim/sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "netsim/sim/rng.h"

namespace netsim {
namespace {

struct Recorder : EventHandler {
  std::vector<std::uint64_t> tags;
  void handle_event(std::uint64_t tag) override { tags.push_back(tag); }
};

std::vector<std::uint64_t> drain(EventQueue& q) {
  std::vector<std::uint64_t> out;
  while (!q.empty()) {
    QueuedEvent e = q.pop();
    out.push_back(e.tag);
  }
  return out;
}

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue q;
  Recorder r;
  q.schedule(30, &r, 1);
  q.schedule(10, &r, 2);
  q.schedule(30, &r, 3);
  q.schedule(10, &r, 4);
  q.schedule(20, &r, 5);
  EXPECT_EQ(drain(q), (std::vector<std::uint64_t>{2, 4, 5, 1, 3}));
}

TEST(EventQueue, ManyEqualTimesStayFifo) {
  EventQueue q;
  Recorder r;
  for (std::uint64_t i = 0; i < 1000; ++i) q.schedule(7, &r, i);
  auto out = drain(q);
  ASSERT_EQ(out.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end()));
}

TEST(EventQueue, MatchesReferenceOrderOnRandomWorkload) {
  EventQueue q;
  Recorder r;
  Rng rng(42, "queue-test");
  struct Ref {
    SimTime t;
    std::uint64_t tag;
  };
  std::vector<Ref> ref;
  for (std::uint64_t i = 0; i < 5000; ++i) {
    SimTime t = static_cast<SimTime>(rng.uniform_below(100));
    q.schedule(t, &r, i);
    ref.push_back({t, i});
  }
  std::stable_sort(ref.begin(), ref.end(), [](const Ref& a, const Ref& b) { return a.t < b.t; });
  auto out = drain(q);
  ASSERT_EQ(out.size(), ref.size());
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], ref[i].tag) << i;
}

TEST(Timer, CancelRemovesAndRearmMoves) {
  EventQueue q;
  Recorder r;
  Timer a(&r, 100), b(&r, 200), c(&r, 300);
  q.arm(a, 50);
  q.arm(b, 60);
  q.arm(c, 70);
  q.schedule(55, &r, 1);
  EXPECT_TRUE(b.pending());
  q.cancel(b);
  EXPECT_FALSE(b.pending());
  q.cancel(b);  // cancelling twice is harmless
  q.arm(a, 80);  // move later
  q.arm(c, 10);  // move earlier
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(drain(q), (std::vector<std::uint64_t>{300, 1, 100}));
  EXPECT_FALSE(a.pending());
  EXPECT_FALSE(c.pending());
}

TEST(Timer, RearmAtSameTimeGoesBehindEqualEvents) {
  EventQueue q;
  Recorder r;
  Timer t(&r, 9);
  q.arm(t, 10);
  q.schedule(10, &r, 1);
  q.arm(t, 10);  // re-armed now: counts as inserted after event 1
  EXPECT_EQ(drain(q), (std::vector<std::uint64_t>{1, 9}));
}

TEST(Timer, HeavyChurnKeepsHeapConsistent) {
  EventQueue q;
  Recorder r;
  Rng rng(7, "churn");
  std::vector<std::unique_ptr<Timer>> timers;
  for (std::uint64_t i = 0; i < 64; ++i) timers.push_back(std::make_unique<Timer>(&r, i));
  for (int step = 0; step < 20000; ++step) {
    Timer& t = *timers[rng.uniform_below(timers.size())];
    if (rng.bernoulli(0.3)) {
      q.cancel(t);
    } else {
      q.arm(t, static_cast<SimTime>(rng.uniform_below(1000)));
    }
  }
  std::size_t pending = 0;
  for (auto& t : timers) pending += t->pending() ? 1 : 0;
  EXPECT_EQ(q.size(), pending);
  SimTime last = -1;
  while (!q.empty()) {
    QueuedEvent e = q.pop();
    EXPECT_GE(e.time, last);
    EXPECT_EQ(e.time, timers[e.tag]->when());
    last = e.time;
  }
  for (auto& t : timers) EXPECT_FALSE(t->pending());
}


// Against a reference model (an ordered map by (time, insertion sequence)),
// with a population that swings across both layout bounds: events and
// timers are added, re-armed, cancelled and popped at random, and every pop
// must be the reference's first entry. The run must see both layouts and
// both switches.
TEST(EventQueue, BothLayoutsPopInReferenceOrderAcrossSwitches) {
  EventQueue q;
  Recorder r;
  Rng rng(11, "layouts");
  std::map<std::pair<SimTime, std::uint64_t>, std::uint64_t> ref;  // (time, seq) -> tag
  std::uint64_t seq = 0;
  std::vector<std::unique_ptr<Timer>> timers;
  std::vector<std::optional<std::pair<SimTime, std::uint64_t>>> timer_key(32);
  for (std::uint64_t i = 0; i < 32; ++i) timers.push_back(std::make_unique<Timer>(&r, 1'000'000 + i));
  SimTime now = 0;
  int to_heap = 0, to_sorted = 0;
  bool was_sorted = q.sorted_layout();
  std::size_t pops = 0;
  for (int step = 0; step < 60000; ++step) {
    // Grow for a while, then drain for a while: the size sweeps 0..~90.
    const bool growing = (step / 300) % 2 == 0;
    // Growing: 50% events, 20% arms, 10% cancels, 20% pops; draining: 20%
    // arms, 10% cancels, 70% pops.
    const std::uint64_t what = rng.uniform_below(10) + (growing ? 0 : 5);
    if (what < 5) {
      const SimTime t = now + static_cast<SimTime>(rng.uniform_below(50));
      q.schedule(t, &r, seq);
      ref.emplace(std::make_pair(t, seq), seq);
      ++seq;
    } else if (what < 7) {
      const std::size_t j = rng.uniform_below(timers.size());
      if (timer_key[j]) ref.erase(*timer_key[j]);
      const SimTime t = now + static_cast<SimTime>(rng.uniform_below(50));
      q.arm(*timers[j], t);
      timer_key[j] = std::make_pair(t, seq);
      ref.emplace(*timer_key[j], timers[j]->tag());
      ++seq;
    } else if (what < 8) {
      const std::size_t j = rng.uniform_below(timers.size());
      if (timer_key[j]) ref.erase(*timer_key[j]);
      timer_key[j].reset();
      q.cancel(*timers[j]);
    } else if (!q.empty()) {
      ASSERT_FALSE(ref.empty());
      const QueuedEvent e = q.pop();
      const auto first = ref.begin();
      ASSERT_EQ(e.time, first->first.first) << "pop " << pops;
      ASSERT_EQ(e.tag, first->second) << "pop " << pops;
      if (e.tag >= 1'000'000) timer_key[e.tag - 1'000'000].reset();
      ref.erase(first);
      now = e.time;
      ++pops;
    }
    ASSERT_EQ(q.size(), ref.size());
    if (q.sorted_layout() != was_sorted) {
      (was_sorted ? to_heap : to_sorted) += 1;
      was_sorted = q.sorted_layout();
    }
    EXPECT_TRUE(q.size() <= EventQueue::kSortedMax || !q.sorted_layout());
    EXPECT_TRUE(q.size() >= EventQueue::kSortedMin || q.sorted_layout());
  }
  EXPECT_GT(to_heap, 2);
  EXPECT_GT(to_sorted, 2);
  EXPECT_GT(pops, 10000u);
  for (std::size_t j = 0; j < timers.size(); ++j) EXPECT_EQ(timers[j]->pending(), timer_key[j].has_value()) << j;
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

// Events and timers from microseconds to seconds ahead, so that they pass
// through the heap, the wheel's ring and its overflow: popped interleaved
// with arming, moving and cancelling, they come out in exactly the (time,
// insertion) order of a reference that keeps everything in one ordered set.
TEST(EventWheel, PopOrderIsTheHeapOrderAcrossRingAndOverflow) {
  EventQueue q;
  Recorder r;
  Rng rng(11, "wheel-test");
  struct Key {
    SimTime t;
    std::uint64_t seq;
    bool operator<(const Key& o) const { return t != o.t ? t < o.t : seq < o.seq; }
  };
  std::map<Key, std::uint64_t> ref;  // -> tag
  std::vector<std::unique_ptr<Timer>> timers;
  std::vector<std::optional<Key>> timer_key(300);
  for (std::uint64_t i = 0; i < 300; ++i) timers.push_back(std::make_unique<Timer>(&r, 1'000'000 + i));
  std::uint64_t seq = 0;
  SimTime now = 0;
  const SimTime spans[] = {kPicosPerMicro * 50, kPicosPerMilli * 3, kPicosPerMilli * 300, kPicosPerSecond * 3};
  std::size_t popped = 0;
  for (int step = 0; step < 200000; ++step) {
    const std::uint64_t what = rng.uniform_below(10);
    const SimTime at = now + static_cast<SimTime>(rng.uniform_below(static_cast<std::uint64_t>(spans[rng.uniform_below(4)])));
    if (what < 3) {  // a plain event
      q.schedule(at, &r, static_cast<std::uint64_t>(step));
      ref.emplace(Key{at, seq++}, static_cast<std::uint64_t>(step));
    } else if (what < 6) {  // arm or move a timer
      const std::size_t i = rng.uniform_below(timers.size());
      if (timer_key[i]) ref.erase(*timer_key[i]);
      q.arm(*timers[i], at);
      timer_key[i] = Key{at, seq++};
      ref.emplace(*timer_key[i], timers[i]->tag());
    } else if (what < 7) {  // cancel a timer
      const std::size_t i = rng.uniform_below(timers.size());
      if (timer_key[i]) ref.erase(*timer_key[i]);
      timer_key[i].reset();
      q.cancel(*timers[i]);
      EXPECT_FALSE(timers[i]->pending());
    } else if (!ref.empty()) {  // pop
      ASSERT_EQ(q.next_time(), ref.begin()->first.t) << "step " << step;
      const QueuedEvent e = q.pop();
      ASSERT_EQ(e.tag, ref.begin()->second) << "step " << step;
      ASSERT_EQ(e.time, ref.begin()->first.t);
      if (e.timer != nullptr) {
        EXPECT_FALSE(e.timer->pending());
        timer_key[e.tag - 1'000'000].reset();
      }
      ref.erase(ref.begin());
      now = e.time;
      ++popped;
    }
    ASSERT_EQ(q.size(), ref.size()) << "step " << step;
  }
  while (!ref.empty()) {
    const QueuedEvent e = q.pop();
    ASSERT_EQ(e.tag, ref.begin()->second);
    ref.erase(ref.begin());
  }
  EXPECT_TRUE(q.empty());
  EXPECT_GT(popped, 10000u);
}

// A simulation of thousands of connections keeps its retransmit timers in
// the wheel: the heap stays as small as the packet events alone.
TEST(EventWheel, FarTimersStayOutOfTheHeap) {
  EventQueue q;
  Recorder r;
  std::vector<std::unique_ptr<Timer>> rto;
  for (std::uint64_t i = 0; i < 10000; ++i) {
    rto.push_back(std::make_unique<Timer>(&r, i));
    q.arm(*rto.back(), kPicosPerMilli * 200 + static_cast<SimTime>(i) * kPicosPerMicro);
  }
  for (std::uint64_t i = 0; i < 20; ++i) q.schedule(static_cast<SimTime>(i) * kPicosPerMicro, &r, i);
  EXPECT_EQ(q.size(), 10020u);
  EXPECT_EQ(q.heap_size(), 20u);
  for (int i = 0; i < 20; ++i) q.pop();
  q.arm(*rto[5], kPicosPerMilli * 199);  // re-armed: still in the wheel, now first
  EXPECT_EQ(q.heap_size(), 0u);
  EXPECT_EQ(q.next_time(), kPicosPerMilli * 199);
  EXPECT_EQ(q.pop().tag, 5u);
}

TEST(EventWheel, AbandonedFarTimersRearmAndCancelSafely) {
  EventQueue q;
  Recorder r;
  Timer far(&r, 1), overflow(&r, 2);
  q.arm(far, kPicosPerMilli * 50);
  q.arm(overflow, kPicosPerSecond * 5);
  q.abandon();
  EXPECT_TRUE(q.empty());
  q.cancel(far);  // dropped: nothing to take out
  q.arm(overflow, kPicosPerMilli * 60);
  q.arm(overflow, kPicosPerMilli * 70);  // moved once queued again: one entry
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(drain(q), (std::vector<std::uint64_t>{2}));
}

}  // namespace
}  // namespace netsim
