#include "netsim/scenario/nuttcp_flow.h"

#include <algorithm>
#include <utility>

#include "flow_counters_sum.h"
#include "netsim/results/run_result.pb.h"
#include "netsim/tcp/sender_report_fields.h"

namespace netsim {
namespace {

double in_seconds(SimTime t) { return static_cast<double>(t) / static_cast<double>(kPicosPerSecond); }

NuttcpSample delta(const NuttcpSample& now, const NuttcpSample& before) {
  NuttcpSample d;
  d.start = before.end;
  d.end = now.end;
  d.bytes_sent = now.bytes_sent - before.bytes_sent;
  d.bytes_received = now.bytes_received - before.bytes_received;
  d.retransmits = now.retransmits - before.retransmits;
  d.packets_sent = now.packets_sent - before.packets_sent;
  d.packets_received = now.packets_received - before.packets_received;
  return d;
}

void add(NuttcpSample& sum, const NuttcpSample& x) {
  sum.start = x.start;
  sum.end = x.end;
  sum.bytes_sent += x.bytes_sent;
  sum.bytes_received += x.bytes_received;
  sum.retransmits += x.retransmits;
  sum.packets_sent += x.packets_sent;
  sum.packets_received += x.packets_received;
}

void set_interval(results::NuttcpInterval* out, const NuttcpSample& x, SimTime zero) {
  out->set_start_s(in_seconds(x.start - zero));
  out->set_end_s(in_seconds(x.end - zero));
  out->set_bytes_sent(x.bytes_sent);
  out->set_bytes_received(x.bytes_received);
  out->set_retransmits(x.retransmits);
  out->set_packets_sent(x.packets_sent);
  out->set_packets_received(x.packets_received);
}

void set_options(results::NuttcpResult& out, const NuttcpFlowConfig& c, const std::string& protocol) {
  out.set_protocol(protocol);
  out.set_version(c.version);
  out.set_buffer_len(c.buffer_len);
  out.set_window(c.window);
  out.set_time_s(in_seconds(c.time));
  out.set_report_interval_s(in_seconds(c.interval));
  out.set_rate_mbps(c.rate_mbps);
}

void set_cpu(results::NuttcpResult& out, const app::NuttcpCpuMeter& tx, const app::NuttcpCpuMeter& rx) {
  if (const auto t = tx.cpu_time()) out.set_tx_cpu_s(in_seconds(*t));
  if (const auto t = rx.cpu_time()) out.set_rx_cpu_s(in_seconds(*t));
}

// The -i lines summed over the streams (the streams share the test clock, so
// their k-th samples cover the same span).
std::vector<NuttcpSample> summed(const std::vector<const std::vector<NuttcpSample>*>& per_stream) {
  std::vector<NuttcpSample> out;
  for (const auto* samples : per_stream) {
    if (samples->size() > out.size()) out.resize(samples->size());
    for (std::size_t k = 0; k < samples->size(); ++k) add(out[k], (*samples)[k]);
  }
  return out;
}

}  // namespace

NuttcpTcpFlow::NuttcpTcpFlow(Simulation& sim, std::string name, const NuttcpFlowConfig& config,
                             std::vector<tcp::TcpSendSocket*> streams, tcp::TcpReceiveEndpoint& receiver)
    : Component(sim, std::move(name)), config_(config), receiver_(receiver) {
  streams_.resize(streams.size());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    streams_[i].tcp = streams[i];
    streams_[i].tcp->set_on_established([this] { on_established(); });
  }
  sim.schedule_at(config_.start, this, kConnect);
}

void NuttcpTcpFlow::set_host_cpus(const HostCpu* tx, const HostCpu* rx) {
  tx_cpu_.set_cpu(tx);
  rx_cpu_.set_cpu(rx);
}

bool NuttcpTcpFlow::owns(tcp::TcpReceiveEndpoint::ConnId c) const {
  if (receiver_.peer(c) != config_.sender_host) return false;
  return std::any_of(streams_.begin(), streams_.end(),
                     [&](const Stream& s) { return s.tcp->local_port() == receiver_.peer_port(c); });
}

void NuttcpTcpFlow::on_delivered(tcp::TcpReceiveEndpoint::ConnId c, std::uint64_t bytes) {
  if (ended_) return;
  for (Stream& s : streams_) {
    if (s.tcp->local_port() != receiver_.peer_port(c)) continue;
    s.conn = c;
    s.delivered += bytes;
    return;
  }
}

void NuttcpTcpFlow::handle_event(std::uint64_t tag) {
  if (ended_) return;
  const SimTime now = sim().now();
  if (tag == kConnect) {
    for (Stream& s : streams_) s.tcp->connect();
  } else if (tag == kWriteEnd) {
    writing_ = false;
    for (Stream& s : streams_) s.tcp->set_unlimited_data(false);
    handle_event(kDrain);
  } else if (tag == kSample) {
    for (Stream& s : streams_) {
      const NuttcpSample c = cumulative(s);
      s.samples.push_back(delta(c, s.last));
      s.last = c;
    }
    next_sample_ += config_.interval;
    if (writing_ || !drained()) sim().schedule_at(next_sample_, this, kSample);
  } else if (tag == kDrain) {
    if (drained() || (config_.run_end > 0 && now >= config_.run_end)) {
      end_test();
    } else {
      sim().schedule_in(config_.drain_poll, this, kDrain);
    }
  }
}

// nuttcp starts its timer once its data connections are open.
void NuttcpTcpFlow::on_established() {
  if (begun_ || ended_ || ++established_ < static_cast<int>(streams_.size())) return;
  begun_ = true;
  writing_ = true;
  begin_ = sim().now();
  for (Stream& s : streams_) {
    const tcp::TcpSocketInfo info = s.tcp->info();
    s.rexmit_at_begin = info.retransmits;
    s.written_at_begin = s.tcp->bytes_written();
    s.last = cumulative(s);
    s.last.end = begin_;
  }
  // The transmitter writes once its timer runs, as fast as the sockets take
  // it: the send buffers are kept full (as iperf2's client model does).
  for (Stream& s : streams_) {
    s.tcp->set_unlimited_data(true);
    s.tcp->write(s.tcp->send_buffer_room());
  }
  tx_cpu_.start();
  rx_cpu_.start();
  SimTime write_end = begin_ + config_.time;
  if (config_.run_end > 0) write_end = std::min(write_end, config_.run_end);
  sim().schedule_at(write_end, this, kWriteEnd);
  if (config_.interval > 0) {
    next_sample_ = begin_ + config_.interval;
    sim().schedule_at(next_sample_, this, kSample);
  }
}

NuttcpSample NuttcpTcpFlow::cumulative(const Stream& s) const {
  NuttcpSample c;
  c.start = begin_;
  c.end = sim().now();
  c.bytes_sent = s.tcp->bytes_written() - s.written_at_begin;
  c.bytes_received = s.delivered;
  c.retransmits = s.tcp->info().retransmits - s.rexmit_at_begin;
  return c;
}

bool NuttcpTcpFlow::drained() const {
  return std::all_of(streams_.begin(), streams_.end(),
                     [](const Stream& s) { return s.delivered >= s.tcp->bytes_written(); });
}

void NuttcpTcpFlow::end_test() {
  if (ended_) return;
  end_ = sim().now();
  for (Stream& s : streams_) {
    s.total = cumulative(s);
    s.total.start = begin_;
    s.frozen_sender = live_sender(s);
    if (s.conn >= 0) s.frozen_receiver = receiver_.stats(s.conn);
    s.tcp->set_unlimited_data(false);
  }
  tx_cpu_.stop();
  rx_cpu_.stop();
  ended_ = true;
}

tcp::SenderReportCounters NuttcpTcpFlow::live_sender(const Stream& s) const {
  tcp::SenderReportCounters c;
  const tcp::TcpSocketInfo info = s.tcp->info();
  c.segments_sent = info.data_segments_sent;
  c.bytes_sent = info.bytes_sent;
  c.bytes_acked = s.tcp->bytes_acked();
  tcp::fill_sender_report_fields(*s.tcp, c);
  return c;
}

TcpFlowCounters NuttcpTcpFlow::counters() const {
  TcpFlowCounters sum;
  std::uint64_t srtt_sum = 0;
  for (const Stream& s : streams_) {
    scenario_internal::add_sender_counters(sum, ended_ ? s.frozen_sender : live_sender(s), srtt_sum);
    if (s.conn >= 0) scenario_internal::add_receiver_counters(sum, ended_ ? s.frozen_receiver : receiver_.stats(s.conn));
    sum.bytes_delivered += s.delivered;
  }
  if (!streams_.empty()) sum.srtt_us = static_cast<std::uint32_t>(srtt_sum / streams_.size());
  return sum;
}

void NuttcpTcpFlow::finish() {
  if (!begun_) {
    ended_ = true;  // never connected: nothing to report
    return;
  }
  end_test();
}

void NuttcpTcpFlow::fill(results::NuttcpResult& out) const {
  set_options(out, config_, "tcp");
  std::vector<const std::vector<NuttcpSample>*> per_stream;
  NuttcpSample total;
  double rtt_sum_ms = 0;
  for (const Stream& s : streams_) {
    auto* st = out.add_streams();
    for (const NuttcpSample& x : s.samples) set_interval(st->add_intervals(), x, begin_);
    set_interval(st->mutable_total(), s.total, begin_);
    const std::uint32_t rtt = s.frozen_sender.srtt_us;
    st->set_rtt_us(rtt);
    rtt_sum_ms += static_cast<double>(rtt) / 1000.0;
    per_stream.push_back(&s.samples);
    add(total, s.total);
  }
  for (const NuttcpSample& x : summed(per_stream)) set_interval(out.add_intervals(), x, begin_);
  total.start = begin_;
  total.end = end_;
  set_interval(out.mutable_total(), total, begin_);
  out.set_real_s(in_seconds(end_ - begin_));
  set_cpu(out, tx_cpu_, rx_cpu_);
  out.set_rtt_ms(streams_.empty() ? 0.0 : rtt_sum_ms / static_cast<double>(streams_.size()));
}

NuttcpUdpFlow::NuttcpUdpFlow(Simulation& sim, std::string name, const NuttcpFlowConfig& config, const UdpSource& source,
                             const UdpSink& sink)
    : Component(sim, std::move(name)), config_(config), source_(source), sink_(sink) {
  sim.schedule_at(config_.start, this, kBegin);
}

void NuttcpUdpFlow::set_host_cpus(const HostCpu* tx, const HostCpu* rx) {
  tx_cpu_.set_cpu(tx);
  rx_cpu_.set_cpu(rx);
}

NuttcpSample NuttcpUdpFlow::cumulative() const {
  NuttcpSample c;
  c.start = config_.start;
  c.end = sim().now();
  c.bytes_sent = source_.bytes_sent();
  c.bytes_received = sink_.bytes_received();
  // The receiver's view: datagrams up to the highest sequence number seen.
  c.packets_sent = sink_.highest_seq_plus_one();
  c.packets_received = sink_.packets_received();
  return c;
}

void NuttcpUdpFlow::handle_event(std::uint64_t tag) {
  if (ended_) return;
  if (tag == kBegin) {
    begun_ = true;
    last_ = cumulative();
    tx_cpu_.start();
    rx_cpu_.start();
    SimTime end = config_.start + config_.time + config_.udp_grace;
    if (config_.run_end > 0) end = std::min(end, config_.run_end);
    sim().schedule_at(end, this, kEnd);
    if (config_.interval > 0) {
      next_sample_ = config_.start + config_.interval;
      if (next_sample_ <= config_.start + config_.time) sim().schedule_at(next_sample_, this, kSample);
    }
  } else if (tag == kSample) {
    const NuttcpSample c = cumulative();
    samples_.push_back(delta(c, last_));
    last_ = c;
    next_sample_ += config_.interval;
    if (next_sample_ <= config_.start + config_.time) sim().schedule_at(next_sample_, this, kSample);
  } else if (tag == kEnd) {
    finish();
  }
}

void NuttcpUdpFlow::finish() {
  if (ended_) return;
  ended_ = true;
  if (!begun_) return;
  total_ = cumulative();
  total_.packets_sent = source_.packets_sent();
  tx_cpu_.stop();
  rx_cpu_.stop();
}

void NuttcpUdpFlow::fill(results::NuttcpResult& out) const {
  set_options(out, config_, "udp");
  auto* st = out.add_streams();
  for (const NuttcpSample& x : samples_) {
    set_interval(st->add_intervals(), x, config_.start);
    set_interval(out.add_intervals(), x, config_.start);
  }
  set_interval(st->mutable_total(), total_, config_.start);
  set_interval(out.mutable_total(), total_, config_.start);
  // nuttcp reports the receiver's figures over the test's -T.
  const SimTime real = std::min(config_.time, std::max<SimTime>(0, total_.end - config_.start));
  out.set_real_s(in_seconds(real));
  set_cpu(out, tx_cpu_, rx_cpu_);
}

}  // namespace netsim
