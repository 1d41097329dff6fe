#include "netsim/sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
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

}  // namespace
}  // namespace netsim
