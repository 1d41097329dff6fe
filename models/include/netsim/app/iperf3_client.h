// The client side of an iperf3 3.17.1 TCP test (`iperf3 -c`), on FreeBSD TCP
// senders: the control connection's exchange, N data connections (-P), the
// test timer and the interval statistics.
//
// Order of events (iperf_connect, iperf_handle_message_client,
// iperf_run_client, iperf_create_streams, iperf_tcp_connect):
//   connect the control connection; once it is up, write the 37-byte cookie;
//   PARAM_EXCHANGE  -> write the parameters (4-byte length, then the JSON);
//   CREATE_STREAMS  -> connect data connection 1, write its cookie once it is
//                      up, then connection 2, ... (connect() blocks);
//   TEST_START      -> start the test clock: the -t timer and the -i interval
//                      timer run from here, and the streams' start time is now;
//   TEST_RUNNING    -> every stream starts writing -l blocks;
//   timer expiry    -> stop writing, take the last interval, write TEST_END;
//   EXCHANGE_RESULTS-> write the client results (length, JSON), then read the
//                      server's (length, JSON);
//   DISPLAY_RESULTS -> write IPERF_DONE.
// Closing the connections is not modelled (the TCP models have no FIN).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "netsim/app/iperf3_control_channel.h"
#include "netsim/app/iperf3_data_streams.h"
#include "netsim/app/iperf3_messages.h"
#include "netsim/app/iperf3_sending_streams.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/simulation.h"
#include "netsim/tcp/freebsd_tcp_sender.h"

namespace netsim::app {

struct Iperf3ClientConfig {
  SimTime start = 0;                      // when the client connects
  SimTime time = 10'000'000'000'000;      // -t: the test length
  SimTime run_end = 0;                    // the test is cut here if it has not ended (0: never)
  SimTime interval = 1'000'000'000'000;   // -i (0: no interval statistics)
  std::uint64_t blksize = 131072;         // -l: bytes per write
  std::string congestion;                 // -C ("" = not given)
};

class Iperf3Client final : public Component, public EventHandler {
 public:
  // `control` and every element of `streams` (at least one) are unconnected
  // senders to the server's port; the client drives them.
  Iperf3Client(Simulation& sim, std::string name, const Iperf3ClientConfig& config, tcp::FreeBsdTcpSender& control,
               std::vector<tcp::FreeBsdTcpSender*> streams);

  // Both directions of the control connection; the server reads and writes
  // the other ends.
  Iperf3ControlChannel& control_channel() { return channel_; }
  // Where the interval samples take the server's reads from: cumulative bytes
  // read on stream i (0-based).
  void set_read_counter(std::function<std::uint64_t(int)> f) { read_counter_ = std::move(f); }

  // Stops the test where it is (the run ends): the window closes now if it
  // is still open; nothing more is written on the control connection.
  void finish();

  void handle_event(std::uint64_t tag) override;

  // The test window: [TEST_START read, min(start + time, run_end)); both are
  // 0 until the test starts, and end() is start() until it ends.
  SimTime start() const { return start_; }
  SimTime end() const { return end_; }
  bool test_started() const { return started_; }
  bool test_ended() const { return ended_; }
  bool done() const { return done_; }  // IPERF_DONE written
  int stream_count() const { return static_cast<int>(streams_.size()); }
  const tcp::FreeBsdTcpSender& control() const { return control_; }
  const tcp::FreeBsdTcpSender& stream(int i) const { return *streams_.at(static_cast<std::size_t>(i)).tcp; }
  const std::vector<Iperf3IntervalSample>& samples(int i) const { return streams_.at(static_cast<std::size_t>(i)).samples; }
  // Live until the window closes, frozen after.
  Iperf3SenderCounters counters(int i) const;
  // The JSON texts this client writes (their lengths are what goes on the wire).
  const std::string& parameters_json() const { return parameters_json_; }
  std::string results_json() const;

 private:
  enum Tag : std::uint64_t { kConnect = 1, kEnd = 2, kSample = 3 };
  struct Stream {
    tcp::FreeBsdTcpSender* tcp = nullptr;
    std::vector<Iperf3IntervalSample> samples;
    Iperf3IntervalSample last;  // cumulative counters at the previous sample
    std::uint64_t written_at_start = 0;
    std::uint64_t rexmit_at_start = 0;
    Iperf3SenderCounters frozen;
  };

  void on_control_message(const Iperf3ControlMessage& m);
  void on_state(Iperf3State s);
  void connect_stream(std::size_t i);
  void start_test();
  void end_test();
  void freeze();
  void take_sample(SimTime now);
  void write_state(Iperf3State s);
  void write_json(Iperf3Message kind, std::uint64_t length);
  std::uint64_t blocks_written(const Stream& s) const;
  std::uint64_t bytes_read(std::size_t i) const { return read_counter_ ? read_counter_(static_cast<int>(i)) : 0; }
  Iperf3SenderCounters live_counters(const Stream& s) const;

  Iperf3ClientConfig config_;
  tcp::FreeBsdTcpSender& control_;
  std::vector<Stream> streams_;
  Iperf3ControlChannel channel_;
  std::function<std::uint64_t(int)> read_counter_;
  std::string parameters_json_;
  SimTime start_ = 0;
  SimTime end_ = 0;
  bool started_ = false;
  bool ended_ = false;
  bool done_ = false;
};

}  // namespace netsim::app
