// What an application model (iperf3, iperf2, a bulk driver) and the reports
// see of a sending TCP socket, whichever stack implements it: the calls a
// program makes (connect, write), the callbacks it waits on, and the figures
// TCP_INFO and the stack's counters give it. FreeBsdTcpSender and
// LinuxTcpSender implement it; the applications are written against it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "netsim/sim/packet.h"
#include "netsim/tcp/tcp_trace.h"

namespace netsim::tcp {

// One reading of the socket as its OS's TCP_INFO and counters show it.
struct TcpSocketInfo {
  std::uint32_t snd_cwnd_bytes = 0;   // tcpi_snd_cwnd in bytes (Linux: segments x mss)
  std::uint32_t snd_wnd_bytes = 0;    // the peer's advertised window
  std::uint32_t mss = 0;              // TCP_MAXSEG: t_maxseg / mss_cache
  std::uint32_t rtt_us = 0;           // tcpi_rtt
  std::uint32_t rttvar_us = 0;        // tcpi_rttvar
  // What iperf3 and iperf2 print as Retr: FreeBSD tcpi_snd_rexmitpack,
  // Linux tcpi_total_retrans.
  std::uint64_t retransmits = 0;
  std::uint64_t rto_count = 0;
  std::uint64_t recovery_episodes = 0;
  std::uint64_t data_segments_sent = 0;  // data segments, retransmissions included, no SYN
  std::uint64_t bytes_sent = 0;          // payload bytes, retransmissions included
};

class TcpSendSocket {
 public:
  // Active open: sends the SYN now (passive sockets ignore it).
  virtual void connect() = 0;
  // The application writes `bytes` (subject to the send buffer's room);
  // returns how much was accepted.
  virtual std::uint64_t write(std::uint64_t bytes) = 0;
  // Endless data (iperf -l with a long -t): the buffer is refilled whenever room appears.
  virtual void set_unlimited_data(bool on) = 0;
  virtual std::uint64_t send_buffer_room() const = 0;
  virtual std::uint64_t bytes_written() const = 0;   // accepted from the application so far
  virtual std::uint64_t bytes_acked() const = 0;     // cumulatively acknowledged data
  virtual std::uint64_t bytes_received() const = 0;  // in-order data from the peer
  virtual bool established() const = 0;
  virtual void set_on_established(std::function<void()> f) = 0;
  virtual void set_on_data(std::function<void(std::uint64_t)> f) = 0;
  virtual void set_trace(TcpTraceSink sink) = 0;
  virtual std::uint16_t local_port() const = 0;
  virtual NodeId peer() const = 0;
  virtual TcpSocketInfo info() const = 0;
  // iperf3's sender_has_retransmits: the OS's TCP_INFO reports them.
  virtual bool reports_retransmits() const { return true; }
  virtual const std::string& socket_name() const = 0;

 protected:
  ~TcpSendSocket() = default;
};

}  // namespace netsim::tcp
