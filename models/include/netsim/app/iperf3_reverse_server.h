// The server side of one iperf3 3.17.1 TCP test in reverse mode (the client
// ran `iperf3 -c HOST -R`), on passive FreeBSD TCP senders that a
// FreeBsdTcpListener on the server port hands the client's connections.
//
// Order of events (iperf_accept, iperf_run_server, iperf_tcp_accept,
// iperf_handle_message_server; the sending worker threads of
// iperf_server_worker_run):
//   control connection accepted, its cookie read     -> PARAM_EXCHANGE;
//   parameters read                                   -> CREATE_STREAMS;
//   each data connection accepted and its cookie read; after the last one
//                      -> TEST_START, the streams' start time, TEST_RUNNING,
//                         and every stream writes -l blocks from then on;
//   TEST_END read -> stop writing (the streams' end) -> EXCHANGE_RESULTS;
//   the client's results read -> the server's results -> DISPLAY_RESULTS;
//   IPERF_DONE read: the test is over.
// The server has no -t timer of its own that ends the test: the client's
// TEST_END does. Connection teardown is not modelled (what is buffered when
// writing stops is still sent).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netsim/app/iperf3_client.h"
#include "netsim/app/iperf3_control_channel.h"
#include "netsim/tcp/freebsd_tcp_sender.h"

namespace netsim::app {

class Iperf3ReverseServer final : public Component {
 public:
  // `control` and `streams` are passive senders reserved for the client's
  // control and data connections (stream order); `congestion` is the name
  // the server reports for its streams' congestion control.
  Iperf3ReverseServer(Simulation& sim, std::string name, Iperf3ControlChannel& channel, std::uint64_t blksize,
                      std::string congestion, tcp::FreeBsdTcpSender& control, std::vector<tcp::FreeBsdTcpSender*> streams);

  // The run ends: stop writing if the test still runs.
  void finish();

  // The server's own test window: [TEST_START written, TEST_END read) (or the run's end).
  SimTime start() const { return start_; }
  SimTime end() const { return end_; }
  bool running() const { return running_; }
  bool test_ended() const { return ended_; }
  bool done() const { return done_; }  // IPERF_DONE read
  int stream_count() const { return static_cast<int>(streams_.size()); }
  const tcp::FreeBsdTcpSender& stream(int i) const { return *streams_.at(static_cast<std::size_t>(i)).tcp; }
  const tcp::FreeBsdTcpSender& control() const { return control_; }
  // Cumulative figures of stream i now: whole blocks written since the
  // test started, retransmissions since then and TCP_INFO (for the client's
  // interval samples).
  Iperf3IntervalSample sample(int i) const;
  // Live until the test ends, frozen after.
  Iperf3SenderCounters counters(int i) const;
  std::string results_json() const;

 private:
  struct Stream {
    tcp::FreeBsdTcpSender* tcp = nullptr;
    std::uint64_t cookie_left = kIperf3CookieBytes;
    std::uint64_t rexmit_at_start = 0;
    Iperf3SenderCounters frozen;
  };

  void on_control_message(const Iperf3ControlMessage& m);
  void on_stream_ready();
  void end_test();
  void write(std::uint64_t bytes);
  std::uint64_t blocks_written(const Stream& s) const;
  Iperf3SenderCounters live_counters(const Stream& s) const;

  Iperf3ControlChannel& channel_;
  std::uint64_t blksize_;
  std::string congestion_;
  tcp::FreeBsdTcpSender& control_;
  std::vector<Stream> streams_;
  int streams_ready_ = 0;
  SimTime start_ = 0;
  SimTime end_ = 0;
  bool running_ = false;
  bool ended_ = false;
  bool done_ = false;
};

}  // namespace netsim::app
