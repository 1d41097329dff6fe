// A FreeBSD listening socket (iperf3 -s on the sending host of an iperf3 -R
// test): binds the port and hands every packet of a connection to the
// passive FreeBsdTcpSender reserved for its peer (node, port), which runs the
// syncache handshake and then the connection.
//
// FreeBSD creates the socket when the handshake completes (sonewconn); here
// the senders exist from the start, one per expected peer, so that nothing
// is allocated while the simulation runs and each application knows its
// connections up front. A SYN from a peer with no reserved sender is dropped
// (counted), where FreeBSD would accept it and queue it for accept().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/tcp/freebsd_tcp_sender.h"

namespace netsim::tcp {

class FreeBsdTcpListener final : public Component, public Endpoint {
 public:
  // Binds (tcp, port) on `host`; throws std::invalid_argument if it is taken.
  FreeBsdTcpListener(Simulation& sim, std::string name, Host& host, std::uint16_t port);

  // Reserves `sender` (built with FreeBsdTcpSender::passive on this port) for
  // the connection from (peer, peer_port).
  void add(FreeBsdTcpSender& sender, NodeId peer, std::uint16_t peer_port);

  void deliver(Packet* p) override;

  std::uint16_t port() const { return port_; }
  // Packets from peers with no reserved sender.
  std::uint64_t unmatched() const { return unmatched_; }

 private:
  struct Slot {
    FreeBsdTcpSender* sender;
    NodeId peer;
    std::uint16_t peer_port;
  };
  std::uint16_t port_;
  std::vector<Slot> slots_;
  std::uint64_t unmatched_ = 0;
};

}  // namespace netsim::tcp
