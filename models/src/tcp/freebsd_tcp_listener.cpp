#include "netsim/tcp/freebsd_tcp_listener.h"

#include <stdexcept>
#include <utility>

namespace netsim::tcp {

FreeBsdTcpListener::FreeBsdTcpListener(Simulation& sim, std::string name, Host& host, std::uint16_t port)
    : Component(sim, std::move(name)), port_(port) {
  host.bind(IpProtocol::tcp, port, this);
}

void FreeBsdTcpListener::add(FreeBsdTcpSender& sender, NodeId peer, std::uint16_t peer_port) {
  if (sender.local_port() != port_) throw std::invalid_argument("freebsd listener " + name() + ": sender on another port");
  slots_.push_back(Slot{&sender, peer, peer_port});
}

void FreeBsdTcpListener::deliver(Packet* p) {
  // The inpcb lookup: the connection's (peer address, peer port).
  for (const Slot& s : slots_) {
    if (s.peer == p->src && s.peer_port == p->src_port) {
      s.sender->deliver(p);
      return;
    }
  }
  ++unmatched_;
  sim().packets().release(p);
}

}  // namespace netsim::tcp
