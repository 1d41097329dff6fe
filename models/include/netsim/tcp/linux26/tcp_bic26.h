// BIC as the 2.6.13/2.6.14 module net/ipv4/tcp_bic.c: per-connection state
// (struct bictcp) lives in the object, the module parameters in BicParams26.
// Sources and the versions followed: models/src/tcp/linux26/tcp_bic26.cpp.
#pragma once

#include <cstdint>

#include "netsim/tcp/linux26/tcp_congestion_ops26.h"

namespace netsim::tcp::lnx26 {

inline constexpr std::uint32_t BICTCP_BETA_SCALE = 1024;  // beta is in 1/1024
inline constexpr std::uint32_t BICTCP_B = 4;               // binary search goes to (max+min)/B
inline constexpr std::uint32_t ACK_RATIO_SHIFT = 4;         // delayed_ack is packets/ACK << 4

// The module parameters (module_param in tcp_bic.c) with 2.6.13/14's defaults.
struct BicParams26 {
  int fast_convergence = 1;
  int max_increment = 32;               // 16 only from 2.6.14.x stable / 2.6.15
  int low_window = 14;
  int beta = 819;                       // 819/1024
  int low_utilization_threshold = 153;  // 153/1024
  int low_utilization_period = 2;       // seconds
  int initial_ssthresh = 100;
  int smooth_part = 20;
};

// struct bictcp
struct BicTcp26 {
  std::uint32_t cnt = 0;            // increase cwnd by 1 after this many ACKs
  std::uint32_t last_max_cwnd = 0;  // last maximum snd_cwnd
  std::uint32_t loss_cwnd = 0;      // snd_cwnd at the last loss
  std::uint32_t last_cwnd = 0;      // snd_cwnd when cnt was last computed
  std::uint32_t last_time = 0;      // jiffies when cnt was last computed
  std::uint32_t delay_min = 0;      // jiffies << 3
  std::uint32_t delay_max = 0;      // jiffies << 3
  std::uint32_t last_delay = 0;     // jiffies
  std::uint8_t low_utilization = 0;
  std::uint32_t low_utilization_start = 0;
  std::uint32_t epoch_start = 0;
  std::uint32_t delayed_ack = 2 << ACK_RATIO_SHIFT;
};

class Tcp26Bic final : public Tcp26CongestionOps {
 public:
  // version picks 2.6.13's bictcp_update (the missing parenthesis of the
  // cnt formula above last_max_cwnd) or 2.6.14's corrected one.
  explicit Tcp26Bic(KernelVersion version, BicParams26 params = {});

  const char* name() const override { return "bic"; }
  void init(Tcp26Sock& tp) override;                 // bictcp_init
  std::uint32_t ssthresh(Tcp26Sock& tp) override;    // bictcp_recalc_ssthresh
  std::uint32_t min_cwnd(const Tcp26Sock& tp) override;  // bictcp_min_cwnd
  void cong_avoid(Tcp26Sock& tp, std::uint32_t ack, std::uint32_t rtt, std::uint32_t in_flight,
                  int good) override;                // bictcp_cong_avoid
  void set_state(Tcp26Sock& tp, std::uint8_t new_state) override;  // bictcp_state
  std::uint32_t undo_cwnd(Tcp26Sock& tp) override;   // bictcp_undo_cwnd
  void pkts_acked(Tcp26Sock& tp, std::uint32_t cnt) override;  // bictcp_acked

  // bictcp_update: recompute ca.cnt for cwnd (exposed for tests).
  void bictcp_update(const Tcp26Sock& tp, std::uint32_t cwnd);
  // bictcp_low_utilization (exposed for tests).
  void bictcp_low_utilization(const Tcp26Sock& tp, int flag);

  const BicTcp26& ca() const { return ca_; }
  BicTcp26& ca() { return ca_; }
  const BicParams26& params() const { return params_; }

 private:
  void bictcp_reset();

  KernelVersion version_;
  BicParams26 params_;
  BicTcp26 ca_;
};

}  // namespace netsim::tcp::lnx26
