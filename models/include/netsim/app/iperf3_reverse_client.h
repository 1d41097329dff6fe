// The client side of an iperf3 3.17.1 TCP test in reverse mode (`iperf3 -c
// HOST -R`), on Linux TCP endpoints: it drives the control protocol exactly
// as the forward client does (Iperf3Client), but its data connections
// receive, and its -t timer ends the test while the server sends.
//
// Order of events (iperf_connect, iperf_handle_message_client,
// iperf_run_client, iperf_create_streams, iperf_tcp_connect; the worker
// threads of iperf_client_worker_run read with iperf_recv_mt):
//   connect the control connection; once it is up, write the 37-byte cookie;
//   PARAM_EXCHANGE  -> write the parameters (with "reverse": true);
//   CREATE_STREAMS  -> connect data connection 1, write its cookie once it is
//                      up, then connection 2, ... (each data connection also
//                      starts with the client's cookie: the server matches
//                      streams by it);
//   TEST_START      -> start the test clock (-t and -i timers);
//   TEST_RUNNING    -> read every stream and count what is read;
//   timer expiry    -> stop counting, take the last interval, write TEST_END;
//   EXCHANGE_RESULTS-> write the client results (the bytes read), read the
//                      server's (bytes written, retransmits);
//   DISPLAY_RESULTS -> write IPERF_DONE.
// The client gives no -C: a Linux client fails the test when setsockopt
// (TCP_CONGESTION) rejects a FreeBSD module name, so the server's congestion
// control is its system default (the flow's `cc`). Connection teardown is not
// modelled.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "netsim/app/iperf3_client.h"
#include "netsim/app/iperf3_control_channel.h"
#include "netsim/app/iperf3_server.h"
#include "netsim/sim/event_handler.h"
#include "netsim/tcp/linux_tcp_receiver.h"

namespace netsim::app {

class Iperf3ReverseClient final : public Component, public EventHandler {
 public:
  // `control` and every element of `streams` (at least one) are Linux
  // endpoints bound to their own ephemeral ports, with no connection yet;
  // the client opens one connection on each to (server, server_port).
  Iperf3ReverseClient(Simulation& sim, std::string name, const Iperf3ClientConfig& config, NodeId server,
                      std::uint16_t server_port, tcp::LinuxTcpReceiver& control,
                      std::vector<tcp::LinuxTcpReceiver*> streams);

  Iperf3ControlChannel& control_channel() { return channel_; }
  // The data sender's cumulative figures for stream i (blocks written,
  // retransmissions, TCP_INFO), sampled at this client's interval ends: the
  // server side of the report (-R --app-side server, the Retr/Cwnd columns).
  void set_sender_sampler(std::function<Iperf3IntervalSample(int)> f) { sender_sampler_ = std::move(f); }

  // The run ends: the window closes now if it is still open.
  void finish();
  void handle_event(std::uint64_t tag) override;

  // The test window: [TEST_START read, min(start + time, run_end)).
  SimTime start() const { return start_; }
  SimTime end() const { return end_; }
  bool test_started() const { return started_; }
  bool test_ended() const { return ended_; }
  bool done() const { return done_; }  // IPERF_DONE written
  int stream_count() const { return static_cast<int>(streams_.size()); }
  const tcp::LinuxTcpReceiver& control() const { return control_; }
  tcp::LinuxTcpReceiver::ConnId control_connection() const { return control_conn_; }
  const tcp::LinuxTcpReceiver& stream(int i) const { return *streams_.at(static_cast<std::size_t>(i)).tcp; }
  // Interval samples: bytes_read are this client's reads; the other fields
  // come from the sender sampler (deltas, TCP_INFO at the interval's end).
  const std::vector<Iperf3IntervalSample>& samples(int i) const { return streams_.at(static_cast<std::size_t>(i)).samples; }
  // Bytes read on stream i in the test window (live until it closes).
  std::uint64_t bytes_read(int i) const { return streams_.at(static_cast<std::size_t>(i)).bytes_read; }
  // Live until the window closes, frozen after.
  Iperf3ReceiverCounters counters(int i) const;
  const std::string& parameters_json() const { return parameters_json_; }
  std::string results_json() const;

 private:
  enum Tag : std::uint64_t { kConnect = 1, kEnd = 2, kSample = 3 };
  struct Stream {
    tcp::LinuxTcpReceiver* tcp = nullptr;
    tcp::LinuxTcpReceiver::ConnId conn = -1;
    std::uint64_t bytes_read = 0;
    std::uint64_t segments_frozen = 0;
    std::vector<Iperf3IntervalSample> samples;
    Iperf3IntervalSample last;  // cumulative figures at the previous sample
  };

  void on_state(Iperf3State s);
  void connect_stream(std::size_t i);
  void start_test();
  void end_test();
  void freeze();
  void take_sample(SimTime now);
  Iperf3IntervalSample sender_sample(std::size_t i) const;
  std::uint64_t segments_received(const Stream& s) const;
  void write(std::uint64_t bytes) { control_.send(control_conn_, bytes); }

  Iperf3ClientConfig config_;
  NodeId server_;
  std::uint16_t server_port_;
  tcp::LinuxTcpReceiver& control_;
  tcp::LinuxTcpReceiver::ConnId control_conn_ = -1;
  std::vector<Stream> streams_;
  Iperf3ControlChannel channel_;
  std::function<Iperf3IntervalSample(int)> sender_sampler_;
  std::string parameters_json_;
  SimTime start_ = 0;
  SimTime end_ = 0;
  bool started_ = false;
  bool running_ = false;
  bool ended_ = false;
  bool done_ = false;
};

}  // namespace netsim::app
