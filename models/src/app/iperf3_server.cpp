#include "netsim/app/iperf3_server.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace netsim::app {

Iperf3Server::Iperf3Server(Simulation& sim, std::string name, tcp::LinuxTcpReceiver& endpoint,
                           Iperf3ControlChannel& channel, const Iperf3ServerConfig& config)
    : Component(sim, std::move(name)), endpoint_(endpoint), channel_(channel), config_(config) {
  for (std::uint16_t port : config_.stream_ports) {
    Stream s;
    s.port = port;
    streams_.push_back(s);
  }
}

bool Iperf3Server::owns(ConnId c) const {
  // Accepted connections are known by id (the per-packet path); new ones by the client's ports.
  if (c == control_) return true;
  if (c >= 0 && static_cast<std::size_t>(c) < stream_of_conn_.size() && stream_of_conn_[static_cast<std::size_t>(c)] >= 0) {
    return true;
  }
  if (endpoint_.peer(c) != config_.client) return false;
  const std::uint16_t port = endpoint_.peer_port(c);
  if (port == config_.control_port) return true;
  return std::any_of(streams_.begin(), streams_.end(), [port](const Stream& s) { return s.port == port; });
}

void Iperf3Server::on_accept(ConnId c) {
  const std::uint16_t port = endpoint_.peer_port(c);
  if (port == config_.control_port) {
    control_ = c;  // iperf_accept: the control connection; its cookie is read next
    return;
  }
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i].port != port) continue;
    streams_[i].conn = c;
    if (stream_of_conn_.size() <= static_cast<std::size_t>(c)) stream_of_conn_.resize(static_cast<std::size_t>(c) + 1, -1);
    stream_of_conn_[static_cast<std::size_t>(c)] = static_cast<int>(i);
  }
}

Iperf3Server::Stream* Iperf3Server::stream_of(ConnId c) {
  if (c < 0 || static_cast<std::size_t>(c) >= stream_of_conn_.size()) return nullptr;
  const int i = stream_of_conn_[static_cast<std::size_t>(c)];
  return i >= 0 ? &streams_[static_cast<std::size_t>(i)] : nullptr;
}

void Iperf3Server::on_data(ConnId c, std::uint64_t bytes) {
  if (c == control_) {
    channel_.to_server.consume(bytes, [this](const Iperf3ControlMessage& m) { on_control_message(m); });
    return;
  }
  Stream* s = stream_of(c);
  if (s == nullptr) return;
  // iperf_tcp_accept reads the stream's cookie first.
  const std::uint64_t cookie = std::min(s->cookie_left, bytes);
  s->cookie_left -= cookie;
  bytes -= cookie;
  if (cookie > 0 && s->cookie_left == 0) on_stream_ready();
  // iperf_tcp_recv: data read while the test runs is the stream's.
  if (running_) s->bytes_read += bytes;
}

void Iperf3Server::on_control_message(const Iperf3ControlMessage& m) {
  switch (m.kind) {
    case Iperf3Message::cookie:
      write_state(Iperf3State::param_exchange);
      break;
    case Iperf3Message::parameters:
      // get_parameters, then the data listener is ready (iperf_tcp_listen).
      write_state(Iperf3State::create_streams);
      break;
    case Iperf3Message::client_results:
      // iperf_exchange_results on the server: get_results, then send_results.
      write_json(Iperf3Message::server_results, results_json().size());
      write_state(Iperf3State::display_results);
      break;
    case Iperf3Message::state:
      if (m.state == Iperf3State::test_end) {
        end_test();
        write_state(Iperf3State::exchange_results);
      } else if (m.state == Iperf3State::iperf_done) {
        done_ = true;
      }
      break;
    default:
      break;
  }
}

void Iperf3Server::on_stream_ready() {
  if (++streams_ready_ != stream_count() || ended_) return;
  // All streams accepted: TEST_START, the streams' start time (iperf_init_test), TEST_RUNNING.
  write_state(Iperf3State::test_start);
  start_ = end_ = sim().now();
  running_ = true;
  write_state(Iperf3State::test_running);
}

void Iperf3Server::end_test() {
  if (ended_) return;
  if (running_) end_ = sim().now();
  for (Stream& s : streams_) s.segments_frozen = segments_received(s);
  running_ = false;
  ended_ = true;
}

void Iperf3Server::finish() { end_test(); }

std::uint64_t Iperf3Server::segments_received(const Stream& s) const {
  return s.conn >= 0 ? endpoint_.stats(s.conn).segments_received : 0;
}

Iperf3ReceiverCounters Iperf3Server::counters(int i) const {
  const Stream& s = streams_.at(static_cast<std::size_t>(i));
  return Iperf3ReceiverCounters{s.bytes_read, ended_ ? s.segments_frozen : segments_received(s)};
}

void Iperf3Server::write_state(Iperf3State s) {
  endpoint_.send(control_, kIperf3StateBytes);
  channel_.to_client.push({Iperf3Message::state, s, kIperf3StateBytes});
}

void Iperf3Server::write_json(Iperf3Message kind, std::uint64_t length) {
  endpoint_.send(control_, kIperf3JsonLengthBytes);
  channel_.to_client.push({Iperf3Message::json_length, Iperf3State::test_start, kIperf3JsonLengthBytes});
  endpoint_.send(control_, length);
  channel_.to_client.push({kind, Iperf3State::test_start, length});
}

std::string Iperf3Server::results_json() const {
  Iperf3ResultsMessage m;
  m.cpu_util_total = kIperf3ServerCpu[0];
  m.cpu_util_user = kIperf3ServerCpu[1];
  m.cpu_util_system = kIperf3ServerCpu[2];
  m.sender_has_retransmits = -1;  // the receiver
  // The client's -C reaches the server, whose Linux has no "newreno"
  // (setsockopt fails with ENOENT: a warning); the streams keep the default.
  m.congestion_used = "cubic";
  const double seconds = std::round(static_cast<double>(end_ - start_) / 1e6) / 1e6;
  for (int i = 0; i < stream_count(); ++i) {
    Iperf3StreamResultsEntry e;
    e.id = iperf3_stream_id(i);
    e.bytes = bytes_read(i);
    e.retransmits = -1;
    e.start_time = 0;
    e.end_time = seconds;
    m.streams.push_back(e);
  }
  return iperf3_results_json(m);
}

}  // namespace netsim::app
