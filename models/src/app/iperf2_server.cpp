#include "netsim/app/iperf2_server.h"

#include <algorithm>
#include <utility>

#include "netsim/app/iperf2_report.h"

namespace netsim::app {

Iperf2Server::Iperf2Server(Simulation& sim, std::string name, tcp::TcpReceiveEndpoint& endpoint,
                           const Iperf2ServerConfig& config)
    : Component(sim, std::move(name)), endpoint_(endpoint), config_(config) {
  config_.read_len = std::max<std::uint64_t>(1, config_.read_len);
  for (std::uint16_t port : config_.stream_ports) {
    Stream s;
    s.port = port;
    // One sample per interval up to the run's end: no reallocation while the test runs.
    if (config_.interval > 0 && config_.run_end > 0) {
      s.samples.reserve(static_cast<std::size_t>(std::min<SimTime>(config_.run_end / config_.interval + 2, 100'000)));
    }
    streams_.push_back(std::move(s));
  }
}

bool Iperf2Server::owns(ConnId c) const {
  if (stream_of(c) >= 0) return true;
  if (endpoint_.peer(c) != config_.client) return false;
  const std::uint16_t port = endpoint_.peer_port(c);
  return std::any_of(streams_.begin(), streams_.end(), [port](const Stream& s) { return s.port == port; });
}

int Iperf2Server::stream_of(ConnId c) const {
  if (c < 0 || static_cast<std::size_t>(c) >= stream_of_conn_.size()) return -1;
  return stream_of_conn_[static_cast<std::size_t>(c)];
}

void Iperf2Server::on_accept(ConnId c) {
  const std::uint16_t port = endpoint_.peer_port(c);
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& s = streams_[i];
    if (s.port != port || s.conn >= 0) continue;
    s.conn = c;
    // The server's report starts at the accept (Server::SetReportStartTime: accept_time).
    s.accepted_at = sim().now();
    s.initial_rtt_us = endpoint_.srtt_us(c);
    s.last.end = s.accepted_at;
    if (stream_of_conn_.size() <= static_cast<std::size_t>(c)) stream_of_conn_.resize(static_cast<std::size_t>(c) + 1, -1);
    stream_of_conn_[static_cast<std::size_t>(c)] = static_cast<int>(i);
    if (config_.interval > 0) sim().schedule_at(s.accepted_at + config_.interval, this, i);
    return;
  }
}

void Iperf2Server::count_read(Stream& s, std::uint64_t n) {
  s.total.bytes += n;
  ++s.total.reads;
  const std::size_t bin = iperf2_read_bin(n, config_.read_len);
  if (bin < s.total.bins.size()) ++s.total.bins[bin];
}

void Iperf2Server::on_data(ConnId c, std::uint64_t bytes) {
  const int i = stream_of(c);
  if (i < 0) return;
  Stream& s = streams_[static_cast<std::size_t>(i)];
  if (s.closed) return;
  // The listener's recvn of the test header: one read of its whole length,
  // done once all of it has arrived (apply_client_settings_tcp), then the
  // client_test_ack back (HEADER_EXTEND without HEADER_VERSION2).
  if (s.header_left > 0) {
    const std::uint64_t h = std::min(s.header_left, bytes);
    s.header_left -= h;
    bytes -= h;
    if (s.header_left == 0) {
      count_read(s, iperf2_header_length(iperf2_plain_tcp_flags()));
      if (iperf2_server_acks_header(iperf2_plain_tcp_flags())) {
        s.acked = endpoint_.send(s.conn, kIperf2HeaderAckBytes);
      }
    }
  }
  // Server::RunTCP: recv(sock, buf, -l) returns what is readable, at most -l bytes.
  while (bytes > 0) {
    const std::uint64_t n = std::min(bytes, config_.read_len);
    count_read(s, n);
    bytes -= n;
  }
  if (s.eof_known && s.total.bytes >= s.eof) close(i);
}

void Iperf2Server::set_eof(int i, std::uint64_t total) {
  Stream& s = streams_.at(static_cast<std::size_t>(i));
  if (s.closed) return;
  s.eof = total;
  s.eof_known = true;
  if (s.conn >= 0 && s.total.bytes >= s.eof) close(i);
}

void Iperf2Server::take_sample(Stream& s, SimTime now) {
  Iperf2ServerSample x;
  x.start = s.last.end;
  x.end = now;
  x.read.bytes = s.total.bytes - s.last.read.bytes;
  x.read.reads = s.total.reads - s.last.read.reads;
  for (std::size_t b = 0; b < x.read.bins.size(); ++b) x.read.bins[b] = s.total.bins[b] - s.last.read.bins[b];
  s.samples.push_back(x);
  s.last.end = now;
  s.last.read = s.total;
}

void Iperf2Server::handle_event(std::uint64_t tag) {
  Stream& s = streams_.at(static_cast<std::size_t>(tag));
  if (s.closed) return;
  const SimTime now = sim().now();
  take_sample(s, now);
  sim().schedule_at(now + config_.interval, this, tag);
}

// The read loop ends: the last, shorter interval and the totals are final.
void Iperf2Server::close(int i) {
  Stream& s = streams_[static_cast<std::size_t>(i)];
  if (s.closed) return;
  const SimTime now = sim().now();
  if (config_.interval > 0 && s.conn >= 0 && now > s.last.end) take_sample(s, now);
  s.frozen_stats = connection_stats(i);
  s.closed = true;
  s.closed_at = now;
  if (on_close_) on_close_(i);
}

void Iperf2Server::finish() {
  for (int i = 0; i < stream_count(); ++i) {
    Stream& s = streams_[static_cast<std::size_t>(i)];
    if (s.closed) continue;
    if (s.conn < 0) s.accepted_at = s.last.end = sim().now();
    close(i);
  }
}

tcp::TcpReceiverStats Iperf2Server::connection_stats(int i) const {
  const Stream& s = at(i);
  if (s.closed) return s.frozen_stats;
  return s.conn >= 0 ? endpoint_.stats(s.conn) : tcp::TcpReceiverStats{};
}

}  // namespace netsim::app
