// Linux's congestion-control framework pieces that modules share
// (net/ipv4/tcp_cong.c): slow start, additive increase, Reno, and the
// registry that makes a module by its net.ipv4.tcp_congestion_control name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netsim/tcp/linux/tcp_congestion_ops.h"
#include "netsim/tcp/linux/tcp_sock.h"

namespace netsim::tcp::lnx {

// tcp_slow_start: grows cwnd by `acked` up to ssthresh; returns what is left.
std::uint32_t tcp_slow_start(LinuxTcpSock& tp, std::uint32_t acked);
// tcp_cong_avoid_ai: cwnd += 1 per `w` packets acked.
void tcp_cong_avoid_ai(LinuxTcpSock& tp, std::uint32_t w, std::uint32_t acked);

// tcp_reno_undo_cwnd: max(cwnd, prior_cwnd); other modules use it as their undo_cwnd.
std::uint32_t tcp_reno_undo_cwnd(const LinuxTcpSock& tp);

// tcp_reno_* (struct tcp_congestion_ops tcp_reno).
class TcpReno final : public TcpCongestionOps {
 public:
  const char* name() const override { return "reno"; }
  std::uint32_t ssthresh(LinuxTcpSock& tp) override;
  void cong_avoid(LinuxTcpSock& tp, std::uint32_t ack, std::uint32_t acked) override;
  std::uint32_t undo_cwnd(LinuxTcpSock& tp) override;
};

// A new module instance for a connection; throws std::invalid_argument for
// an unknown name.
std::unique_ptr<TcpCongestionOps> make_congestion_ops(const std::string& name);
// The names make_congestion_ops knows, as sysctl net.ipv4.tcp_available_congestion_control lists them.
std::vector<std::string> available_congestion_control();

}  // namespace netsim::tcp::lnx
