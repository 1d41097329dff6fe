// Ported behaviour (own code, no source text) from Linux 6.18
// net/ipv4/tcp_cubic.c (CUBIC v2.3 with HyStart): cubic_root, bictcp_update,
// cubictcp_cong_avoid, cubictcp_recalc_ssthresh, cubictcp_state,
// cubictcp_cwnd_event, hystart_ack_delay, hystart_update, cubictcp_acked and
// the factors of cubictcp_register. Read at Kingxukai/linux @
// 9b44fff655e2c6f4cc53cb499dd2c038e99cb013 (a 6.1x tree). See docs/linux-sender.md.
#include "netsim/tcp/linux/tcp_cubic.h"

#include <algorithm>
#include <array>
#include <bit>

#include "netsim/tcp/linux/tcp_cong.h"

namespace netsim::tcp::lnx {

std::uint32_t cubic_root(std::uint64_t a) {
  // v[x] = cbrt(x << 18) - 1 for x in [0, 63], refined by hand upstream;
  // cbrt(x) = (v[x] + 10) >> 6.
  static constexpr std::array<std::uint8_t, 64> v = {
      0,   54,  54,  54,  118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156,
      157, 161, 164, 168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199,
      200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229,
      231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
  };
  std::uint32_t b = static_cast<std::uint32_t>(std::bit_width(a));  // fls64
  if (b < 7) return (static_cast<std::uint32_t>(v[static_cast<std::uint32_t>(a)]) + 35) >> 6;
  b = ((b * 84) >> 8) - 1;
  const auto shift = static_cast<std::uint32_t>(a >> (b * 3));
  std::uint32_t x = static_cast<std::uint32_t>((static_cast<std::uint32_t>(v[shift]) + 10) << b) >> 6;
  // One Newton-Raphson step: x = (2x + a / x^2) / 3, with x(x-1) for x^2 and
  // *341 >> 10 for /3, as upstream.
  x = 2 * x + static_cast<std::uint32_t>(a / (static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(x - 1)));
  x = (x * 341) >> 10;
  return x;
}

TcpCubic::TcpCubic(const CubicParams& params)
    : params_(params),
      beta_scale_(static_cast<std::uint32_t>(8 * (static_cast<int>(BICTCP_BETA_SCALE) + params.beta) / 3 /
                                             (static_cast<int>(BICTCP_BETA_SCALE) - params.beta))),
      cube_rtt_scale_(static_cast<std::uint32_t>(params.bic_scale * 10)),  // 1024 * c / rtt
      // K = cbrt((wmax - cwnd) * rtt / c) in 2^-10 s with rtt = 100 ms:
      // 2^(10 + 3 * BICTCP_HZ) / (bic_scale * 10).
      cube_factor_((1ull << (10 + 3 * BICTCP_HZ)) / static_cast<std::uint32_t>(params.bic_scale * 10)) {}

void TcpCubic::bictcp_reset() {
  // memset up to `unused`: everything but the HyStart round state.
  const State keep = ca_;
  ca_ = State{};
  ca_.round_start = keep.round_start;
  ca_.end_seq = keep.end_seq;
  ca_.last_ack = keep.last_ack;
  ca_.curr_rtt = keep.curr_rtt;
  ca_.sample_cnt = keep.sample_cnt;
  ca_.found = 0;
}

void TcpCubic::bictcp_hystart_reset(const LinuxTcpSock& tp) {
  ca_.round_start = ca_.last_ack = static_cast<std::uint32_t>(tp.clock.mstamp_us);  // bictcp_clock_us
  ca_.end_seq = tp.snd_nxt;
  ca_.curr_rtt = ~0u;
  ca_.sample_cnt = 0;
}

void TcpCubic::init(LinuxTcpSock& tp) {
  bictcp_reset();
  if (params_.hystart) bictcp_hystart_reset(tp);
  if (!params_.hystart && params_.initial_ssthresh) tp.snd_ssthresh = static_cast<std::uint32_t>(params_.initial_ssthresh);
}

void TcpCubic::cwnd_event(LinuxTcpSock& tp, TcpCaEvent event) {
  if (event != TcpCaEvent::CA_EVENT_TX_START) return;
  // Back from an application-limited idle: shift the epoch so that cwnd
  // stays on the cubic curve.
  const std::uint32_t now = tp.clock.jiffies;
  const auto delta = static_cast<std::int32_t>(now - tp.lsndtime);
  if (ca_.epoch_start && delta > 0) {
    ca_.epoch_start += static_cast<std::uint32_t>(delta);
    if (after(ca_.epoch_start, now)) ca_.epoch_start = now;
  }
}

void TcpCubic::bictcp_update(const LinuxTcpSock& tp, std::uint32_t cwnd, std::uint32_t acked) {
  const std::uint32_t jiffies = tp.clock.jiffies;
  const int hz = tp.clock.hz;
  ca_.ack_cnt += acked;

  if (ca_.last_cwnd == cwnd && static_cast<std::int32_t>(jiffies - ca_.last_time) <= hz / 32) return;

  // cnt changes at most once per jiffy; every cwnd reduction zeroes
  // epoch_start, which forces a recomputation.
  if (!(ca_.epoch_start && jiffies == ca_.last_time)) {
    ca_.last_cwnd = cwnd;
    ca_.last_time = jiffies;

    if (ca_.epoch_start == 0) {
      ca_.epoch_start = jiffies;
      ca_.ack_cnt = acked;
      ca_.tcp_cwnd = cwnd;
      if (ca_.last_max_cwnd <= cwnd) {
        ca_.bic_K = 0;
        ca_.bic_origin_point = cwnd;
      } else {
        ca_.bic_K = cubic_root(cube_factor_ * (ca_.last_max_cwnd - cwnd));
        ca_.bic_origin_point = ca_.last_max_cwnd;
      }
    }

    // t since the epoch plus the minimum delay, from jiffies to 2^-10 s.
    std::uint64_t t = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(jiffies - ca_.epoch_start)));
    t += usecs_to_jiffies(ca_.delay_min, hz);
    t <<= BICTCP_HZ;
    t /= static_cast<std::uint64_t>(hz);

    const std::uint64_t offs = t < ca_.bic_K ? ca_.bic_K - t : t - ca_.bic_K;
    // c/rtt * (t - K)^3, truncated to 32 bits as upstream.
    auto delta = static_cast<std::uint32_t>((cube_rtt_scale_ * offs * offs * offs) >> (10 + 3 * BICTCP_HZ));
    const std::uint32_t bic_target = t < ca_.bic_K ? ca_.bic_origin_point - delta : ca_.bic_origin_point + delta;

    if (bic_target > cwnd) {
      ca_.cnt = cwnd / (bic_target - cwnd);
    } else {
      ca_.cnt = 100 * cwnd;  // very small increment
    }
    // Before the first loss the curve is too timid: at least 5% per RTT.
    if (ca_.last_max_cwnd == 0 && ca_.cnt > 20) ca_.cnt = 20;
  }

  // tcp_friendliness: the Reno-equivalent window, and no slower than it.
  if (params_.tcp_friendliness) {
    std::uint32_t delta = (cwnd * beta_scale_) >> 3;
    while (ca_.ack_cnt > delta) {
      ca_.ack_cnt -= delta;
      ca_.tcp_cwnd++;
    }
    if (ca_.tcp_cwnd > cwnd) {
      delta = ca_.tcp_cwnd - cwnd;
      const std::uint32_t max_cnt = cwnd / delta;
      if (ca_.cnt > max_cnt) ca_.cnt = max_cnt;
    }
  }
  // At most 1 packet per 2 ACKed: 1.5x per RTT.
  ca_.cnt = std::max(ca_.cnt, 2u);
}

void TcpCubic::cong_avoid(LinuxTcpSock& tp, std::uint32_t /*ack*/, std::uint32_t acked) {
  if (!tcp_is_cwnd_limited(tp)) return;
  if (tcp_in_slow_start(tp)) {
    acked = tcp_slow_start(tp, acked);
    if (!acked) return;
  }
  bictcp_update(tp, tcp_snd_cwnd(tp), acked);
  tcp_cong_avoid_ai(tp, ca_.cnt, acked);
}

std::uint32_t TcpCubic::ssthresh(LinuxTcpSock& tp) {
  ca_.epoch_start = 0;
  const std::uint32_t cwnd = tcp_snd_cwnd(tp);
  const auto beta = static_cast<std::uint32_t>(params_.beta);
  // Wmax, with fast convergence: a flow that lost below its last Wmax
  // releases bandwidth by remembering less.
  if (cwnd < ca_.last_max_cwnd && params_.fast_convergence) {
    ca_.last_max_cwnd = (cwnd * (BICTCP_BETA_SCALE + beta)) / (2 * BICTCP_BETA_SCALE);
  } else {
    ca_.last_max_cwnd = cwnd;
  }
  return std::max((cwnd * beta) / BICTCP_BETA_SCALE, 2u);
}

void TcpCubic::set_state(LinuxTcpSock& tp, std::uint8_t new_state) {
  if (new_state == TCP_CA_Loss) {
    bictcp_reset();
    bictcp_hystart_reset(tp);
  }
}

std::uint32_t TcpCubic::undo_cwnd(LinuxTcpSock& tp) { return tcp_reno_undo_cwnd(tp); }

std::uint32_t TcpCubic::hystart_ack_delay(const LinuxTcpSock& tp) const {
  // Cushion for TSO/GRO aggregation: 4 GSO packets at the pacing rate
  // (already doubled in slow start), at most 1 ms.
  const std::uint64_t rate = tp.sk_pacing_rate;
  if (!rate) return 0;
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(1000, static_cast<std::uint64_t>(tp.sk_gso_max_size) * 4 * 1000000 / rate));
}

void TcpCubic::hystart_update(LinuxTcpSock& tp, std::uint32_t delay) {
  if (after(tp.snd_una, ca_.end_seq)) bictcp_hystart_reset(tp);
  if (tcp_snd_cwnd(tp) < static_cast<std::uint32_t>(params_.hystart_low_window)) return;

  if (params_.hystart_detect & HYSTART_ACK_TRAIN) {
    const auto now = static_cast<std::uint32_t>(tp.clock.mstamp_us);
    // ACK train: closely spaced ACKs spanning more than half the minimum RTT.
    if (static_cast<std::int32_t>(now - ca_.last_ack) <= params_.hystart_ack_delta_us) {
      ca_.last_ack = now;
      std::uint32_t threshold = ca_.delay_min + hystart_ack_delay(tp);
      // Pacing may have spread the packets over up to RTT/2.
      if (tp.sk_pacing_status == SK_PACING_NONE) threshold >>= 1;
      if (static_cast<std::int32_t>(now - ca_.round_start) > static_cast<std::int32_t>(threshold)) {
        ca_.found = 1;
        mib_.train_detect++;
        mib_.train_cwnd += tcp_snd_cwnd(tp);
        tp.snd_ssthresh = tcp_snd_cwnd(tp);
      }
    }
  }

  if (params_.hystart_detect & HYSTART_DELAY) {
    // Delay increase: the round's minimum RTT over delay_min + clamp(delay_min / 8, 4 ms, 16 ms).
    if (ca_.curr_rtt > delay) ca_.curr_rtt = delay;
    if (ca_.sample_cnt < HYSTART_MIN_SAMPLES) {
      ca_.sample_cnt++;
    } else if (ca_.curr_rtt > ca_.delay_min + std::clamp(ca_.delay_min >> 3, HYSTART_DELAY_MIN, HYSTART_DELAY_MAX)) {
      ca_.found = 1;
      mib_.delay_detect++;
      mib_.delay_cwnd += tcp_snd_cwnd(tp);
      tp.snd_ssthresh = tcp_snd_cwnd(tp);
    }
  }
}

void TcpCubic::pkts_acked(LinuxTcpSock& tp, const AckSample& sample) {
  if (sample.rtt_us < 0) return;  // duplicates without timestamps
  // Samples right after fast recovery are discarded.
  if (ca_.epoch_start && static_cast<std::int32_t>(tp.clock.jiffies - ca_.epoch_start) < tp.clock.hz) return;
  std::uint32_t delay = static_cast<std::uint32_t>(sample.rtt_us);
  if (delay == 0) delay = 1;
  if (ca_.delay_min == 0 || ca_.delay_min > delay) ca_.delay_min = delay;
  if (!ca_.found && tcp_in_slow_start(tp) && params_.hystart) hystart_update(tp, delay);
}

}  // namespace netsim::tcp::lnx
