// The client's half of the iperf3 3.17.1 control protocol (`iperf3 -c`), for
// both directions: the control connection's exchange, N data connections
// (-P), the test timer and the interval statistics.
//
// Order of events (iperf_connect, iperf_handle_message_client,
// iperf_run_client, iperf_create_streams, iperf_tcp_connect):
//   connect the control connection; once it is up, write the 37-byte cookie;
//   PARAM_EXCHANGE  -> write the parameters (4-byte length, then the JSON);
//   CREATE_STREAMS  -> connect data connection 1, write its cookie once it is
//                      up, then connection 2, ... (connect() blocks; with -R
//                      too, the server matches streams by the cookie);
//   TEST_START      -> start the test clock: the -t timer and the -i interval
//                      timer run from here, and the streams' start time is now;
//   TEST_RUNNING    -> the streams start: they write -l blocks, or with -R
//                      count what they read (iperf_client_worker_run);
//   timer expiry    -> the streams stop, the last interval is taken, TEST_END
//                      is written;
//   EXCHANGE_RESULTS-> write the client results (length, JSON), then read the
//                      server's (length, JSON);
//   DISPLAY_RESULTS -> write IPERF_DONE.
// Closing the connections is not modelled (the TCP models have no FIN).
//
// The direction is the derived class's: its `Streams` (what the data
// connections do and count) and the connection hooks (how its TCP stack
// opens and writes connections; called per control message, not per packet).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "netsim/app/iperf3_control_channel.h"
#include "netsim/app/iperf3_cpu_meter.h"
#include "netsim/app/iperf3_data_streams.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/simulation.h"

namespace netsim::app {

struct Iperf3ClientConfig {
  SimTime start = 0;                      // when the client connects
  SimTime time = 10'000'000'000'000;      // -t: the test length
  SimTime run_end = 0;                    // the test is cut here if it has not ended (0: never)
  SimTime interval = 1'000'000'000'000;   // -i (0: no interval statistics)
  std::uint64_t blksize = 131072;         // -l: bytes per write
  std::string congestion;                 // -C ("" = not given)
};

template <Iperf3DataStreams Streams>
class Iperf3ClientProtocol : public Component, public EventHandler {
 public:
  // Both directions of the control connection; the server reads and writes
  // the other ends.
  Iperf3ControlChannel& control_channel() { return channel_; }
  // The server's data streams, whose cumulative figures complete this
  // client's interval samples (the forward server's reads; the reverse
  // server's writes, retransmits and TCP_INFO). Unset, those fields stay 0.
  template <Iperf3DataStreams ServerStreams>
  void set_server_streams(const ServerStreams& server) {
    server_figures_ = [&server](int i, Iperf3IntervalSample& x) { server.read_figures(i, x); };
  }

  // Stops the test where it is (the run ends): the window closes now if it
  // is still open; nothing more is written on the control connection.
  void finish() {
    if (ended_) return;
    if (!started_) start_ = end_ = sim().now();
    stop_test();
  }

  void handle_event(std::uint64_t tag) override {
    if (tag == kConnect) {
      if (!ended_) connect_control();
    } else if (tag == kSample) {
      if (ended_) return;
      take_sample(sim().now());
      if (sim().now() + config_.interval <= end_) sim().schedule_at(sim().now() + config_.interval, this, kSample);
    } else if (tag == kEnd) {
      end_test();
    }
  }

  // The test window: [TEST_START read, min(start + time, run_end)); both are
  // 0 until the test starts, and end() is start() until it ends.
  SimTime start() const { return start_; }
  SimTime end() const { return end_; }
  bool test_started() const { return started_; }
  bool test_ended() const { return ended_; }
  bool done() const { return done_; }  // IPERF_DONE written
  int stream_count() const { return streams_.count(); }
  const Streams& data_streams() const { return streams_; }
  // Stream i's intervals: this side's and the server's figures over each
  // (differences; TCP_INFO as read at the interval's end).
  const std::vector<Iperf3IntervalSample>& samples(int i) const {
    return intervals_.at(static_cast<std::size_t>(i)).samples;
  }
  // The JSON texts this client writes (their lengths are what goes on the wire).
  const std::string& parameters_json() const { return parameters_json_; }
  std::string results_json() const {
    // end_time is where the streams' last interval ends (they all end
    // together): the test's end once it has ended.
    const std::vector<Iperf3IntervalSample>& s = intervals_.front().samples;
    return iperf3_side_results_json(streams_, cpu_meter_.figures(kIperf3ClientCpu),
                                    (s.empty() ? end_ : s.back().end) - start_);
  }
  // The client host's CPU model, for cpu_util in the results (none: fixed figures).
  // own_interrupt_threads: a FreeBSD host (Iperf3CpuMeter).
  void set_host_cpu(const HostCpu* cpu, bool own_interrupt_threads = false) {
    cpu_meter_.set_cpu(cpu, own_interrupt_threads);
  }
  // iperf3's cpu_util over this side's test: {total, user, system} percent
  // (nothing without a CPU model, or before the test has run).
  std::optional<std::array<double, 3>> cpu_util() const { return cpu_meter_.measured(); }

 protected:
  // `streams` has at least one stream; `reverse` is -R, as the parameters
  // tell the server.
  Iperf3ClientProtocol(Simulation& sim, std::string name, const Iperf3ClientConfig& config, Streams streams,
                       bool reverse)
      : Component(sim, std::move(name)),
        config_(config),
        streams_(std::move(streams)),
        intervals_(static_cast<std::size_t>(streams_.count())) {
    if (intervals_.empty()) throw std::invalid_argument("an iperf3 client needs at least one stream");
    config_.blksize = std::max<std::uint64_t>(1, config_.blksize);
    Iperf3ParametersMessage params;
    params.time_s = to_seconds(config_.time);
    params.parallel = stream_count();
    params.reverse = reverse;
    params.len = config_.blksize;
    params.congestion = config_.congestion;
    parameters_json_ = iperf3_parameters_json(params);
    sim.schedule_at(config_.start, this, kConnect);
  }

  Streams& streams() { return streams_; }

  // What the derived class's TCP callbacks report: the control connection is
  // up; it has `bytes` more in-order bytes; data connection i is up.
  void control_connected() {
    if (ended_) return;
    write_control(kIperf3CookieBytes);
    channel_.to_server.push({Iperf3Message::cookie, Iperf3State::test_start, kIperf3CookieBytes});
  }
  void control_bytes(std::uint64_t bytes) {
    channel_.to_client.consume(bytes, [this](const Iperf3ControlMessage& m) {
      // The server's results (length, JSON) are read and kept; nothing follows from them.
      if (m.kind == Iperf3Message::state) on_state(m.state);
    });
  }
  void stream_connected(std::size_t i) {
    // iperf_tcp_connect: the cookie goes out as soon as connect() returns,
    // then iperf_create_streams connects the next stream.
    write_stream_cookie(i);
    if (i + 1 < intervals_.size()) connect_stream(i + 1);
  }

  // How the derived class's TCP stack opens and writes the connections.
  virtual void connect_control() = 0;
  virtual void connect_stream(std::size_t i) = 0;
  virtual void write_control(std::uint64_t bytes) = 0;
  virtual void write_stream_cookie(std::size_t i) = 0;

 private:
  enum Tag : std::uint64_t { kConnect = 1, kEnd = 2, kSample = 3 };
  struct StreamIntervals {
    std::vector<Iperf3IntervalSample> samples;
    Iperf3IntervalSample last;  // cumulative figures at the previous sample
  };

  void on_state(Iperf3State s) {
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
        if (started_ && !ended_) streams_.start();
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

  void start_test() {
    if (started_ || ended_) return;
    started_ = true;
    start_ = sim().now();
    end_ = start_ + config_.time;
    cpu_meter_.start(sim().now());
    if (config_.run_end > 0) end_ = std::min(end_, config_.run_end);
    // The test timer is created before the interval timer: at the same
    // instant it runs first, and the last interval is taken by end_test.
    sim().schedule_at(end_, this, kEnd);
    streams_.begin_test();
    for (std::size_t i = 0; i < intervals_.size(); ++i) {
      StreamIntervals& st = intervals_[i];
      st.last = figures(i);
      st.last.end = start_;
      // One sample per interval, and a last shorter one: no reallocation while the test runs.
      if (config_.interval > 0) {
        const SimTime intervals = (end_ - start_) / config_.interval + 2;
        st.samples.reserve(static_cast<std::size_t>(std::min<SimTime>(intervals, 100'000)));
      }
    }
    if (config_.interval > 0 && start_ + config_.interval <= end_) {
      sim().schedule_at(start_ + config_.interval, this, kSample);
    }
  }

  void end_test() {
    if (ended_) return;
    stop_test();
    write_state(Iperf3State::test_end);
  }

  void stop_test() {
    if (started_) {
      end_ = std::min(end_, sim().now());
      // iperf3 reports the rest of the test as a last, shorter interval.
      if (config_.interval > 0 && end_ > intervals_.front().last.end) take_sample(end_);
    }
    streams_.stop();
    ended_ = true;
    cpu_meter_.stop(sim().now());
  }

  // Stream i's cumulative figures now, both sides'.
  Iperf3IntervalSample figures(std::size_t i) const {
    Iperf3IntervalSample x;
    streams_.read_figures(static_cast<int>(i), x);
    if (server_figures_) server_figures_(static_cast<int>(i), x);
    return x;
  }

  void take_sample(SimTime now) {
    // How much a cumulative figure grew over the interval.
    auto since = [](std::uint64_t now_value, std::uint64_t before) { return now_value - std::min(now_value, before); };
    for (std::size_t i = 0; i < intervals_.size(); ++i) {
      StreamIntervals& st = intervals_[i];
      const Iperf3IntervalSample cumulative = figures(i);
      Iperf3IntervalSample s = cumulative;  // TCP_INFO as read at the interval's end
      s.start = st.last.end;
      s.end = now;
      s.bytes_written = since(cumulative.bytes_written, st.last.bytes_written);
      s.bytes_read = since(cumulative.bytes_read, st.last.bytes_read);
      s.retransmits = since(cumulative.retransmits, st.last.retransmits);
      st.samples.push_back(s);
      st.last = cumulative;
      st.last.end = now;
    }
  }

  void write_state(Iperf3State s) {
    iperf3_write_state(channel_.to_server, [this](std::uint64_t bytes) { write_control(bytes); }, s);
  }
  void write_json(Iperf3Message kind, std::uint64_t length) {
    iperf3_write_json(channel_.to_server, [this](std::uint64_t bytes) { write_control(bytes); }, kind, length);
  }

  Iperf3ClientConfig config_;
  Streams streams_;
  std::vector<StreamIntervals> intervals_;
  Iperf3ControlChannel channel_;
  std::function<void(int, Iperf3IntervalSample&)> server_figures_;
  std::string parameters_json_;
  Iperf3CpuMeter cpu_meter_;  // cpu_util for the results message and the report
  SimTime start_ = 0;
  SimTime end_ = 0;
  bool started_ = false;
  bool ended_ = false;
  bool done_ = false;
};

}  // namespace netsim::app
