// Ported behaviour (own code, no source text) from Linux 6.18
// net/ipv4/tcp_cong.c: tcp_slow_start, tcp_cong_avoid_ai, tcp_reno_cong_avoid,
// tcp_reno_ssthresh, tcp_reno_undo_cwnd. See docs/linux-sender.md.
#include "netsim/tcp/linux/tcp_cong.h"

#include <algorithm>
#include <stdexcept>

#include "netsim/tcp/linux/tcp_cubic.h"

namespace netsim::tcp::lnx {

std::uint32_t tcp_slow_start(LinuxTcpSock& tp, std::uint32_t acked) {
  const std::uint32_t cwnd = std::min(tcp_snd_cwnd(tp) + acked, tp.snd_ssthresh);
  acked -= cwnd - tcp_snd_cwnd(tp);
  tcp_snd_cwnd_set(tp, std::min(cwnd, tp.snd_cwnd_clamp));
  return acked;
}

void tcp_cong_avoid_ai(LinuxTcpSock& tp, std::uint32_t w, std::uint32_t acked) {
  // Credits accumulated at a larger w are applied gently now.
  if (tp.snd_cwnd_cnt >= w) {
    tp.snd_cwnd_cnt = 0;
    tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + 1);
  }
  tp.snd_cwnd_cnt += acked;
  if (tp.snd_cwnd_cnt >= w) {
    const std::uint32_t delta = tp.snd_cwnd_cnt / w;
    tp.snd_cwnd_cnt -= delta * w;
    tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + delta);
  }
  tcp_snd_cwnd_set(tp, std::min(tcp_snd_cwnd(tp), tp.snd_cwnd_clamp));
}

void TcpReno::cong_avoid(LinuxTcpSock& tp, std::uint32_t /*ack*/, std::uint32_t acked) {
  if (!tcp_is_cwnd_limited(tp)) return;
  if (tcp_in_slow_start(tp)) {
    acked = tcp_slow_start(tp, acked);
    if (acked == 0) return;
  }
  tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), acked);
}

std::uint32_t TcpReno::ssthresh(LinuxTcpSock& tp) { return std::max(tcp_snd_cwnd(tp) >> 1u, 2u); }

std::uint32_t tcp_reno_undo_cwnd(const LinuxTcpSock& tp) { return std::max(tcp_snd_cwnd(tp), tp.prior_cwnd); }

std::uint32_t TcpReno::undo_cwnd(LinuxTcpSock& tp) { return tcp_reno_undo_cwnd(tp); }

std::unique_ptr<TcpCongestionOps> make_congestion_ops(const std::string& name) {
  if (name == "reno") return std::make_unique<TcpReno>();
  if (name == "cubic") return std::make_unique<TcpCubic>();
  throw std::invalid_argument("unknown Linux congestion control '" + name + "'");
}

std::vector<std::string> available_congestion_control() { return {"reno", "cubic"}; }

}  // namespace netsim::tcp::lnx
