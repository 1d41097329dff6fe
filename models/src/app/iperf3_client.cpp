#include "netsim/app/iperf3_client.h"
#include "netsim/tcp/sender_report_fields.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace netsim::app {
namespace {

// iperf3 keeps times in microseconds (struct iperf_time).
double seconds_us(SimTime t) { return std::round(static_cast<double>(t) / 1e6) / 1e6; }

// Nwrite: the whole message goes into the socket. Control messages are far
// smaller than the send buffer (its 32 KB minimum); the model's write() does
// not block, so a message that did not fit would never be read whole.
void write_all(tcp::FreeBsdTcpSender& tcp, std::uint64_t bytes) {
  if (tcp.write(bytes) != bytes) throw std::runtime_error("iperf3 control message larger than the send buffer");
}

}  // namespace

Iperf3Client::Iperf3Client(Simulation& sim, std::string name, const Iperf3ClientConfig& config,
                           tcp::FreeBsdTcpSender& control, std::vector<tcp::FreeBsdTcpSender*> streams)
    : Component(sim, std::move(name)), config_(config), control_(control) {
  if (streams.empty()) throw std::invalid_argument("an iperf3 client needs at least one stream");
  config_.blksize = std::max<std::uint64_t>(1, config_.blksize);
  for (tcp::FreeBsdTcpSender* s : streams) {
    Stream st;
    st.tcp = s;
    streams_.push_back(st);
  }

  Iperf3ParametersMessage params;
  params.time_s = to_seconds(config_.time);
  params.parallel = static_cast<int>(streams_.size());
  params.len = config_.blksize;
  params.congestion = config_.congestion;
  parameters_json_ = iperf3_parameters_json(params);

  control_.set_on_established([this] {
    if (ended_) return;
    write_all(control_, kIperf3CookieBytes);
    channel_.to_server.push({Iperf3Message::cookie, Iperf3State::test_start, kIperf3CookieBytes});
  });
  control_.set_on_data([this](std::uint64_t bytes) {
    channel_.to_client.consume(bytes, [this](const Iperf3ControlMessage& m) { on_control_message(m); });
  });
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    streams_[i].tcp->set_on_established([this, i] {
      // iperf_tcp_connect: the cookie goes out as soon as connect() returns,
      // then iperf_create_streams connects the next stream.
      write_all(*streams_[i].tcp, kIperf3CookieBytes);
      if (i + 1 < streams_.size()) connect_stream(i + 1);
    });
  }
  sim.schedule_at(config_.start, this, kConnect);
}

void Iperf3Client::on_control_message(const Iperf3ControlMessage& m) {
  if (m.kind == Iperf3Message::state) on_state(m.state);
  // The server's results (length, JSON) are read and kept; nothing follows from them.
}

void Iperf3Client::on_state(Iperf3State s) {
  switch (s) {
    case Iperf3State::param_exchange:
      write_json(Iperf3Message::parameters, parameters_json_.size());
      break;
    case Iperf3State::create_streams:
      if (!ended_) connect_stream(0);
      break;
    case Iperf3State::test_start:
      start_test();
      break;
    case Iperf3State::test_running:
      if (ended_) break;
      // Every stream writes -l blocks from now on: the send buffer is kept full.
      for (Stream& st : streams_) {
        st.tcp->set_unlimited_data(true);
        st.tcp->write(st.tcp->send_buffer_room());
      }
      break;
    case Iperf3State::exchange_results:
      write_json(Iperf3Message::client_results, results_json().size());
      break;
    case Iperf3State::display_results:
      write_state(Iperf3State::iperf_done);
      done_ = true;
      break;
    default:
      break;
  }
}

void Iperf3Client::connect_stream(std::size_t i) { streams_[i].tcp->connect(); }

void Iperf3Client::start_test() {
  if (started_ || ended_) return;
  started_ = true;
  start_ = sim().now();
  end_ = start_ + config_.time;
  if (config_.run_end > 0) end_ = std::min(end_, config_.run_end);
  // The test timer is created before the interval timer: at the same instant
  // it runs first, and the last interval is taken by end_test.
  sim().schedule_at(end_, this, kEnd);
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& st = streams_[i];
    st.written_at_start = blocks_written(st);
    st.last = Iperf3IntervalSample{};
    st.last.end = start_;
    st.last.bytes_written = st.written_at_start;
    st.last.bytes_read = bytes_read(i);
    st.last.retransmits = tcp::report_retransmits(*st.tcp);
    st.rexmit_at_start = st.last.retransmits;
    // One sample per interval, and a last shorter one: no reallocation while the test runs.
    if (config_.interval > 0) {
      st.samples.reserve(static_cast<std::size_t>(std::min<SimTime>((end_ - start_) / config_.interval + 2, 100'000)));
    }
  }
  if (config_.interval > 0 && start_ + config_.interval <= end_) sim().schedule_at(start_ + config_.interval, this, kSample);
}

void Iperf3Client::end_test() {
  if (ended_) return;
  freeze();
  for (Stream& st : streams_) st.tcp->set_unlimited_data(false);
  write_state(Iperf3State::test_end);
}

void Iperf3Client::finish() {
  if (ended_) return;
  if (!started_) start_ = end_ = sim().now();
  freeze();
  for (Stream& st : streams_) st.tcp->set_unlimited_data(false);
}

void Iperf3Client::freeze() {
  const SimTime now = sim().now();
  if (started_) {
    end_ = std::min(end_, now);
    // iperf3 reports the rest of the test as a last, shorter interval.
    if (config_.interval > 0 && !streams_.empty() && end_ > streams_.front().last.end) take_sample(end_);
  }
  for (Stream& st : streams_) st.frozen = live_counters(st);
  ended_ = true;
}

void Iperf3Client::take_sample(SimTime now) {
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& st = streams_[i];
    const tcp::FreeBsdTcpSender& tcp = *st.tcp;
    Iperf3IntervalSample s;
    s.start = st.last.end;
    s.end = now;
    const std::uint64_t written = blocks_written(st);
    const std::uint64_t read = bytes_read(i);
    const std::uint64_t rexmit = tcp::report_retransmits(tcp);
    s.bytes_written = written - st.last.bytes_written;
    s.bytes_read = read - st.last.bytes_read;
    s.retransmits = rexmit - st.last.retransmits;
    s.snd_cwnd = tcp.tcpcb().snd_cwnd;
    s.snd_wnd = tcp.tcpcb().snd_wnd;
    s.rtt_us = tcp.srtt_usecs();
    s.rttvar_us = tcp.rttvar_usecs();
    st.samples.push_back(s);
    st.last.end = now;
    st.last.bytes_written = written;
    st.last.bytes_read = read;
    st.last.retransmits = rexmit;
  }
}

void Iperf3Client::handle_event(std::uint64_t tag) {
  if (tag == kConnect) {
    if (!ended_) control_.connect();
  } else if (tag == kSample) {
    if (ended_) return;
    take_sample(sim().now());
    if (sim().now() + config_.interval <= end_) sim().schedule_at(sim().now() + config_.interval, this, kSample);
  } else if (tag == kEnd) {
    end_test();
  }
}

void Iperf3Client::write_state(Iperf3State s) {
  write_all(control_, kIperf3StateBytes);
  channel_.to_server.push({Iperf3Message::state, s, kIperf3StateBytes});
}

// JSON_write: two writes, the length and then the text (with TCP_NODELAY on
// the control connection, two segments).
void Iperf3Client::write_json(Iperf3Message kind, std::uint64_t length) {
  write_all(control_, kIperf3JsonLengthBytes);
  channel_.to_server.push({Iperf3Message::json_length, Iperf3State::test_start, kIperf3JsonLengthBytes});
  write_all(control_, length);
  channel_.to_server.push({kind, Iperf3State::test_start, length});
}

std::uint64_t Iperf3Client::blocks_written(const Stream& s) const {
  const std::uint64_t w = s.tcp->bytes_written();
  const std::uint64_t data = w > kIperf3CookieBytes ? w - kIperf3CookieBytes : 0;
  return data / config_.blksize * config_.blksize;
}

Iperf3SenderCounters Iperf3Client::live_counters(const Stream& s) const {
  const tcp::FreeBsdTcpSender& tcp = *s.tcp;
  const tcp::FreeBsdTcpStats& st = tcp.stats();
  Iperf3SenderCounters c;
  const std::uint64_t data_segments = tcp::data_segments_sent(tcp);
  const std::uint64_t cookie_segments = tcp.bytes_written() >= kIperf3CookieBytes ? 1 : 0;
  c.segments_sent = data_segments - std::min(data_segments, cookie_segments);
  c.bytes_sent = st.bytes_sent - std::min<std::uint64_t>(st.bytes_sent, kIperf3CookieBytes);
  c.bytes_acked = tcp.bytes_acked() - std::min<std::uint64_t>(tcp.bytes_acked(), kIperf3CookieBytes);
  tcp::fill_sender_report_fields(tcp, c);
  c.bytes_written = started_ ? blocks_written(s) - s.written_at_start : 0;
  return c;
}

Iperf3SenderCounters Iperf3Client::counters(int i) const {
  const Stream& s = streams_.at(static_cast<std::size_t>(i));
  return ended_ ? s.frozen : live_counters(s);
}

std::string Iperf3Client::results_json() const {
  Iperf3ResultsMessage m;
  m.cpu_util_total = kIperf3ClientCpu[0];
  m.cpu_util_user = kIperf3ClientCpu[1];
  m.cpu_util_system = kIperf3ClientCpu[2];
  m.sender_has_retransmits = 1;  // FreeBSD's TCP_INFO has tcpi_snd_rexmitpack
  m.congestion_used = config_.congestion.empty() ? "newreno" : config_.congestion;  // FreeBSD's default
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    const Iperf3SenderCounters c = counters(static_cast<int>(i));
    Iperf3StreamResultsEntry e;
    e.id = iperf3_stream_id(static_cast<int>(i));
    e.bytes = c.bytes_written;
    const std::vector<Iperf3IntervalSample>& samples = streams_[i].samples;
    e.retransmits = static_cast<std::int64_t>(c.retransmits - std::min(c.retransmits, streams_[i].rexmit_at_start));
    e.start_time = 0;
    e.end_time = samples.empty() ? seconds_us(end_ - start_) : seconds_us(samples.back().end - start_);
    m.streams.push_back(e);
  }
  return iperf3_results_json(m);
}

}  // namespace netsim::app
