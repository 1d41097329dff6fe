// CUBIC, stock (FreeBSD cc_cubic.c @ 00d3b744) and with review D46046 (@ e8130f15),
// driven through the framework wrappers as the base stack would. All expected
// values are worked out by hand in the comments (t_maxseg 1460, tcp_fixed_maxseg
// 1448; cubic_k / cubic_cwnd / tf_cwnd steps as in cc_cubic_math_test.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "netsim/cc/cc_framework.h"
#include "netsim/cc/cc_registry.h"
#include "netsim/cc/cubic.h"

namespace netsim::cc {
namespace {

// One connection with a CUBIC module, a kernel clock and a stack-supplied pipe.
struct Conn {
  Conn(std::string_view cc, int hz, int t_srtt) : algo(make_cc(cc)) {
    tp.hz = hz;
    tp.ticks = 5000;
    tp.t_srtt = t_srtt;
    tp.t_rttupdated = 50;
    tp.snd_wnd = 4'000'000;
    tp.snd_scale = 7;
    tp.snd_una = 1000;
    tp.snd_max = tp.snd_nxt = 1000 + 100'000'000;
    tp.tfb_compute_pipe = [this](const Tcpcb&) { return pipe; };
    cc_attach(tp, *algo);
    cc_conn_init(tp);
  }
  CubicData& d() { return dynamic_cast<Cubic&>(*algo).data(); }
  // The stack's order: cc_ack_received with snd_una not yet advanced, then snd_una = th_ack.
  void ack(std::uint32_t bytes, std::uint16_t nsegs = 1) {
    const tcp_seq th_ack = tp.snd_una + bytes;
    cc_ack_received(tp, th_ack, nsegs, CC_ACK);
    tp.snd_una = th_ack;
  }
  void acks(int n, std::uint32_t bytes) {
    for (int i = 0; i < n; ++i) ack(bytes);
  }
  void dupack() { cc_ack_received(tp, tp.snd_una, 1, CC_DUPACK); }
  // Loss -> 3 duplicate ACKs -> full ACK, in the base stack's order (notes 3.5): the full ACK
  // runs cc_post_recovery, then cc_ack_received(CC_ACK) still IN_RECOVERY, then EXIT_RECOVERY.
  void loss_and_recovery() {
    cc_cong_signal(tp, tp.snd_una, CC_NDUPACK);
    for (int i = 0; i < 3; ++i) dupack();
    cc_post_recovery(tp, tp.snd_una + 1448);
    ack(1448);
    EXIT_RECOVERY(tp.t_flags);
  }

  Tcpcb tp;
  std::unique_ptr<CcAlgo> algo;
  int pipe = 60000;
};

TEST(CcCubic, CbInitAndConnInit) {
  Conn c("cubic", 100, 7);
  EXPECT_EQ(c.d().t_epoch, 5000);  // ticks at cb_init
  EXPECT_EQ(c.d().min_rtt_usecs, 0);
  EXPECT_EQ(c.d().mean_rtt_usecs, 1);
  EXPECT_EQ(c.d().flags, CUBICFLAG_HYSTART_ENABLED);
  EXPECT_EQ(c.d().css_lastround_minrtt, 0xffffffffu);
  EXPECT_EQ(c.d().W_max, 14480u);  // conn_init: W_max = IW = 14480
  EXPECT_EQ(c.tp.snd_cwnd, 14480u);
  EXPECT_EQ(c.tp.t_ccv.cc_data, &c.d());
}

TEST(CcCubic, RecordRttAndTheMinRttGate) {
  Conn c("cubic", 100, 7);
  // Fewer than 8 RTT samples: srtt is ignored, and with min_rtt unset CUBIC stays in slow
  // start even above ssthresh: 20000 + min(1448, 2 * 1460) = 21448.
  c.tp.t_rttupdated = 7;
  c.tp.snd_cwnd = 20000;
  c.tp.snd_ssthresh = 10000;
  c.ack(1448);
  EXPECT_EQ(c.tp.snd_cwnd, 21448u);
  EXPECT_EQ(c.d().epoch_ack_count, 0);
  EXPECT_NE(c.d().flags & CUBICFLAG_IN_SLOWSTART, 0u);
  // 8 samples: srtt = (7 * 10000) >> 5 = 2187 us at hz = 100. min_rtt = max(10000 >> 5 = 312,
  // 2187) = 2187, mean_rtt primed to 2187, sum 2187, count 1.
  c.tp.t_rttupdated = 8;
  c.tp.snd_cwnd = 20000;
  c.ack(1448);
  EXPECT_EQ(c.d().min_rtt_usecs, 2187);
  EXPECT_EQ(c.d().mean_rtt_usecs, 2187);
  EXPECT_EQ(c.d().sum_rtt_usecs, 2187);
  EXPECT_EQ(c.d().epoch_ack_count, 1);
  // Every ACK type records, also in recovery: a DUPACK adds 2187 (and moves no window).
  c.dupack();
  EXPECT_EQ(c.d().sum_rtt_usecs, 4374);
  EXPECT_EQ(c.d().epoch_ack_count, 2);
  // A lower srtt (t_srtt 5: 50000 >> 5 = 1562) lowers min_rtt; mean_rtt is only ever raised here.
  c.tp.t_srtt = 5;
  c.dupack();
  EXPECT_EQ(c.d().min_rtt_usecs, 1562);
  EXPECT_EQ(c.d().mean_rtt_usecs, 2187);
  // A higher one does not raise min_rtt.
  c.tp.t_srtt = 11;  // 3437 us
  c.dupack();
  EXPECT_EQ(c.d().min_rtt_usecs, 1562);
  // post_recovery: mean_rtt = sum / count = (2187 + 2187 + 1562 + 3437) / 4 = 9373 / 4 = 2343.
  c.tp.t_flags = 0;
  cc_post_recovery(c.tp, c.tp.snd_una);
  EXPECT_EQ(c.d().mean_rtt_usecs, 2343);
  EXPECT_EQ(c.d().sum_rtt_usecs, 0);
  EXPECT_EQ(c.d().epoch_ack_count, 0);
  // The floor of min_rtt is one unshifted tick: at hz = 1000, t_srtt 0 gives srtt 0, and
  // min_rtt = max(1000 >> 5 = 31, 0) = 31.
  c.tp.hz = 1000;
  c.tp.t_srtt = 0;
  c.dupack();
  EXPECT_EQ(c.d().min_rtt_usecs, 31);
  // sum (0) < count (1): post_recovery keeps the old mean.
  cc_post_recovery(c.tp, c.tp.snd_una);
  EXPECT_EQ(c.d().mean_rtt_usecs, 2343);
}

TEST(CcCubic, FirstAndLaterCongestionEvents) {
  Conn c("cubic", 100, 7);
  c.tp.snd_cwnd = 116800;  // 80 x 1460, W_max still 14480
  c.ack(1448);             // prime min/mean rtt; slow start: + min(1448, 2920) -> 118248
  c.tp.snd_cwnd = 116800;
  c.tp.ticks = 5007;
  cc_cong_signal(c.tp, c.tp.snd_una, CC_NDUPACK);
  // First event, no fast convergence (116800 >= 14480): W_max = 116800; ssthresh = 58400;
  // W_max = 116800 * 179 >> 8 = 20907200 >> 8 = 81668; K = cubic_k(81668 / 1448 = 56) = 908.
  EXPECT_EQ(c.tp.snd_ssthresh, 58400u);
  EXPECT_EQ(c.d().W_max, 81668u);
  EXPECT_EQ(c.d().undo_W_max, 14480u);
  EXPECT_EQ(c.d().K, 908);
  EXPECT_EQ(c.d().t_epoch, 5007);
  EXPECT_EQ(c.d().flags & (CUBICFLAG_CONG_EVENT | CUBICFLAG_HYSTART_ENABLED), CUBICFLAG_CONG_EVENT);
  EXPECT_EQ(c.tp.t_flags & (TF_FASTRECOVERY | TF_CONGRECOVERY), TF_FASTRECOVERY | TF_CONGRECOVERY);
  EXPECT_EQ(c.tp.snd_cwnd, 116800u);  // cwnd is the stack's business (PRR)
  // A second NDUPACK inside the same recovery changes nothing.
  c.tp.snd_cwnd = 1000;
  cc_cong_signal(c.tp, c.tp.snd_una, CC_NDUPACK);
  EXPECT_EQ(c.tp.snd_ssthresh, 58400u);
  EXPECT_EQ(c.d().W_max, 81668u);
  // A later event below W_max (fast convergence): cwnd 64193: c = 64193 * 217 >> 8 =
  // 13929881 >> 8 = 54413 = W_max; ssthresh = 54413 * 179 >> 8 = 9739927 >> 8 = 38046;
  // K = cubic_k(54413 / 1448 = 37): s = 729344 / 102 = 7150; 893; 111 (p 2);
  // 111 * 275 >> 8 = 119; 12321 * 120 >> 16 = 22; (119 + 98 - 22) << 2 = 780.
  c.tp.t_flags = 0;
  c.tp.snd_cwnd = 64193;
  c.tp.ticks = 5100;
  cc_cong_signal(c.tp, c.tp.snd_una, CC_NDUPACK);
  EXPECT_EQ(c.d().W_max, 54413u);
  EXPECT_EQ(c.tp.snd_ssthresh, 38046u);
  EXPECT_EQ(c.d().K, 780);
  EXPECT_EQ(c.d().t_epoch, 5100);
  // ECN: the same update, and cwnd = ssthresh, congestion recovery only. cwnd 60000 >= W_max:
  // W_max = 60000, ssthresh = 60000 * 179 >> 8 = 41953.
  c.tp.t_flags = 0;
  c.tp.snd_cwnd = 60000;
  cc_cong_signal(c.tp, c.tp.snd_una, CC_ECN);
  EXPECT_EQ(c.tp.snd_ssthresh, 41953u);
  EXPECT_EQ(c.tp.snd_cwnd, 41953u);
  EXPECT_EQ(c.tp.t_flags & (TF_FASTRECOVERY | TF_CONGRECOVERY), TF_CONGRECOVERY);
}

TEST(CcCubic, RtoThenSpuriousRtoUndo) {
  Conn c("cubic", 100, 7);
  c.tp.snd_cwnd = 116800;
  c.ack(1448);
  c.tp.snd_cwnd = 116800;
  cc_cong_signal(c.tp, c.tp.snd_una, CC_NDUPACK);  // W_max 81668, K 908, t_epoch 5000
  EXPECT_EQ(c.d().K, 908);
  c.tp.t_flags = 0;
  // First RTO at tick 5100: ssthresh = max(2, ((min(snd_wnd, pipe) * 179) >> 8) / 1448) * 1448:
  // pipe 50000: 8950000 >> 8 = 34960; / 1448 = 24 -> 34752. cwnd = 1448.
  c.tp.ticks = 5100;
  c.tp.t_rxtshift = 1;
  c.pipe = 50000;
  cc_cong_signal(c.tp, std::nullopt, CC_RTO);
  EXPECT_EQ(c.tp.snd_ssthresh, 34752u);
  EXPECT_EQ(c.tp.snd_cwnd, 1448u);
  EXPECT_EQ(c.d().flags & (CUBICFLAG_CONG_EVENT | CUBICFLAG_RTO_EVENT), CUBICFLAG_CONG_EVENT | CUBICFLAG_RTO_EVENT);
  EXPECT_EQ(c.d().undo_K, 908);
  EXPECT_EQ(c.d().undo_t_epoch, 5000);
  EXPECT_EQ(c.d().undo_W_max, 81668u);
  // A second RTO keeps ssthresh and the undo state.
  c.tp.t_rxtshift = 2;
  c.pipe = 1'000'000;
  cc_cong_signal(c.tp, std::nullopt, CC_RTO);
  EXPECT_EQ(c.tp.snd_ssthresh, 34752u);
  // Retransmitting after the RTO (snd_nxt pulled back): slow start by min(bytes, t_maxseg).
  c.tp.snd_nxt = c.tp.snd_una;
  c.ack(1448);
  EXPECT_EQ(c.tp.snd_cwnd, 2896u);
  // Past ssthresh after slow start following an RTO (RFC 8312 4.7): W_max = cwnd, K = 0,
  // t_epoch = ticks. cwnd 40000: W_est = 40000 * 179 >> 8 = 27968; W_cubic at 2187 us with K 0:
  // x = 559872 / 10^6 = 0 -> 40000. Not above cwnd: cwnd stays 40000.
  c.tp.snd_nxt = c.tp.snd_max;
  c.tp.snd_cwnd = 40000;
  c.ack(2896);
  EXPECT_EQ(c.d().W_max, 40000u);
  EXPECT_EQ(c.d().K, 0);
  EXPECT_EQ(c.d().t_epoch, 5100);
  EXPECT_EQ(c.d().flags & (CUBICFLAG_RTO_EVENT | CUBICFLAG_IN_SLOWSTART), 0u);
  EXPECT_EQ(c.tp.snd_cwnd, 40000u);
  // The RTO was spurious: the wrapper restores cwnd/ssthresh, the module K, W_max (as saved at
  // the last RTO), t_epoch, and clears CONG_EVENT and RTO_EVENT.
  c.tp.snd_cwnd_prev = 116800;
  c.tp.snd_ssthresh_prev = 58400;
  cc_cong_signal(c.tp, c.tp.snd_una, CC_RTO_ERR);
  EXPECT_EQ(c.tp.snd_cwnd, 116800u);
  EXPECT_EQ(c.tp.snd_ssthresh, 58400u);
  EXPECT_EQ(c.d().K, 908);
  EXPECT_EQ(c.d().W_max, 81668u);
  EXPECT_EQ(c.d().t_epoch, 5000);
  EXPECT_EQ(c.d().flags & (CUBICFLAG_CONG_EVENT | CUBICFLAG_RTO_EVENT), 0u);
}

TEST(CcCubic, PostRecovery) {
  Conn c("cubic", 100, 7);
  c.d().W_max = 81668;
  c.tp.snd_ssthresh = 58400;
  c.tp.t_flags = TF_FASTRECOVERY | TF_CONGRECOVERY;
  // pipe < ssthresh: max(pipe, 1460) + 1460.
  c.pipe = 20000;
  cc_post_recovery(c.tp, c.tp.snd_una);
  EXPECT_EQ(c.tp.snd_cwnd, 21460u);
  c.pipe = 100;
  cc_post_recovery(c.tp, c.tp.snd_una);
  EXPECT_EQ(c.tp.snd_cwnd, 2920u);
  // pipe >= ssthresh: max(W_max * 179 >> 8, 2 * 1460) = 14618572 >> 8 = 57103.
  c.pipe = 60000;
  cc_post_recovery(c.tp, c.tp.snd_una);
  EXPECT_EQ(c.tp.snd_cwnd, 57103u);
  // Small W_max: 3000 * 179 >> 8 = 2097 < 2920 -> 2920.
  c.d().W_max = 3000;
  cc_post_recovery(c.tp, c.tp.snd_una);
  EXPECT_EQ(c.tp.snd_cwnd, 2920u);
  // sack.revised = 0: pipe = snd_max - curack.
  c.tp.sysctl.tcp_do_newsack = 0;
  cc_post_recovery(c.tp, c.tp.snd_max - 30000);
  EXPECT_EQ(c.tp.snd_cwnd, 31460u);
  // Not in fast recovery: cwnd untouched.
  c.tp.t_flags = TF_CONGRECOVERY;
  c.tp.snd_cwnd = 777;
  cc_post_recovery(c.tp, c.tp.snd_una);
  EXPECT_EQ(c.tp.snd_cwnd, 777u);
}

TEST(CcCubic, AfterIdle) {
  Conn c("cubic", 100, 7);
  c.d().W_max = 81668;
  c.d().flags = CUBICFLAG_CONG_EVENT;  // HyStart++ disabled by an earlier loss
  c.tp.snd_cwnd = 100000;
  c.tp.snd_ssthresh = 30000;
  c.tp.ticks = 9000;
  cc_after_idle(c.tp);
  // W_max = max(81668, 100000); K = cubic_k(100000 / 1460 = 68): s = 1340416 / 102 = 13141;
  // 1642; 205 (p 2); 205 * 275 >> 8 = 220; 42025 * 120 >> 16 = 76; (220 + 98 - 76) << 2 = 968.
  EXPECT_EQ(c.d().W_max, 100000u);
  EXPECT_EQ(c.d().K, 968);
  // NewReno's after_idle: ssthresh = max(30000, 75000), cwnd = min(14480, 100000).
  EXPECT_EQ(c.tp.snd_ssthresh, 75000u);
  EXPECT_EQ(c.tp.snd_cwnd, 14480u);
  EXPECT_EQ(c.d().t_epoch, 9000);
  EXPECT_NE(c.d().flags & CUBICFLAG_HYSTART_ENABLED, 0u);
}

TEST(CcCubic, AppLimitedAcksRestartTheEpoch) {
  Conn c("cubic", 100, 7);
  c.ack(1448);  // min/mean rtt 2187; slow start 14480 -> 15928
  c.tp.snd_cwnd = 60000;
  c.tp.snd_ssthresh = 30000;
  c.d().W_max = 81668;
  c.d().flags = CUBICFLAG_CONG_EVENT;
  c.d().t_epoch = 4000;
  c.d().K = 1;
  // Not cwnd limited (cwnd > snd_wnd): IN_APPLIMIT, nothing else.
  c.tp.snd_wnd = 50000;
  c.ack(2896);
  EXPECT_NE(c.d().flags & CUBICFLAG_IN_APPLIMIT, 0u);
  EXPECT_EQ(c.tp.snd_cwnd, 60000u);
  EXPECT_EQ(c.d().t_epoch, 4000);
  // The next cwnd-limited ACK restarts the epoch at ticks with K from W_max / t_maxseg:
  // 81668 / 1460 = 55 -> 904 (not 908 as with 1448 at the loss).
  c.tp.snd_wnd = 4'000'000;
  c.tp.ticks = 5004;
  c.ack(2896);
  EXPECT_EQ(c.d().flags & CUBICFLAG_IN_APPLIMIT, 0u);
  EXPECT_EQ(c.d().t_epoch, 5004);
  EXPECT_EQ(c.d().K, 904);
}

// Notes 2.7: at hz = 100 on a sub-millisecond path, stock CUBIC's additive increase only moves
// when `ticks` moves and runs on an inflated mean_rtt (2187 us for a 0.5 ms path); D46046 grows
// by byte counting like NewReno. The same ACK stream is fed to both.
TEST(CcCubic, Hz100StockGrowsPerTickD46046PerAckedWindow) {
  Conn stock("cubic", 100, 7);
  Conn patched("cubic_d46046", 100, 7);
  for (Conn* c : {&stock, &patched}) {
    // Slow start reached 80 segments; one ACK primes min/mean rtt (2187 us) and makes it 116800.
    c->tp.snd_cwnd = 115352;
    c->ack(1448);
    ASSERT_EQ(c->tp.snd_cwnd, 116800u);
    // First loss at tick 5000 (ssthresh 58400, W_max 81668, K 908) and its recovery: 3 dupacks,
    // full ACK with pipe 60000 >= ssthresh: cwnd = 81668 * 179 >> 8 = 57103; mean_rtt = 2187.
    c->loss_and_recovery();
    ASSERT_EQ(c->tp.snd_ssthresh, 58400u);
    ASSERT_EQ(c->tp.snd_cwnd, 57103u);
    ASSERT_EQ(c->d().mean_rtt_usecs, 2187);
    // 57103 <= 58400: slow start, + min(2896, 2920) -> 59999, IN_SLOWSTART.
    c->ack(2896);
    ASSERT_EQ(c->tp.snd_cwnd, 59999u);
  }

  // Phase 1: 42 ACKs of 2896 bytes, all within tick 5000 (~2 RTTs of a 0.5 ms path).
  // The first one restarts the epoch: t_epoch = 5000, K = cubic_k(81668 / 1460 = 55) = 904,
  // t = 0. W_cubic = cubic_cwnd(0 + 2187, 81668, 1460, 904): x = -903.44 -> -903;
  // -903^3 * 102 >> 32 = -17.5 -> -18 -> 81668 - 26280 = 55388.
  // Stock: W_est = tf_cwnd(0, ...) = 81668 * 179 >> 8 = 57103 > W_cubic, but below cwnd:
  // no growth while ticks stands still.
  // D46046: W_est = cwnd + 1460 per cwnd of acked bytes; with 2896-byte ACKs the increments come
  // when 2896 * n reaches 59999 (n = 21) and 59999 + 61459 = 121458 (n = 42): 62919, IN_TF.
  stock.acks(42, 2896);
  patched.acks(42, 2896);
  EXPECT_EQ(stock.d().t_epoch, 5000);
  EXPECT_EQ(stock.d().K, 904);
  EXPECT_EQ(stock.tp.snd_cwnd, 59999u);
  EXPECT_EQ(patched.tp.snd_cwnd, 62919u);
  EXPECT_NE(patched.d().flags & CUBICFLAG_IN_TF, 0u);
  EXPECT_EQ(stock.d().flags & CUBICFLAG_IN_TF, 0u);

  // Phase 2: tick 5001 (10 ms after the epoch start), 420 more ACKs (~17 windows, i.e.
  // ~17 RTTs of a 0.5 ms path).
  // Stock: t = 10000 us: W_est = (14618572 + 863385600000 / 951345 = 907541) >> 8 = 60648;
  // it stays there for the whole tick (+649 bytes for 10 ms).
  // D46046: byte counting over 462 x 2896 = 1337952 bytes: the largest n with
  // sum_{i<n} (59999 + 1460 i) = 59999 n + 730 n (n - 1) <= 1337952 is n = 18
  // (1303362; n = 19 needs 1389641): cwnd = 59999 + 18 x 1460 = 86279.
  stock.tp.ticks = patched.tp.ticks = 5001;
  stock.ack(2896);
  EXPECT_EQ(stock.tp.snd_cwnd, 60648u);
  stock.acks(419, 2896);
  patched.acks(420, 2896);
  EXPECT_EQ(stock.tp.snd_cwnd, 60648u);
  EXPECT_EQ(patched.tp.snd_cwnd, 86279u);

  // Phase 3: tick 5002: stock W_est(20000) = (14618572 + 1815083) >> 8 = 64193. D46046 needs
  // 1389641 bytes for its next step: one more ACK (1340848) changes nothing.
  stock.tp.ticks = patched.tp.ticks = 5002;
  stock.ack(2896);
  patched.ack(2896);
  EXPECT_EQ(stock.tp.snd_cwnd, 64193u);
  EXPECT_EQ(patched.tp.snd_cwnd, 86279u);

  // Second loss at tick 5002.
  // Stock, fast convergence (64193 < 81668): W_max = 54413, ssthresh = 38046, K = 780 (1448).
  // Post recovery (pipe >= ssthresh): cwnd = 54413 * 179 >> 8 = 38046 == ssthresh, so the next
  // ACK is a slow-start ACK (+2896 -> 40942, IN_SLOWSTART) and the one after restarts the epoch
  // once more: t_epoch = ticks, K = cubic_k(54413 / 1460 = 37) = 780.
  stock.loss_and_recovery();
  EXPECT_EQ(stock.d().W_max, 54413u);
  EXPECT_EQ(stock.tp.snd_ssthresh, 38046u);
  EXPECT_EQ(stock.tp.snd_cwnd, 38046u);
  stock.ack(2896);
  EXPECT_EQ(stock.tp.snd_cwnd, 40942u);
  EXPECT_NE(stock.d().flags & CUBICFLAG_IN_SLOWSTART, 0u);
  stock.tp.ticks = 5003;
  stock.ack(2896);
  EXPECT_EQ(stock.d().t_epoch, 5003);
  EXPECT_EQ(stock.d().K, 780);
  // t = 0 again: W_est = 38046, W_cubic = cubic_cwnd(2187, 54413, 1460, 780) = 36893: no growth.
  EXPECT_EQ(stock.tp.snd_cwnd, 40942u);

  // D46046 in the TCP-friendly region: no fast convergence (86279 >= 81668), W_max = 86279 (not
  // reduced to 0.7), ssthresh = NewReno's 86279 * 50 / 144800 = 29 -> 29 x 1448 = 41992,
  // K = cubic_k(86279 / 1448 = 59) = 924. Post recovery: cwnd = 86279 * 179 >> 8 = 60327 >
  // ssthresh, so the next ACK is already congestion avoidance and the epoch is not restarted:
  // t = 0, W_cubic = cubic_cwnd(2187, 86279, 1460, 924) = 86279 - 19 x 1460 = 58539 < W_est = 60327.
  patched.loss_and_recovery();
  EXPECT_EQ(patched.d().W_max, 86279u);
  EXPECT_EQ(patched.tp.snd_ssthresh, 41992u);
  EXPECT_EQ(patched.d().K, 924);
  EXPECT_EQ(patched.tp.snd_cwnd, 60327u);
  patched.tp.ticks = 5003;
  patched.ack(2896);
  EXPECT_EQ(patched.d().t_epoch, 5002);
  EXPECT_EQ(patched.tp.snd_cwnd, 60327u);
  EXPECT_NE(patched.d().flags & CUBICFLAG_IN_TF, 0u);
}

// The same stream at hz = 1000 (t_srtt 16 -> srtt 500 us, 42 ACKs per 1 ms tick): stock follows
// W_est tick by tick to tf_cwnd(10000, 500, 81668, 1460) = (14618572 + 863385600000 / 217500 =
// 3969588) >> 8 = 72610 after 10 ms, against 60648 at hz = 100. D46046 is unaffected by hz.
TEST(CcCubic, Hz1000StockKeepsUpBetterD46046IsHzIndependent) {
  Conn stock("cubic", 1000, 16);
  Conn patched("cubic_d46046", 1000, 16);
  for (Conn* c : {&stock, &patched}) {
    c->tp.snd_cwnd = 115352;
    c->ack(1448);
    ASSERT_EQ(c->d().min_rtt_usecs, 500);  // max(1000 >> 5 = 31, 500)
    c->loss_and_recovery();
    ASSERT_EQ(c->tp.snd_cwnd, 57103u);
    ASSERT_EQ(c->d().mean_rtt_usecs, 500);
    c->ack(2896);
    ASSERT_EQ(c->tp.snd_cwnd, 59999u);
    c->acks(42, 2896);  // tick 5000: epoch start, t = 0
    for (int k = 1; k <= 10; ++k) {
      c->tp.ticks = 5000 + k;
      c->acks(42, 2896);
    }
  }
  EXPECT_EQ(stock.tp.snd_cwnd, 72610u);
  // 462 ACKs of 2896 bytes, as at hz = 100: n = 18 -> 86279.
  EXPECT_EQ(patched.tp.snd_cwnd, 86279u);
}

TEST(CcCubic, TickWrapDragsTheEpochAlong) {
  Conn c("cubic", 1000, 16);
  c.ack(1448);
  c.tp.snd_cwnd = 60000;
  c.tp.snd_ssthresh = 30000;
  c.d().flags = CUBICFLAG_CONG_EVENT;
  c.d().W_max = 81668;
  c.d().K = 904;
  // (ticks - t_epoch) * tick overflows int: 3000000 ticks * 1000 us > INT_MAX -> negative after
  // wrapping -> usecs = INT_MAX and t_epoch = ticks - INT_MAX (int, wrapping).
  c.d().t_epoch = 0;
  c.tp.ticks = 3'000'000;
  c.ack(2896);
  EXPECT_EQ(c.d().t_epoch, static_cast<int>(3'000'000u - 2147483647u));
  // W_cubic = cubic_cwnd(INT_MAX + 500 (wraps negative), ...) = 0 and W_est = tf_cwnd(INT_MAX,
  // 500, 81668, 1460) is huge: cwnd = min(W_est, INT_MAX).
  EXPECT_EQ(c.tp.snd_cwnd, static_cast<std::uint32_t>(INT_MAX));
}

}  // namespace
}  // namespace netsim::cc
