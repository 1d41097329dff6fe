// CUBIC fixed-point arithmetic, ported from FreeBSD.
//
// Follows (same algorithm, units, constants, integer widths, shifts and
// truncation; no source text copied):
//   freebsd/freebsd-src @ 0162500b7d2d686f3f745c12339271be645a2cf8
//       sys/netinet/cc/cc_cubic.h   stock (July 2024) constants, cubic_k,
//                                   cubic_cwnd, reno_cwnd, tf_cwnd
//   freebsd/freebsd-src @ 00d3b74406db80084e8939450c6b86326dd1de30
//       sys/netinet/cc/cc_cubic.c   stock cubic_ssthresh_update, struct cubic use
//   kenrap/freebsd-src @ f30bcb15894c03d8afb60c8a4e0ca6b0b029f737
//       sys/netinet/cc/cc_cubic.h   after review D46046: CUBICFLAG_IN_TF and
//                                   tf_cwnd(ccv) = newreno_cc_cwnd_in_cong_avoid
//   i-am-gizm0/freebsd-search @ e8130f15ce29793690692cbbb6bdb3fbd6b12726
//       sys/netinet/cc/cc_cubic.c   cubic_ssthresh_update after D46046
// Review: https://reviews.freebsd.org/D46046 (Cheng Cui, 2024).
// Notes: shared/design/freebsd-tcp.md section 2; docs/cc.md.
//
// Types are FreeBSD's (LP64): `unsigned long` is 64 bit, `int` 32 bit. In
// particular usecs_since_epoch and rtt_usecs are `int`, as in cc_cubic.h; a
// wider argument is converted (modulo 2^32) exactly as a C caller's would be.
// Fixed point: CUBIC_SHIFT = 8 fractional bits, so 1.0 == 256.
#pragma once

#include <climits>
#include <cstdint>

#include "netsim/cc/cc_var.h"

namespace netsim::cc {

// --- constants (cc_cubic.h); int, like the C #defines -------------------------
inline constexpr int CUBIC_SHIFT = 8;             // fractional bits
inline constexpr int CUBIC_SHIFT_4 = 32;          // 4 * CUBIC_SHIFT: scale after cubing and * C
inline constexpr int RENO_BETA = 128;             // 0.5 << 8 (only reno_cwnd, unused by FreeBSD)
inline constexpr int CUBIC_BETA = 179;            // ~0.7 << 8   (0.69921875)
inline constexpr int ONE_SUB_CUBIC_BETA = 77;     // ~0.3 << 8   (0.30078125)
inline constexpr int THREE_X_PT3 = 231;           // 3 * ONE_SUB_CUBIC_BETA
inline constexpr int TWO_SUB_PT3 = 435;           // (2 << 8) - ONE_SUB_CUBIC_BETA
inline constexpr int CUBIC_C_FACTOR = 102;        // ~0.4 << 8   (0.3984375)
inline constexpr int CUBIC_FC_FACTOR = 217;       // (1 + beta) / 2 << 8 (0.84765625), fast convergence
inline constexpr int CUBIC_MIN_RTT_SAMPLES = 8;   // srtt is ignored until this many samples
inline constexpr int CUBED_ROOT_MAX_ULONG = 448845;  // |t - K| clamp (<<8): (448845^3 * 102) < 2^63

// struct cubic flags.
inline constexpr std::uint32_t CUBICFLAG_CONG_EVENT = 0x00000001;       // congestion experienced
inline constexpr std::uint32_t CUBICFLAG_IN_SLOWSTART = 0x00000002;     // in slow start
inline constexpr std::uint32_t CUBICFLAG_IN_APPLIMIT = 0x00000004;      // application limited
inline constexpr std::uint32_t CUBICFLAG_RTO_EVENT = 0x00000008;        // RTO experienced
inline constexpr std::uint32_t CUBICFLAG_HYSTART_ENABLED = 0x00000010;  // HyStart++ enabled
inline constexpr std::uint32_t CUBICFLAG_HYSTART_IN_CSS = 0x00000020;   // in HyStart++ CSS
inline constexpr std::uint32_t CUBICFLAG_IN_TF = 0x00000040;            // D46046 only: TCP-friendly region

// --- cubic_k ------------------------------------------------------------------
// K = cbrt(W_max * (1 - beta) / C) seconds, returned << CUBIC_SHIFT, by the
// Apple TR KT-32 polynomial (within ~4 % for 10..10000 segments). wmax_pkts is W_max / segment
// size (integer division by the caller). Arithmetic:
//   s = ((wmax_pkts * 77) << 8) / 102          unsigned long (wraps mod 2^64)
//   p = 0; while (s >= 256) { s >>= 3; ++p; }  each step: 1/8 of s, 1/2 of K
//   K = ((s * 275) >> 8) + 98 - (((s * s * 120) >> 8) >> 8)   int64
//   return K << p
constexpr std::int64_t cubic_k(unsigned long wmax_pkts) {
  std::int64_t s = static_cast<std::int64_t>(((wmax_pkts * static_cast<unsigned long>(ONE_SUB_CUBIC_BETA)) << CUBIC_SHIFT) /
                                             static_cast<unsigned long>(CUBIC_C_FACTOR));
  std::uint16_t p = 0;
  while (s >= 256) {
    s >>= 3;
    ++p;
  }
  const std::int64_t K = (((s * 275) >> CUBIC_SHIFT) + 98) - (((s * s * 120) >> CUBIC_SHIFT) >> CUBIC_SHIFT);
  return K << p;
}

// --- cubic_cwnd ---------------------------------------------------------------
// W_cubic(t) = C * (t - K)^3 + W_max, in bytes, with (t - K) in whole 1/256 s
// and C * (t - K)^3 in whole segments:
//   x = ((t_us << 8) - K * hz * tick) / (hz * tick)   int64, C division truncates toward 0
//   x > 448845 -> INT_MAX;  x < -448845 -> 0
//   c = (x^3 * 102) >> 32                            int64, arithmetic shift (floor)
//   w = c * smss + wmax                              computed modulo 2^64 (C: unsigned long)
//   return max(0, (long)w)
// hz * tick == 1000000 for every hz that divides a million (100, 1000, ...),
// so hz only matters for e.g. hz = 1024. FreeBSD reads the kernel's hz and
// tick globals; here hz is a parameter (default 1000) and tick = 1000000 / hz.
constexpr unsigned long cubic_cwnd(int usecs_since_epoch, unsigned long wmax, std::uint32_t smss, std::int64_t K,
                                   int hz = 1000) {
  const int tick = tick_usecs(hz);
  const int hz_tick = hz * tick;
  // (t << 8) - K * hz * tick, modulo 2^64 (-fwrapv; never overflows in practice).
  const std::int64_t num = static_cast<std::int64_t>(
      (static_cast<std::uint64_t>(static_cast<std::int64_t>(usecs_since_epoch)) << CUBIC_SHIFT) -
      static_cast<std::uint64_t>(K) * static_cast<std::uint64_t>(static_cast<std::int64_t>(hz)) *
          static_cast<std::uint64_t>(static_cast<std::int64_t>(tick)));
  std::int64_t cwnd = num / hz_tick;
  if (cwnd > CUBED_ROOT_MAX_ULONG) return INT_MAX;
  if (cwnd < -CUBED_ROOT_MAX_ULONG) return 0;
  cwnd *= (cwnd * cwnd);                                      // (t - K)^3, 3 * CUBIC_SHIFT fractional bits
  const std::int64_t segs = (cwnd * CUBIC_C_FACTOR) >> CUBIC_SHIFT_4;  // C * (t - K)^3, whole segments
  // segs * smss is int64 in C, then "+ wmax" converts to unsigned long; the
  // result is stored back into the int64.
  cwnd = static_cast<std::int64_t>(static_cast<unsigned long>(segs) * smss + wmax);
  return static_cast<unsigned long>(kern::lmax(0, cwnd));
}

// --- reno_cwnd (FreeBSD: "XXX: Not used"; kept for completeness) -------------
// ((wmax * 128) + (((t_us * smss) << 8) / rtt_us)) >> 8, where the
// parenthesised part is 32-bit unsigned arithmetic (int * uint32_t).
constexpr unsigned long reno_cwnd(int usecs_since_epoch, int rtt_usecs, unsigned long wmax, std::uint32_t smss) {
  const u_int t = ((static_cast<u_int>(usecs_since_epoch) * smss) << CUBIC_SHIFT) / static_cast<u_int>(rtt_usecs);
  return ((wmax * static_cast<unsigned long>(RENO_BETA)) + t) >> CUBIC_SHIFT;
}

// --- tf_cwnd, stock (before D46046) --------------------------------------------
// The RFC 8312 "TCP-friendly" estimate (draft eq. 4):
//   W_est = (wmax * 179 + ((231 * t_us * smss) << 8) / (435 * rtt_us)) >> 8
// i.e. 0.7 * W_max + 3(1 - b)/(1 + b) * (t / rtt) * smss. The numerator is
// unsigned long (t_us is sign-extended first); the divisor 435 * rtt_us is an
// int product converted to unsigned long. Above rtt_us = 4 936 867 it
// overflows and wraps, as in the kernel (built with -fwrapv); without
// -fwrapv, clang -O2 would compute it in 64 bits instead.
// Precondition: rtt_usecs != 0 (FreeBSD's mean_rtt_usecs is always >= 1).
constexpr unsigned long tf_cwnd(int usecs_since_epoch, int rtt_usecs, unsigned long wmax, std::uint32_t smss) {
  const unsigned long num = (static_cast<unsigned long>(THREE_X_PT3) * static_cast<unsigned long>(usecs_since_epoch) *
                             static_cast<unsigned long>(smss))
                            << CUBIC_SHIFT;
  const int den = kern::wrap_mul(TWO_SUB_PT3, rtt_usecs);
  return ((wmax * static_cast<unsigned long>(CUBIC_BETA)) + num / static_cast<unsigned long>(den)) >> CUBIC_SHIFT;
}

// --- tf_cwnd after D46046 (FreeBSD name: tf_cwnd(struct cc_var *)) -------------
// Named tf_cwnd_d46046 here so that both versions can coexist. It is
// newreno_cc_cwnd_in_cong_avoid(ccv): cwnd + t_maxseg (capped at
// 65535 << snd_scale) when CCF_ABC_SENTAWND is set, which it clears; cwnd
// otherwise. Independent of time, ticks and RTT.
unsigned long tf_cwnd_d46046(CcVar& ccv);

// --- struct cubic ---------------------------------------------------------------
// Per-connection CUBIC state with FreeBSD's field names and widths. Zero-
// initialised (FreeBSD allocates it with M_ZERO); cb_init sets the rest.
struct CubicData {
  std::int64_t K = 0;              // seconds << CUBIC_SHIFT
  std::int64_t sum_rtt_usecs = 0;  // sum of srtt samples over the epoch
  std::uint64_t W_max = 0;         // bytes
  std::uint64_t W_est = 0;         // stored/undone only; unused by the arithmetic
  std::uint64_t cwnd_epoch = 0;    // stored/undone only
  std::uint64_t cwnd_prior = 0;    // stored/undone only
  std::uint32_t flags = 0;         // CUBICFLAG_*
  int min_rtt_usecs = 0;           // TCPTV_SRTTBASE (0) == unset
  int mean_rtt_usecs = 0;          // 1 after cb_init
  int epoch_ack_count = 0;
  int t_epoch = 0;                 // a `ticks` value
  int undo_t_epoch = 0;
  std::int64_t undo_K = 0;
  std::uint64_t undo_cwnd_prior = 0;
  std::uint64_t undo_W_max = 0;
  std::uint64_t undo_W_est = 0;
  std::uint64_t undo_cwnd_epoch = 0;
  std::uint64_t num_cong_events = 0;  // in the stock struct only; never updated
  // HyStart++ (only reachable with CCF_HYSTART_ALLOWED). The same fields as
  // NewRenoData's: FreeBSD's struct cubic has its own copy of struct
  // newreno's css_* fields (cc_cubic.h @ 0162500b, cc_newreno.h @ 2d614aa2),
  // so the duplication is kept.
  std::uint32_t css_baseline_minrtt = 0;
  std::uint32_t css_current_round_minrtt = 0;
  std::uint32_t css_lastround_minrtt = 0;
  std::uint32_t css_rttsample_count = 0;
  std::uint32_t css_entered_at_round = 0;
  std::uint32_t css_current_round = 0;
  std::uint32_t css_fas_at_css_entry = 0;
  std::uint32_t css_lowrtt_fas = 0;
  std::uint32_t css_last_fas = 0;
};

// --- cubic_ssthresh_update(ccv, maxseg) -------------------------------------------
// Stock (July 2024). c = snd_cwnd (uint32); if c < W_max (fast convergence)
// c = (c * 217) >> 8. undo_W_max = W_max; W_max = c.
//   first congestion event (CONG_EVENT clear): ssthresh = c >> 1 and
//     W_max = (c * 179) >> 8
//   later events: ssthresh = (c * 179) >> 8
// snd_ssthresh = max(ssthresh, 2 * maxseg).
void cubic_ssthresh_update(CcVar& ccv, CubicData& cubic_data, std::uint32_t maxseg);

// After D46046: the same, except that when CUBICFLAG_IN_TF is set ssthresh =
// newreno_cc_cwnd_on_multiplicative_decrease(ccv, maxseg), i.e.
// max(snd_cwnd * 50 / (100 * maxseg), 2) * maxseg from the *original* cwnd,
// and W_max keeps c (no reduction to 0.7).
void cubic_ssthresh_update_d46046(CcVar& ccv, CubicData& cubic_data, std::uint32_t maxseg);

}  // namespace netsim::cc
