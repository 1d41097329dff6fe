// The kernel's ICMP echo service of a host: every echo request delivered to
// it is answered at once with an echo reply of the same size, identifier and
// sequence number (FreeBSD icmp_input -> icmp_reflect; Linux icmp_echo).
// On an IPv6 host the same over ICMPv6 (echo request 128, reply 129:
// FreeBSD icmp6_input, Linux icmpv6_echo_reply).
//
// Modelling convention: an ICMP packet's src_port/dst_port carry the echo
// identifier, so the host's port table can demultiplex it. A request goes to
// port 0, where the responder is bound; the reply goes back to the pinging
// process's identifier, with the request's sequence number (app_seq), by
// which the client finds the send time ping(8) writes into its data.
#pragma once

#include <cstdint>

#include "netsim/host/host.h"

namespace netsim {

class IcmpEchoResponder final : public Component, public Endpoint {
 public:
  static constexpr std::uint16_t kPort = 0;

  // Binds (icmp, kPort) on `host`, (icmpv6, kPort) on an IPv6 host; one responder per host.
  IcmpEchoResponder(Simulation& sim, std::string name, Host& host);

  void deliver(Packet* p) override;

  std::uint64_t replies_sent() const { return replies_; }

 private:
  Host& host_;
  std::uint64_t replies_ = 0;
};

}  // namespace netsim
