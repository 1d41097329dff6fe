// Reno of the 2.6.13/2.6.14 pluggable framework (net/ipv4/tcp_cong.c:
// tcp_reno_cong_avoid, tcp_reno_ssthresh, tcp_reno_min_cwnd). Sources and
// the versions followed: models/src/tcp/linux26/tcp_reno26.cpp.
#pragma once

#include <cstdint>

#include "netsim/tcp/linux26/tcp_congestion_ops26.h"

namespace netsim::tcp::lnx26 {

// tcp_reno_cong_avoid: returns at once unless in_flight >= snd_cwnd (the
// module's own gate); slow start adds one segment per call while
// snd_cwnd <= snd_ssthresh; above it snd_cwnd_cnt counts calls and cwnd
// grows by one when it reaches snd_cwnd. Both bounded by snd_cwnd_clamp.
void tcp_reno_cong_avoid(Tcp26Sock& tp, std::uint32_t ack, std::uint32_t rtt, std::uint32_t in_flight, int flag);
// max(snd_cwnd >> 1, 2)
std::uint32_t tcp_reno_ssthresh(const Tcp26Sock& tp);
// snd_ssthresh / 2
std::uint32_t tcp_reno_min_cwnd(const Tcp26Sock& tp);

class Tcp26Reno final : public Tcp26CongestionOps {
 public:
  const char* name() const override { return "reno"; }
  std::uint32_t ssthresh(Tcp26Sock& tp) override { return tcp_reno_ssthresh(tp); }
  std::uint32_t min_cwnd(const Tcp26Sock& tp) override { return tcp_reno_min_cwnd(tp); }
  void cong_avoid(Tcp26Sock& tp, std::uint32_t ack, std::uint32_t rtt, std::uint32_t in_flight,
                  int good) override {
    tcp_reno_cong_avoid(tp, ack, rtt, in_flight, good);
  }
  // tcp_reno has no undo_cwnd hook; tcp_undo_cwr then uses
  // max(snd_cwnd, snd_ssthresh << 1), which this returns.
  std::uint32_t undo_cwnd(Tcp26Sock& tp) override;
};

}  // namespace netsim::tcp::lnx26
