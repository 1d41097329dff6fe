#include "netsim/app/udp_sink.h"

namespace netsim {

UdpSink::UdpSink(Simulation& sim, std::string name, Host& host, std::uint16_t port)
    : Component(sim, std::move(name)), host_(host), port_(port) {
  host.bind(IpProtocol::udp, port, this);
}

void UdpSink::deliver(Packet* p) {
  if (packets_ == 0) first_arrival_ = sim().now();
  last_arrival_ = sim().now();
  ++packets_;
  bytes_ += p->payload_bytes;
  if (p->app_seq + 1 > highest_seq_plus_one_) highest_seq_plus_one_ = p->app_seq + 1;
  sim().packets().release(p);
}

}  // namespace netsim
