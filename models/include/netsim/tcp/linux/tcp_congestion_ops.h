// struct tcp_congestion_ops (include/net/tcp.h, Linux 6.18) as a C++ class:
// one object per connection, its members being what the kernel keeps in
// icsk_ca_priv. Hook names, arguments and units are the kernel's; a hook the
// kernel treats as optional (a NULL pointer) has a default here that does
// what the caller does when the pointer is NULL, and `has_*` tells the
// sender where the kernel tests the pointer itself.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "netsim/tcp/linux/tcp_sock.h"

namespace netsim::tcp::lnx {  // not "linux": a predefined macro in GNU dialects

// enum tcp_ca_event
enum class TcpCaEvent : std::uint8_t {
  CA_EVENT_TX_START,      // first transmit when no packets in flight
  CA_EVENT_CWND_RESTART,  // congestion window restart
  CA_EVENT_COMPLETE_CWR,  // end of congestion recovery
  CA_EVENT_LOSS,          // loss timeout
  CA_EVENT_ECN_NO_CE,
  CA_EVENT_ECN_IS_CE,
};

// enum tcp_ca_ack_event_flags
inline constexpr std::uint32_t CA_ACK_SLOWPATH = 1u << 0;
inline constexpr std::uint32_t CA_ACK_WIN_UPDATE = 1u << 1;
inline constexpr std::uint32_t CA_ACK_ECE = 1u << 2;

// struct ack_sample
struct AckSample {
  std::uint32_t pkts_acked = 0;
  std::int32_t rtt_us = -1;
  std::uint32_t in_flight = 0;
};

class TcpCongestionOps {
 public:
  virtual ~TcpCongestionOps() = default;
  virtual const char* name() const = 0;

  virtual void init(LinuxTcpSock&) {}
  // Required: slow start threshold after a loss.
  virtual std::uint32_t ssthresh(LinuxTcpSock& tp) = 0;
  // Required unless cong_control is given.
  virtual void cong_avoid(LinuxTcpSock& tp, std::uint32_t ack, std::uint32_t acked) = 0;
  virtual void set_state(LinuxTcpSock&, std::uint8_t /*new_state*/) {}
  virtual bool has_set_state() const { return false; }
  virtual void cwnd_event(LinuxTcpSock&, TcpCaEvent) {}
  virtual void in_ack_event(LinuxTcpSock&, std::uint32_t /*flags*/) {}
  virtual void pkts_acked(LinuxTcpSock&, const AckSample&) {}
  virtual bool has_pkts_acked() const { return false; }
  // Required: the cwnd to restore on undo.
  virtual std::uint32_t undo_cwnd(LinuxTcpSock& tp) = 0;
};

}  // namespace netsim::tcp::lnx
