#include "netsim/app/iperf3_reverse_client.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace netsim::app {
namespace {

// iperf3 keeps times in microseconds (struct iperf_time).
double seconds_us(SimTime t) { return std::round(static_cast<double>(t) / 1e6) / 1e6; }

}  // namespace

Iperf3ReverseClient::Iperf3ReverseClient(Simulation& sim, std::string name, const Iperf3ClientConfig& config,
                                         NodeId server, std::uint16_t server_port, tcp::LinuxTcpReceiver& control,
                                         std::vector<tcp::LinuxTcpReceiver*> streams)
    : Component(sim, std::move(name)), config_(config), server_(server), server_port_(server_port), control_(control) {
  if (streams.empty()) throw std::invalid_argument("an iperf3 client needs at least one stream");
  config_.blksize = std::max<std::uint64_t>(1, config_.blksize);
  for (tcp::LinuxTcpReceiver* s : streams) {
    Stream st;
    st.tcp = s;
    streams_.push_back(st);
  }

  Iperf3ParametersMessage params;
  params.time_s = to_seconds(config_.time);
  params.parallel = static_cast<int>(streams_.size());
  params.reverse = true;
  params.len = config_.blksize;
  parameters_json_ = iperf3_parameters_json(params);

  control_.set_on_connected([this](tcp::LinuxTcpReceiver::ConnId c) {
    control_conn_ = c;
    if (ended_) return;
    write(kIperf3CookieBytes);
    channel_.to_server.push({Iperf3Message::cookie, Iperf3State::test_start, kIperf3CookieBytes});
  });
  control_.set_on_data([this](tcp::LinuxTcpReceiver::ConnId, std::uint64_t bytes) {
    channel_.to_client.consume(bytes, [this](const Iperf3ControlMessage& m) {
      if (m.kind == Iperf3Message::state) on_state(m.state);
    });
  });
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    tcp::LinuxTcpReceiver& tcp = *streams_[i].tcp;
    tcp.set_on_connected([this, i](tcp::LinuxTcpReceiver::ConnId c) {
      // iperf_tcp_connect: the cookie goes out as soon as connect() returns,
      // then iperf_create_streams connects the next stream.
      streams_[i].conn = c;
      streams_[i].tcp->send(c, kIperf3CookieBytes);
      if (i + 1 < streams_.size()) connect_stream(i + 1);
    });
    // iperf_recv_mt: what the worker thread reads while the test runs is the stream's.
    tcp.set_on_data([this, i](tcp::LinuxTcpReceiver::ConnId, std::uint64_t bytes) {
      if (running_) streams_[i].bytes_read += bytes;
    });
  }
  sim.schedule_at(config_.start, this, kConnect);
}

void Iperf3ReverseClient::on_state(Iperf3State s) {
  auto w = [this](std::uint64_t bytes) { write(bytes); };
  switch (s) {
    case Iperf3State::param_exchange:
      iperf3_write_json(channel_.to_server, w, Iperf3Message::parameters, parameters_json_.size());
      break;
    case Iperf3State::create_streams:
      if (!ended_) connect_stream(0);
      break;
    case Iperf3State::test_start:
      start_test();
      break;
    case Iperf3State::test_running:
      if (started_ && !ended_) running_ = true;
      break;
    case Iperf3State::exchange_results:
      iperf3_write_json(channel_.to_server, w, Iperf3Message::client_results, results_json().size());
      break;
    case Iperf3State::display_results:
      iperf3_write_state(channel_.to_server, w, Iperf3State::iperf_done);
      done_ = true;
      break;
    default:
      break;
  }
}

void Iperf3ReverseClient::connect_stream(std::size_t i) { streams_[i].tcp->connect(server_, server_port_); }

void Iperf3ReverseClient::start_test() {
  if (started_ || ended_) return;
  started_ = true;
  start_ = sim().now();
  end_ = start_ + config_.time;
  if (config_.run_end > 0) end_ = std::min(end_, config_.run_end);
  // As in the forward client: the test timer before the interval timer.
  sim().schedule_at(end_, this, kEnd);
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& st = streams_[i];
    st.last = sender_sample(i);
    st.last.end = start_;
    st.last.bytes_read = st.bytes_read;
    if (config_.interval > 0) {
      st.samples.reserve(static_cast<std::size_t>(std::min<SimTime>((end_ - start_) / config_.interval + 2, 100'000)));
    }
  }
  if (config_.interval > 0 && start_ + config_.interval <= end_) sim().schedule_at(start_ + config_.interval, this, kSample);
}

Iperf3IntervalSample Iperf3ReverseClient::sender_sample(std::size_t i) const {
  return sender_sampler_ ? sender_sampler_(static_cast<int>(i)) : Iperf3IntervalSample{};
}

void Iperf3ReverseClient::take_sample(SimTime now) {
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& st = streams_[i];
    const Iperf3IntervalSample tx = sender_sample(i);
    Iperf3IntervalSample s = tx;  // TCP_INFO readings at the interval's end
    s.start = st.last.end;
    s.end = now;
    s.bytes_read = st.bytes_read - st.last.bytes_read;
    s.bytes_written = tx.bytes_written - std::min(tx.bytes_written, st.last.bytes_written);
    s.retransmits = tx.retransmits - std::min(tx.retransmits, st.last.retransmits);
    st.samples.push_back(s);
    st.last = tx;
    st.last.end = now;
    st.last.bytes_read = st.bytes_read;
  }
}

void Iperf3ReverseClient::end_test() {
  if (ended_) return;
  freeze();
  iperf3_write_state(channel_.to_server, [this](std::uint64_t bytes) { write(bytes); }, Iperf3State::test_end);
}

void Iperf3ReverseClient::finish() {
  if (ended_) return;
  if (!started_) start_ = end_ = sim().now();
  freeze();
}

void Iperf3ReverseClient::freeze() {
  const SimTime now = sim().now();
  if (started_) {
    end_ = std::min(end_, now);
    if (config_.interval > 0 && end_ > streams_.front().last.end) take_sample(end_);
  }
  for (Stream& st : streams_) st.segments_frozen = segments_received(st);
  running_ = false;
  ended_ = true;
}

void Iperf3ReverseClient::handle_event(std::uint64_t tag) {
  if (tag == kConnect) {
    if (!ended_) control_.connect(server_, server_port_);
  } else if (tag == kSample) {
    if (ended_) return;
    take_sample(sim().now());
    if (sim().now() + config_.interval <= end_) sim().schedule_at(sim().now() + config_.interval, this, kSample);
  } else if (tag == kEnd) {
    end_test();
  }
}

std::uint64_t Iperf3ReverseClient::segments_received(const Stream& s) const {
  return s.conn >= 0 ? s.tcp->stats(s.conn).segments_received : 0;
}

Iperf3ReceiverCounters Iperf3ReverseClient::counters(int i) const {
  const Stream& s = streams_.at(static_cast<std::size_t>(i));
  return Iperf3ReceiverCounters{s.bytes_read, ended_ ? s.segments_frozen : segments_received(s)};
}

std::string Iperf3ReverseClient::results_json() const {
  // send_results of a receiving client: the bytes it read, no retransmits,
  // and the congestion control its own (Linux) streams use.
  Iperf3ResultsMessage m;
  m.cpu_util_total = kIperf3ClientCpu[0];
  m.cpu_util_user = kIperf3ClientCpu[1];
  m.cpu_util_system = kIperf3ClientCpu[2];
  m.sender_has_retransmits = -1;
  m.congestion_used = "cubic";
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Iperf3StreamResultsEntry e;
    e.id = iperf3_stream_id(static_cast<int>(i));
    e.bytes = streams_[i].bytes_read;
    e.retransmits = -1;
    e.start_time = 0;
    e.end_time = seconds_us(end_ - start_);
    m.streams.push_back(e);
  }
  return iperf3_results_json(m);
}

}  // namespace netsim::app
