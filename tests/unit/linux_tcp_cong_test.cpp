// Linux tcp_cong.c (Reno, slow start, additive increase) and tcp_cubic.c
// (cubic_root, bictcp_update in jiffies, the HZ/32 gate, HyStart exits).
#include <gtest/gtest.h>

#include <cmath>

#include "netsim/tcp/linux/tcp_cong.h"
#include "netsim/tcp/linux/tcp_cubic.h"

namespace netsim::tcp::lnx {
namespace {

LinuxTcpSock sock(std::uint32_t cwnd, std::uint32_t ssthresh, int hz = 250) {
  LinuxTcpSock tp;
  tp.clock.hz = hz;
  tp.clock.jiffies = 100000;
  tp.clock.mstamp_us = 5000000;
  tp.snd_cwnd = cwnd;
  tp.snd_ssthresh = ssthresh;
  tp.is_cwnd_limited = true;
  return tp;
}

// A connection that lost at cwnd 100 (W_max 100) and whose epoch starts at cwnd 70.
LinuxTcpSock after_loss_at_100(TcpCubic& c) {
  LinuxTcpSock tp = sock(100, 50);
  c.init(tp);
  c.ssthresh(tp);
  c.bictcp_update(tp, 70, 1);
  return tp;
}

TEST(LinuxTcpCong, SlowStartStopsAtSsthreshAndReturnsTheRest) {
  LinuxTcpSock tp = sock(10, 12);
  EXPECT_EQ(tcp_slow_start(tp, 5), 3u);
  EXPECT_EQ(tp.snd_cwnd, 12u);
  tp.snd_cwnd_clamp = 11;
  tp.snd_cwnd = 10;
  EXPECT_EQ(tcp_slow_start(tp, 1), 0u);
  EXPECT_EQ(tp.snd_cwnd, 11u);
}

TEST(LinuxTcpCong, AdditiveIncreaseAppliesStoredCreditsFirst) {
  LinuxTcpSock tp = sock(20, 10);
  tp.snd_cwnd_cnt = 25;  // credit earned at a larger w
  tcp_cong_avoid_ai(tp, 20, 1);
  EXPECT_EQ(tp.snd_cwnd, 21u);
  EXPECT_EQ(tp.snd_cwnd_cnt, 1u);
  tcp_cong_avoid_ai(tp, 10, 25);  // 26 credits at w = 10: +2, 6 left
  EXPECT_EQ(tp.snd_cwnd, 23u);
  EXPECT_EQ(tp.snd_cwnd_cnt, 6u);
}

TEST(LinuxTcpCong, RenoHalvesAndGrowsOnePerWindow) {
  TcpReno reno;
  LinuxTcpSock tp = sock(40, 20);
  for (int i = 0; i < 40; ++i) reno.cong_avoid(tp, 0, 1);
  EXPECT_EQ(tp.snd_cwnd, 41u);
  EXPECT_EQ(reno.ssthresh(tp), 20u);
  tp.snd_cwnd = 3;
  EXPECT_EQ(reno.ssthresh(tp), 2u);
  tp.is_cwnd_limited = false;  // application-limited: no growth
  tp.snd_cwnd = 40;
  reno.cong_avoid(tp, 0, 100);
  EXPECT_EQ(tp.snd_cwnd, 40u);
  tp.prior_cwnd = 50;
  EXPECT_EQ(reno.undo_cwnd(tp), 50u);
}

TEST(LinuxTcpCong, RegistryKnowsRenoAndCubic) {
  EXPECT_STREQ(make_congestion_ops("reno")->name(), "reno");
  EXPECT_STREQ(make_congestion_ops("cubic")->name(), "cubic");
  EXPECT_THROW(make_congestion_ops("bbr"), std::invalid_argument);
}

TEST(LinuxCubic, RegisterFactors) {
  TcpCubic c;
  EXPECT_EQ(c.beta_scale(), 15u);  // 8 * (1024 + 717) / 3 / (1024 - 717)
  EXPECT_EQ(c.cube_rtt_scale(), 410u);
  EXPECT_EQ(c.cube_factor(), 2681735677ull);  // 2^40 / 410
}

TEST(LinuxCubic, CubicRootTableAndNewtonStep) {
  EXPECT_EQ(cubic_root(0), 0u);
  EXPECT_EQ(cubic_root(1), 1u);
  EXPECT_EQ(cubic_root(8), 2u);
  EXPECT_EQ(cubic_root(63), 4u);
  for (std::uint64_t a : {1000ull, 27000ull, 1000000ull, 123456789ull, 80451070310ull, 1ull << 60}) {
    const double exact = std::cbrt(static_cast<double>(a));
    EXPECT_NEAR(cubic_root(a), exact, exact * 0.01 + 1) << a;
  }
}

TEST(LinuxCubic, UsecsToJiffiesRoundsUp) {
  EXPECT_EQ(usecs_to_jiffies(0, 250), 0u);
  EXPECT_EQ(usecs_to_jiffies(500, 250), 1u);
  EXPECT_EQ(usecs_to_jiffies(4000, 250), 1u);
  EXPECT_EQ(usecs_to_jiffies(4001, 250), 2u);
  EXPECT_EQ(usecs_to_jiffies(500, 1000), 1u);
  EXPECT_EQ(usecs_to_jiffies(10000, 100), 1u);
}

TEST(LinuxCubic, LossSetsWmaxBetaAndFastConvergence) {
  TcpCubic c;
  LinuxTcpSock tp = sock(100, 50);
  c.init(tp);
  EXPECT_EQ(c.ssthresh(tp), 70u);  // 100 * 717 / 1024
  EXPECT_EQ(c.state().last_max_cwnd, 100u);
  tp.snd_cwnd = 80;  // lost again below Wmax: remember (1 + beta) / 2 of it
  EXPECT_EQ(c.ssthresh(tp), 56u);
  EXPECT_EQ(c.state().last_max_cwnd, 80u * (1024 + 717) / 2048);
  EXPECT_EQ(c.state().epoch_start, 0u);
}

TEST(LinuxCubic, EpochStartsWithKFromWmaxInJiffies) {
  TcpCubic c;
  LinuxTcpSock tp = after_loss_at_100(c);
  EXPECT_EQ(c.state().epoch_start, tp.clock.jiffies);
  EXPECT_EQ(c.state().bic_origin_point, 100u);
  // K = cbrt((Wmax - cwnd) / C) with C = 0.4 (41/1024 per 100 ms): 4.217 s, in 2^-10 s.
  EXPECT_NEAR(c.state().bic_K, 1024.0 * std::cbrt(30.0 / 0.4), 1024.0 * 0.005);
  // t = 0, target = Wmax - 0.4 * K^3 ~= 70: far below target... cnt is large but bounded by friendliness.
  const std::uint32_t cnt0 = c.state().cnt;
  EXPECT_GE(cnt0, 2u);
  // At K with cwnd on the plateau (Wmax) the increase is tiny; 2 s later
  // the target is Wmax + 0.4 * 2^3 = 103.2 packets: cnt = 100 / 3.
  const std::uint32_t epoch = c.state().epoch_start;
  tp.clock.jiffies = epoch + (c.state().bic_K * 250 + 1023) / 1024;
  c.bictcp_update(tp, 100, 1);
  EXPECT_GE(c.state().cnt, 100u);
  tp.clock.jiffies += 2 * 250;
  c.bictcp_update(tp, 101, 1);
  EXPECT_EQ(c.state().cnt, 101u / 2);  // target 103 (delta truncated to 3): 101 / (103 - 101)
}

TEST(LinuxCubic, UpdateGateHzOver32AndOncePerJiffy) {
  for (int hz : {100, 250, 1000}) {
    TcpCubic c;
    LinuxTcpSock tp = sock(200, 100, hz);
    c.init(tp);
    c.ssthresh(tp);  // Wmax 200
    c.bictcp_update(tp, 140, 1);
    const std::uint32_t t0 = c.state().last_time;
    // Same cwnd: no recomputation until more than HZ/32 jiffies have passed.
    tp.clock.jiffies += static_cast<std::uint32_t>(hz / 32);
    c.bictcp_update(tp, 140, 1);
    EXPECT_EQ(c.state().last_time, t0) << hz;
    tp.clock.jiffies += 1;
    c.bictcp_update(tp, 140, 1);
    EXPECT_EQ(c.state().last_time, tp.clock.jiffies) << hz;
    // A new cwnd in the same jiffy: cnt is not recomputed, only the friendliness part runs.
    const std::uint32_t origin = c.state().last_cwnd;
    c.bictcp_update(tp, 141, 1);
    EXPECT_EQ(c.state().last_cwnd, origin) << hz;
    tp.clock.jiffies += 1;
    c.bictcp_update(tp, 141, 1);
    EXPECT_EQ(c.state().last_cwnd, 141u) << hz;
  }
}

TEST(LinuxCubic, NoLossYetCapsCntAtTwenty) {
  TcpCubic c;
  LinuxTcpSock tp = sock(50, 40);
  c.init(tp);
  c.cong_avoid(tp, 0, 1);  // congestion avoidance, last_max_cwnd == 0
  EXPECT_LE(c.state().cnt, 20u);
  EXPECT_GE(c.state().cnt, 2u);
}

TEST(LinuxCubic, FriendlinessFollowsRenoWhenCubicIsSlower) {
  TcpCubic c;
  LinuxTcpSock tp = after_loss_at_100(c);
  // A long-lived epoch with many ACKs: tcp_cwnd passes cwnd, cnt <= cwnd / (tcp_cwnd - cwnd).
  tp.clock.jiffies += 1;
  c.bictcp_update(tp, 71, 71u * 15 / 8 * 20);  // 20 Reno increments' worth of ACKs
  EXPECT_EQ(c.state().tcp_cwnd, 70u + 20);
  EXPECT_EQ(c.state().cnt, 71u / (90 - 71));
}

TEST(LinuxCubic, LossStateResetsEpochAndHystart) {
  TcpCubic c;
  LinuxTcpSock tp = after_loss_at_100(c);
  c.set_state(tp, TCP_CA_Loss);
  EXPECT_EQ(c.state().epoch_start, 0u);
  EXPECT_EQ(c.state().last_max_cwnd, 0u);
  EXPECT_EQ(c.state().curr_rtt, ~0u);
}

TEST(LinuxCubic, IdleShiftsTheEpoch) {
  TcpCubic c;
  LinuxTcpSock tp = after_loss_at_100(c);
  const std::uint32_t e = c.state().epoch_start;
  tp.lsndtime = tp.clock.jiffies + 10;
  tp.clock.jiffies += 60;  // idle for 50 jiffies
  c.cwnd_event(tp, TcpCaEvent::CA_EVENT_TX_START);
  EXPECT_EQ(c.state().epoch_start, e + 50);
}

TEST(LinuxCubic, HystartDelayExit) {
  CubicParams p;
  p.hystart_detect = HYSTART_DELAY;
  TcpCubic c(p);
  LinuxTcpSock tp = sock(32, TCP_INFINITE_SSTHRESH);
  tp.snd_nxt = tp.snd_una = 1000;
  c.init(tp);
  // Eight samples at 10 ms set delay_min and the round's minimum.
  for (int i = 0; i < 8; ++i) c.pkts_acked(tp, AckSample{1, 10000, 0});
  EXPECT_EQ(c.state().delay_min, 10000u);
  EXPECT_EQ(c.state().found, 0);
  // Threshold: 10 ms + clamp(10 ms / 8, 4 ms, 16 ms) = 14 ms. A new round whose minimum is 14 ms: no exit.
  tp.snd_una = 2000;
  c.pkts_acked(tp, AckSample{1, 14000, 0});
  for (int i = 0; i < 8; ++i) c.pkts_acked(tp, AckSample{1, 14000, 0});
  EXPECT_EQ(c.state().found, 0);
  c.pkts_acked(tp, AckSample{1, 14001, 0});  // min stays 14000 in this round
  EXPECT_EQ(c.state().found, 0);
  tp.snd_una = 3000;
  tp.snd_nxt = 4000;
  for (int i = 0; i < 9; ++i) c.pkts_acked(tp, AckSample{1, 14001, 0});
  EXPECT_EQ(c.state().found, 1);
  EXPECT_EQ(tp.snd_ssthresh, 32u);
  EXPECT_EQ(c.hystart_counters().delay_detect, 1u);
}

TEST(LinuxCubic, HystartAckTrainExit) {
  CubicParams p;
  p.hystart_detect = HYSTART_ACK_TRAIN;
  TcpCubic c(p);
  LinuxTcpSock tp = sock(20, TCP_INFINITE_SSTHRESH);
  tp.snd_nxt = 50000;
  c.init(tp);
  c.pkts_acked(tp, AckSample{1, 1000, 0});  // delay_min 1 ms; no pacing: threshold 0.5 ms
  // ACKs 100 us apart: the train passes delay_min / 2 after 0.5 ms.
  int acks = 0;
  while (c.state().found == 0 && acks < 20) {
    tp.clock.mstamp_us += 100;
    c.pkts_acked(tp, AckSample{1, 1000, 0});
    ++acks;
  }
  EXPECT_EQ(acks, 6);  // 600 us > 500 us
  EXPECT_EQ(tp.snd_ssthresh, 20u);
  EXPECT_EQ(c.hystart_counters().train_detect, 1u);
  // Below hystart_low_window (16) nothing triggers.
  TcpCubic c2(p);
  LinuxTcpSock tp2 = sock(15, TCP_INFINITE_SSTHRESH);
  c2.init(tp2);
  for (int i = 0; i < 20; ++i) {
    tp2.clock.mstamp_us += 100;
    c2.pkts_acked(tp2, AckSample{1, 1000, 0});
  }
  EXPECT_EQ(c2.state().found, 0);
}

TEST(LinuxCubic, HystartAckDelayCushionFromPacingRate) {
  CubicParams p;
  p.hystart_detect = HYSTART_ACK_TRAIN;
  TcpCubic c(p);
  LinuxTcpSock tp = sock(20, TCP_INFINITE_SSTHRESH);
  tp.sk_pacing_rate = 262144000;  // 64 KiB GSO * 4 / rate = 1 ms cushion
  c.init(tp);
  c.pkts_acked(tp, AckSample{1, 1000, 0});
  int acks = 0;
  while (c.state().found == 0 && acks < 30) {
    tp.clock.mstamp_us += 100;
    c.pkts_acked(tp, AckSample{1, 1000, 0});
    ++acks;
  }
  EXPECT_EQ(acks, 11);  // (1 ms + 1 ms) / 2 = 1 ms, passed at 1.1 ms
}

}  // namespace
}  // namespace netsim::tcp::lnx
