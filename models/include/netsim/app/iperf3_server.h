// The server side of one iperf3 3.17.1 TCP test (`iperf3 -s`), on a Linux TCP
// endpoint listening on the server port.
//
// Order of events (iperf_accept, iperf_run_server, iperf_tcp_accept,
// iperf_handle_message_server):
//   control connection accepted, its 37-byte cookie read -> PARAM_EXCHANGE;
//   parameters read (length, JSON)                      -> CREATE_STREAMS;
//   each data connection accepted and its cookie read; after the last one
//                                        -> TEST_START, start the clock, TEST_RUNNING;
//   data read on every stream and counted while the test runs;
//   TEST_END read -> stop counting (the streams' end) -> EXCHANGE_RESULTS;
//   the client's results read (length, JSON) -> the server's results (length,
//                                               JSON) -> DISPLAY_RESULTS;
//   IPERF_DONE read: the test is over.
// Every write is its own segment: iperf3 sets TCP_NODELAY on the control
// connection (since 3.10), as the Linux endpoint's send() behaves.
//
// A real iperf3 server runs one test at a time and answers other clients
// with ACCESS_DENIED; here each test has its own Iperf3Server on the shared
// listening endpoint, which hands it the connections of its client (by the
// client's ports). Connection teardown is not modelled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netsim/app/iperf3_control_channel.h"
#include "netsim/app/iperf3_messages.h"
#include "netsim/sim/simulation.h"
#include "netsim/tcp/linux_tcp_receiver.h"

namespace netsim::app {

struct Iperf3ServerConfig {
  NodeId client = kNoNode;                   // the client's host
  std::uint16_t control_port = 0;            // the client's control-connection port
  std::vector<std::uint16_t> stream_ports;   // the client's data-connection ports, stream order
};

// The receiving side of one data connection.
struct Iperf3ReceiverCounters {
  std::uint64_t bytes_read = 0;         // while the test ran (cookie excluded)
  std::uint64_t segments_received = 0;  // wire segments of the connection so far
};

class Iperf3Server final : public Component {
 public:
  using ConnId = tcp::LinuxTcpReceiver::ConnId;

  Iperf3Server(Simulation& sim, std::string name, tcp::LinuxTcpReceiver& endpoint, Iperf3ControlChannel& channel,
               const Iperf3ServerConfig& config);

  // Whether endpoint connection `c` belongs to this test.
  bool owns(ConnId c) const;
  // From the endpoint: a connection of this test was accepted / has `bytes`
  // more in-order bytes for the application.
  void on_accept(ConnId c);
  void on_data(ConnId c, std::uint64_t bytes);
  // The run ends: stop counting if the test still runs.
  void finish();

  // The server's own test window: [TEST_START written, TEST_END read) (or
  // the run's end); both 0 until the streams are up.
  SimTime start() const { return start_; }
  SimTime end() const { return end_; }
  bool running() const { return running_; }
  bool test_ended() const { return ended_; }
  bool done() const { return done_; }  // IPERF_DONE read
  int stream_count() const { return static_cast<int>(streams_.size()); }
  // Bytes read on stream i while the test ran, so far.
  std::uint64_t bytes_read(int i) const { return streams_.at(static_cast<std::size_t>(i)).bytes_read; }
  // Live until the test ends, frozen after.
  Iperf3ReceiverCounters counters(int i) const;
  ConnId control_connection() const { return control_; }
  ConnId stream_connection(int i) const { return streams_.at(static_cast<std::size_t>(i)).conn; }
  // The results JSON this server writes (its length is what goes on the wire).
  std::string results_json() const;

 private:
  struct Stream {
    std::uint16_t port = 0;
    ConnId conn = -1;
    std::uint64_t cookie_left = kIperf3CookieBytes;
    std::uint64_t bytes_read = 0;
    std::uint64_t segments_frozen = 0;
  };

  Stream* stream_of(ConnId c);
  void on_control_message(const Iperf3ControlMessage& m);
  void on_stream_ready();
  void end_test();
  void write_state(Iperf3State s);
  void write_json(Iperf3Message kind, std::uint64_t length);
  std::uint64_t segments_received(const Stream& s) const;

  tcp::LinuxTcpReceiver& endpoint_;
  Iperf3ControlChannel& channel_;
  Iperf3ServerConfig config_;
  std::vector<Stream> streams_;
  std::vector<int> stream_of_conn_;  // endpoint connection -> stream index (-1: none), once accepted
  ConnId control_ = -1;
  int streams_ready_ = 0;
  SimTime start_ = 0;
  SimTime end_ = 0;
  bool running_ = false;
  bool ended_ = false;
  bool done_ = false;
};

}  // namespace netsim::app
