// An end host: interfaces, an address, a kern.hz tick clock, packet-filter
// hooks and a port table demultiplexing packets to endpoints.
//
// Packet path: endpoint -> send() -> egress filters -> interface channel;
// channel -> receive() -> [not for us: dropped] -> ingress filters -> endpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netsim/filter/packet_filter.h"
#include "netsim/host/endpoint.h"
#include "netsim/net/node.h"
#include "netsim/sim/tick_clock.h"

namespace netsim {

enum class Hook { ingress, egress };

struct HostCounters {
  std::uint64_t packets_sent = 0;       // handed to an interface
  std::uint64_t packets_received = 0;   // delivered to an endpoint
  std::uint64_t filtered_egress = 0;
  std::uint64_t filtered_ingress = 0;
  std::uint64_t not_for_us = 0;         // e.g. frames a hub repeated to every port
  std::uint64_t no_listener = 0;        // no endpoint bound to the destination port
  std::uint64_t unroutable = 0;
};

class Host final : public Node {
 public:
  Host(Simulation& sim, std::string name, NodeId id, std::string address, IpVersion ip_version, int hz);

  const std::string& address() const { return address_; }
  IpVersion ip_version() const { return ip_version_; }
  TickClock& clock() { return clock_; }

  // Sends a packet from a local endpoint; fills in the source and IP version.
  void send(Packet* p);
  void receive(Packet* p, int port) override;

  // Registers `e` for (protocol, port). Throws if the port is taken.
  void bind(IpProtocol protocol, std::uint16_t port, Endpoint* e);
  // A free port from the ephemeral range (49152..65535), as the kernel picks one.
  std::uint16_t ephemeral_port();
  // Appends a rule to a hook; rules run in the order added. Not owned.
  void add_filter(Hook hook, PacketFilter* f);
  const std::vector<PacketFilter*>& filters(Hook hook) const {
    return hook == Hook::ingress ? ingress_ : egress_;
  }
  // The interface channel that packets to `dst` leave on (nullptr if none).
  Channel* route(NodeId dst) const;

  const HostCounters& counters() const { return counters_; }

 private:
  struct Binding {
    IpProtocol protocol;
    std::uint16_t port;
    Endpoint* endpoint;
  };
  static bool filtered(const std::vector<PacketFilter*>& chain, const Packet& p);

  std::string address_;
  IpVersion ip_version_;
  TickClock clock_;
  std::vector<Binding> bindings_;
  std::vector<PacketFilter*> ingress_;
  std::vector<PacketFilter*> egress_;
  std::uint16_t next_ephemeral_ = 49152;
  HostCounters counters_;
};

}  // namespace netsim
