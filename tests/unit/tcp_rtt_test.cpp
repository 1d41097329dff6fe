// Tick rounding of RTT samples and timers, hz=100 vs hz=1000. tcp_xmit_timer
// works on the connection's tcpcb (t_srtt, t_rttvar, t_rxtcur, t_rxtshift,
// t_rttupdated).
#include <gtest/gtest.h>

#include "netsim/tcp/tcp_rtt.h"

namespace netsim::tcp {
namespace {

TEST(TcpTimerParams, FreeBsdDefaultsInTicks) {
  const auto p100 = TcpTimerParams::for_hz(100);
  EXPECT_EQ(p100.rexmit_min, 3);    // 30 ms
  EXPECT_EQ(p100.rexmit_slop, 20);  // 200 ms
  EXPECT_EQ(p100.delack, 4);        // 40 ms
  EXPECT_EQ(p100.rexmit_initial, 100);
  const auto p1000 = TcpTimerParams::for_hz(1000);
  EXPECT_EQ(p1000.rexmit_min, 30);
  EXPECT_EQ(p1000.rexmit_slop, 200);
  EXPECT_EQ(p1000.delack, 40);
  EXPECT_EQ(p1000.tick_usecs(), 1000);
  EXPECT_EQ(p100.tick_usecs(), 10000);
}

TEST(TcpRtt, TimestampSampleIsTickGranularPlusOne) {
  // hz=100: the TS clock moves in 10 ms steps; a 0.5 ms path usually echoes
  // the same value: 0 ms -> 1 tick. A 10 ms difference -> 2 ticks.
  EXPECT_EQ(tcp_ts_rtt_sample(5000, 5000, 100), 1);
  EXPECT_EQ(tcp_ts_rtt_sample(5010, 5000, 100), 2);
  EXPECT_EQ(tcp_ts_rtt_sample(5009, 5000, 100), 1);  // 9 * 100 / 1000 = 0
  EXPECT_EQ(tcp_ts_rtt_sample(5001, 5000, 1000), 2);
  EXPECT_EQ(tcp_ts_rtt_sample(5000, 5000, 1000), 1);
  EXPECT_EQ(tcp_ts_rtt_sample(0, 0xffffffffu, 1000), 2);  // TS wraparound
}

TEST(TcpRtt, SrttDecaysToSevenThirtySecondsOfATickWithOneTickSamples) {
  // First sample 1 tick: srtt = 32, rttvar = 8. Then every "1 tick" sample
  // contributes (1-1) << 2 = 0: delta = -(srtt >> 3); srtt -= srtt/8 ...
  Tcpcb s;
  const auto p = TcpTimerParams::for_hz(100);
  s.t_rttmin = p.rexmit_min;
  tcp_xmit_timer(s, 1, p);
  EXPECT_EQ(s.t_srtt, 32);
  EXPECT_EQ(s.t_rttvar, 8);
  // RTO: max(3, ((32 >> 3) + 8) >> 2 = 3) + 20 slop = 23 ticks = 230 ms; floor max(3, 1+2) = 3.
  EXPECT_EQ(s.t_rxtcur, 23);
  const int expected_srtt[] = {28, 25, 22, 20, 18, 16, 14, 13, 12, 11, 10, 9, 8, 7, 7, 7};
  for (int want : expected_srtt) {
    tcp_xmit_timer(s, 1, p);
    EXPECT_EQ(s.t_srtt, want);
  }
  // Stuck at 7: 7 >> 3 == 0. 7/32 tick = 2.1875 ms at hz=100.
  EXPECT_EQ((s.t_srtt * p.tick_usecs()) >> TCP_RTT_SHIFT, 2187);
  EXPECT_EQ(s.t_rttupdated, 17u);
  // rttvar decays too; the RTO floors at rexmit_min + slop = 23 ticks (230 ms).
  EXPECT_EQ(s.t_rxtcur, 23);
}

TEST(TcpRtt, HzThousandTracksHalfMillisecondPathNearRealRtt) {
  // Alternating 1- and 2-tick samples at hz=1000 (a 0.5 ms path). The mean
  // sample is 0.5 tick "after origin 0", but srtt >> 3 truncates, which biases
  // the estimate up: srtt settles into the cycle 21, 23 (0.66-0.72 ms), not 16.
  // The RTO is rexmit_min (30) + slop (200) = 230 ticks.
  Tcpcb s;
  const auto p = TcpTimerParams::for_hz(1000);
  s.t_rttmin = p.rexmit_min;
  for (int i = 0; i < 199; ++i) tcp_xmit_timer(s, 1 + (i % 2), p);
  EXPECT_EQ(s.t_srtt, 21);  // after a 1-tick sample: 23 + ((0 << 2) - (23 >> 3)) = 21
  tcp_xmit_timer(s, 2, p);
  EXPECT_EQ(s.t_srtt, 23);  // 21 + ((1 << 2) - (21 >> 3)) = 23
  EXPECT_EQ(s.t_rttvar, 10);
  EXPECT_EQ(s.t_rxtcur, 230);
}

TEST(TcpRtt, SamplesCountSaturatesAtUcharMax) {
  // t_rttupdated is a uint8_t in the tcpcb; tcp_xmit_timer stops at 255.
  Tcpcb s;
  const auto p = TcpTimerParams::for_hz(1000);
  s.t_rttmin = p.rexmit_min;
  for (int i = 0; i < 254; ++i) tcp_xmit_timer(s, 1, p);
  EXPECT_EQ(s.t_rttupdated, 254u);
  tcp_xmit_timer(s, 1, p);
  EXPECT_EQ(s.t_rttupdated, 255u);
  tcp_xmit_timer(s, 1, p);
  EXPECT_EQ(s.t_rttupdated, 255u);
}

TEST(TcpRtt, BackoffFollowsTable) {
  Tcpcb s;
  const auto p = TcpTimerParams::for_hz(1000);
  s.t_rttmin = p.rexmit_min;
  tcp_xmit_timer(s, 1, p);  // srtt 32, rttvar 8: rexmtval = max(30, (4 + 8) >> 2 = 3) = 30
  s.t_rxtshift = 1;
  EXPECT_EQ(tcp_backed_off_rto(s, p), 30 * 2 + 200);
  s.t_rxtshift = 2;
  EXPECT_EQ(tcp_backed_off_rto(s, p), 30 * 4 + 200);
  s.t_rxtshift = 12;
  EXPECT_EQ(tcp_backed_off_rto(s, p), 30 * 512 + 200);
}

}  // namespace
}  // namespace netsim::tcp
