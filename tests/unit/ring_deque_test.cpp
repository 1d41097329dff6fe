// RingDeque: both ends, indexing across the wrap, and growth keeping order.
#include "netsim/sim/ring_deque.h"

#include <gtest/gtest.h>

#include <deque>

namespace netsim {
namespace {

TEST(RingDeque, PushPopBothEndsAcrossTheWrap) {
  RingDeque<int> r;
  r.reset(4);
  r.push_back(2);
  r.push_back(3);
  r.push_front(1);
  r.push_front(0);  // wraps below slot 0
  ASSERT_EQ(r.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r[static_cast<std::size_t>(i)], i);
  r.pop_front();
  r.pop_back();
  EXPECT_EQ(r.front(), 1);
  EXPECT_EQ(r.back(), 2);
}

TEST(RingDeque, GrowsPastItsCapacityInOrderLikeStdDeque) {
  RingDeque<int> r;  // no reset: starts empty and grows from nothing
  std::deque<int> ref;
  for (int i = 0; i < 100; ++i) {
    if (i % 3 == 0) {
      r.push_front(i);
      ref.push_front(i);
    } else {
      r.push_back(i);
      ref.push_back(i);
    }
    if (i % 7 == 0) {
      r.pop_front();
      ref.pop_front();
    }
  }
  ASSERT_EQ(r.size(), ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(r[i], ref[i]);
}

}  // namespace
}  // namespace netsim
