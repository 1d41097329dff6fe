// Congestion control of the Linux 2.6.12-2.6.14 sender: 2.6.13/14's
// tcp_reno and tcp_bic.c module, 2.6.12's built-in Reno/BIC, the factory.
// Expected values are worked by hand from the kernel's u32 arithmetic
// (docs/linux-2.6-sender.md, "Congestion control (2.6.12-2.6.14)").
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "netsim/tcp/linux26/tcp_bic26.h"
#include "netsim/tcp/linux26/tcp_bic_2_6_12.h"
#include "netsim/tcp/linux26/tcp_congestion_ops26.h"
#include "netsim/tcp/linux26/tcp_reno26.h"

namespace netsim::tcp::lnx26 {
namespace {

Tcp26Sock sock(std::uint32_t cwnd, std::uint32_t ssthresh, int hz = 1000) {
  Tcp26Sock tp;
  tp.hz = hz;
  tp.jiffies = 5000;
  tp.snd_cwnd = cwnd;
  tp.snd_ssthresh = ssthresh;
  return tp;
}

// A 2.6.13/14 BIC after a loss at last_max (loss_cwnd set, so no slow-start cap).
Tcp26Bic bic_after_loss(KernelVersion v, std::uint32_t last_max) {
  Tcp26Bic b(v);
  b.ca().last_max_cwnd = last_max;
  b.ca().loss_cwnd = last_max;
  return b;
}

std::uint32_t cnt_at(Tcp26Bic& b, std::uint32_t cwnd) {
  Tcp26Sock tp = sock(cwnd, 2);
  b.ca().last_cwnd = 0;  // force a recomputation
  b.bictcp_update(tp, cwnd);
  return b.ca().cnt;
}

// One ACK through cong_avoid; then snd_cwnd and snd_cwnd_cnt must be as given.
void ack_expect(Tcp26CongestionOps& cc, Tcp26Sock& tp, std::uint32_t in_flight, std::uint32_t cwnd,
                std::uint32_t cwnd_cnt) {
  cc.cong_avoid(tp, 0, 0, in_flight, 1);
  EXPECT_EQ(tp.snd_cwnd, cwnd);
  EXPECT_EQ(tp.snd_cwnd_cnt, cwnd_cnt);
}

TEST(Tcp26Reno, SlowStartGateAndCongestionAvoidance) {
  Tcp26Reno r;
  Tcp26Sock tp = sock(10, 100);
  ack_expect(r, tp, 10, 11, 0);  // slow start: +1 per ACK
  ack_expect(r, tp, 10, 11, 0);  // in_flight 10 < cwnd 11: the module's gate returns
  tp.snd_cwnd_clamp = 11;
  ack_expect(r, tp, 11, 11, 0);  // at the clamp
  tp.snd_cwnd_clamp = 100;
  tp.snd_ssthresh = 5;
  tp.snd_cwnd_cnt = 3;
  ack_expect(r, tp, 10, 11, 3);  // gated in congestion avoidance too: the count stays
  tp.snd_cwnd_cnt = 10;
  ack_expect(r, tp, 11, 11, 11);  // 10 < 11: count
  ack_expect(r, tp, 11, 12, 0);   // 11 >= 11: +1
}

TEST(Tcp26Reno, SsthreshMinCwndUndo) {
  Tcp26Reno r;
  Tcp26Sock tp = sock(11, 11);
  EXPECT_EQ(r.ssthresh(tp), 5u);
  tp.snd_cwnd = 3;
  EXPECT_EQ(r.ssthresh(tp), 2u);
  EXPECT_EQ(r.min_cwnd(tp), 5u);
  tp.snd_cwnd = 10;
  tp.snd_ssthresh = 7;
  EXPECT_EQ(r.undo_cwnd(tp), 14u);
  tp.snd_cwnd = 20;
  EXPECT_EQ(r.undo_cwnd(tp), 20u);
}

TEST(Tcp26Bic, InitSetsInitialSsthreshAndResets) {
  Tcp26Bic b(KernelVersion::v2_6_14);
  b.ca().last_max_cwnd = 50;
  Tcp26Sock tp = sock(2, 0x7fffffff);
  b.init(tp);
  EXPECT_EQ(tp.snd_ssthresh, 100u);
  EXPECT_EQ(b.ca().last_max_cwnd, 0u);
  EXPECT_EQ(b.ca().delayed_ack, 32u);
}

TEST(Tcp26Bic, SlowStartAndTheModulesGate) {
  for (auto v : {KernelVersion::v2_6_13, KernelVersion::v2_6_14}) {
    Tcp26Bic b(v);
    Tcp26Sock tp = sock(10, 100);
    ack_expect(b, tp, 10, 11, 0);
    ack_expect(b, tp, 10, 11, 0);  // in_flight 10 < cwnd 11: the gate returns
    tp.snd_cwnd_clamp = 11;
    ack_expect(b, tp, 11, 11, 0);
  }
}

TEST(Tcp26Bic, BinarySearchCntTowardsLastMax) {
  Tcp26Bic b = bic_after_loss(KernelVersion::v2_6_14, 100);
  // dist = (100-60)/4 = 10, cnt = 60/10 = 6, then (6 << 4) / 32 = 3.
  EXPECT_EQ(cnt_at(b, 60), 3u);
  // dist = 10/4 = 2, cnt = 90/2 = 45, (45 << 4) / 32 = 22.
  EXPECT_EQ(cnt_at(b, 90), 22u);
  // dist = 0 <= 1: cnt = 98*20/4 = 490, (490 << 4) / 32 = 245.
  EXPECT_EQ(cnt_at(b, 98), 245u);
  // 99*20/4 = 495, 7920/32 = 247.
  EXPECT_EQ(cnt_at(b, 99), 247u);
  EXPECT_EQ(b.ca().epoch_start, 5000u);
}

TEST(Tcp26Bic, MaxIncrementCapsTheStep) {
  Tcp26Bic b = bic_after_loss(KernelVersion::v2_6_14, 1000);
  // dist = 360/4 = 90 > 32: cnt = 640/32 = 20, (20 << 4)/32 = 10.
  EXPECT_EQ(cnt_at(b, 640), 10u);
  // dist = 800/4 = 200: cnt = 200/32 = 6, 96/32 = 3.
  EXPECT_EQ(cnt_at(b, 200), 3u);
  BicParams26 p;
  p.max_increment = 16;  // 2.6.15's default, to show it is the parameter that caps
  Tcp26Bic b16(KernelVersion::v2_6_14, p);
  b16.ca().last_max_cwnd = 1000;
  b16.ca().loss_cwnd = 1000;
  // dist 90 > 16: cnt = 640/16 = 40, 640/32 = 20.
  EXPECT_EQ(cnt_at(b16, 640), 20u);
}

TEST(Tcp26Bic, AboveLastMaxProbing2614) {
  Tcp26Bic b = bic_after_loss(KernelVersion::v2_6_14, 100);
  // cwnd < 100 + 4: cnt = 102*20/4 = 510, 8160/32 = 255.
  EXPECT_EQ(cnt_at(b, 102), 255u);
  // cwnd < 100 + 32*3: cnt = 330/10 = 33, 528/32 = 16.
  EXPECT_EQ(cnt_at(b, 110), 16u);
  // cwnd >= 196: cnt = 200/32 = 6, 3.
  EXPECT_EQ(cnt_at(b, 200), 3u);
}

TEST(Tcp26Bic, MissingParenthesisOf2613) {
  Tcp26Bic b = bic_after_loss(KernelVersion::v2_6_13, 100);
  // (110*3)/110 - 100 = 3 - 100 wraps to 4294967199; << 4 wraps to
  // 4294965744; / 32 = 134217679: BIC all but stops growing there.
  EXPECT_EQ(cnt_at(b, 110), 134217679u);
  // The other branches are as in 2.6.14.
  EXPECT_EQ(cnt_at(b, 102), 255u);
  EXPECT_EQ(cnt_at(b, 60), 3u);
  // Before the first loss the slow-start cap of 20 hides the bug: 20*16/32 = 10.
  b.ca().loss_cwnd = 0;
  EXPECT_EQ(cnt_at(b, 110), 10u);
}

TEST(Tcp26Bic, UpdateIsRateLimitedToHzOver32AndCntNeverZero) {
  Tcp26Bic b = bic_after_loss(KernelVersion::v2_6_14, 100);
  Tcp26Sock tp = sock(60, 2);
  b.bictcp_update(tp, 60);
  EXPECT_EQ(b.ca().cnt, 3u);
  b.ca().last_max_cwnd = 200;
  tp.jiffies = 5031;  // 31 <= HZ/32 = 31: same cwnd, no recomputation
  b.bictcp_update(tp, 60);
  EXPECT_EQ(b.ca().cnt, 3u);
  tp.jiffies = 5032;  // dist = 140/4 = 35 > 32: 60/32 = 1, 16/32 = 0 -> 1
  b.bictcp_update(tp, 60);
  EXPECT_EQ(b.ca().cnt, 1u);
}

TEST(Tcp26Bic, LowWindowIsRenoLike) {
  Tcp26Bic b = bic_after_loss(KernelVersion::v2_6_14, 100);
  Tcp26Sock tp = sock(14, 10);
  tp.snd_cwnd_cnt = 13;
  ack_expect(b, tp, 14, 14, 14);
  EXPECT_EQ(b.ca().cnt, 14u);  // cnt = cwnd, no delayed-ACK scaling
  ack_expect(b, tp, 14, 15, 0);
  // ssthresh at or below low_window is Reno's half; above it beta: 15*819/1024 = 11.
  EXPECT_EQ(b.ssthresh(tp), 11u);
  tp.snd_cwnd = 14;
  EXPECT_EQ(b.ssthresh(tp), 7u);
  tp.snd_cwnd = 3;
  EXPECT_EQ(b.ssthresh(tp), 2u);
}

TEST(Tcp26Bic, SsthreshBetaAndFastConvergence) {
  Tcp26Bic b(KernelVersion::v2_6_14);
  b.ca().epoch_start = 77;
  Tcp26Sock tp = sock(100, 50);
  // 100*819/1024 = 79; W_max = 100.
  EXPECT_EQ(b.ssthresh(tp), 79u);
  EXPECT_EQ(b.ca().last_max_cwnd, 100u);
  EXPECT_EQ(b.ca().loss_cwnd, 100u);
  EXPECT_EQ(b.ca().epoch_start, 0u);
  // Loss below W_max: W_max = 80*(1024+819)/2048 = 71; ssthresh 80*819/1024 = 63.
  tp.snd_cwnd = 80;
  EXPECT_EQ(b.ssthresh(tp), 63u);
  EXPECT_EQ(b.ca().last_max_cwnd, 71u);
  EXPECT_EQ(b.ca().loss_cwnd, 80u);

  BicParams26 p;
  p.fast_convergence = 0;
  Tcp26Bic nofc(KernelVersion::v2_6_14, p);
  nofc.ca().last_max_cwnd = 100;
  EXPECT_EQ(nofc.ssthresh(tp), 63u);
  EXPECT_EQ(nofc.ca().last_max_cwnd, 80u);
}

TEST(Tcp26Bic, SsthreshTrimsDelayMax) {
  Tcp26Bic b(KernelVersion::v2_6_13);
  b.ca().delay_min = 80;
  b.ca().delay_max = 180;
  Tcp26Sock tp = sock(20, 10);
  b.ssthresh(tp);
  EXPECT_EQ(b.ca().delay_max, 170u);  // 80 + 100*90/100
}

TEST(Tcp26Bic, UndoMinCwndAndLossReset) {
  Tcp26Bic b = bic_after_loss(KernelVersion::v2_6_14, 71);
  Tcp26Sock tp = sock(50, 40);
  EXPECT_EQ(b.undo_cwnd(tp), 71u);
  tp.snd_cwnd = 90;
  EXPECT_EQ(b.undo_cwnd(tp), 90u);
  EXPECT_EQ(b.min_cwnd(tp), 40u);  // bictcp_min_cwnd is snd_ssthresh
  b.set_state(tp, TCP_CA_Recovery);
  EXPECT_EQ(b.ca().last_max_cwnd, 71u);
  b.set_state(tp, TCP_CA_Loss);
  EXPECT_EQ(b.ca().last_max_cwnd, 0u);
  EXPECT_EQ(b.ca().loss_cwnd, 0u);
}

TEST(Tcp26Bic, DelayedAckRatio) {
  Tcp26Bic b(KernelVersion::v2_6_14);
  Tcp26Sock tp = sock(20, 10);
  b.pkts_acked(tp, 1);  // 1 - 32/16 wraps; 32 + (2^32 - 1) = 31
  EXPECT_EQ(b.ca().delayed_ack, 31u);
  b.pkts_acked(tp, 3);  // 3 - 31/16 = 2; 33
  EXPECT_EQ(b.ca().delayed_ack, 33u);
  tp.ca_state = TCP_CA_Recovery;
  b.pkts_acked(tp, 10);
  EXPECT_EQ(b.ca().delayed_ack, 33u);
  // The ratio scales cnt: last_max 100, cwnd 60 -> 6, (6 << 4)/33 = 2.
  tp.ca_state = TCP_CA_Open;
  b.ca().last_max_cwnd = 100;
  b.ca().loss_cwnd = 100;
  EXPECT_EQ(cnt_at(b, 60), 2u);
}

TEST(Tcp26Bic, LowUtilizationDetectionAndItsCap) {
  Tcp26Bic b(KernelVersion::v2_6_14);
  b.ca().epoch_start = 1000;
  Tcp26Sock tp = sock(102, 50);
  tp.srtt = 405;
  tp.rx_opt.saw_tstamp = 1;
  const auto ack = [&](std::uint32_t now, std::uint32_t tsecr, int flag = 1) {
    tp.jiffies = now;
    tp.rx_opt.rcv_tsecr = tsecr;
    b.bictcp_low_utilization(tp, flag);
  };
  ack(3000, 2950);  // no previous sample
  EXPECT_EQ(b.ca().last_delay, 50u);
  ack(3010, 2950);  // first sample 400 sets delay_min = delay_max
  EXPECT_EQ(b.ca().delay_min, 400u);
  ack(3020, 2950);  // 480: dist 80 > 400>>6; srtt-400 = 5 < 80*153>>10 = 11
  EXPECT_EQ(b.ca().delay_max, 480u);
  EXPECT_EQ(b.ca().low_utilization_start, 3020u);
  EXPECT_EQ(b.ca().low_utilization, 0);
  ack(5021, 4950);  // 560; 2001 jiffies > 2*HZ since the start
  EXPECT_EQ(b.ca().low_utilization, 1);
  // Low utilization above loss_cwnd caps cnt at 20: 20*16/32 = 10 instead of 255.
  b.ca().last_max_cwnd = 100;
  b.ca().loss_cwnd = 50;
  tp.jiffies = 6000;
  b.bictcp_update(tp, 102);
  EXPECT_EQ(b.ca().cnt, 10u);
  // A sample without new data clears it.
  ack(6001, 5950, 0);
  EXPECT_EQ(b.ca().low_utilization, 0);
  EXPECT_EQ(b.ca().last_delay, 0u);
}

TEST(Tcp26Bic2612, NoGateInTheObjectAndStampSet) {
  Tcp26Bic2612 b(true);
  Tcp26Sock tp = sock(10, 100);
  tp.jiffies = 777;
  ack_expect(b, tp, 0, 11, 0);  // in_flight 0: 2.6.12's tcp_ack gates, not reno_cong_avoid
  EXPECT_EQ(tp.snd_cwnd_stamp, 777u);
  tp.snd_cwnd_clamp = 11;
  ack_expect(b, tp, 0, 11, 0);
}

TEST(Tcp26Bic2612, BictcpCwndCounts) {
  Tcp26Bic2612 b(true);
  const auto cnt = [&](std::uint32_t last_max, std::uint32_t cwnd) {
    b.bictcp().last_max_cwnd = last_max;
    b.bictcp().last_cwnd = 0;
    Tcp26Sock tp = sock(cwnd, 2);
    return b.bictcp_cwnd(tp);
  };
  EXPECT_EQ(cnt(100, 60), 6u);     // dist 10: 60/10, no delayed-ACK ratio in 2.6.12
  EXPECT_EQ(cnt(100, 98), 269u);   // dist 0: 98*11/4
  EXPECT_EQ(cnt(100, 102), 280u);  // < W_max + 4: 102*11/4
  EXPECT_EQ(cnt(100, 110), 33u);   // < W_max + 96: 330/10
  EXPECT_EQ(cnt(100, 200), 6u);    // linear: 200/32
  EXPECT_EQ(cnt(1000, 640), 20u);  // dist 90 > 32: 640/32
  EXPECT_EQ(cnt(100, 14), 14u);    // low_window
  Tcp26Bic2612 reno(false);
  Tcp26Sock tp = sock(60, 2);
  reno.bictcp().last_max_cwnd = 100;
  EXPECT_EQ(reno.bictcp_cwnd(tp), 60u);
}

TEST(Tcp26Bic2612, CongestionAvoidanceUsesBictcpCwnd) {
  Tcp26Bic2612 b(true);
  b.bictcp().last_max_cwnd = 100;
  Tcp26Sock tp = sock(60, 30);
  tp.snd_cwnd_cnt = 5;
  ack_expect(b, tp, 60, 60, 6);  // bictcp_cwnd = 60/10 = 6 > 5
  ack_expect(b, tp, 60, 61, 0);  // 6 >= 6
}

TEST(Tcp26Bic2612, RecalcSsthreshMinCwndUndo) {
  Tcp26Bic2612 b(true);
  Tcp26Sock tp = sock(100, 50);
  EXPECT_EQ(b.ssthresh(tp), 79u);
  EXPECT_EQ(b.bictcp().last_max_cwnd, 100u);
  tp.snd_cwnd = 80;
  EXPECT_EQ(b.ssthresh(tp), 63u);
  EXPECT_EQ(b.bictcp().last_max_cwnd, 71u);
  tp.snd_cwnd = 14;  // at low_window: Reno's half, but W_max still lowered: 14*1843/2048 = 12
  EXPECT_EQ(b.ssthresh(tp), 7u);
  EXPECT_EQ(b.bictcp().last_max_cwnd, 12u);
  tp.snd_cwnd = 10;
  tp.snd_ssthresh = 11;
  EXPECT_EQ(b.min_cwnd(tp), 5u);
  EXPECT_EQ(b.undo_cwnd(tp), 12u);  // max(cwnd, last_max_cwnd)

  Tcp26Bic2612 reno(false);
  tp.snd_cwnd = 100;
  EXPECT_EQ(reno.ssthresh(tp), 50u);
  EXPECT_EQ(reno.bictcp().last_max_cwnd, 0u);
  tp.snd_cwnd = 10;
  tp.snd_ssthresh = 7;
  EXPECT_EQ(reno.undo_cwnd(tp), 14u);  // max(cwnd, ssthresh << 1)
  EXPECT_EQ(reno.min_cwnd(tp), 3u);
  b.init(tp);
  EXPECT_EQ(b.bictcp().last_max_cwnd, 0u);
}

TEST(Tcp26Factory, NamesVersionsAndErrors) {
  auto b12 = make_tcp26_congestion_ops("bic", KernelVersion::v2_6_12);
  EXPECT_NE(dynamic_cast<Tcp26Bic2612*>(b12.get()), nullptr);
  EXPECT_STREQ(b12->name(), "bic");
  auto r12 = make_tcp26_congestion_ops("reno", KernelVersion::v2_6_12);
  EXPECT_NE(dynamic_cast<Tcp26Bic2612*>(r12.get()), nullptr);
  EXPECT_STREQ(r12->name(), "reno");
  for (auto v : {KernelVersion::v2_6_13, KernelVersion::v2_6_14}) {
    auto b = make_tcp26_congestion_ops("bic", v);
    EXPECT_NE(dynamic_cast<Tcp26Bic*>(b.get()), nullptr);
    auto r = make_tcp26_congestion_ops("reno", v);
    EXPECT_NE(dynamic_cast<Tcp26Reno*>(r.get()), nullptr);
  }
  // The version reaches the module: 2.6.13's cnt above W_max differs from 2.6.14's.
  auto b13 = make_tcp26_congestion_ops("bic", KernelVersion::v2_6_13);
  auto* bic13 = dynamic_cast<Tcp26Bic*>(b13.get());
  ASSERT_NE(bic13, nullptr);
  bic13->ca().last_max_cwnd = 100;
  bic13->ca().loss_cwnd = 100;
  EXPECT_EQ(cnt_at(*bic13, 110), 134217679u);

  for (const char* bad : {"cubic", "", "BIC", "vegas"}) {
    try {
      make_tcp26_congestion_ops(bad, KernelVersion::v2_6_14);
      ADD_FAILURE() << "no exception for '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace netsim::tcp::lnx26
