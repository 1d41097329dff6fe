#include "netsim/app/iperf3_reverse_server.h"
#include "netsim/tcp/sender_report_fields.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace netsim::app {

Iperf3ReverseServer::Iperf3ReverseServer(Simulation& sim, std::string name, Iperf3ControlChannel& channel,
                                         std::uint64_t blksize, std::string congestion, tcp::FreeBsdTcpSender& control,
                                         std::vector<tcp::FreeBsdTcpSender*> streams)
    : Component(sim, std::move(name)),
      channel_(channel),
      blksize_(std::max<std::uint64_t>(1, blksize)),
      congestion_(std::move(congestion)),
      control_(control) {
  for (tcp::FreeBsdTcpSender* s : streams) {
    Stream st;
    st.tcp = s;
    streams_.push_back(st);
  }
  control_.set_on_data([this](std::uint64_t bytes) {
    channel_.to_server.consume(bytes, [this](const Iperf3ControlMessage& m) { on_control_message(m); });
  });
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    // iperf_tcp_accept reads the stream's cookie; nothing else comes from the client.
    streams_[i].tcp->set_on_data([this, i](std::uint64_t bytes) {
      Stream& s = streams_[i];
      const std::uint64_t cookie = std::min(s.cookie_left, bytes);
      s.cookie_left -= cookie;
      if (cookie > 0 && s.cookie_left == 0) on_stream_ready();
    });
  }
}

void Iperf3ReverseServer::write(std::uint64_t bytes) {
  // Nwrite of a control message: far smaller than the send buffer.
  if (control_.write(bytes) != bytes) throw std::runtime_error("iperf3 control message larger than the send buffer");
}

void Iperf3ReverseServer::on_control_message(const Iperf3ControlMessage& m) {
  auto w = [this](std::uint64_t bytes) { write(bytes); };
  switch (m.kind) {
    case Iperf3Message::cookie:
      iperf3_write_state(channel_.to_client, w, Iperf3State::param_exchange);
      break;
    case Iperf3Message::parameters:
      iperf3_write_state(channel_.to_client, w, Iperf3State::create_streams);
      break;
    case Iperf3Message::client_results:
      iperf3_write_json(channel_.to_client, w, Iperf3Message::server_results, results_json().size());
      iperf3_write_state(channel_.to_client, w, Iperf3State::display_results);
      break;
    case Iperf3Message::state:
      if (m.state == Iperf3State::test_end) {
        end_test();
        iperf3_write_state(channel_.to_client, w, Iperf3State::exchange_results);
      } else if (m.state == Iperf3State::iperf_done) {
        done_ = true;
      }
      break;
    default:
      break;
  }
}

void Iperf3ReverseServer::on_stream_ready() {
  if (++streams_ready_ != stream_count() || ended_) return;
  auto w = [this](std::uint64_t bytes) { write(bytes); };
  iperf3_write_state(channel_.to_client, w, Iperf3State::test_start);
  start_ = end_ = sim().now();
  for (Stream& s : streams_) s.rexmit_at_start = tcp::report_retransmits(*s.tcp);
  running_ = true;
  iperf3_write_state(channel_.to_client, w, Iperf3State::test_running);
  // The sending threads write -l blocks from now on: the send buffer is kept full.
  for (Stream& s : streams_) {
    s.tcp->set_unlimited_data(true);
    s.tcp->write(s.tcp->send_buffer_room());
  }
}

void Iperf3ReverseServer::end_test() {
  if (ended_) return;
  if (running_) end_ = sim().now();
  for (Stream& s : streams_) {
    s.tcp->set_unlimited_data(false);
    s.frozen = live_counters(s);
  }
  running_ = false;
  ended_ = true;
}

void Iperf3ReverseServer::finish() { end_test(); }

std::uint64_t Iperf3ReverseServer::blocks_written(const Stream& s) const {
  return s.tcp->bytes_written() / blksize_ * blksize_;
}

Iperf3IntervalSample Iperf3ReverseServer::sample(int i) const {
  const Stream& s = streams_.at(static_cast<std::size_t>(i));
  const tcp::FreeBsdTcpSender& tcp = *s.tcp;
  Iperf3IntervalSample x;
  x.bytes_written = blocks_written(s);
  x.retransmits = tcp::report_retransmits(tcp);
  x.snd_cwnd = tcp.tcpcb().snd_cwnd;
  x.snd_wnd = tcp.tcpcb().snd_wnd;
  x.rtt_us = tcp.srtt_usecs();
  x.rttvar_us = tcp.rttvar_usecs();
  return x;
}

Iperf3SenderCounters Iperf3ReverseServer::live_counters(const Stream& s) const {
  // The passive side sent no SYN and no cookie: its segment and byte counts
  // are the stream's data (SYN-ACKs and pure ACKs are not in them).
  const tcp::FreeBsdTcpSender& tcp = *s.tcp;
  Iperf3SenderCounters c;
  c.segments_sent = tcp.stats().segments_sent;
  c.bytes_sent = tcp.stats().bytes_sent;
  c.bytes_acked = tcp.bytes_acked();
  tcp::fill_sender_report_fields(tcp, c);
  c.bytes_written = blocks_written(s);
  return c;
}

Iperf3SenderCounters Iperf3ReverseServer::counters(int i) const {
  const Stream& s = streams_.at(static_cast<std::size_t>(i));
  return ended_ ? s.frozen : live_counters(s);
}

std::string Iperf3ReverseServer::results_json() const {
  Iperf3ResultsMessage m;
  m.cpu_util_total = kIperf3ServerCpu[0];
  m.cpu_util_user = kIperf3ServerCpu[1];
  m.cpu_util_system = kIperf3ServerCpu[2];
  m.sender_has_retransmits = 1;  // FreeBSD's TCP_INFO has tcpi_snd_rexmitpack
  m.congestion_used = congestion_;
  const double seconds = std::round(static_cast<double>(end_ - start_) / 1e6) / 1e6;
  for (int i = 0; i < stream_count(); ++i) {
    const Iperf3SenderCounters c = counters(i);
    Iperf3StreamResultsEntry e;
    e.id = iperf3_stream_id(i);
    e.bytes = c.bytes_written;
    const std::uint64_t at_start = streams_[static_cast<std::size_t>(i)].rexmit_at_start;
    e.retransmits = static_cast<std::int64_t>(c.retransmits - std::min(c.retransmits, at_start));
    e.start_time = 0;
    e.end_time = seconds;
    m.streams.push_back(e);
  }
  return iperf3_results_json(m);
}

}  // namespace netsim::app
