#include "netsim/app/iperf2_client.h"
#include "netsim/tcp/sender_report_fields.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace netsim::app {

Iperf2Client::Iperf2Client(Simulation& sim, std::string name, const Iperf2ClientConfig& config,
                           std::vector<tcp::TcpSendSocket*> streams)
    : Component(sim, std::move(name)), config_(config) {
  if (streams.empty()) throw std::invalid_argument("an iperf2 client needs at least one stream");
  config_.write_len = std::max<std::uint64_t>(1, config_.write_len);
  config_.last_write_poll = std::max<SimTime>(1, config_.last_write_poll);
  for (tcp::TcpSendSocket* s : streams) {
    Stream st;
    st.tcp = s;
    streams_.push_back(std::move(st));
  }
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    streams_[i].tcp->set_on_established([this, i] { on_connected(i); });
  }
  sim.schedule_at(config_.start, this, kConnect);
}

// connect() returned: iperf2 reads TCP_INFO (tcpinitstats) and the connect
// time. With -P > 1 every thread then waits at the connect barrier.
void Iperf2Client::on_connected(std::size_t i) {
  Stream& s = streams_[i];
  if (s.connected || ended_) return;
  s.connected = true;
  s.connect.connected = sim().now();
  const tcp::TcpSocketInfo info = s.tcp->info();
  s.connect.mss = info.mss;
  s.connect.cwnd = info.snd_cwnd_bytes;
  s.connect.rtt_us = info.rtt_us;
  if (++connected_ == stream_count()) start_test();
}

void Iperf2Client::start_test() {
  if (started_ || ended_) return;
  started_ = true;
  start_ = end_ = sim().now();
  write_end_ = start_ + config_.time;
  if (config_.run_end > 0) write_end_ = std::min(write_end_, config_.run_end);
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& s = streams_[i];
    // The baseline of the first interval: before the header, which it counts.
    s.last = cumulative(i);
    s.last.end = start_;
    s.rexmit_at_start = s.last.retransmits;
    if (config_.interval > 0) {
      const SimTime span = (config_.run_end > start_ ? config_.run_end : write_end_) - start_;
      s.samples.reserve(static_cast<std::size_t>(std::min<SimTime>(span / config_.interval + 3, 100'000)));
    }
    // SendFirstPayload: the test header in one send().
    if (s.tcp->write(kIperf2TestHeaderBytes) != kIperf2TestHeaderBytes) {
      throw std::runtime_error("iperf2 test header larger than the send buffer");
    }
    s.header_sent = true;
  }
  // Then RunTCP's writes. The threads leave the connect barrier together and
  // a 60-byte send is quicker than copying a block: every header goes first.
  for (Stream& s : streams_) {
    s.tcp->set_unlimited_data(true);
    s.tcp->write(s.tcp->send_buffer_room());
  }
  sim().schedule_at(write_end_, this, kEnd);
  if (config_.interval > 0) sim().schedule_at(start_ + config_.interval, this, kSample);
}

// -t expired: every stream's write in progress (there always is one: the
// loop starts the next write as soon as one completes before the end time)
// is the last. Nothing beyond its end goes into the send buffer.
void Iperf2Client::end_writing() {
  if (writing_ended_ || ended_) return;
  writing_ended_ = true;
  for (Stream& s : streams_) {
    if (s.ended) continue;
    s.tcp->set_unlimited_data(false);
    s.last_block = blocks(s) + 1;
  }
  feed();
}

// The last write puts its remaining bytes in as room appears; when it has
// completed, the stream shuts down (its FIN would follow the data).
void Iperf2Client::feed() {
  feeding_ = false;
  bool waiting = false;
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& s = streams_[i];
    if (s.ended || s.shut || s.last_block == 0) continue;
    const std::uint64_t target = kIperf2TestHeaderBytes + s.last_block * config_.write_len;
    const std::uint64_t have = s.tcp->bytes_written();
    if (have < target) s.tcp->write(target - have);
    if (s.tcp->bytes_written() >= target) {
      s.shut = true;
      s.shutdown_at = sim().now();
      if (on_shutdown_) on_shutdown_(static_cast<int>(i), target);
    } else {
      waiting = true;
    }
  }
  if (waiting && !feeding_) {
    feeding_ = true;
    sim().schedule_in(config_.last_write_poll, this, kFeed);
  }
}

void Iperf2Client::on_peer_close(int i) {
  Stream& s = streams_.at(static_cast<std::size_t>(i));
  if (s.ended || !started_) return;
  end_stream(static_cast<std::size_t>(i));
}

// The stream's report ends: the last, shorter interval and the final line.
void Iperf2Client::end_stream(std::size_t i) {
  Stream& s = streams_[i];
  const SimTime now = sim().now();
  const Iperf2ClientSample c = cumulative(i);
  if (started_) {
    if (config_.interval > 0 && now > s.last.end) {
      Iperf2ClientSample x = delta(c, s.last);
      x.start = s.last.end;
      x.end = now;
      s.samples.push_back(x);
      s.last = c;
      s.last.end = now;
    }
    Iperf2ClientSample base;
    base.retransmits = s.rexmit_at_start;
    s.total = delta(c, base);
    s.total.start = start_;
    s.total.end = now;
    end_ = std::max(end_, now);
  }
  s.tcp->set_unlimited_data(false);
  s.frozen = live_counters(s);
  s.ended = true;
  ended_ = std::all_of(streams_.begin(), streams_.end(), [](const Stream& x) { return x.ended; });
}

void Iperf2Client::finish() {
  if (ended_) return;
  if (!started_) start_ = end_ = sim().now();
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (!streams_[i].ended) end_stream(i);
  }
  ended_ = true;
}

Iperf2ClientSample Iperf2Client::cumulative(std::size_t i) const {
  const Stream& s = streams_[i];
  const tcp::TcpSendSocket& tcp = *s.tcp;
  Iperf2ClientSample c;
  c.bytes_written = written(s);
  c.writes = blocks(s);
  const tcp::TcpSocketInfo info = tcp.info();
  c.retransmits = info.retransmits;
  c.snd_cwnd = info.snd_cwnd_bytes;
  c.rtt_us = info.rtt_us;
  c.rttvar_us = info.rttvar_us;
  if (read_counter_) c.read = read_counter_(static_cast<int>(i));
  return c;
}

Iperf2ClientSample Iperf2Client::delta(const Iperf2ClientSample& now, const Iperf2ClientSample& before) const {
  Iperf2ClientSample d = now;
  d.bytes_written = now.bytes_written - std::min(now.bytes_written, before.bytes_written);
  d.writes = now.writes - std::min(now.writes, before.writes);
  d.retransmits = now.retransmits - std::min(now.retransmits, before.retransmits);
  d.read.bytes = now.read.bytes - std::min(now.read.bytes, before.read.bytes);
  d.read.reads = now.read.reads - std::min(now.read.reads, before.read.reads);
  for (std::size_t b = 0; b < d.read.bins.size(); ++b) {
    d.read.bins[b] = now.read.bins[b] - std::min(now.read.bins[b], before.read.bins[b]);
  }
  return d;
}

void Iperf2Client::take_sample(SimTime now) {
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& s = streams_[i];
    if (s.ended) continue;
    const Iperf2ClientSample c = cumulative(i);
    Iperf2ClientSample x = delta(c, s.last);
    x.start = s.last.end;
    x.end = now;
    s.samples.push_back(x);
    s.last = c;
    s.last.end = now;
  }
}

void Iperf2Client::handle_event(std::uint64_t tag) {
  switch (tag) {
    case kConnect:
      if (ended_) return;
      for (Stream& s : streams_) {
        s.connect.connect_start = sim().now();
        s.tcp->connect();
      }
      break;
    case kEnd:
      end_writing();
      break;
    case kSample:
      if (ended_) return;
      take_sample(sim().now());
      sim().schedule_in(config_.interval, this, kSample);
      break;
    case kFeed:
      if (!ended_) feed();
      break;
    default:
      break;
  }
}

std::uint64_t Iperf2Client::blocks(const Stream& s) const {
  if (!s.header_sent) return 0;
  const std::uint64_t w = s.tcp->bytes_written();
  const std::uint64_t data = w > kIperf2TestHeaderBytes ? w - kIperf2TestHeaderBytes : 0;
  return data / config_.write_len;
}

std::uint64_t Iperf2Client::written(const Stream& s) const {
  return s.header_sent ? kIperf2TestHeaderBytes + blocks(s) * config_.write_len : 0;
}

Iperf2SenderCounters Iperf2Client::live_counters(const Stream& s) const {
  const tcp::TcpSendSocket& tcp = *s.tcp;
  Iperf2SenderCounters c;
  const tcp::TcpSocketInfo info = tcp.info();
  c.segments_sent = info.data_segments_sent;
  c.bytes_sent = info.bytes_sent;
  c.bytes_acked = tcp.bytes_acked();
  tcp::fill_sender_report_fields(tcp, c);
  return c;
}

Iperf2SenderCounters Iperf2Client::counters(int i) const {
  const Stream& s = at(i);
  return s.ended ? s.frozen : live_counters(s);
}

}  // namespace netsim::app
