// Linux CUBIC with HyStart (net/ipv4/tcp_cubic.c, Linux 6.18, module
// version 2.3) as a TcpCongestionOps: struct bictcp's fields are the
// members, the module parameters a CubicParams (sysfs
// /sys/module/tcp_cubic/parameters/*), and the scale factors that
// cubictcp_register precomputes are computed per instance from them, so
// that two simulations with different parameters can share a process.
//
// Units as in the kernel: epoch_start, last_time in jiffies (tcp_jiffies32
// of the host's CONFIG_HZ); delay_min, curr_rtt, round_start, last_ack in
// microseconds (tcp_mstamp); bic_K in 2^-10 s (BICTCP_HZ); cwnds in packets.
#pragma once

#include <cstdint>

#include "netsim/tcp/linux/tcp_congestion_ops.h"

namespace netsim::tcp::lnx {

inline constexpr std::uint32_t BICTCP_BETA_SCALE = 1024;
inline constexpr int BICTCP_HZ = 10;
inline constexpr int HYSTART_ACK_TRAIN = 0x1;
inline constexpr int HYSTART_DELAY = 0x2;
inline constexpr std::uint8_t HYSTART_MIN_SAMPLES = 8;
inline constexpr std::uint32_t HYSTART_DELAY_MIN = 4000;   // us
inline constexpr std::uint32_t HYSTART_DELAY_MAX = 16000;  // us

// module_param defaults of tcp_cubic.c.
struct CubicParams {
  int fast_convergence = 1;
  int beta = 717;  // /1024
  int initial_ssthresh = 0;
  int bic_scale = 41;
  int tcp_friendliness = 1;
  int hystart = 1;
  int hystart_detect = HYSTART_ACK_TRAIN | HYSTART_DELAY;
  int hystart_low_window = 16;
  int hystart_ack_delta_us = 2000;
};

// cubic_root(): table lookup and one Newton-Raphson step (avg error ~0.2%).
std::uint32_t cubic_root(std::uint64_t a);

// HyStart exit reasons (LINUX_MIB_TCPHYSTART{TRAIN,DELAY}DETECT).
struct HystartCounters {
  std::uint64_t train_detect = 0;
  std::uint64_t train_cwnd = 0;
  std::uint64_t delay_detect = 0;
  std::uint64_t delay_cwnd = 0;
};

class TcpCubic final : public TcpCongestionOps {
 public:
  explicit TcpCubic(const CubicParams& params = {});
  const char* name() const override { return "cubic"; }

  void init(LinuxTcpSock& tp) override;                                              // cubictcp_init
  std::uint32_t ssthresh(LinuxTcpSock& tp) override;                                 // cubictcp_recalc_ssthresh
  void cong_avoid(LinuxTcpSock& tp, std::uint32_t ack, std::uint32_t acked) override;  // cubictcp_cong_avoid
  void set_state(LinuxTcpSock& tp, std::uint8_t new_state) override;                 // cubictcp_state
  bool has_set_state() const override { return true; }
  void cwnd_event(LinuxTcpSock& tp, TcpCaEvent event) override;                      // cubictcp_cwnd_event
  void pkts_acked(LinuxTcpSock& tp, const AckSample& sample) override;               // cubictcp_acked
  bool has_pkts_acked() const override { return true; }
  std::uint32_t undo_cwnd(LinuxTcpSock& tp) override;                                // tcp_reno_undo_cwnd

  // struct bictcp, readable for tests and traces.
  struct State {
    std::uint32_t cnt = 0;               // increase cwnd by 1 after this many ACKed packets
    std::uint32_t last_max_cwnd = 0;
    std::uint32_t last_cwnd = 0;
    std::uint32_t last_time = 0;         // jiffies
    std::uint32_t bic_origin_point = 0;
    std::uint32_t bic_K = 0;             // 2^-10 s
    std::uint32_t delay_min = 0;         // us
    std::uint32_t epoch_start = 0;       // jiffies; 0 = no epoch
    std::uint32_t ack_cnt = 0;
    std::uint32_t tcp_cwnd = 0;          // Reno-friendly estimate
    std::uint8_t sample_cnt = 0;
    std::uint8_t found = 0;
    std::uint32_t round_start = 0;       // us
    std::uint32_t end_seq = 0;
    std::uint32_t last_ack = 0;          // us
    std::uint32_t curr_rtt = 0;          // us
  };
  const State& state() const { return ca_; }
  const HystartCounters& hystart_counters() const { return mib_; }
  const CubicParams& params() const { return params_; }
  // The precomputed factors of cubictcp_register.
  std::uint32_t beta_scale() const { return beta_scale_; }
  std::uint32_t cube_rtt_scale() const { return cube_rtt_scale_; }
  std::uint64_t cube_factor() const { return cube_factor_; }

  // bictcp_update: recomputes cnt (at most once per jiffy, and only every
  // HZ/32 jiffies while cwnd is unchanged).
  void bictcp_update(const LinuxTcpSock& tp, std::uint32_t cwnd, std::uint32_t acked);

 private:
  void bictcp_reset();
  void bictcp_hystart_reset(const LinuxTcpSock& tp);
  std::uint32_t hystart_ack_delay(const LinuxTcpSock& tp) const;
  void hystart_update(LinuxTcpSock& tp, std::uint32_t delay);

  CubicParams params_;
  std::uint32_t beta_scale_;
  std::uint32_t cube_rtt_scale_;
  std::uint64_t cube_factor_;
  State ca_;
  HystartCounters mib_;
};

}  // namespace netsim::tcp::lnx
