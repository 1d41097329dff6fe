// NewReno (FreeBSD cc_newreno.c @ 1a2fc24f, cc.c @ 5c268f97) driven through the
// framework wrappers and the module hooks. Expected values are worked out by
// hand in the comments: t_maxseg = 1460, tcp_fixed_maxseg = tcp_maxseg = 1448.
#include <gtest/gtest.h>

#include <cstdint>

#include "netsim/cc/cc_framework.h"
#include "netsim/cc/newreno.h"

namespace netsim::cc {
namespace {

class CcNewReno : public ::testing::Test {
 protected:
  void SetUp() override {
    tp.snd_wnd = 4'000'000;
    tp.snd_scale = 7;  // cap 65535 << 7 = 8388480
    tp.snd_una = 1000;
    tp.snd_max = tp.snd_nxt = 1000 + 100'000'000;  // plenty of data in flight / to send
    tp.tfb_compute_pipe = [this](const Tcpcb&) { return pipe; };
    cc_attach(tp, algo);
    cc_conn_init(tp);
  }
  // The stack's order: cc_ack_received sees snd_una before it moves, then snd_una = th_ack.
  void ack(std::uint32_t bytes, std::uint16_t nsegs = 1, ccsignal_t type = CC_ACK) {
    const tcp_seq th_ack = tp.snd_una + bytes;
    cc_ack_received(tp, th_ack, nsegs, type);
    tp.snd_una = th_ack;
  }

  Tcpcb tp;
  NewReno algo;
  int pipe = 0;
};

TEST_F(CcNewReno, InitialState) {
  // IW = min(10 * 1448, max(2 * 1448, 10 * 1460)) = min(14480, 14600) = 14480.
  EXPECT_EQ(tp.snd_cwnd, 14480u);
  EXPECT_EQ(tp.snd_ssthresh, 65535u << 14);  // untouched: 1073725440
  EXPECT_EQ(algo.data().beta, 50u);
  EXPECT_EQ(algo.data().beta_ecn, 80u);
  EXPECT_EQ(algo.data().newreno_flags, CC_NEWRENO_HYSTART_ENABLED);
  EXPECT_EQ(algo.data().css_current_round_minrtt, 0xffffffffu);
  EXPECT_EQ(tp.t_ccv.cc_data, &algo.data());
  EXPECT_STREQ(algo.name(), "newreno");
}

TEST_F(CcNewReno, SlowStartStretchAcksAreCappedByAbcLVar) {
  // A stretch ACK for 10 segments (14480 bytes), no LRO (nsegs 1):
  // incr = min(14480, 1 * 2 * 1460 = 2920) -> 14480 + 2920 = 17400.
  ack(14480);
  EXPECT_EQ(tp.snd_cwnd, 17400u);
  // LRO merged 4 ACKs: min(14480, 4 * 2 * 1460 = 11680) -> 29080.
  ack(14480, 4);
  EXPECT_EQ(tp.snd_cwnd, 29080u);
  // An ACK for one segment: min(1448, 2920) -> 30528.
  ack(1448);
  EXPECT_EQ(tp.snd_cwnd, 30528u);
  // net.inet.tcp.abc_l_var = 4: min(14480, 4 * 1460 = 5840) -> 36368.
  tp.sysctl.tcp_abc_l_var = 4;
  ack(14480);
  EXPECT_EQ(tp.snd_cwnd, 36368u);
  // A per-connection value (CCF_USE_LOCAL_ABC, labc 1): min(14480, 1460) -> 37828.
  tp.t_ccv.flags |= CCF_USE_LOCAL_ABC;
  tp.t_ccv.labc = 1;
  ack(14480);
  EXPECT_EQ(tp.snd_cwnd, 37828u);
}

TEST_F(CcNewReno, SlowStartAfterRtoGrowsOneMaxsegPerAck) {
  // After an RTO snd_nxt was pulled back (snd_nxt != snd_max): min(bytes, t_maxseg),
  // even with LRO: min(14480, 1460) -> 14480 + 1460 = 15940.
  tp.snd_nxt = tp.snd_una + 20000;
  ack(14480, 4);
  EXPECT_EQ(tp.snd_cwnd, 15940u);
  // A tiny ACK: min(100, 1460) = 100 -> 16040.
  ack(100);
  EXPECT_EQ(tp.snd_cwnd, 16040u);
}

TEST_F(CcNewReno, SlowStartWithoutAbcAddsOneMaxsegPerAck) {
  // rfc3465 = 0: + t_maxseg per ACK whatever it acknowledges: 14480 + 1460 = 15940.
  tp.sysctl.tcp_do_rfc3465 = 0;
  ack(100);
  EXPECT_EQ(tp.snd_cwnd, 15940u);
}

TEST_F(CcNewReno, WindowIsCappedByTheScaledMaximum) {
  // snd_scale 0: min(64000 + 2896, 65535 << 0) = 65535.
  tp.snd_scale = 0;
  tp.snd_cwnd = 64000;
  ack(2896);
  EXPECT_EQ(tp.snd_cwnd, 65535u);
}

TEST_F(CcNewReno, CongestionAvoidanceAddsOneMaxsegPerCwndAcked) {
  tp.snd_cwnd = 20000;
  tp.snd_ssthresh = 10000;
  // 13 ACKs of 1448: t_bytes_acked = 18824 < 20000: no growth.
  for (int i = 0; i < 13; ++i) ack(1448);
  EXPECT_EQ(tp.snd_cwnd, 20000u);
  EXPECT_EQ(tp.t_bytes_acked, 18824);
  // 14th: 20272 >= 20000 -> t_bytes_acked = 272, CCF_ABC_SENTAWND -> cwnd + 1460 = 21460.
  ack(1448);
  EXPECT_EQ(tp.snd_cwnd, 21460u);
  EXPECT_EQ(tp.t_bytes_acked, 272);
  EXPECT_EQ(tp.t_ccv.flags & CCF_ABC_SENTAWND, 0u);  // consumed by the module
  // Next step needs 21460: 272 + 14 * 1448 = 20544 < 21460; the 15th: 21992 -> 532, 22920.
  for (int i = 0; i < 14; ++i) ack(1448);
  EXPECT_EQ(tp.snd_cwnd, 21460u);
  ack(1448);
  EXPECT_EQ(tp.snd_cwnd, 22920u);
  EXPECT_EQ(tp.t_bytes_acked, 532);
}

TEST_F(CcNewReno, CongestionAvoidanceIgnoresTheAckPattern) {
  // Stretch ACKs of 10 segments (and LRO nsegs 44): growth is still one t_maxseg per cwnd bytes.
  tp.snd_cwnd = 20000;
  tp.snd_ssthresh = 10000;
  ack(14480, 44);  // 14480 < 20000
  EXPECT_EQ(tp.snd_cwnd, 20000u);
  ack(14480, 44);  // 28960 >= 20000 -> 8960, 21460
  EXPECT_EQ(tp.snd_cwnd, 21460u);
  ack(14480, 44);  // 23440 >= 21460 -> 1980, 22920
  EXPECT_EQ(tp.snd_cwnd, 22920u);
  ack(14480, 44);  // 16460 < 22920
  EXPECT_EQ(tp.snd_cwnd, 22920u);
  ack(14480, 44);  // 30940 >= 22920 -> 8020, 24380
  EXPECT_EQ(tp.snd_cwnd, 24380u);
  EXPECT_EQ(tp.t_bytes_acked, 8020);
}

TEST_F(CcNewReno, CongestionAvoidanceWithoutAbc) {
  // rfc3465 = 0: + max(t_maxseg^2 / cwnd, 1) per ACK: 2131600 / 20000 = 106 -> 20106;
  // 2131600 / 20106 = 106 -> 20212.
  tp.sysctl.tcp_do_rfc3465 = 0;
  tp.snd_cwnd = 20000;
  tp.snd_ssthresh = 10000;
  ack(1448);
  EXPECT_EQ(tp.snd_cwnd, 20106u);
  ack(1448);
  EXPECT_EQ(tp.snd_cwnd, 20212u);
  // cwnd 3000000: 2131600 / 3000000 = 0 -> at least 1 byte.
  tp.snd_cwnd = 3'000'000;
  ack(1448);
  EXPECT_EQ(tp.snd_cwnd, 3'000'001u);
}

TEST_F(CcNewReno, NoGrowthInRecoveryOrWhenNotCwndLimited) {
  tp.t_flags = TF_FASTRECOVERY;
  ack(14480);
  EXPECT_EQ(tp.snd_cwnd, 14480u);
  tp.t_flags = TF_CONGRECOVERY;
  ack(14480);
  EXPECT_EQ(tp.snd_cwnd, 14480u);
  tp.t_flags = 0;
  ack(14480, 1, CC_DUPACK);
  EXPECT_EQ(tp.snd_cwnd, 14480u);
  tp.snd_wnd = 14479;  // cwnd > snd_wnd: not cwnd limited
  ack(14480);
  EXPECT_EQ(tp.snd_cwnd, 14480u);
  tp.snd_wnd = 14480;  // cwnd <= snd_wnd: limited again -> + 2920
  ack(14480);
  EXPECT_EQ(tp.snd_cwnd, 17400u);
}

TEST_F(CcNewReno, NDupAckSetsSsthreshToWholeSegments) {
  // cwin = max(cwnd * 50 / (100 * 1448), 2) * 1448.
  // cwnd 100000: 5000000 / 144800 = 34.5 -> 34 -> 49232. cwnd itself is left to the stack.
  tp.snd_cwnd = 100000;
  cc_cong_signal(tp, tp.snd_una, CC_NDUPACK);
  EXPECT_EQ(tp.snd_ssthresh, 49232u);
  EXPECT_EQ(tp.snd_cwnd, 100000u);
  EXPECT_EQ(tp.t_flags & (TF_FASTRECOVERY | TF_CONGRECOVERY), TF_FASTRECOVERY | TF_CONGRECOVERY);
  EXPECT_EQ(tp.snd_recover, tp.snd_max);  // the wrapper
  EXPECT_EQ(algo.data().newreno_flags & CC_NEWRENO_HYSTART_ENABLED, 0u);  // a loss ends HyStart++
  // Already in fast recovery: nothing changes.
  tp.snd_cwnd = 50000;
  cc_cong_signal(tp, tp.snd_una, CC_NDUPACK);
  EXPECT_EQ(tp.snd_ssthresh, 49232u);

  const struct {
    std::uint32_t cwnd, ssthresh;
  } cases[] = {
      {14480, 7240},    // 724000 / 144800 = 5 -> 5 * 1448
      {144799, 70952},  // 7239950 / 144800 = 49.99 -> 49 -> 70952 (floor)
      {144800, 72400},  // 7240000 / 144800 = 50 -> 72400
      {4000, 2896},     // 200000 / 144800 = 1 -> max(1, 2) = 2 -> 2896
      {1, 2896},        // 0 -> 2 segments
  };
  for (const auto& c : cases) {
    tp.t_flags = 0;
    tp.snd_cwnd = c.cwnd;
    cc_cong_signal(tp, tp.snd_una, CC_NDUPACK);
    EXPECT_EQ(tp.snd_ssthresh, c.ssthresh) << "cwnd " << c.cwnd;
    EXPECT_EQ(tp.snd_ssthresh % 1448, 0u);
  }
  // In ECN congestion recovery only: ssthresh kept, fast recovery entered.
  tp.t_flags = TF_CONGRECOVERY;
  tp.snd_ssthresh = 12345;
  tp.snd_cwnd = 100000;
  cc_cong_signal(tp, tp.snd_una, CC_NDUPACK);
  EXPECT_EQ(tp.snd_ssthresh, 12345u);
  EXPECT_NE(tp.t_flags & TF_FASTRECOVERY, 0u);
}

TEST_F(CcNewReno, EcnUsesBetaOrBetaEcn) {
  // ssthresh = cwnd = 49232 (beta 50), congestion recovery only.
  tp.snd_cwnd = 100000;
  cc_cong_signal(tp, tp.snd_una, CC_ECN);
  EXPECT_EQ(tp.snd_ssthresh, 49232u);
  EXPECT_EQ(tp.snd_cwnd, 49232u);
  EXPECT_EQ(tp.t_flags & (TF_FASTRECOVERY | TF_CONGRECOVERY), TF_CONGRECOVERY);
  // Again while in congestion recovery with th_ack < snd_recover: nothing.
  tp.snd_recover = tp.snd_una + 10;
  tp.snd_cwnd = 100000;
  cc_cong_signal(tp, tp.snd_una, CC_ECN);
  EXPECT_EQ(tp.snd_cwnd, 100000u);
  // cc.abe = 1: beta_ecn 80: 8000000 / 144800 = 55.2 -> 55 -> 79640.
  tp.t_flags = 0;
  tp.sysctl.cc_do_abe = 1;
  cc_cong_signal(tp, tp.snd_una, CC_ECN);
  EXPECT_EQ(tp.snd_ssthresh, 79640u);
  EXPECT_EQ(tp.snd_cwnd, 79640u);
}

TEST_F(CcNewReno, RtoSsthreshFromMinOfWindowAndPipe) {
  // First RTO: max(2, min(snd_wnd, pipe) * 50 / (100 * 1448)) * 1448; cwnd = 1448.
  // pipe 50000: 2500000 / 144800 = 17.3 -> 17 -> 24616.
  tp.snd_cwnd = 100000;
  tp.t_rxtshift = 1;
  pipe = 50000;
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(tp.snd_ssthresh, 24616u);
  EXPECT_EQ(tp.snd_cwnd, 1448u);
  // Later RTOs keep ssthresh; cwnd is one segment again.
  tp.t_rxtshift = 2;
  tp.snd_cwnd = 5000;
  pipe = 500000;
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(tp.snd_ssthresh, 24616u);
  EXPECT_EQ(tp.snd_cwnd, 1448u);
  // The peer's window is smaller: 30000 * 50 / 144800 = 10.4 -> 10 -> 14480.
  tp.t_rxtshift = 1;
  tp.snd_wnd = 30000;
  pipe = 50000;
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(tp.snd_ssthresh, 14480u);
  // Little in flight: 2000 * 50 / 144800 = 0 -> 2 segments = 2896.
  tp.snd_wnd = 4'000'000;
  pipe = 2000;
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(tp.snd_ssthresh, 2896u);
  // sack.revised = 0: pipe = snd_max - snd_fack + sack_bytes_rexmit = 40000 + 2896 = 42896;
  // 2144800 / 144800 = 14.8 -> 14 -> 20272.
  tp.sysctl.tcp_do_newsack = 0;
  tp.snd_fack = tp.snd_max - 40000;
  tp.sackhint.sack_bytes_rexmit = 2896;
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(tp.snd_ssthresh, 20272u);
  // sack.revised = 1 without a stack override (tfb_compute_pipe):
  // tcp_compute_pipe() is the RFC 6675 pipe of this tcpcb's own scoreboard,
  // snd_max - snd_una + sack_bytes_rexmit - sacked_bytes - lost_bytes = 60000;
  // 3000000 / 144800 = 20.7 -> 20 -> 28960.
  tp.sysctl.tcp_do_newsack = 1;
  tp.tfb_compute_pipe = nullptr;
  tp.sackhint.lost_bytes = 2896;
  tp.sackhint.sacked_bytes = static_cast<std::int32_t>(tp.snd_max - tp.snd_una) - 60000;
  EXPECT_EQ(tcp_compute_pipe(tp), 60000);
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(tp.snd_ssthresh, 28960u);
}

TEST_F(CcNewReno, PostRecoveryWithPipeBelowAndAboveSsthresh) {
  tp.snd_ssthresh = 49232;
  tp.t_flags = TF_FASTRECOVERY | TF_CONGRECOVERY;
  // pipe < ssthresh: cwnd = max(pipe, 1460) + 1460.
  pipe = 20000;
  cc_post_recovery(tp, tp.snd_una);
  EXPECT_EQ(tp.snd_cwnd, 21460u);
  pipe = 500;
  cc_post_recovery(tp, tp.snd_una);
  EXPECT_EQ(tp.snd_cwnd, 2920u);
  // pipe >= ssthresh: cwnd = ssthresh.
  pipe = 60000;
  cc_post_recovery(tp, tp.snd_una);
  EXPECT_EQ(tp.snd_cwnd, 49232u);
  pipe = 49232;
  tp.snd_cwnd = 1;
  cc_post_recovery(tp, tp.snd_una);
  EXPECT_EQ(tp.snd_cwnd, 49232u);
  // A negative int pipe compares as a huge unsigned value: cwnd = ssthresh.
  pipe = -5;
  tp.snd_cwnd = 1;
  cc_post_recovery(tp, tp.snd_una);
  EXPECT_EQ(tp.snd_cwnd, 49232u);
  // sack.revised = 0: pipe = snd_max - curack = 20000 -> 21460.
  tp.sysctl.tcp_do_newsack = 0;
  cc_post_recovery(tp, tp.snd_max - 20000);
  EXPECT_EQ(tp.snd_cwnd, 21460u);
  // Not in fast recovery (ECN congestion recovery only): cwnd untouched.
  tp.t_flags = TF_CONGRECOVERY;
  tp.snd_cwnd = 777;
  cc_post_recovery(tp, tp.snd_una);
  EXPECT_EQ(tp.snd_cwnd, 777u);
}

TEST_F(CcNewReno, AfterIdle) {
  // ssthresh = max(30000, 100000 - (100000 >> 2) = 75000); cwnd = min(IW(1448) = 14480, 100000).
  tp.snd_cwnd = 100000;
  tp.snd_ssthresh = 30000;
  cc_after_idle(tp);
  EXPECT_EQ(tp.snd_ssthresh, 75000u);
  EXPECT_EQ(tp.snd_cwnd, 14480u);
  // cwnd below the restart window stays; ssthresh = max(30000, 10000 - 2500) = 30000.
  tp.snd_cwnd = 10000;
  tp.snd_ssthresh = 30000;
  cc_after_idle(tp);
  EXPECT_EQ(tp.snd_ssthresh, 30000u);
  EXPECT_EQ(tp.snd_cwnd, 10000u);
  // cwnd >> 2 truncates: 100001 - 25000 = 75001.
  tp.snd_cwnd = 100001;
  tp.snd_ssthresh = 0;
  cc_after_idle(tp);
  EXPECT_EQ(tp.snd_ssthresh, 75001u);
  // HyStart++ is re-armed after idle (it was cleared by a loss).
  cc_cong_signal(tp, tp.snd_una, CC_NDUPACK);
  EXPECT_EQ(algo.data().newreno_flags & CC_NEWRENO_HYSTART_ENABLED, 0u);
  cc_after_idle(tp);
  EXPECT_EQ(algo.data().newreno_flags & CC_NEWRENO_HYSTART_ENABLED, CC_NEWRENO_HYSTART_ENABLED);
}

TEST(CcNewRenoHelpers, IncrementsByHand) {
  Tcpcb tp;
  tp.snd_nxt = tp.snd_max = 5000;
  tp.snd_cwnd = 20000;
  tp.snd_ssthresh = 10000;
  // Congestion avoidance: no ABC flag -> cwnd; flag -> cwnd + 1460 and the flag is consumed.
  EXPECT_EQ(newreno_cc_cwnd_in_cong_avoid(tp.t_ccv), 20000u);
  tp.t_ccv.flags = CCF_ABC_SENTAWND;
  EXPECT_EQ(newreno_cc_cwnd_in_cong_avoid(tp.t_ccv), 21460u);
  EXPECT_EQ(tp.t_ccv.flags, 0u);
  EXPECT_EQ(tp.snd_cwnd, 20000u);  // the helpers return, they do not store
  // Slow start: cwnd 8000 <= 10000; bytes 14480, nsegs 2: min(14480, 2 * 2 * 1460 = 5840) -> 13840.
  tp.snd_cwnd = 8000;
  tp.t_ccv.bytes_this_ack = 14480;
  tp.t_ccv.nsegs = 2;
  EXPECT_EQ(newreno_cc_cwnd_in_slow_start(tp.t_ccv), 13840u);
  // Multiplicative decrease: 8000 * 50 / 144800 = 2.76 -> 2 -> 2896 (mss 1448); with mss 1460:
  // 400000 / 146000 = 2.7 -> 2 -> 2920.
  EXPECT_EQ(newreno_cc_cwnd_on_multiplicative_decrease(tp.t_ccv, 1448), 2896u);
  EXPECT_EQ(newreno_cc_cwnd_on_multiplicative_decrease(tp.t_ccv, 1460), 2920u);
  // 64-bit product: cwnd 1073725440 * 50 = 53686272000 (> 2^32) / 144800 = 370761 -> 536861928.
  tp.snd_cwnd = 1073725440;
  EXPECT_EQ(newreno_cc_cwnd_on_multiplicative_decrease(tp.t_ccv, 1448), 536861928u);
}

TEST(CcNewRenoHelpers, GenericCongSignalRtoRule) {
  // cc.c's newreno_cc_cong_signal: RTO ssthresh = max(2, min(snd_wnd, pipe) / 2 / mss) * mss:
  // 50000 / 2 = 25000 / 1448 = 17 -> 24616; NDUPACK like the module: 100000 -> 49232.
  Tcpcb tp;
  tp.snd_wnd = 4'000'000;
  tp.tfb_compute_pipe = [](const Tcpcb&) { return 50000; };
  tp.t_rxtshift = 1;
  tp.snd_cwnd = 100000;
  newreno_cc_cong_signal(tp.t_ccv, CC_RTO);
  EXPECT_EQ(tp.snd_ssthresh, 24616u);
  EXPECT_EQ(tp.snd_cwnd, 1448u);
  tp.snd_cwnd = 100000;
  newreno_cc_cong_signal(tp.t_ccv, CC_NDUPACK);
  EXPECT_EQ(tp.snd_ssthresh, 49232u);
}

TEST(CcNewRenoHelpers, ModuleAndHelpersAgreeWithoutHyStart) {
  // The cc_newreno.c module and cc.c's newreno_cc_ack_received give the same windows.
  Tcpcb a, b;
  NewReno algo;
  for (Tcpcb* tp : {&a, &b}) {
    tp->snd_wnd = 3'000'000;
    tp->snd_scale = 5;  // cap 65535 << 5 = 2097120 < snd_wnd: always cwnd limited
    tp->snd_una = 0;
    tp->snd_max = tp->snd_nxt = 200'000'000;
  }
  cc_attach(a, algo);
  cc_conn_init(a);
  b.snd_cwnd = a.snd_cwnd;
  std::uint32_t x = 12345;
  for (int i = 0; i < 5000; ++i) {
    x = x * 1103515245u + 12345u;  // deterministic pattern of ACK sizes, LRO counts and events
    const std::uint32_t bytes = 1448 * (1 + (x >> 8) % 12);
    const auto nsegs = static_cast<std::uint16_t>(1 + (x >> 20) % 4);
    if ((x >> 4) % 97 == 0) {  // a loss now and then: same ssthresh on both sides
      a.snd_ssthresh = b.snd_ssthresh = a.snd_cwnd / 2;
      a.snd_cwnd = b.snd_cwnd = a.snd_ssthresh;
    }
    cc_ack_received(a, a.snd_una + bytes, nsegs, CC_ACK);
    // b: the same wrapper bookkeeping, then the cc.c helper.
    b.t_ccv.nsegs = nsegs;
    b.t_ccv.bytes_this_ack = static_cast<int>(bytes);
    b.t_ccv.flags |= CCF_CWND_LIMITED;
    if (b.snd_cwnd > b.snd_ssthresh) {
      b.t_bytes_acked += static_cast<int>(bytes);
      if (static_cast<std::uint32_t>(b.t_bytes_acked) >= b.snd_cwnd) {
        b.t_bytes_acked -= static_cast<int>(b.snd_cwnd);
        b.t_ccv.flags |= CCF_ABC_SENTAWND;
      }
    } else {
      b.t_ccv.flags &= ~CCF_ABC_SENTAWND;
      b.t_bytes_acked = 0;
    }
    newreno_cc_ack_received(b.t_ccv, CC_ACK);
    a.snd_una += bytes;
    b.snd_una += bytes;
    ASSERT_EQ(a.snd_cwnd, b.snd_cwnd) << "step " << i;
  }
}

TEST(CcNewRenoHyStart, InertWithoutTheAllowedFlagPresentWithIt) {
  // Round 1: 8 samples of 10 ms; round 2: 8 samples of 20 ms. rtt_thresh = clamp(10000 >> 3,
  // 4000, 16000) = 4000 and 20000 >= 10000 + 4000, so HyStart++ would enter CSS.
  auto feed = [](Tcpcb& tp, NewReno& algo) {
    for (int i = 0; i < 8; ++i) algo.rttsample(tp.t_ccv, 10000, 1, 14480);
    algo.newround(tp.t_ccv, 2);
    for (int i = 0; i < 8; ++i) algo.rttsample(tp.t_ccv, 20000, 1, 28960);
  };
  for (bool allowed : {false, true}) {
    Tcpcb tp;
    NewReno algo;
    tp.snd_wnd = 4'000'000;
    tp.snd_una = 0;
    tp.snd_max = tp.snd_nxt = 1'000'000;
    cc_attach(tp, algo);
    cc_conn_init(tp);
    feed(tp, algo);
    if (allowed) tp.t_ccv.flags |= CCF_HYSTART_ALLOWED;  // only RACK/BBR do this
    cc_ack_received(tp, 14480, 1, CC_ACK);
    if (!allowed) {
      // The base stack: plain ABC slow start, 14480 + 2920.
      EXPECT_EQ(tp.snd_cwnd, 17400u);
      EXPECT_EQ(algo.data().newreno_flags & CC_NEWRENO_HYSTART_IN_CSS, 0u);
    } else {
      // CSS: the increment is divided by css_growth_div: 2920 / 4 = 730.
      EXPECT_EQ(tp.snd_cwnd, 15210u);
      EXPECT_EQ(algo.data().newreno_flags & CC_NEWRENO_HYSTART_IN_CSS, CC_NEWRENO_HYSTART_IN_CSS);
      EXPECT_EQ(algo.data().css_baseline_minrtt, 20000u);
      EXPECT_EQ(algo.data().css_entered_at_round, 2u);
    }
  }
}

}  // namespace
}  // namespace netsim::cc
