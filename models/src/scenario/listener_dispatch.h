// The applications behind one listening TCP endpoint (bulk drivers, nuttcp
// flows, iperf3 and iperf2 servers), and the lookup that hands each of its
// connections' callbacks to the one that owns the connection.
//
// Ownership is asked of each application in a fixed order (drivers, nuttcp,
// iperf3, iperf2; the first that owns() the connection takes it), once per
// connection; a driver owns exactly the connections from its peer key, so
// drivers are found by that key (the lowest-numbered one that has it), not
// by asking each. The answer is kept by slot with the peer (node, port) it
// was given for, so a packet's data callback costs O(1) however many flows
// share the port. A slot whose peer changed, or that was accepted again (an
// iperf server learns its connections at accept), is asked anew, which is
// what asking on every callback would answer.
#pragma once

#include <cstdint>
#include <vector>

#include "netsim/app/iperf2_server.h"
#include "netsim/app/iperf3_server.h"
#include "netsim/scenario/nuttcp_flow.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/sim/key_table.h"
#include "netsim/tcp/tcp_receive_endpoint.h"

namespace netsim {

class ListenerDispatch {
 public:
  using ConnId = tcp::TcpReceiveEndpoint::ConnId;

  explicit ListenerDispatch(const tcp::TcpReceiveEndpoint& rx) : rx_(rx), owners_(static_cast<std::size_t>(rx.max_connections())) {}

  std::vector<TcpFlowDriver*> drivers;
  std::vector<NuttcpTcpFlow*> nuttcp;
  std::vector<app::Iperf3Server*> iperf3_servers;
  std::vector<app::Iperf2Server*> iperf2_servers;

  void on_accept(ConnId c) {
    forget(c);
    for (app::Iperf3Server* srv : iperf3_servers) {
      if (srv->owns(c)) {
        srv->on_accept(c);
        return;
      }
    }
    for (app::Iperf2Server* srv : iperf2_servers) {
      if (srv->owns(c)) {
        srv->on_accept(c);
        return;
      }
    }
  }

  void on_data(ConnId c, std::uint64_t bytes) {
    const Owner& o = owner(c);
    switch (o.kind) {
      case Kind::driver: static_cast<TcpFlowDriver*>(o.app)->on_delivered(c, bytes); break;
      case Kind::nuttcp: static_cast<NuttcpTcpFlow*>(o.app)->on_delivered(c, bytes); break;
      case Kind::iperf3: static_cast<app::Iperf3Server*>(o.app)->on_data(c, bytes); break;
      case Kind::iperf2: static_cast<app::Iperf2Server*>(o.app)->on_data(c, bytes); break;
      case Kind::none: break;
    }
  }

 private:
  enum class Kind : std::uint8_t { none, driver, nuttcp, iperf3, iperf2 };
  struct Owner {
    Kind kind = Kind::none;
    void* app = nullptr;
    NodeId peer = 0;
    std::uint16_t peer_port = 0;
  };

  void forget(ConnId c) {
    if (c >= 0 && static_cast<std::size_t>(c) < owners_.size()) owners_[static_cast<std::size_t>(c)] = Owner{};
  }

  const Owner& owner(ConnId c) {
    static constexpr Owner kNone{};
    if (c < 0 || static_cast<std::size_t>(c) >= owners_.size()) return kNone;
    Owner& o = owners_[static_cast<std::size_t>(c)];
    const NodeId peer = rx_.peer(c);
    const std::uint16_t port = rx_.peer_port(c);
    if (o.kind != Kind::none && o.peer == peer && o.peer_port == port) return o;
    o = Owner{Kind::none, nullptr, peer, port};
    for (; indexed_ < drivers.size(); ++indexed_) {
      const std::uint64_t key = drivers[indexed_]->receiver_peer_key();
      if (!driver_by_peer_.contains(key)) driver_by_peer_.set(key, indexed_);
    }
    if (const std::size_t* d = driver_by_peer_.find(peer_key(peer, port)); d != nullptr && drivers[*d]->owns(c)) {
      o.kind = Kind::driver;
      o.app = drivers[*d];
      return o;
    }
    // Nobody owning it leaves kind none: asked again next time.
    (void)(ask(nuttcp, Kind::nuttcp, c, o) ||
           ask(iperf3_servers, Kind::iperf3, c, o) || ask(iperf2_servers, Kind::iperf2, c, o));
    return o;
  }

  template <typename App>
  static bool ask(const std::vector<App*>& apps, Kind kind, ConnId c, Owner& o) {
    for (App* a : apps) {
      if (a->owns(c)) {
        o.kind = kind;
        o.app = a;
        return true;
      }
    }
    return false;
  }

  const tcp::TcpReceiveEndpoint& rx_;
  std::vector<Owner> owners_;
  KeyTable<std::size_t> driver_by_peer_;  // drivers[0, indexed_) by receiver_peer_key
  std::size_t indexed_ = 0;
};

}  // namespace netsim
