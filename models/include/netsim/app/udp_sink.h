// The receiving side of a UDP flow: counts datagrams, bytes and losses.
//
// Loss is counted as nuttcp -u does: datagrams sent minus datagrams received
// (duplicates cannot occur in this model), with sequence numbers carried in
// the datagram so reordering is not mistaken for loss.
//
// CPU: on a host with a CPU model whose copy_per_kib is set, the receiving
// process reads the datagrams one recvmsg() at a time on the application's
// core: each read is the copy of one payload (system context), issued when
// the previous read ends (or when a datagram arrives to an idle reader), so
// on a one-core host packet input interleaves with the reads instead of
// queueing behind all of them. Until its read ends a datagram occupies the
// socket's receive buffer (SO_RCVBUF, counted in IP bytes as the send side
// counts them); one that arrives to a full buffer is dropped, as
// sock_queue_rcv_skb / sbappendaddr drop it, and counted in buffer_drops().
// The counters (packets_received, ...) count a datagram when the buffer
// takes it. Without that cost the process reads at once and the buffer never
// fills.
#pragma once

#include <cstdint>

#include "netsim/host/host.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/ring_deque.h"
#include "netsim/sim/timer.h"

namespace netsim {

// SO_RCVBUF a UDP socket starts with: Linux's net.core.rmem_default
// (212992) and FreeBSD's net.inet.udp.recvspace (40 x (1024 +
// sizeof(struct sockaddr_in6)) = 42080).
inline constexpr std::uint64_t kLinuxUdpRcvbufDefault = 212992;
inline constexpr std::uint64_t kFreeBsdUdpRecvspace = 42080;

class UdpSink final : public Component, public Endpoint, public EventHandler {
 public:
  UdpSink(Simulation& sim, std::string name, Host& host, std::uint16_t port,
          std::uint64_t receive_buffer = kLinuxUdpRcvbufDefault);

  void deliver(Packet* p) override;
  void handle_event(std::uint64_t tag) override;  // the current read ended

  std::uint64_t packets_received() const { return packets_; }
  std::uint64_t bytes_received() const { return bytes_; }
  // Highest sequence number seen plus one (0 before the first datagram).
  std::uint64_t highest_seq_plus_one() const { return highest_seq_plus_one_; }
  SimTime first_arrival() const { return first_arrival_; }
  SimTime last_arrival() const { return last_arrival_; }
  std::uint16_t port() const { return port_; }
  std::uint64_t receive_buffer() const { return receive_buffer_; }
  // Datagrams dropped because the receive buffer was full.
  std::uint64_t buffer_drops() const { return buffer_drops_; }
  // IP bytes of datagrams in the receive buffer (not yet read, or being read).
  std::uint64_t unread_bytes() const { return unread_bytes_; }

 private:
  struct Unread {
    std::uint32_t ip_bytes;
    std::uint32_t payload_bytes;
  };
  void start_read();

  Host& host_;
  std::uint16_t port_;
  std::uint64_t receive_buffer_;
  HostCpu* cpu_ = nullptr;  // set when the read costs CPU time
  Timer read_done_;
  // Datagrams in the buffer, oldest first (the ring only grows, to the most
  // the buffer ever held, so steady state allocates nothing).
  RingDeque<Unread> unread_;
  std::uint64_t unread_bytes_ = 0;
  std::uint64_t packets_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t highest_seq_plus_one_ = 0;
  std::uint64_t buffer_drops_ = 0;
  SimTime first_arrival_ = 0;
  SimTime last_arrival_ = 0;
};

}  // namespace netsim
