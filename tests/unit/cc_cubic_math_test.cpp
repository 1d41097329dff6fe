// Golden values for the CUBIC fixed-point helpers (FreeBSD cc_cubic.h @
// 0162500b, cc_cubic.c @ 00d3b744 and, for D46046, @ e8130f15 / cc_cubic.h @
// f30bcb15). Every expected value below is worked out by hand in the comment
// next to it, with FreeBSD's integer widths: "/" truncates toward zero, ">>" on
// a negative int64 floors, u_int/unsigned long wrap.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>

#include "netsim/cc/cc_framework.h"
#include "netsim/cc/cubic_math.h"
#include "netsim/cc/newreno.h"

namespace netsim::cc {
namespace {

TEST(CcCubicMath, ConstantsAreFreeBsds) {
  EXPECT_EQ(CUBIC_SHIFT, 8);
  EXPECT_EQ(CUBIC_SHIFT_4, 32);
  EXPECT_EQ(RENO_BETA, 128);
  EXPECT_EQ(CUBIC_BETA, 179);
  EXPECT_EQ(ONE_SUB_CUBIC_BETA, 77);
  EXPECT_EQ(THREE_X_PT3, 231);
  EXPECT_EQ(TWO_SUB_PT3, 435);
  EXPECT_EQ(CUBIC_C_FACTOR, 102);
  EXPECT_EQ(CUBIC_FC_FACTOR, 217);
  EXPECT_EQ(CUBIC_MIN_RTT_SAMPLES, 8);
  EXPECT_EQ(CUBED_ROOT_MAX_ULONG, 448845);
  // Relations the header documents.
  EXPECT_EQ(CUBIC_BETA + ONE_SUB_CUBIC_BETA, 256);
  EXPECT_EQ(THREE_X_PT3, 3 * ONE_SUB_CUBIC_BETA);
  EXPECT_EQ(TWO_SUB_PT3, (2 << CUBIC_SHIFT) - ONE_SUB_CUBIC_BETA);
  // The clamp is the largest |x| whose C * x^3 fits in int64:
  // 448845^3 * 102 = 9 223 363 963 081 014 750 < 2^63 - 1 = 9 223 372 036 854 775 807,
  // 448846^3 * 102 = 9 223 425 617 ...        > 2^63 - 1.
  const std::int64_t x = CUBED_ROOT_MAX_ULONG;
  EXPECT_EQ(x * x * x * CUBIC_C_FACTOR, 9223363963081014750LL);
  EXPECT_EQ(CUBICFLAG_CONG_EVENT, 0x01u);
  EXPECT_EQ(CUBICFLAG_IN_SLOWSTART, 0x02u);
  EXPECT_EQ(CUBICFLAG_IN_APPLIMIT, 0x04u);
  EXPECT_EQ(CUBICFLAG_RTO_EVENT, 0x08u);
  EXPECT_EQ(CUBICFLAG_HYSTART_ENABLED, 0x10u);
  EXPECT_EQ(CUBICFLAG_HYSTART_IN_CSS, 0x20u);
  EXPECT_EQ(CUBICFLAG_IN_TF, 0x40u);
}

// s = ((w * 77) << 8) / 102; while (s >= 256) { s >>= 3; ++p; }
// K = ((s * 275) >> 8) + 98 - (((s * s * 120) >> 8) >> 8); K << p.
TEST(CcCubicMath, CubicKByHand) {
  // w = 0: s = 0, K = 0 + 98 - 0 = 98.
  EXPECT_EQ(cubic_k(0), 98);
  // w = 1: s = 19712 / 102 = 193 (193.25). 193 * 275 = 53075 >> 8 = 207;
  // 193^2 * 120 = 4469880 >> 8 = 17460 >> 8 = 68. K = 207 + 98 - 68 = 237, p = 0.
  // (cbrt(0.75) * 256 = 232.6: the polynomial is ~2 % high here.)
  EXPECT_EQ(cubic_k(1), 237);
  // w = 10: s = 197120 / 102 = 1932; >> 3 = 241 (p = 1). 241 * 275 = 66275 >> 8 = 258;
  // 241^2 * 120 = 6969720 >> 8 = 27225 >> 8 = 106. K = 258 + 98 - 106 = 250 << 1 = 500.
  EXPECT_EQ(cubic_k(10), 500);
  // w = 39: s = 768768 / 102 = 7536; >> 3 = 942; >> 3 = 117 (p = 2). 117 * 275 = 32175 >> 8 = 125;
  // 117^2 * 120 = 1642680 >> 8 = 6416 >> 8 = 25. K = 125 + 98 - 25 = 198 << 2 = 792.
  EXPECT_EQ(cubic_k(39), 792);
  // w = 40: s = 788480 / 102 = 7730; 966; 120 (p = 2). 120 * 275 = 33000 >> 8 = 128;
  // 14400 * 120 = 1728000 >> 8 = 6750 >> 8 = 26. K = 128 + 98 - 26 = 200 << 2 = 800.
  EXPECT_EQ(cubic_k(40), 800);
  // w = 55: s = 1084160 / 102 = 10629; 1328; 166 (p = 2). 166 * 275 = 45650 >> 8 = 178;
  // 27556 * 120 = 3306720 >> 8 = 12916 >> 8 = 50. K = 178 + 98 - 50 = 226 << 2 = 904.
  EXPECT_EQ(cubic_k(55), 904);
  // w = 56: s = 1103872 / 102 = 10822; 1352; 169 (p = 2). 169 * 275 = 46475 >> 8 = 181;
  // 28561 * 120 = 3427320 >> 8 = 13388 >> 8 = 52. K = 181 + 98 - 52 = 227 << 2 = 908.
  EXPECT_EQ(cubic_k(56), 908);
  // w = 80: s = 1576960 / 102 = 15460; 1932; 241 (p = 2): as for w = 10, 250 << 2 = 1000.
  EXPECT_EQ(cubic_k(80), 1000);
  // w = 10000: s = 197120000 / 102 = 1932549; 241568; 30196; 3774; 471; 58 (p = 5).
  // 58 * 275 = 15950 >> 8 = 62; 3364 * 120 = 403680 >> 8 = 1576 >> 8 = 6.
  // K = 62 + 98 - 6 = 154 << 5 = 4928 (19.25 s; cbrt(7500) = 19.57 s).
  EXPECT_EQ(cubic_k(10000), 4928);
  // unsigned long wraps: w = 2^56: (2^56 * 77) << 8 = 77 * 2^64 = 0 (mod 2^64), so s = 0, K = 98.
  EXPECT_EQ(cubic_k(1UL << 56), 98);
  // The same W_max = 57920 bytes gives different K with the two segment sizes
  // FreeBSD uses at different call sites: 57920 / 1460 = 39, 57920 / 1448 = 40.
  EXPECT_EQ(cubic_k(57920UL / 1460), 792);
  EXPECT_EQ(cubic_k(57920UL / 1448), 800);
  static_assert(cubic_k(10) == 500, "cubic_k is usable in constant expressions");
}

TEST(CcCubicMath, CubicKStaysNearTheCubeRoot) {
  // The Apple TR polynomial: within 4 % of cbrt(w * 77 / 102) for realistic windows.
  for (unsigned long w = 10; w <= 10000; ++w) {
    const double exact = std::cbrt(static_cast<double>(w) * 77.0 / 102.0) * 256.0;
    const double k = static_cast<double>(cubic_k(w));
    ASSERT_NEAR(k / exact, 1.0, 0.04) << "w = " << w;
  }
}

// x = ((t << 8) - K * 10^6) / 10^6 (truncating); |x| clamp 448845;
// c = (x^3 * 102) >> 32 (floor); W = c * smss + wmax; max(0, W).
TEST(CcCubicMath, CubicCwndByHand) {
  // W_max = 10 segments of 1460 = 14600, K = 500, t = mean_rtt = 2187 us (hz = 100 srtt floor):
  // x = (559872 - 500000000) / 10^6 = -499.44 -> -499; -499^3 = -124251499;
  // * 102 = -12673652898; >> 32 = -2.95 -> -3. W = -3 * 1460 + 14600 = 10220 (7 segments).
  EXPECT_EQ(cubic_cwnd(2187, 14600, 1460, 500, 100), 10220UL);
  EXPECT_EQ(cubic_cwnd(2187, 14600, 1460, 500, 1000), 10220UL);  // hz * tick == 10^6 for both
  // t = K exactly: 500 / 256 s = 1953125 us -> x = 0 -> W = W_max.
  EXPECT_EQ(cubic_cwnd(1953125, 14600, 1460, 500), 14600UL);
  // Truncation toward zero vs floor of the shift, just before K:
  // t = 1949219: 1949219 * 256 = 499000064; - 5 * 10^8 = -999936; / 10^6 = -0.99 -> 0 -> W_max.
  EXPECT_EQ(cubic_cwnd(1949219, 14600, 1460, 500), 14600UL);
  // t = 1949218: 498999808 - 5 * 10^8 = -1000192 -> -1; (-1 * 102) >> 32 = -1 (floor), so one
  // segment less: 14600 - 1460 = 13140.
  EXPECT_EQ(cubic_cwnd(1949218, 14600, 1460, 500), 13140UL);
  // Just after K: t = 1957032 -> x = 1000192 / 10^6 = 1; (1 * 102) >> 32 = 0 -> W_max.
  EXPECT_EQ(cubic_cwnd(1957032, 14600, 1460, 500), 14600UL);
  // Convex region, t = 10 s: x = (2560000000 - 500000000) / 10^6 = 2060; 2060^3 = 8741816000;
  // * 102 = 891665232000; >> 32 = 207.6 -> 207. W = 207 * 1460 + 14600 = 316820.
  EXPECT_EQ(cubic_cwnd(10000000, 14600, 1460, 500), 316820UL);
  // W_max in 1448 units: 40 * 1448 = 57920, K = cubic_k(40) = 800, t = 500:
  // x = (128000 - 800000000) / 10^6 = -799.87 -> -799; -799^3 = -510082399; * 102 = -52028404698;
  // >> 32 = -12.11 -> -13. smss 1448: 57920 - 13 * 1448 = 39096; smss 1460: 57920 - 18980 = 38940.
  EXPECT_EQ(cubic_cwnd(500, 57920, 1448, 800), 39096UL);
  EXPECT_EQ(cubic_cwnd(500, 57920, 1460, 800), 38940UL);
  // Negative t (never passed by FreeBSD, which clamps to INT_MAX): t = -1 s, K = 0:
  // x = -256000000 / 10^6 = -256; -16777216 * 102 = -1711276032 >> 32 = -1 -> 14600 - 1460 = 13140.
  EXPECT_EQ(cubic_cwnd(-1000000, 14600, 1460, 0), 13140UL);
}

TEST(CcCubicMath, CubicCwndClamps) {
  // Upper clamp. K = 0, t = 1753300782: t * 256 = 448845000192, / 10^6 = 448845 -> not clamped:
  // 448845^3 * 102 = 9223363963081014750, >> 32 = 2147481768, * 1460 = 3135323381280,
  // + 14600 = 3135323395880 (an unsigned long far above INT_MAX; the caller clamps).
  EXPECT_EQ(cubic_cwnd(1753300782, 14600, 1460, 0), 3135323395880UL);
  // t = 1753304688: 448846000128 / 10^6 = 448846 > 448845 -> INT_MAX.
  EXPECT_EQ(cubic_cwnd(1753304688, 14600, 1460, 0), static_cast<unsigned long>(INT_MAX));
  // INT_MAX us: 549755813632 / 10^6 = 549755 -> INT_MAX.
  EXPECT_EQ(cubic_cwnd(INT_MAX, 0, 1460, 0), static_cast<unsigned long>(INT_MAX));
  // Lower clamp: t = 0, K = 448846 -> x = -448846 -> 0.
  EXPECT_EQ(cubic_cwnd(0, 14600, 1460, 448846), 0UL);
  // K = 448845: x = -448845, not clamped, but -2147481769 * 1460 + 14600 < 0 -> max(0, .) = 0.
  EXPECT_EQ(cubic_cwnd(0, 14600, 1460, 448845), 0UL);
  // W_max >= 2^63: c = 0, 0 + 2^63 stored into the int64 is negative -> 0.
  EXPECT_EQ(cubic_cwnd(0, 1UL << 63, 1460, 0), 0UL);
}

TEST(CcCubicMath, CubicCwndUsesHzTimesTick) {
  // hz * tick is 10^6 for hz = 100 and 1000 but 1024 * 976 = 999424 for hz = 1024.
  // With K = 0 the segment step from 0 to 1 is at x = 348 (347^3 * 102 = 4261756146 < 2^32 <=
  // 348^3 * 102 = 4298707584). t = 1359000: t * 256 = 347904000.
  //   hz = 1000: / 10^6 = 347.9 -> 347 -> 0 segments -> W_max.
  //   hz = 1024: / 999424 = 348.1 -> 348 -> 1 segment -> W_max + smss.
  EXPECT_EQ(cubic_cwnd(1359000, 14600, 1460, 0, 1000), 14600UL);
  EXPECT_EQ(cubic_cwnd(1359000, 14600, 1460, 0, 100), 14600UL);
  EXPECT_EQ(cubic_cwnd(1359000, 14600, 1460, 0, 1024), 16060UL);
}

// W_est = (wmax * 179 + ((231 * t * smss) << 8) / (435 * rtt)) >> 8
TEST(CcCubicMath, TfCwndStockByHand) {
  // W_max = 14600 (10 x 1460): wmax * 179 = 2613400.
  // t = 0: 2613400 >> 8 = 10208 (6.99 segments).
  EXPECT_EQ(tf_cwnd(0, 2187, 14600, 1460), 10208UL);
  // hz = 100, mean_rtt = 2187, t = 1 tick = 10000: 231 * 10000 * 1460 = 3372600000, << 8 =
  // 863385600000, / (435 * 2187 = 951345) = 907541; (2613400 + 907541) >> 8 = 13753 (9.42 seg).
  EXPECT_EQ(tf_cwnd(10000, 2187, 14600, 1460), 13753UL);
  // t = 2 ticks = 20000: 1726771200000 / 951345 = 1815083; 4428483 >> 8 = 17298 (11.85 seg).
  EXPECT_EQ(tf_cwnd(20000, 2187, 14600, 1460), 17298UL);
  // hz = 1000, mean_rtt = 500, t = 1 tick = 1000: 337260000 << 8 = 86338560000, / 217500 =
  // 396958; 3010358 >> 8 = 11759 (8.05 seg); t = 2000: 793917 -> 3407317 >> 8 = 13309 (9.12).
  EXPECT_EQ(tf_cwnd(1000, 500, 14600, 1460), 11759UL);
  EXPECT_EQ(tf_cwnd(2000, 500, 14600, 1460), 13309UL);
  // smss 1448, W_max = 57920, hz = 100: 57920 * 179 = 10367680; 231 * 10000 * 1448 =
  // 3344880000 << 8 = 856289280000, / 951345 = 900082; 11267762 >> 8 = 44014.
  EXPECT_EQ(tf_cwnd(10000, 2187, 57920, 1448), 44014UL);
  // t = INT_MAX, rtt = 1: 231 * 2147483647 * 1460 = 724260334787220, << 8 =
  // 185410645705528320, / 435 = 426231369437996; >> 8 = 1664966286867.
  EXPECT_EQ(tf_cwnd(INT_MAX, 1, 0, 1460), 1664966286867UL);
  // 435 * rtt overflows int above 4936867 us and wraps (the kernel builds with -fwrapv):
  // 435 * 5000000 = 2175000000 -> -2119967296 -> as unsigned long 18446744071589584320, so the
  // quotient is 0 and W_est = 0.7 * W_max = 10208 (an exact 64-bit product would give 10363).
  EXPECT_EQ(tf_cwnd(1000000, 5000000, 14600, 1460), 10208UL);
}

// The worked table of notes section 2.6 (t_maxseg 1460; hz = 100 with mean_rtt 2187 us and
// hz = 1000 with mean_rtt 500 us); W_cubic is evaluated at t + mean_rtt as in ack_received.
TEST(CcCubicMath, NotesTable26) {
  struct Row {
    unsigned long segs;
    std::int64_t K;
    unsigned long w_cubic_t0, w_cubic_1tick100;
    unsigned long w_est100[3], w_est1000[3];
  };
  // 40 segs: x = (2187 * 256 - 8 * 10^8) / 10^6 = -799.44 -> -799 -> -13 segs (as in
  // CubicCwndByHand) -> 58400 - 18980 = 39420 (27 segments); one tick later
  // x = (12187 * 256 - 8 * 10^8) / 10^6 = -796.88 -> -796; -796^3 * 102 = -51444550272,
  // >> 32 = -11.98 -> -12 -> 58400 - 17520 = 40880 (28 segments).
  // 10 segs: x = -499 then -496, both -3 segments: 14600 - 4380 = 10220 (7 segments).
  // 80 segs: x = -999 then -996, both -24 segments: 116800 - 35040 = 81760 (56 segments).
  const Row rows[] = {
      {10, 500, 10220, 10220, {10208, 13753, 17298}, {10208, 11759, 13309}},
      {40, 800, 39420, 40880, {40834, 44379, 47924}, {40834, 42384, 43935}},
      {80, 1000, 81760, 81760, {81668, 85213, 88758}, {81668, 83219, 84769}},
  };
  for (const Row& r : rows) {
    const unsigned long wmax = r.segs * 1460;
    EXPECT_EQ(cubic_k(r.segs), r.K);
    EXPECT_EQ(cubic_cwnd(0 + 2187, wmax, 1460, r.K, 100), r.w_cubic_t0);
    EXPECT_EQ(cubic_cwnd(10000 + 2187, wmax, 1460, r.K, 100), r.w_cubic_1tick100);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(tf_cwnd(i * 10000, 2187, wmax, 1460), r.w_est100[i]) << r.segs << " segs, " << i << " ticks";
      EXPECT_EQ(tf_cwnd(i * 1000, 500, wmax, 1460), r.w_est1000[i]) << r.segs << " segs, " << i << " ticks";
    }
  }
}

TEST(CcCubicMath, RenoCwndIs32BitInside) {
  // ((wmax * 128) + (((t * smss) << 8) / rtt)) >> 8 with t * smss in 32-bit unsigned.
  // t = 10000: 14600000 << 8 = 3737600000 (fits), / 2187 = 1709007; + 1868800 = 3577807 >> 8 = 13975.
  EXPECT_EQ(reno_cwnd(10000, 2187, 14600, 1460), 13975UL);
  // t = 20000: 29200000 << 8 = 7475200000 wraps to 3180232704; / 2187 = 1454153;
  // + 1868800 = 3322953 >> 8 = 12980.
  EXPECT_EQ(reno_cwnd(20000, 2187, 14600, 1460), 12980UL);
}

// Section 7 of the notes: stock vs D46046 TCP-friendly estimates.
TEST(CcCubicMath, TfCwndD46046IsNewRenoCongestionAvoidance) {
  Tcpcb tp;
  tp.snd_cwnd = 60000;
  tp.snd_ssthresh = 30000;
  tp.t_ccv.flags = CCF_ABC_SENTAWND;
  // Flag set: cwnd + t_maxseg = 61460, and the flag is consumed; cwnd itself is not stored.
  EXPECT_EQ(tf_cwnd_d46046(tp.t_ccv), 61460UL);
  EXPECT_EQ(tp.t_ccv.flags & CCF_ABC_SENTAWND, 0u);
  EXPECT_EQ(tp.snd_cwnd, 60000u);
  // Flag clear: cwnd unchanged, whatever the time or RTT.
  EXPECT_EQ(tf_cwnd_d46046(tp.t_ccv), 60000UL);
  // Cap 65535 << snd_scale: scale 0, cwnd 65000 + 1460 -> 65535.
  tp.snd_cwnd = 65000;
  tp.t_ccv.flags = CCF_ABC_SENTAWND;
  EXPECT_EQ(tf_cwnd_d46046(tp.t_ccv), 65535UL);
  // The stock estimate for comparison moves with t: tf_cwnd(10000, 2187, 14600, 1460) = 13753.
  EXPECT_NE(tf_cwnd(10000, 2187, 14600, 1460), tf_cwnd(0, 2187, 14600, 1460));
}

// cubic_ssthresh_update, stock and D46046, mss = tcp_fixed_maxseg = 1448.
TEST(CcCubicMath, SsthreshUpdateStock) {
  Tcpcb tp;
  CubicData d;
  // First congestion event, no fast convergence (cwnd 100000 >= W_max 14480):
  // W_max = 100000; ssthresh = 100000 >> 1 = 50000; W_max = 100000 * 179 >> 8 = 17900000 >> 8 = 69921.
  tp.snd_cwnd = 100000;
  d.W_max = 14480;
  cubic_ssthresh_update(tp.t_ccv, d, 1448);
  EXPECT_EQ(tp.snd_ssthresh, 50000u);
  EXPECT_EQ(d.W_max, 69921u);
  EXPECT_EQ(d.undo_W_max, 14480u);
  // Later event with fast convergence (cwnd 100000 < W_max 120000):
  // c = 100000 * 217 >> 8 = 21700000 >> 8 = 84765; W_max = 84765;
  // ssthresh = 84765 * 179 >> 8 = 15172935 >> 8 = 59269.
  d = CubicData{};
  d.flags = CUBICFLAG_CONG_EVENT;
  d.W_max = 120000;
  cubic_ssthresh_update(tp.t_ccv, d, 1448);
  EXPECT_EQ(d.W_max, 84765u);
  EXPECT_EQ(tp.snd_ssthresh, 59269u);
  // Later event without fast convergence (W_max 90000 <= cwnd): W_max = 100000, ssthresh = 69921.
  d.W_max = 90000;
  cubic_ssthresh_update(tp.t_ccv, d, 1448);
  EXPECT_EQ(d.W_max, 100000u);
  EXPECT_EQ(tp.snd_ssthresh, 69921u);
  // Floor: first event with cwnd 3000 -> 1500 -> max(1500, 2 * 1448) = 2896.
  d = CubicData{};
  tp.snd_cwnd = 3000;
  cubic_ssthresh_update(tp.t_ccv, d, 1448);
  EXPECT_EQ(tp.snd_ssthresh, 2896u);
  EXPECT_EQ(d.W_max, 2097u);  // 3000 * 179 = 537000 >> 8 = 2097
}

TEST(CcCubicMath, SsthreshUpdateD46046) {
  Tcpcb tp;
  CubicData d;
  // Not in the TCP-friendly region: identical to stock (first event: 50000 / 69921).
  tp.snd_cwnd = 100000;
  d.W_max = 14480;
  cubic_ssthresh_update_d46046(tp.t_ccv, d, 1448);
  EXPECT_EQ(tp.snd_ssthresh, 50000u);
  EXPECT_EQ(d.W_max, 69921u);
  // IN_TF with fast convergence (cwnd 100000 < W_max 120000): c = 84765 = W_max (kept, not
  // reduced to 0.7); ssthresh = NewReno's decrease of the *original* cwnd:
  // 100000 * 50 / (100 * 1448) = 5000000 / 144800 = 34 -> 34 * 1448 = 49232.
  d = CubicData{};
  d.flags = CUBICFLAG_CONG_EVENT | CUBICFLAG_IN_TF;
  d.W_max = 120000;
  cubic_ssthresh_update_d46046(tp.t_ccv, d, 1448);
  EXPECT_EQ(d.W_max, 84765u);
  EXPECT_EQ(tp.snd_ssthresh, 49232u);
  // IN_TF even on the first event: W_max = c = 100000 (no 0.7), ssthresh 49232.
  d = CubicData{};
  d.flags = CUBICFLAG_IN_TF;
  d.W_max = 14480;
  cubic_ssthresh_update_d46046(tp.t_ccv, d, 1448);
  EXPECT_EQ(d.W_max, 100000u);
  EXPECT_EQ(tp.snd_ssthresh, 49232u);
  // The NewReno decrease uses the global beta sysctl: beta 80 -> 8000000 / 144800 = 55 -> 79640.
  tp.sysctl.newreno_beta = 80;
  cubic_ssthresh_update_d46046(tp.t_ccv, d, 1448);
  EXPECT_EQ(tp.snd_ssthresh, 79640u);
  // Floor of 2 segments: cwnd 2000 -> 100000 / 144800 = 0 -> max(0, 2) * 1448 = 2896.
  tp.sysctl.newreno_beta = 50;
  tp.snd_cwnd = 2000;
  cubic_ssthresh_update_d46046(tp.t_ccv, d, 1448);
  EXPECT_EQ(tp.snd_ssthresh, 2896u);
}

}  // namespace
}  // namespace netsim::cc
