// The client of an iperf3 3.17.1 TCP test in reverse mode (`iperf3 -c HOST
// -R`) on the Linux receiver host: the client's protocol
// (Iperf3ClientProtocol) over Linux endpoints, one per connection, which open
// the control and data connections; the data connections read what the
// server writes, and the client's -t timer ends the test.
//
// The client gives no -C: a Linux client fails the test when setsockopt
// (TCP_CONGESTION) rejects a FreeBSD module name, so the server's congestion
// control is its system default (the flow's `cc`).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "netsim/app/iperf3_client_protocol.h"
#include "netsim/app/iperf3_receiving_streams.h"
#include "netsim/tcp/tcp_receive_endpoint.h"

namespace netsim::app {

class Iperf3ReverseClient final : public Iperf3ClientProtocol<Iperf3ReceivingStreams> {
 public:
  using ConnId = tcp::TcpReceiveEndpoint::ConnId;

  // `control` and every element of `endpoints` (at least one) are Linux
  // endpoints bound to their own ephemeral ports, with no connection yet;
  // the client opens one connection on each to (server, server_port).
  // config.congestion is not used (no -C, above).
  Iperf3ReverseClient(Simulation& sim, std::string name, const Iperf3ClientConfig& config, NodeId server,
                      std::uint16_t server_port, tcp::TcpReceiveEndpoint& control,
                      const std::vector<tcp::TcpReceiveEndpoint*>& endpoints)
      : Iperf3ClientProtocol(sim, std::move(name), without_congestion(config),
                             Iperf3ReceivingStreams(endpoints), /*reverse=*/true),
        server_(server),
        server_port_(server_port),
        control_(control) {
    control_.set_on_connected([this](ConnId c) {
      control_conn_ = c;
      control_connected();
    });
    control_.set_on_data([this](ConnId, std::uint64_t bytes) { control_bytes(bytes); });
    for (std::size_t i = 0; i < static_cast<std::size_t>(stream_count()); ++i) {
      tcp::TcpReceiveEndpoint& endpoint = streams().endpoint(i);
      endpoint.set_on_connected([this, i](ConnId c) {
        streams().set_connection(i, c);
        stream_connected(i);
      });
      endpoint.set_on_data([this, i](ConnId, std::uint64_t bytes) { streams().on_read(i, bytes); });
    }
  }

  const tcp::TcpReceiveEndpoint& control() const { return control_; }
  ConnId control_connection() const { return control_conn_; }
  const tcp::TcpReceiveEndpoint& stream(int i) const { return data_streams().endpoint(static_cast<std::size_t>(i)); }
  // Live until the window closes, frozen after.
  Iperf3ReceiverCounters counters(int i) const { return data_streams().counters(i); }

 private:
  static Iperf3ClientConfig without_congestion(Iperf3ClientConfig config) {
    config.congestion.clear();
    return config;
  }

  void connect_control() override { control_.connect(server_, server_port_); }
  void connect_stream(std::size_t i) override { streams().endpoint(i).connect(server_, server_port_); }
  void write_control(std::uint64_t bytes) override { control_.send(control_conn_, bytes); }
  void write_stream_cookie(std::size_t i) override {
    streams().endpoint(i).send(streams().connection(i), kIperf3CookieBytes);
  }

  NodeId server_;
  std::uint16_t server_port_;
  tcp::TcpReceiveEndpoint& control_;
  ConnId control_conn_ = -1;
};

}  // namespace netsim::app
