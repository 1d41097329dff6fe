#include "netsim/app/iperf3_server.h"

#include <algorithm>
#include <utility>

namespace netsim::app {

Iperf3Server::Iperf3Server(Simulation& sim, std::string name, tcp::TcpReceiveEndpoint& endpoint,
                           Iperf3ControlChannel& channel, const Iperf3ServerConfig& config)
    : Iperf3ServerProtocol(
          sim, std::move(name), channel,
          Iperf3ReceivingStreams(std::vector<tcp::TcpReceiveEndpoint*>(config.stream_ports.size(), &endpoint))),
      endpoint_(endpoint),
      config_(config) {}

bool Iperf3Server::owns(ConnId c) const {
  // Accepted connections are known by id (the per-packet path); new ones by the client's ports.
  if (c == control_ || stream_of(c) >= 0) return true;
  if (endpoint_.peer(c) != config_.client) return false;
  const std::uint16_t port = endpoint_.peer_port(c);
  return port == config_.control_port || std::ranges::find(config_.stream_ports, port) != config_.stream_ports.end();
}

void Iperf3Server::on_accept(ConnId c) {
  const std::uint16_t port = endpoint_.peer_port(c);
  if (port == config_.control_port) {
    control_ = c;  // iperf_accept: the control connection; its cookie is read next
    return;
  }
  for (std::size_t i = 0; i < config_.stream_ports.size(); ++i) {
    if (config_.stream_ports[i] != port) continue;
    streams().set_connection(i, c);
    if (stream_of_conn_.size() <= static_cast<std::size_t>(c)) stream_of_conn_.resize(static_cast<std::size_t>(c) + 1, -1);
    stream_of_conn_[static_cast<std::size_t>(c)] = static_cast<int>(i);
  }
}

int Iperf3Server::stream_of(ConnId c) const {
  if (c < 0 || static_cast<std::size_t>(c) >= stream_of_conn_.size()) return -1;
  return stream_of_conn_[static_cast<std::size_t>(c)];
}

void Iperf3Server::on_data(ConnId c, std::uint64_t bytes) {
  if (c == control_) {
    control_bytes(bytes);
    return;
  }
  const int i = stream_of(c);
  if (i < 0) return;
  const auto stream = static_cast<std::size_t>(i);
  streams().on_read(stream, read_stream_cookie(stream, bytes));
}

}  // namespace netsim::app
