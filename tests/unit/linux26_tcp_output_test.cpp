// The Linux 2.6.12-2.6.14 output rules on hand-built states: the skb size
// of each version, 2.6.12's whole-skb send test, tcp_tso_should_defer with
// its 65536 literal, divisor and max-burst branches, the 2.6.19 bound, and
// the later TSO-aware cwnd-limited test. MTU 9000 with timestamps: MSS 8948.
#include <gtest/gtest.h>

#include "netsim/tcp/linux26/tcp_output26.h"

namespace netsim::tcp::lnx26 {
namespace {

constexpr std::uint32_t kMss = 8948;
constexpr std::uint32_t kHdr = 32;  // TCP header with the timestamp option

Tcp26Sock state(std::uint32_t cwnd, std::uint32_t in_flight, std::uint32_t snd_wnd = 3u << 20) {
  Tcp26Sock tp;
  tp.mss_cache = kMss;
  tp.snd_cwnd = cwnd;
  tp.packets_out = in_flight;
  tp.snd_una = 1000;
  tp.snd_nxt = 1000 + in_flight * kMss;
  tp.snd_wnd = snd_wnd;
  tp.max_window = snd_wnd;
  return tp;
}

TEST(Tcp26Output, DefaultDivisorPerVersion) {
  EXPECT_EQ(default_tso_win_divisor(KernelVersion::v2_6_12), 8);
  EXPECT_EQ(default_tso_win_divisor(KernelVersion::v2_6_13), 3);
  EXPECT_EQ(default_tso_win_divisor(KernelVersion::v2_6_14), 3);
}

TEST(Tcp26Output, SizeGoalOf2_6_13IsSevenSegmentsAtMtu9000) {
  // 65535 - 20 - 32 = 65483; rounded down to whole MSS: 7 x 8948 = 62636.
  EXPECT_EQ(tso_large_mss(3u << 20, kHdr), 65483u);
  EXPECT_EQ(xmit_size_goal(state(2, 0), kHdr), 62636u);
  // Half the largest window bounds it: a 40000-byte window gives 2 MSS.
  EXPECT_EQ(xmit_size_goal(state(2, 0, 40000), kHdr), 2 * kMss);
}

TEST(Tcp26Output, SizeOf2_6_12FollowsCwndOverEight) {
  EXPECT_EQ(current_mss_2_6_12(state(2, 0), kHdr, 8), kMss);       // cwnd/8 = 0 -> at least 1
  EXPECT_EQ(current_mss_2_6_12(state(16, 0), kHdr, 8), 2 * kMss);  // 16/8
  EXPECT_EQ(current_mss_2_6_12(state(47, 0), kHdr, 8), 5 * kMss);  // 47/8 = 5
  EXPECT_EQ(current_mss_2_6_12(state(200, 0), kHdr, 8), 7 * kMss); // capped by 65483 / 8948 = 7
  EXPECT_EQ(current_mss_2_6_12(state(200, 0), kHdr, 0), 7 * kMss); // divisor 0: no cwnd cap
}

TEST(Tcp26Output, WholeSkbMustFitIn2_6_12) {
  const Tcp26Sock tp = state(10, 6);
  // 4 segments free: a 4-segment skb fits (6 + 3 < 10), a 5-segment one does not.
  EXPECT_TRUE(snd_test_2_6_12(tp, tp.snd_nxt, tp.snd_nxt + 4 * kMss, 4));
  EXPECT_FALSE(snd_test_2_6_12(tp, tp.snd_nxt, tp.snd_nxt + 5 * kMss, 5));
  // The window: the skb's end must not pass snd_una + snd_wnd.
  const Tcp26Sock small = state(100, 6, 8 * kMss);
  EXPECT_TRUE(snd_test_2_6_12(small, small.snd_nxt, small.snd_nxt + 2 * kMss, 2));
  EXPECT_FALSE(snd_test_2_6_12(small, small.snd_nxt, small.snd_nxt + 3 * kMss, 3));
}

TEST(Tcp26Output, DeferWaitsForEightFreeSegmentsOrAThirdOfCwnd) {
  std::uint32_t deferred = 0;
  DeferInput in;  // divisor 3
  // cwnd 22, 15 in flight: 7 free = 62636 < 65536, and 62636 < 22 x 8948 / 3 = 65618: defer.
  Tcp26Sock tp = state(22, 15);
  EXPECT_TRUE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
  // 8 free = 71584 >= 65536: send.
  tp = state(22, 14);
  EXPECT_FALSE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
  // cwnd 21, 14 in flight: 7 free = 62636 >= 21 x 8948 / 3 = 62636: send (a third of cwnd).
  tp = state(21, 14);
  EXPECT_FALSE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
  // Not in Open: never defer.
  tp = state(22, 15);
  tp.ca_state = TCP_CA_Disorder;
  EXPECT_FALSE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
  // A FIN: never defer.
  tp = state(22, 15);
  in.fin = true;
  EXPECT_FALSE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
}

TEST(Tcp26Output, DeferWithDivisorZeroUsesMaxBurst) {
  std::uint32_t deferred = 0;
  DeferInput in;
  in.tso_win_divisor = 0;
  Tcp26Sock tp = state(22, 19);  // 3 free: 3 x 8948 is not > 3 x 8948: defer
  EXPECT_TRUE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
  tp = state(22, 18);  // 4 free: send
  EXPECT_FALSE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
}

TEST(Tcp26Output, DeferBoundOf2_6_19SendsWhenTheLastDeferralIsTwoJiffiesOld) {
  // ae8064ac32d0 stamps tso_deferred at every deferral, so the bound is on
  // the gap since the last one (later kernels keep the first stamp).
  std::uint32_t deferred = 0;
  DeferInput in;
  in.bound = true;
  Tcp26Sock tp = state(22, 15);
  tp.jiffies = 100;
  EXPECT_TRUE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
  EXPECT_EQ(deferred, 1u | (100u << 1));
  tp.jiffies = 101;  // one jiffy on: deferred again, stamped again
  EXPECT_TRUE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
  EXPECT_EQ(deferred, 1u | (101u << 1));
  tp.jiffies = 103;  // two since the last deferral: send now, the mark cleared
  EXPECT_FALSE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
  EXPECT_EQ(deferred, 0u);
  // Without the bound the same state defers for ever.
  in.bound = false;
  tp.jiffies = 10000;
  EXPECT_TRUE(tso_should_defer(tp, tp.snd_nxt, in, deferred));
  EXPECT_EQ(deferred, 0u);
}

TEST(Tcp26Output, TsoAwareCwndLimitedCountsADeferredRemainderAsUsed) {
  const Tcp26Sock tp = state(22, 15);
  // The old gate (in_flight >= cwnd) says no; the TSO-aware one says yes:
  // 7 left, 7 x 3 = 21 < 22, too little for the deferral rule to send.
  EXPECT_TRUE(tso_aware_cwnd_limited(tp, 15, true, 3));
  EXPECT_FALSE(tso_aware_cwnd_limited(tp, 14, true, 3));  // 8 x 3 = 24
  EXPECT_FALSE(tso_aware_cwnd_limited(tp, 15, false, 3)); // no TSO: only in_flight >= cwnd
  EXPECT_TRUE(tso_aware_cwnd_limited(tp, 22, false, 3));
  EXPECT_TRUE(tso_aware_cwnd_limited(tp, 19, true, 0));   // divisor 0: 3 left <= max_burst
  EXPECT_FALSE(tso_aware_cwnd_limited(tp, 18, true, 0));
}

TEST(Tcp26Output, WindowAllowsAndFirstSegmentTest) {
  const Tcp26Sock tp = state(30, 10, 12 * kMss + 100);
  // 2 MSS + 100 bytes of window left at snd_nxt; cwnd quota 20 segments.
  EXPECT_EQ(window_allows(tp, tp.snd_nxt, kMss, 20), 2 * kMss + 100);
  EXPECT_EQ(window_allows(tp, tp.snd_nxt, kMss, 1), kMss);
  EXPECT_TRUE(snd_wnd_test(tp, tp.snd_nxt, tp.snd_nxt + 7 * kMss, kMss));
  const Tcp26Sock shut = state(30, 10, 10 * kMss);
  EXPECT_FALSE(snd_wnd_test(shut, shut.snd_nxt, shut.snd_nxt + 7 * kMss, kMss));
}

}  // namespace
}  // namespace netsim::tcp::lnx26
