// The server of an iperf3 3.17.1 TCP test (`iperf3 -s`) on the Linux receiver
// host: the server's protocol (Iperf3ServerProtocol) on the Linux endpoint
// listening on the server port, whose connections it reads.
//
// Each test has its own Iperf3Server on the shared listening endpoint, which
// hands it the connections of its client (by the client's ports).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netsim/app/iperf3_receiving_streams.h"
#include "netsim/app/iperf3_server_protocol.h"
#include "netsim/tcp/tcp_receive_endpoint.h"

namespace netsim::app {

struct Iperf3ServerConfig {
  NodeId client = kNoNode;                   // the client's host
  std::uint16_t control_port = 0;            // the client's control-connection port
  std::vector<std::uint16_t> stream_ports;   // the client's data-connection ports, stream order
};

class Iperf3Server final : public Iperf3ServerProtocol<Iperf3ReceivingStreams> {
 public:
  using ConnId = tcp::TcpReceiveEndpoint::ConnId;

  Iperf3Server(Simulation& sim, std::string name, tcp::TcpReceiveEndpoint& endpoint, Iperf3ControlChannel& channel,
               const Iperf3ServerConfig& config);

  // Whether endpoint connection `c` belongs to this test.
  bool owns(ConnId c) const;
  // From the endpoint: a connection of this test was accepted / has `bytes`
  // more in-order bytes for the application.
  void on_accept(ConnId c);
  void on_data(ConnId c, std::uint64_t bytes);

  // Live until the test ends, frozen after.
  Iperf3ReceiverCounters counters(int i) const { return data_streams().counters(i); }
  ConnId control_connection() const { return control_; }
  ConnId stream_connection(int i) const { return data_streams().connection(static_cast<std::size_t>(i)); }

 private:
  void write_control(std::uint64_t bytes) override { endpoint_.send(control_, bytes); }
  int stream_of(ConnId c) const;

  tcp::TcpReceiveEndpoint& endpoint_;
  Iperf3ServerConfig config_;
  std::vector<int> stream_of_conn_;  // endpoint connection -> stream index (-1: none), once accepted
  ConnId control_ = -1;
};

}  // namespace netsim::app
