#include "netsim/scenario/scenario_runner.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netsim/host/cpu_usage_log.h"
#include "netsim/host/host.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_captures.h"
#include "netsim/scenario/nuttcp_flow.h"
#include "netsim/version.h"
#include "netsim/stats/fairness.h"

namespace netsim {
namespace {

const char* tcp_trace_event_name(tcp::TcpTraceSample::Event e) {
  switch (e) {
    case tcp::TcpTraceSample::Event::ack: return "ack";
    case tcp::TcpTraceSample::Event::rto: return "rto";
    case tcp::TcpTraceSample::Event::persist: return "persist";
  }
  return "?";
}

// Exact decimal seconds of a picosecond time (12 fractional digits).
std::string format_seconds(SimTime t) {
  char buf[40];
  const auto sec = t / 1'000'000'000'000;
  const auto frac = t % 1'000'000'000'000;
  std::snprintf(buf, sizeof buf, "%lld.%012lld", static_cast<long long>(sec), static_cast<long long>(frac));
  return buf;
}

// Hosts with a CPU model -> their usage logs.
using CpuLogs = std::map<std::string, CpuUsageLog*>;

double mbps(std::uint64_t bytes, SimTime span) {
  return span > 0 ? static_cast<double>(bytes) * 8.0 / to_seconds(span) / 1e6 : 0.0;
}

// Samples every flow's receive counters at fixed simulated intervals, as
// iperf's -i does (for tcp: bytes delivered to the receiving application, as
// the iperf3 server reports). Flows appear in file order within each interval.
class IntervalSampler final : public EventHandler {
 public:
  IntervalSampler(BuiltScenario& b, SimTime interval, results::RunResult& out)
      : b_(b), interval_(interval), out_(out) {
    for (const BuiltUdpFlow& f : b.udp_flows) flows_.push_back({f.spec->order, f.spec->name, &f, nullptr, 0, 0});
    for (const BuiltTcpFlow& f : b.tcp_flows) flows_.push_back({f.spec->order, f.spec->name, nullptr, &f, 0, 0});
    std::sort(flows_.begin(), flows_.end(), [](const Flow& a, const Flow& c) { return a.order < c.order; });
    for (Link* l : b.links) {
      if (l->end_a().kind() == NodeKind::switch_) ports_.push_back({l, &l->a_to_b(), 0, 0});
      if (l->end_b().kind() == NodeKind::switch_) ports_.push_back({l, &l->b_to_a(), 0, 0});
    }
    b.sim->schedule_at(interval, this, 0);
  }

  void handle_event(std::uint64_t) override {
    Simulation& sim = *b_.sim;
    const SimTime end = sim.now();
    for (Flow& f : flows_) {
      std::uint64_t packets = 0;
      std::uint64_t bytes = 0;
      if (f.udp) {
        packets = f.udp->sink->packets_received();
        bytes = f.udp->sink->bytes_received();
      } else {
        const TcpFlowCounters c = f.tcp->driver->counters();
        packets = c.segments_received;
        bytes = c.bytes_delivered;
      }
      auto* s = out_.add_intervals();
      s->set_flow(f.name);
      s->set_start_ps(end - interval_);
      s->set_end_ps(end);
      s->set_packets(packets - f.last_packets);
      s->set_bytes(bytes - f.last_bytes);
      s->set_mbps(mbps(s->bytes(), interval_));
      f.last_packets = packets;
      f.last_bytes = bytes;
    }
    for (Port& p : ports_) {
      const ChannelCounters& c = p.channel->counters();
      const Channel::OccupancyPeak peak = p.channel->take_peak();
      auto* q = out_.add_queues();
      q->set_link(p.link->name());
      q->set_from(p.channel->from());
      q->set_to(p.channel->to());
      q->set_start_ps(end - interval_);
      q->set_end_ps(end);
      q->set_packets(p.channel->occupancy_packets());
      q->set_bytes(p.channel->occupancy_bytes());
      q->set_max_packets(peak.packets);
      q->set_max_bytes(peak.bytes);
      q->set_dropped_packets(c.packets_dropped - p.last_dropped_packets);
      q->set_dropped_bytes(c.bytes_dropped - p.last_dropped_bytes);
      p.last_dropped_packets = c.packets_dropped;
      p.last_dropped_bytes = c.bytes_dropped;
    }
    if (end + interval_ <= b_.spec->duration) sim.schedule_at(end + interval_, this, 0);
  }

 private:
  struct Flow {
    int order;
    std::string name;
    const BuiltUdpFlow* udp;
    const BuiltTcpFlow* tcp;
    std::uint64_t last_packets;
    std::uint64_t last_bytes;
  };
  // A switch output port: its queue is reported per interval.
  struct Port {
    const Link* link;
    Channel* channel;
    std::uint64_t last_dropped_packets;
    std::uint64_t last_dropped_bytes;
  };
  BuiltScenario& b_;
  SimTime interval_;
  results::RunResult& out_;
  std::vector<Flow> flows_;
  std::vector<Port> ports_;
};

// --trace-queue: one CSV row per change of a switch output port's queue.
class QueueTraceWriter final : public QueueObserver {
 public:
  QueueTraceWriter(std::ostream& os, const Simulation& sim, std::string link)
      : os_(os), sim_(sim), link_(std::move(link)) {}

  void on_queue_change(const Channel& ch, QueueEvent event, const Packet& p) override {
    const char* name = event == QueueEvent::enqueue ? "enqueue" : event == QueueEvent::dequeue ? "dequeue" : "drop";
    os_ << link_ << ',' << ch.from() << ',' << ch.to() << ',' << format_seconds(sim_.now()) << ',' << name << ','
        << p.ip_bytes() << ',' << ch.occupancy_packets() << ',' << ch.occupancy_bytes() << ','
        << ch.counters().packets_dropped << '\n';
  }

 private:
  std::ostream& os_;
  const Simulation& sim_;
  std::string link_;
};

// A new flow record with the fields every kind of flow has.
template <class FlowSpec>
results::FlowStats* add_flow(results::RunResult& out, const FlowSpec& spec, const char* kind) {
  auto* s = out.add_flows();
  s->set_name(spec.name);
  s->set_kind(kind);
  s->set_src(spec.from);
  s->set_dst(spec.to);
  return s;
}

void add_udp_flow(results::RunResult& out, const BuiltUdpFlow& f) {
  const UdpSourceConfig& c = f.source->config();
  const SimTime span = c.stop - c.start;
  auto* s = add_flow(out, *f.spec, "udp");
  s->set_packets_sent(f.source->packets_sent());
  s->set_bytes_sent(f.source->bytes_sent());
  s->set_packets_received(f.sink->packets_received());
  s->set_bytes_received(f.sink->bytes_received());
  s->set_packets_lost(f.source->packets_sent() - f.sink->packets_received());
  s->set_loss_pct(f.source->packets_sent() > 0
                      ? 100.0 * static_cast<double>(s->packets_lost()) / static_cast<double>(f.source->packets_sent())
                      : 0.0);
  s->set_sender_mbps(mbps(f.source->bytes_sent(), span));
  s->set_receiver_mbps(mbps(f.sink->bytes_received(), span));
  s->set_start_ps(c.start);
  s->set_end_ps(c.stop);
}

// Counters frozen at the end of the flow's window [start, min(stop, duration));
// the receiver's throughput over the receiving application's own span if it
// has one (an iperf3 server's), as iperf3 reports it.
void add_tcp_flow(results::RunResult& out, const BuiltTcpFlow& f, const CpuLogs& cpu_logs) {
  const TcpFlowCounters c = f.driver->counters();
  const SimTime span = f.driver->end() - f.driver->start();
  const SimTime receive_span = c.receive_span > 0 ? c.receive_span : span;
  auto* s = add_flow(out, *f.spec, "tcp");
  s->set_packets_sent(c.data_segments_sent);
  s->set_bytes_sent(c.bytes_sent);
  s->set_packets_received(c.segments_received);
  s->set_bytes_received(c.bytes_delivered);
  s->set_packets_lost(c.retransmits);
  s->set_loss_pct(c.data_segments_sent > 0
                      ? 100.0 * static_cast<double>(c.retransmits) / static_cast<double>(c.data_segments_sent)
                      : 0.0);
  s->set_sender_mbps(mbps(c.bytes_acked, span));
  s->set_receiver_mbps(mbps(c.bytes_delivered, receive_span));
  s->set_start_ps(f.driver->start());
  s->set_end_ps(f.driver->end());
  s->set_retransmits(c.retransmits);
  s->set_rto_count(c.rto_count);
  s->set_recovery_episodes(c.recovery_episodes);
  s->set_final_cwnd(c.cwnd);
  s->set_srtt_us(c.srtt_us);
  s->set_receiver_delayed_acks(c.receiver_delayed_acks);
  s->set_receiver_quickack_acks(c.receiver_quickack_acks);
  if (const auto it = cpu_logs.find(f.spec->from); it != cpu_logs.end()) {
    s->set_sender_cpu_pct(it->second->utilization_pct(f.driver->start(), f.driver->end()));
  }
  if (const auto it = cpu_logs.find(f.spec->to); it != cpu_logs.end()) {
    s->set_receiver_cpu_pct(it->second->utilization_pct(f.driver->start(), f.driver->end()));
  }
}

// A ping flow's figures as ping(8) summarizes them at the end of the run.
void add_ping_flow(results::RunResult& out, const BuiltPingFlow& f) {
  const PingClient& c = *f.client;
  const PingStats st = c.stats();
  auto* s = add_flow(out, *f.spec, "ping");
  s->set_packets_sent(st.transmitted);
  s->set_bytes_sent(st.transmitted * c.config().data_bytes);
  s->set_packets_received(st.received);
  s->set_bytes_received(st.received * c.config().data_bytes);
  s->set_packets_lost(st.transmitted - std::min(st.transmitted, st.received));
  s->set_loss_pct(st.transmitted > 0 ? 100.0 * static_cast<double>(s->packets_lost()) / static_cast<double>(st.transmitted)
                                     : 0.0);
  s->set_start_ps(c.config().start);
  s->set_end_ps(c.config().stop);
  if (st.min_ms) {
    s->set_rtt_min_ms(*st.min_ms);
    s->set_rtt_avg_ms(*st.avg_ms);
    s->set_rtt_max_ms(*st.max_ms);
    s->set_rtt_stddev_ms(*st.stddev_ms);
  }
}

const std::string& host_address(const ScenarioSpec& spec, const std::string& name) {
  for (const HostSpec& h : spec.hosts) {
    if (h.name == name) return h.address;
  }
  static const std::string none;
  return none;
}

// iperf3's cpu_util of a side, as its control protocol measured it over its
// own test.
void set_iperf3_cpu(results::Iperf3Cpu* c, const std::array<double, 3>& util) {
  c->set_total(util[0]);
  c->set_user(util[1]);
  c->set_system(util[2]);
}

// An iperf3 test's record with what both directions fill alike: the flow,
// the client's and the server's hosts, the server port and the -C -l -t -i
// settings, and each side's CPU.
template <typename Client, typename Server>
results::Iperf3Result* add_iperf3_test(results::RunResult& out, const ScenarioSpec& spec, const BuiltTcpFlow& f,
                                       const std::string& client_host, const std::string& server_host,
                                       const Client& client, const Server& server) {
  auto* r = out.add_iperf3();
  if (const auto util = client.cpu_util()) set_iperf3_cpu(r->mutable_client_cpu(), *util);
  if (const auto util = server.cpu_util()) set_iperf3_cpu(r->mutable_server_cpu(), *util);
  r->set_flow(f.spec->name);
  r->set_client_address(host_address(spec, client_host));
  r->set_server_address(host_address(spec, server_host));
  r->set_server_port(f.spec->dst_port);
  r->set_congestion(f.spec->cc);
  r->set_blksize(f.spec->length);
  r->set_duration_s(to_seconds(f.spec->time));
  r->set_interval_s(to_seconds(spec.interval));
  return r;
}

// One interval of an iperf3 stream (times from the client's test start) and
// the stream's TCP_INFO extremes so far; rtt_sum collects the RTT samples
// for their mean.
void add_iperf3_interval(results::Iperf3Stream* s, const app::Iperf3IntervalSample& x, SimTime zero,
                         std::uint64_t bytes_sent, std::uint64_t bytes_received, std::uint64_t& rtt_sum) {
  auto* i = s->add_intervals();
  i->set_start_s(to_seconds(x.start - zero));
  i->set_end_s(to_seconds(x.end - zero));
  i->set_bytes_sent(bytes_sent);
  i->set_bytes_received(bytes_received);
  i->set_retransmits(x.retransmits);
  i->set_snd_cwnd(x.snd_cwnd);
  i->set_snd_wnd(x.snd_wnd);
  i->set_rtt_us(x.rtt_us);
  i->set_rttvar_us(x.rttvar_us);
  s->set_max_snd_cwnd(std::max(s->max_snd_cwnd(), x.snd_cwnd));
  s->set_max_snd_wnd(std::max(s->max_snd_wnd(), x.snd_wnd));
  s->set_max_rtt_us(std::max(s->max_rtt_us(), x.rtt_us));
  s->set_min_rtt_us(s->intervals_size() == 1 ? x.rtt_us : std::min(s->min_rtt_us(), x.rtt_us));
  rtt_sum += x.rtt_us;
}

// What iperf3 -c would report for an `app: iperf3` flow: one stream per data
// connection. Intervals come from the client's stats timer; the server's
// reads are sampled at the same instants, and its last interval runs on until
// it reads TEST_END, so that the intervals sum to its totals.
void add_iperf3(results::RunResult& out, const ScenarioSpec& spec, const BuiltTcpFlow& f) {
  const app::Iperf3Client& client = *f.iperf3_client;
  const app::Iperf3Server& server = *f.iperf3_server;
  results::Iperf3Result* r = add_iperf3_test(out, spec, f, f.spec->from, f.spec->to, client, server);
  r->set_control_port(client.control().local_port());
  r->set_mss(client.control().info().mss);  // iperf3's ctrl_sck_mss: TCP_MAXSEG of the control connection
  r->set_test_start_s(to_seconds(client.start()));
  const double seconds = to_seconds(client.end() - client.start());
  const double server_seconds = to_seconds(server.end() - server.start());
  for (int k = 0; k < client.stream_count(); ++k) {
    auto* s = r->add_streams();
    s->set_local_port(client.stream(k).local_port());
    const std::vector<app::Iperf3IntervalSample>& samples = client.samples(k);
    const app::Iperf3ReceiverCounters read = server.counters(k);
    std::uint64_t rtt_sum = 0;
    std::uint64_t read_sum = 0;
    for (std::size_t n = 0; n < samples.size(); ++n) {
      const app::Iperf3IntervalSample& x = samples[n];
      const bool last = n + 1 == samples.size();
      add_iperf3_interval(s, x, client.start(), x.bytes_written,
                          last ? read.bytes_read - std::min(read.bytes_read, read_sum) : x.bytes_read, rtt_sum);
      read_sum += x.bytes_read;
    }
    if (s->intervals_size() > 0) s->set_mean_rtt_us(static_cast<std::uint32_t>(rtt_sum / s->intervals_size()));
    const app::Iperf3SenderCounters c = client.counters(k);
    s->set_sender_bytes(c.bytes_written);
    s->set_sender_seconds(seconds);
    s->set_sender_retransmits(c.retransmits);
    s->set_receiver_bytes(read.bytes_read);
    s->set_receiver_seconds(server_seconds > 0 ? server_seconds : seconds);
  }
}

// What iperf3 -c -R reports: the client (on the flow's `to`) reads, the
// server (on `from`) writes. Intervals come from the client's stats timer,
// with the server's writes and TCP_INFO sampled at the same instants; the
// server's last interval runs on until it reads TEST_END, so that its
// intervals sum to its totals.
void add_iperf3_reverse(results::RunResult& out, const ScenarioSpec& spec, const BuiltTcpFlow& f) {
  const app::Iperf3ReverseClient& client = *f.iperf3_reverse_client;
  const app::Iperf3ReverseServer& server = *f.iperf3_reverse_server;
  results::Iperf3Result* r = add_iperf3_test(out, spec, f, f.spec->to, f.spec->from, client, server);
  r->set_reverse(true);
  r->set_control_port(client.control().port());
  // ctrl_sck_mss: TCP_MAXSEG of the (Linux) client's control connection.
  const tcp::TcpReceiveEndpoint::ConnId control = client.control_connection();
  r->set_mss(control >= 0 ? client.control().mss_cache(control) : 0);
  r->set_test_start_s(to_seconds(client.start()));
  const double seconds = to_seconds(client.end() - client.start());
  const double server_seconds = to_seconds(server.end() - server.start());
  for (int k = 0; k < client.stream_count(); ++k) {
    auto* s = r->add_streams();
    s->set_local_port(client.stream(k).port());
    const std::vector<app::Iperf3IntervalSample>& samples = client.samples(k);
    const app::Iperf3SenderCounters sent = server.counters(k);
    std::uint64_t rtt_sum = 0;
    std::uint64_t sent_sum = 0;
    for (std::size_t n = 0; n < samples.size(); ++n) {
      const app::Iperf3IntervalSample& x = samples[n];
      const bool last = n + 1 == samples.size();
      add_iperf3_interval(s, x, client.start(),
                          last ? sent.bytes_written - std::min(sent.bytes_written, sent_sum) : x.bytes_written,
                          x.bytes_read, rtt_sum);
      sent_sum += x.bytes_written;
    }
    if (s->intervals_size() > 0) s->set_mean_rtt_us(static_cast<std::uint32_t>(rtt_sum / s->intervals_size()));
    s->set_sender_bytes(sent.bytes_written);
    s->set_sender_seconds(server_seconds > 0 ? server_seconds : seconds);
    s->set_sender_retransmits(sent.retransmits);
    s->set_receiver_bytes(client.counters(k).bytes_read);
    s->set_receiver_seconds(seconds);
  }
}

// What iperf 2.1.8 would report for an `app: iperf2` flow (docs/iperf2.md):
// per connection, the client's intervals and final line on its clock (from
// the header sent right after connect() returned), the server's on its own
// (from its accept), and the connect times.
void set_iperf2_interval(results::Iperf2Interval* out, const app::Iperf2ClientSample& x, SimTime zero) {
  out->set_start_s(to_seconds(x.start - zero));
  out->set_end_s(to_seconds(x.end - zero));
  out->set_bytes_sent(x.bytes_written);
  out->set_writes(x.writes);
  out->set_retransmits(x.retransmits);
  out->set_snd_cwnd(x.snd_cwnd);
  out->set_rtt_us(x.rtt_us);
  out->set_rttvar_us(x.rttvar_us);
  out->set_bytes_received(x.read.bytes);
  out->set_reads(x.read.reads);
  for (std::uint64_t n : x.read.bins) out->add_read_bins(n);
}

void set_iperf2_reads(results::Iperf2Interval* out, const app::Iperf2ReadCounters& r, SimTime start, SimTime end,
                      SimTime zero) {
  out->set_start_s(to_seconds(start - zero));
  out->set_end_s(to_seconds(end - zero));
  out->set_bytes_received(r.bytes);
  out->set_reads(r.reads);
  for (std::uint64_t n : r.bins) out->add_read_bins(n);
}

void add_iperf2(results::RunResult& out, const ScenarioSpec& spec, const BuiltTcpFlow& f) {
  const app::Iperf2Client& client = *f.iperf2_client;
  const app::Iperf2Server& server = *f.iperf2_server;
  auto* r = out.add_iperf2();
  r->set_flow(f.spec->name);
  r->set_client_address(host_address(spec, f.spec->from));
  r->set_server_address(host_address(spec, f.spec->to));
  r->set_server_port(f.spec->dst_port);
  r->set_write_len(f.spec->length);
  r->set_read_len(server.read_len());
  r->set_duration_s(to_seconds(f.spec->time));
  r->set_interval_s(to_seconds(spec.interval));
  r->set_congestion(f.spec->cc);
  r->set_start_s(to_seconds(client.start()));
  r->set_client_end_s(to_seconds(client.end()));
  for (int k = 0; k < client.stream_count(); ++k) {
    auto* s = r->add_streams();
    const app::Iperf2ConnectInfo& ci = client.connect_info(k);
    s->set_local_port(client.stream(k).local_port());
    s->set_connect_start_s(to_seconds(ci.connect_start));
    s->set_start_s(to_seconds(client.start()));
    s->set_connect_ms(static_cast<double>(ci.connected - ci.connect_start) / 1e9);
    s->set_mss(ci.mss);
    s->set_initial_cwnd(ci.cwnd);
    s->set_initial_rtt_us(ci.rtt_us);
    s->set_shutdown_s(to_seconds(client.shutdown_time(k)));
    for (const app::Iperf2ClientSample& x : client.samples(k)) set_iperf2_interval(s->add_intervals(), x, client.start());
    set_iperf2_interval(s->mutable_client_total(), client.total(k), client.start());
    if (server.accepted(k)) {
      const SimTime accept = server.accept_time(k);
      s->set_server_start_s(to_seconds(accept));
      s->set_server_initial_rtt_us(server.initial_rtt_us(k));
      for (const app::Iperf2ServerSample& x : server.samples(k)) {
        set_iperf2_reads(s->add_server_intervals(), x.read, x.start, x.end, accept);
      }
      set_iperf2_reads(s->mutable_server_total(), server.reads(k), accept, server.close_time(k), accept);
    }
  }
}

// The replies as ping(8) printed them, for --format ping.
void add_ping(results::RunResult& out, const ScenarioSpec& spec, const BuiltPingFlow& f) {
  const PingClient& c = *f.client;
  auto* r = out.add_ping();
  r->set_flow(f.spec->name);
  r->set_from_address(host_address(spec, f.spec->from));
  r->set_to_address(host_address(spec, f.spec->to));
  r->set_data_bytes(c.config().data_bytes);
  r->set_output(f.spec->output);
  r->set_transmitted(c.transmitted());
  SimTime last = c.transmitted() > 0 ? c.config().start + static_cast<SimTime>(c.transmitted() - 1) * c.config().interval
                                     : c.config().start;
  for (const PingReply& x : c.replies()) {
    auto* rec = r->add_replies();
    rec->set_icmp_seq(x.seq);
    rec->set_time_ps(x.rtt);
    last = std::max(last, x.received);
  }
  r->set_elapsed_ps(last - c.config().start);
}

// Busy time and utilization cover [0, duration]; counts include the drain.
void add_channel_stats(results::RunResult& out, const std::string& link, const Channel& ch, SimTime busy,
                       SimTime duration) {
  const ChannelCounters& c = ch.counters();
  auto* s = out.add_links();
  s->set_link(link);
  s->set_from(ch.from());
  s->set_to(ch.to());
  s->set_packets_sent(c.packets_sent);
  s->set_bytes_sent(c.bytes_sent);
  s->set_packets_dropped(c.packets_dropped + c.mtu_drops);
  s->set_bytes_dropped(c.bytes_dropped);
  s->set_busy_ps(busy);
  s->set_utilization(duration > 0 ? static_cast<double>(busy) / static_cast<double>(duration) : 0.0);
  s->set_max_queue_packets(c.max_queue_packets);
  s->set_max_queue_bytes(c.max_queue_bytes);
  if (const LowPowerIdleCounters* e = ch.low_power_idle_counters(); e != nullptr) {
    s->set_low_power_idle(true);
    s->set_lpi_wakeups(e->wakeups);
    s->set_lpi_joined(e->joined);
    s->set_lpi_wait_ps(e->wait);
  }
  s->set_pause_frames(c.pause_frames);
  s->set_paused_ps(c.paused_time);
  s->set_pause_frames_sent(c.pause_frames_sent);
}

}  // namespace

void write_tcp_trace_header(std::ostream& os) {
  os << "flow,time_s,event,cwnd,ssthresh,snd_wnd,snd_una,snd_max,pipe,sacked_bytes,srtt_us,rttvar_us,rto_us,"
        "in_recovery,retransmits,recoveries,rtos\n";
}

void write_queue_trace_header(std::ostream& os) {
  os << "link,from,to,time_s,event,packet_bytes,packets,bytes,dropped_packets\n";
}

void add_overrides(google::protobuf::RepeatedPtrField<results::Override>& out, const std::vector<Override>& in) {
  for (const Override& o : in) {
    auto* r = out.Add();
    r->set_key(o.key);
    r->set_value(o.value);
  }
}

// The pool's limit in the scenario's terms: when it was reached, and which
// link direction holds the most packets (usually the queue without a limit).
[[noreturn]] void throw_packet_limit(const BuiltScenario& b, const PacketLimitError& e) {
  const Channel* longest = nullptr;
  for (const Link* l : b.links) {
    for (const Channel* ch : {&l->a_to_b(), &l->b_to_a()}) {
      if (longest == nullptr || ch->occupancy_packets() > longest->occupancy_packets()) longest = ch;
    }
  }
  std::string msg = "run stopped at " + format_seconds(b.sim->now()) + " s: " + e.what() + " (max_packets: " +
                    std::to_string(e.limit()) + ")";
  if (longest != nullptr && longest->occupancy_packets() > 0) {
    msg += "; the longest queue is " + longest->from() + " -> " + longest->to() + " with " +
           std::to_string(longest->occupancy_packets()) + " packets";
  }
  msg += ". A queue without a limit is growing, as behind a source faster than its link: give it one "
         "(hosts.NAME.tx_buffer_packets, links.NAME.queue, a switch buffer), or raise max_packets";
  throw std::runtime_error(msg);
}

namespace {
// `--siftr PATH` on a scenario without SIFTR: version 1.3.0 with its
// defaults on every FreeBSD host that sends TCP.
ScenarioSpec default_siftr(const ScenarioSpec& spec) {
  ScenarioSpec out = spec;
  if (std::any_of(out.hosts.begin(), out.hosts.end(), [](const HostSpec& h) { return h.siftr.has_value(); })) {
    return out;
  }
  for (HostSpec& h : out.hosts) {
    const bool sends_tcp = std::any_of(spec.tcp_flows.begin(), spec.tcp_flows.end(),
                                       [&h](const TcpFlowSpec& f) { return f.from == h.name; });
    if (h.os == "freebsd" && sends_tcp) h.siftr = SiftrSpec{};
  }
  return out;
}

void add_siftr(results::RunResult& out, const BuiltSiftr& b) {
  const tcp::Siftr& s = *b.siftr;
  const tcp::SiftrCounters& c = s.counters();
  const tcp::SiftrStats& st = s.stats();
  auto* r = out.add_siftr();
  r->set_host(b.host->name);
  r->set_version(tcp::siftr_version_name(s.config().version));
  r->set_inbound_packets(c.n_in);
  r->set_outbound_packets(c.n_out);
  r->set_skipped_packets(c.total_skipped());
  r->set_skipped_malloc(c.nskip_in_malloc + c.nskip_out_malloc);
  r->set_records_logged(st.records_logged);
  r->set_log_bytes(st.log_bytes);
  r->set_log_file(s.log_path());
  r->set_max_queue(st.max_queue);
  const double hz = static_cast<double>(b.host->cpu.frequency_hz);
  r->set_hook_cpu_s(hz > 0 && b.host->cpu.any() ? static_cast<double>(st.hook_cycles) / hz : 0);
  r->set_writer_cpu_s(hz > 0 && b.host->cpu.any() ? static_cast<double>(st.writer_cycles) / hz : 0);
  r->set_flows(s.disable_line() ? s.disable_line()->flows.size() : 0);
}

}  // namespace

std::string siftr_log_path(const std::string& path, const std::string& host, std::size_t siftr_hosts) {
  if (siftr_hosts <= 1) return path;
  const std::filesystem::path p(path);
  std::filesystem::path out = p.parent_path() / p.stem();
  out += "." + host + p.extension().string();
  return out.string();
}

results::RunResult run_result_header(const std::string& scenario_name, const std::string& scenario_file,
                                     std::uint64_t seed, const std::vector<Override>& overrides) {
  results::RunResult out;
  out.set_netsim_version(NETSIM_VERSION);
  out.set_scenario_name(scenario_name);
  out.set_scenario_file(scenario_file);
  out.set_seed(seed);
  add_overrides(*out.mutable_overrides(), overrides);
  return out;
}

results::RunResult run_scenario(const ScenarioSpec& spec, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  results::RunResult out = run_result_header(spec.name, spec.file, spec.seed, spec.overrides);

  const ScenarioSpec with_siftr = options.siftr_path.empty() ? ScenarioSpec{} : default_siftr(spec);
  BuiltScenario b = build_scenario(options.siftr_path.empty() ? spec : with_siftr);
  Simulation& sim = *b.sim;
  for (const BuiltSiftr& s : b.siftrs) {
    const std::string path = options.siftr_path.empty()
                                 ? s.host->siftr->log
                                 : siftr_log_path(options.siftr_path, s.host->name, b.siftrs.size());
    if (!path.empty()) s.siftr->set_log_file(path);
  }
  if (options.tcp_trace != nullptr) {
    std::ostream& os = *options.tcp_trace;
    write_tcp_trace_header(os);
    for (const BuiltTcpFlow& f : b.tcp_flows) {
      for (tcp::TcpSendSocket* sender : f.senders) {
        // The first data connection is traced under the flow's name, the others (-P) under theirs.
        const std::string name = sender == f.sender ? f.spec->name : sender->socket_name();
        sender->set_trace([&os, name](const tcp::TcpTraceSample& t) {
          os << name << ',' << format_seconds(t.time) << ',' << tcp_trace_event_name(t.event)
             << ',' << t.cwnd << ',' << t.ssthresh << ',' << t.snd_wnd << ',' << t.snd_una << ',' << t.snd_max << ','
             << t.pipe << ',' << t.sacked_bytes << ',' << t.srtt_us << ',' << t.rttvar_us << ',' << t.rto_us << ','
             << (t.in_recovery ? 1 : 0) << ',' << t.retransmits << ',' << t.recoveries << ',' << t.rtos << '\n';
        });
      }
    }
  }
  std::vector<std::unique_ptr<QueueTraceWriter>> queue_writers;
  if (options.queue_trace != nullptr) {
    write_queue_trace_header(*options.queue_trace);
    for (Link* l : b.links) {
      for (Channel* ch : {&l->a_to_b(), &l->b_to_a()}) {
        const Node& from = ch == &l->a_to_b() ? l->end_a() : l->end_b();
        if (from.kind() != NodeKind::switch_) continue;
        queue_writers.push_back(std::make_unique<QueueTraceWriter>(*options.queue_trace, sim, l->name()));
        ch->add_observer(queue_writers.back().get());
      }
    }
  }
  std::unique_ptr<ScenarioCaptures> captures;
  if (!options.pcap_dir.empty()) {
    captures = std::make_unique<ScenarioCaptures>(b, spec.capture ? *spec.capture : default_capture(spec),
                                                  options.pcap_dir);
  } else if (spec.capture && !spec.capture->dir.empty()) {
    captures = std::make_unique<ScenarioCaptures>(b, *spec.capture, spec.capture->dir);
  }
  std::unique_ptr<IntervalSampler> sampler;
  if (spec.interval > 0) sampler = std::make_unique<IntervalSampler>(b, spec.interval, out);
  // Hosts with a CPU model: their use on a 1 ms grid, for per-window figures.
  CpuLogs cpu_logs;
  for (Node* n : b.nodes) {
    if (n->kind() != NodeKind::host) continue;
    const HostCpu* cpu = static_cast<Host*>(n)->cpu();
    if (cpu != nullptr) cpu_logs[n->name()] = &sim.add<CpuUsageLog>("cpu-log/" + n->name(), *cpu, kPicosPerMilli,
                                                                     spec.duration);
    // A host with several cores: its other cores too, as "HOST/cpuN" (the
    // host's own row is the application's core).
    const auto* host = static_cast<Host*>(n);
    for (int i = 0; cpu != nullptr && host->core_count() > 1 && i < host->core_count(); ++i) {
      if (host->core(i) == cpu) continue;
      const std::string name = n->name() + "/cpu" + std::to_string(i);
      cpu_logs[name] = &sim.add<CpuUsageLog>("cpu-log/" + name, *host->core(i), kPicosPerMilli, spec.duration);
    }
  }
  std::vector<SimTime> busy_at_end;
  std::vector<SimTime> vswitch_cpu_at_end;  // the hypervisor's CPU time used by `duration`
  out.set_startup_time_s(std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  out.set_load_time_s(spec.load_time_s);
  try {
    sim.run_until(spec.duration);
    // TCP counters end with the run (the drain only lets packets land).
    for (const BuiltTcpFlow& f : b.tcp_flows) f.driver->finish();
    for (const BuiltUdpFlow& f : b.udp_flows) {
      if (f.nuttcp != nullptr) f.nuttcp->finish();
    }
    for (const BuiltSiftr& s : b.siftrs) s.siftr->finish();
    for (const VSwitch* v : b.vswitches) vswitch_cpu_at_end.push_back(v->cpu() ? v->cpu()->used().total() : 0);
    for (const Link* l : b.links) {
      busy_at_end.push_back(l->a_to_b().busy_time_so_far(spec.duration));
      busy_at_end.push_back(l->b_to_a().busy_time_so_far(spec.duration));
    }
    // Sources are inactive past `duration`; let in-flight packets land.
    sim.run_until(spec.duration + options.drain);
  } catch (const PacketLimitError& e) {
    throw_packet_limit(b, e);
  }

  if (captures) captures->finish(out);
  out.set_sim_time_ps(spec.duration);
  out.set_events(sim.events_processed());
  // Flows of every kind in file order.
  std::vector<std::pair<int, std::function<void()>>> flows;
  for (const BuiltUdpFlow& f : b.udp_flows) flows.emplace_back(f.spec->order, [&out, &f] { add_udp_flow(out, f); });
  for (const BuiltTcpFlow& f : b.tcp_flows) {
    flows.emplace_back(f.spec->order, [&out, &f, &cpu_logs] { add_tcp_flow(out, f, cpu_logs); });
  }
  for (const BuiltPingFlow& f : b.ping_flows) flows.emplace_back(f.spec->order, [&out, &f] { add_ping_flow(out, f); });
  std::sort(flows.begin(), flows.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
  for (const auto& [order, add] : flows) add();
  std::vector<double> tcp_shares;
  for (const auto& f : out.flows()) {
    if (f.kind() == "tcp") tcp_shares.push_back(f.receiver_mbps());
  }
  if (tcp_shares.size() >= 2 && std::any_of(tcp_shares.begin(), tcp_shares.end(), [](double x) { return x > 0; })) {
    out.set_tcp_jain_index(stats::jain_index(tcp_shares));
  }
  for (const BuiltPingFlow& f : b.ping_flows) add_ping(out, spec, f);
  for (const BuiltTcpFlow& f : b.tcp_flows) {
    if (f.iperf3_client != nullptr) add_iperf3(out, spec, f);
    if (f.iperf3_reverse_client != nullptr) add_iperf3_reverse(out, spec, f);
    if (f.iperf2_client != nullptr) add_iperf2(out, spec, f);
  }
  // What the nuttcp client reports, for app: nuttcp flows of either kind, in file order.
  struct NuttcpFill {
    int order;
    const std::string* name;
    std::function<void(results::NuttcpResult&)> fill;
  };
  std::vector<NuttcpFill> nuttcp;
  for (const BuiltTcpFlow& f : b.tcp_flows) {
    if (f.nuttcp != nullptr) nuttcp.push_back({f.spec->order, &f.spec->name, [&f](results::NuttcpResult& r) { f.nuttcp->fill(r); }});
  }
  for (const BuiltUdpFlow& f : b.udp_flows) {
    if (f.nuttcp != nullptr) nuttcp.push_back({f.spec->order, &f.spec->name, [&f](results::NuttcpResult& r) { f.nuttcp->fill(r); }});
  }
  std::sort(nuttcp.begin(), nuttcp.end(), [](const NuttcpFill& a, const NuttcpFill& c) { return a.order < c.order; });
  for (const NuttcpFill& n : nuttcp) {
    auto* r = out.add_nuttcp();
    r->set_flow(*n.name);
    n.fill(*r);
  }
  for (std::size_t i = 0; i < b.links.size(); ++i) {
    add_channel_stats(out, b.links[i]->name(), b.links[i]->a_to_b(), busy_at_end[2 * i], spec.duration);
    add_channel_stats(out, b.links[i]->name(), b.links[i]->b_to_a(), busy_at_end[2 * i + 1], spec.duration);
  }
  for (const BuiltFilter& f : b.filters) {
    auto* s = out.add_filters();
    s->set_name(f.spec->name);
    s->set_host(f.spec->host);
    s->set_hook(f.spec->hook == FilterHook::ingress ? "ingress" : "egress");
    s->set_type(f.filter->type_name());
    s->set_matched(f.filter->matched());
    s->set_dropped(f.filter->dropped());
  }
  for (Node* n : b.nodes) {
    const auto it = cpu_logs.find(n->name());
    if (n->kind() != NodeKind::host || it == cpu_logs.end()) continue;
    const CpuTimes used = it->second->used_between(0, spec.duration);
    auto* s = out.add_cpus();
    s->set_host(n->name());
    s->set_utilization_pct(cpu_percent(used.total(), spec.duration));
    s->set_user_pct(cpu_percent(used[CpuContext::user], spec.duration));
    s->set_system_pct(cpu_percent(used[CpuContext::system], spec.duration));
    s->set_interrupt_pct(cpu_percent(used[CpuContext::interrupt], spec.duration));
    s->set_work_items(static_cast<Host*>(n)->cpu()->items());
    s->set_tx_backlog_drops(static_cast<Host*>(n)->counters().tx_backlog_drops);
    const auto* host = static_cast<Host*>(n);
    for (int i = 0; host->core_count() > 1 && i < host->core_count(); ++i) {
      const auto core = cpu_logs.find(n->name() + "/cpu" + std::to_string(i));
      if (core == cpu_logs.end()) continue;
      const CpuTimes u = core->second->used_between(0, spec.duration);
      auto* c = out.add_cpus();
      c->set_host(core->first);
      c->set_utilization_pct(cpu_percent(u.total(), spec.duration));
      c->set_user_pct(cpu_percent(u[CpuContext::user], spec.duration));
      c->set_system_pct(cpu_percent(u[CpuContext::system], spec.duration));
      c->set_interrupt_pct(cpu_percent(u[CpuContext::interrupt], spec.duration));
      c->set_work_items(host->core(i)->items());
    }
  }
  for (const BuiltSiftr& s : b.siftrs) add_siftr(out, s);
  for (Node* n : b.nodes) {
    if (n->kind() != NodeKind::host) continue;
    const NetemDelay* q = static_cast<Host*>(n)->netem();
    if (q == nullptr) continue;
    auto* s = out.add_netem();
    s->set_host(n->name());
    s->set_delay_ps(q->delay());
    s->set_limit(q->limit());
    s->set_packets(q->packets());
    s->set_dropped(q->dropped());
    s->set_max_queued(q->max_queued());
  }
  for (const BuiltNic& n : b.nics) {
    const GroNicCounters& c = n.nic->counters();
    auto* s = out.add_nics();
    s->set_host(n.host->name);
    s->set_link(n.link->name);
    s->set_wire_packets(c.wire_packets);
    s->set_delivered_packets(c.delivered_packets);
    s->set_tcp_data_packets(c.tcp_data_packets);
    s->set_tcp_data_segments(c.tcp_data_segments);
    s->set_mean_aggregate_segments(n.nic->mean_aggregate_segments());
    s->set_max_aggregate_segments(c.max_aggregate_segments);
    s->set_interrupts(c.interrupts);
    s->set_idle_wakeups(c.idle_wakeups);
    s->set_polls(c.polls);
    // ixgb: frames that found no free receive descriptor never reach the ring.
    s->set_ring_drops(c.ring_drops + (n.ixgb != nullptr ? n.ixgb->counters().rx_ring_drops : 0));
    s->set_filtered(c.filtered);
    s->set_timer_polls(c.timer_polls);
    s->set_max_fifo_bytes(c.max_fifo_bytes);
    s->set_rx_fragments(c.rx_fragments);
    s->set_acks_merged(c.acks_merged);
    if (const PauseFrameSender* p = n.nic->pause_sender(); p != nullptr) {
      s->set_pause_xoff_frames(p->counters().xoff_frames);
      s->set_pause_xon_frames(p->counters().xon_frames);
    }
    if (n.host_nic != nullptr) {
      const OneShotRxModerationCounters& m = n.host_nic->counters();
      s->set_host_rx_interrupts(m.rx_interrupts);
      s->set_host_timer_interrupts(m.timer_interrupts);
      s->set_host_timer_frames(m.timer_frames);
      s->set_host_irq_frames(m.irq_frames);
    }
  }
  for (std::size_t i = 0; i < b.vswitches.size(); ++i) {
    const VSwitch& v = *b.vswitches[i];
    const VSwitchCounters& c = v.counters();
    auto* s = out.add_vswitches();
    s->set_name(v.name());
    s->set_frames(c.frames);
    s->set_bytes(c.bytes);
    s->set_tso_frames_whole(c.tso_frames_whole);
    s->set_tso_frames_segmented(c.tso_frames_segmented);
    s->set_segments_made(c.segments_made);
    s->set_cpu_pct(cpu_percent(vswitch_cpu_at_end[i], spec.duration));
  }
  out.set_wall_time_s(std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  return out;
}

}  // namespace netsim
