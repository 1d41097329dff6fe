// Congestion control of the 2.6.12-2.6.14 Linux sender as one interface:
// 2.6.13 made it pluggable (struct tcp_congestion_ops in include/net/tcp.h,
// net/ipv4/tcp_cong.c, tcp_bic.c); 2.6.12 had Reno with a built-in BIC
// (tcp_input.c: tcp_cong_avoid / bictcp_cwnd, tcp_recalc_ssthresh). Hook
// names, arguments and units are those of 2.6.13's struct, so that a reader
// can hold a module beside tcp_bic.c; the 2.6.12 objects implement the same
// hooks with 2.6.12's arithmetic.
//
// Who applies the "grow only when cwnd-limited" gate: in 2.6.12 tcp_ack
// calls tcp_cong_avoid only if prior_in_flight >= snd_cwnd (the sender does
// that); from 2.6.13 each module's cong_avoid returns early when
// in_flight < snd_cwnd (the module does). `in_flight` is the caller's
// prior_in_flight in both.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "netsim/tcp/linux26/tcp_sock26.h"

namespace netsim::tcp::lnx26 {

// enum tcp_ca_event (2.6.13)
// (2.6.13's include/net/tcp.h lists CA_EVENT_LOSS between FRTO and FAST_ACK.)
enum class TcpCaEvent : std::uint8_t { CA_EVENT_TX_START, CA_EVENT_CWND_RESTART, CA_EVENT_COMPLETE_CWR,
                                       CA_EVENT_FRTO, CA_EVENT_LOSS, CA_EVENT_FAST_ACK, CA_EVENT_SLOW_ACK };

class Tcp26CongestionOps {
 public:
  virtual ~Tcp26CongestionOps() = default;
  virtual const char* name() const = 0;
  virtual void init(Tcp26Sock&) {}
  // The slow start threshold after a loss (tcp_recalc_ssthresh in 2.6.12).
  virtual std::uint32_t ssthresh(Tcp26Sock& tp) = 0;
  // The lower bound for cwnd in rate halving (tcp_min_cwnd / min_cwnd hook).
  virtual std::uint32_t min_cwnd(const Tcp26Sock& tp) = 0;
  // On an ACK that acknowledged data (FLAG_DATA_ACKED), rtt in jiffies
  // (seq_rtt, -1 as 0xffffffff when none), good = FLAG_DATA_ACKED set.
  virtual void cong_avoid(Tcp26Sock& tp, std::uint32_t ack, std::uint32_t rtt, std::uint32_t in_flight,
                          int good) = 0;
  virtual void set_state(Tcp26Sock&, std::uint8_t /*new_state*/) {}
  virtual void cwnd_event(Tcp26Sock&, TcpCaEvent) {}
  // The cwnd to restore on undo (tcp_undo_cwr: the module hook, else max(cwnd, ssthresh << 1);
  // 2.6.12: max(cwnd, last_max_cwnd) under BIC, max(cwnd, ssthresh << 1) for Reno).
  virtual std::uint32_t undo_cwnd(Tcp26Sock& tp) = 0;
  // 2.6.13's pkts_acked hook: packets newly acknowledged by this ACK
  // (tcp_clean_rtx_queue's count), called before cong_avoid. BIC keeps its
  // delayed-ACK ratio here; 2.6.12 has no such hook.
  virtual void pkts_acked(Tcp26Sock&, std::uint32_t /*num_acked*/) {}
};

// "bic" (the default of every version) or "reno"; the version picks 2.6.12's
// built-in arithmetic or 2.6.13/14's tcp_bic.c. Throws std::invalid_argument
// naming the algorithm for any other name.
std::unique_ptr<Tcp26CongestionOps> make_tcp26_congestion_ops(const std::string& name, KernelVersion version);

}  // namespace netsim::tcp::lnx26
