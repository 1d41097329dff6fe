// Linux 2.6.12-2.6.14 output sizing and send tests; see tcp_output26.h for
// the copies read (own code, no source text).
#include "netsim/tcp/linux26/tcp_output26.h"

#include <algorithm>


namespace netsim::tcp::lnx26 {

int default_tso_win_divisor(KernelVersion v) { return v == KernelVersion::v2_6_12 ? 8 : 3; }

std::uint32_t tso_large_mss(std::uint32_t max_window, std::uint32_t tcp_header_len, std::uint32_t ip_header_len) {
  std::uint32_t large = 65535 - ip_header_len - tcp_header_len;
  if (max_window != 0 && large > (max_window >> 1)) large = std::max(max_window >> 1, 68u - tcp_header_len);
  return large;
}

std::uint32_t current_mss_2_6_12(const Tcp26Sock& tp, std::uint32_t tcp_header_len, int tso_win_divisor) {
  const std::uint32_t mss = tp.mss_cache;
  std::uint32_t factor = tso_large_mss(tp.max_window, tcp_header_len) / mss;
  std::uint32_t limit = tp.snd_cwnd;
  if (tso_win_divisor != 0) limit /= static_cast<std::uint32_t>(tso_win_divisor);
  limit = std::max(1u, limit);
  factor = std::min(factor, limit);
  return mss * std::max(1u, factor);
}

std::uint32_t xmit_size_goal(const Tcp26Sock& tp, std::uint32_t tcp_header_len) {
  const std::uint32_t goal = tso_large_mss(tp.max_window, tcp_header_len);
  return std::max(tp.mss_cache, goal - goal % tp.mss_cache);
}

bool snd_test_2_6_12(const Tcp26Sock& tp, std::uint32_t /*seq*/, std::uint32_t end_seq, std::uint32_t pcount) {
  return tcp_packets_in_flight(tp) + (pcount - 1) < tp.snd_cwnd && !after(end_seq, tp.snd_una + tp.snd_wnd);
}

bool snd_wnd_test(const Tcp26Sock& tp, std::uint32_t seq, std::uint32_t end_seq, std::uint32_t mss) {
  if (end_seq - seq > mss) end_seq = seq + mss;
  return !after(end_seq, tp.snd_una + tp.snd_wnd);
}

std::uint32_t window_allows(const Tcp26Sock& tp, std::uint32_t seq, std::uint32_t mss, std::uint32_t cwnd_quota) {
  const std::uint32_t window = tp.snd_una + tp.snd_wnd - seq;
  return std::min(window, mss * cwnd_quota);
}

bool tso_should_defer(const Tcp26Sock& tp, std::uint32_t seq, const DeferInput& in, std::uint32_t& deferred) {
  auto send_now = [&] {
    deferred = 0;
    return false;
  };
  if (in.fin || tp.ca_state != TCP_CA_Open) return send_now();
  // 2.6.19: defer at most about two jiffies from the first deferral.
  if (in.bound && deferred != 0 && ((tp.jiffies << 1) >> 1) - (deferred >> 1) > 1) return send_now();
  const std::uint32_t in_flight = tcp_packets_in_flight(tp);
  const std::uint32_t send_win = tp.snd_una + tp.snd_wnd - seq;
  const std::uint32_t cong_win = (tp.snd_cwnd - in_flight) * tp.mss_cache;
  const std::uint32_t limit = std::min(send_win, cong_win);
  if (limit >= 65536) return send_now();
  if (in.tso_win_divisor != 0) {
    const std::uint32_t chunk = std::min(tp.snd_wnd, tp.snd_cwnd * tp.mss_cache) /
                                static_cast<std::uint32_t>(in.tso_win_divisor);
    if (limit >= chunk) return send_now();
  } else if (limit > in.max_burst * tp.mss_cache) {
    return send_now();
  }
  if (in.bound) deferred = 1 | (tp.jiffies << 1);
  return true;
}

bool tso_aware_cwnd_limited(const Tcp26Sock& tp, std::uint32_t in_flight, bool tso, int tso_win_divisor,
                            std::uint32_t max_burst) {
  if (in_flight >= tp.snd_cwnd) return true;
  if (!tso) return false;
  const std::uint32_t left = tp.snd_cwnd - in_flight;
  if (tso_win_divisor != 0) return left * static_cast<std::uint32_t>(tso_win_divisor) < tp.snd_cwnd;
  return left <= max_burst;
}

}  // namespace netsim::tcp::lnx26
