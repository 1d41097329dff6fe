// The server's half of the iperf3 3.17.1 control protocol (`iperf3 -s`), for
// both directions.
//
// Order of events (iperf_accept, iperf_run_server, iperf_tcp_accept,
// iperf_handle_message_server):
//   control connection accepted, its 37-byte cookie read -> PARAM_EXCHANGE;
//   parameters read (length, JSON)                      -> CREATE_STREAMS;
//   each data connection accepted and its cookie read; after the last one
//     -> TEST_START, the streams' start time (iperf_init_test), TEST_RUNNING,
//        and the streams start: they count what they read, or with -R write
//        -l blocks (iperf_server_worker_run);
//   TEST_END read -> the streams stop (their end) -> EXCHANGE_RESULTS;
//   the client's results read (length, JSON) -> the server's results (length,
//                                               JSON) -> DISPLAY_RESULTS;
//   IPERF_DONE read: the test is over.
// The server has no -t timer of its own: the client's TEST_END ends the test.
// Every write is its own segment: iperf3 sets TCP_NODELAY on the control
// connection (since 3.10), as both TCP models' control writes behave.
//
// A real iperf3 server runs one test at a time and answers other clients
// with ACCESS_DENIED; here each test has its own server. Connection teardown
// is not modelled. The direction is the derived class's, as for
// Iperf3ClientProtocol: its `Streams` and how it writes the control
// connection.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netsim/app/iperf3_control_channel.h"
#include "netsim/app/iperf3_cpu_meter.h"
#include "netsim/app/iperf3_data_streams.h"
#include "netsim/sim/simulation.h"

namespace netsim::app {

template <Iperf3DataStreams Streams>
class Iperf3ServerProtocol : public Component {
 public:
  // The run ends: the streams stop if the test still runs.
  void finish() { end_test(); }

  // The server's own test window: [TEST_START written, TEST_END read) (or
  // the run's end); both 0 until the streams are up.
  SimTime start() const { return start_; }
  SimTime end() const { return end_; }
  bool running() const { return running_; }
  bool test_ended() const { return ended_; }
  bool done() const { return done_; }  // IPERF_DONE read
  int stream_count() const { return streams_.count(); }
  const Streams& data_streams() const { return streams_; }
  // The results JSON this server writes (its length is what goes on the wire).
  std::string results_json() const {
    return iperf3_side_results_json(streams_, cpu_meter_.figures(kIperf3ServerCpu), end_ - start_);
  }
  // The server host's CPU model, for cpu_util in the results (none: fixed figures).
  // own_interrupt_threads: a FreeBSD host (Iperf3CpuMeter).
  void set_host_cpu(const HostCpu* cpu, bool own_interrupt_threads = false) {
    cpu_meter_.set_cpu(cpu, own_interrupt_threads);
  }
  // iperf3's cpu_util over this side's test: {total, user, system} percent
  // (nothing without a CPU model, or before the test has run).
  std::optional<std::array<double, 3>> cpu_util() const { return cpu_meter_.measured(); }

 protected:
  // `channel` is the client's: this server reads to_server and writes to_client.
  Iperf3ServerProtocol(Simulation& sim, std::string name, Iperf3ControlChannel& channel, Streams streams)
      : Component(sim, std::move(name)),
        channel_(channel),
        streams_(std::move(streams)),
        cookie_left_(static_cast<std::size_t>(streams_.count()), kIperf3CookieBytes) {}

  Streams& streams() { return streams_; }

  // What the derived class's TCP callbacks report: `bytes` more in-order
  // bytes on the control connection, or on data connection i.
  void control_bytes(std::uint64_t bytes) {
    channel_.to_server.consume(bytes, [this](const Iperf3ControlMessage& m) { on_control_message(m); });
  }
  // iperf_tcp_accept reads a data connection's cookie first: takes what of
  // `bytes` is cookie and returns the rest, the test's data.
  std::uint64_t read_stream_cookie(std::size_t i, std::uint64_t bytes) {
    std::uint64_t& left = cookie_left_[i];
    const std::uint64_t cookie = std::min(left, bytes);
    left -= cookie;
    if (cookie > 0 && left == 0) on_stream_ready();
    return bytes - cookie;
  }

  // How the derived class's TCP stack writes the control connection.
  virtual void write_control(std::uint64_t bytes) = 0;

 private:
  void on_control_message(const Iperf3ControlMessage& m) {
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
        iperf3_write_json(channel_.to_client, [this](std::uint64_t bytes) { write_control(bytes); },
                          Iperf3Message::server_results, results_json().size());
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

  void on_stream_ready() {
    if (++streams_ready_ != stream_count() || ended_) return;
    // All streams accepted: TEST_START, the streams' start time (iperf_init_test), TEST_RUNNING.
    write_state(Iperf3State::test_start);
    start_ = end_ = sim().now();
    streams_.begin_test();
    cpu_meter_.start(sim().now());
    running_ = true;
    write_state(Iperf3State::test_running);
    streams_.start();
  }

  void end_test() {
    if (ended_) return;
    if (running_) end_ = sim().now();
    streams_.stop();
    running_ = false;
    ended_ = true;
    cpu_meter_.stop(sim().now());
  }

  void write_state(Iperf3State s) {
    iperf3_write_state(channel_.to_client, [this](std::uint64_t bytes) { write_control(bytes); }, s);
  }

  Iperf3ControlChannel& channel_;
  Streams streams_;
  std::vector<std::uint64_t> cookie_left_;  // per stream
  int streams_ready_ = 0;
  Iperf3CpuMeter cpu_meter_;  // cpu_util for the results message and the report
  SimTime start_ = 0;
  SimTime end_ = 0;
  bool running_ = false;
  bool ended_ = false;
  bool done_ = false;
};

}  // namespace netsim::app
