// 2.6.12's congestion control, before it was pluggable: Reno with the
// built-in BIC of net/ipv4/tcp_input.c (reno_cong_avoid calling
// bictcp_cwnd) and include/net/tcp.h (tcp_recalc_ssthresh), with the
// cwnd floor of tcp_cwnd_down and the restore of tcp_undo_cwr. One class
// serves "bic" (sysctl_tcp_bic = 1, the default) and "reno" (tcp_is_bic
// false). Sources and the versions followed:
// models/src/tcp/linux26/tcp_bic_2_6_12.cpp.
#pragma once

#include <cstdint>

#include "netsim/tcp/linux26/tcp_bic26.h"
#include "netsim/tcp/linux26/tcp_congestion_ops26.h"

namespace netsim::tcp::lnx26 {

// The sysctls of 2.6.12's tcp_input.c with their defaults.
struct BicSysctl2612 {
  int sysctl_tcp_bic_fast_convergence = 1;
  int sysctl_tcp_bic_low_window = 14;
  int sysctl_tcp_bic_beta = 819;  // /BICTCP_BETA_SCALE (1024)
};

// The constants of 2.6.12's include/net/tcp.h; BICTCP_BETA_SCALE (1024)
// and BICTCP_B (4) are the same as tcp_bic.c's (tcp_bic26.h).
inline constexpr std::uint32_t BICTCP_MAX_INCREMENT = 32;
inline constexpr std::uint32_t BICTCP_FUNC_OF_MIN_INCR = 11;

// tp->bictcp of 2.6.12's struct tcp_sock.
struct BicTcp2612 {
  std::uint32_t cnt = 0;
  std::uint32_t last_max_cwnd = 0;
  std::uint32_t last_cwnd = 0;
  std::uint32_t last_stamp = 0;
};

class Tcp26Bic2612 final : public Tcp26CongestionOps {
 public:
  // bic = tcp_is_bic(tp): true for "bic", false for plain "reno".
  explicit Tcp26Bic2612(bool bic, BicSysctl2612 sysctl = {});

  const char* name() const override { return bic_ ? "bic" : "reno"; }
  // init_bictcp. 2.6.12 calls it at the end of tcp_enter_frto_loss (not in
  // tcp_enter_loss); a 2.6.12 sender calls init() there.
  void init(Tcp26Sock& tp) override;
  std::uint32_t ssthresh(Tcp26Sock& tp) override;        // tcp_recalc_ssthresh
  std::uint32_t min_cwnd(const Tcp26Sock& tp) override;  // tcp_cwnd_down's limit
  // reno_cong_avoid. No cwnd-limited gate: 2.6.12's tcp_ack applies it.
  void cong_avoid(Tcp26Sock& tp, std::uint32_t ack, std::uint32_t rtt, std::uint32_t in_flight,
                  int good) override;
  std::uint32_t undo_cwnd(Tcp26Sock& tp) override;       // tcp_undo_cwr's restore

  // bictcp_cwnd: the ACK count per cwnd increment (exposed for tests).
  std::uint32_t bictcp_cwnd(Tcp26Sock& tp);

  const BicTcp2612& bictcp() const { return bictcp_; }
  BicTcp2612& bictcp() { return bictcp_; }

 private:
  bool bic_;
  BicSysctl2612 sysctl_;
  BicTcp2612 bictcp_;
};

}  // namespace netsim::tcp::lnx26
