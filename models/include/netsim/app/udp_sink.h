// The receiving side of a UDP flow: counts datagrams, bytes and losses.
//
// Loss is counted as nuttcp -u does: datagrams sent minus datagrams received
// (duplicates cannot occur in this model), with sequence numbers carried in
// the datagram so reordering is not mistaken for loss.
#pragma once

#include <cstdint>

#include "netsim/host/host.h"

namespace netsim {

class UdpSink final : public Component, public Endpoint {
 public:
  UdpSink(Simulation& sim, std::string name, Host& host, std::uint16_t port);

  void deliver(Packet* p) override;

  std::uint64_t packets_received() const { return packets_; }
  std::uint64_t bytes_received() const { return bytes_; }
  // Highest sequence number seen plus one (0 before the first datagram).
  std::uint64_t highest_seq_plus_one() const { return highest_seq_plus_one_; }
  SimTime first_arrival() const { return first_arrival_; }
  SimTime last_arrival() const { return last_arrival_; }
  std::uint16_t port() const { return port_; }

 private:
  Host& host_;
  std::uint16_t port_;
  std::uint64_t packets_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t highest_seq_plus_one_ = 0;
  SimTime first_arrival_ = 0;
  SimTime last_arrival_ = 0;
};

}  // namespace netsim
