// The client side of an iperf 2.1.8 TCP test (`iperf -c HOST -l L -t T -i I
// -e -P N`) on FreeBSD TCP senders (see iperf2_protocol.h for what was read
// in iperf2's source).
//
// Order of events (src/Launch.cpp clientside_client_basic, src/Client.cpp):
//   start       -> every stream connects (its SYN), at the same instant;
//   connected   -> with -P > 1 a stream waits until all are connected (the
//                  connect barrier); then each sends its 60-byte test header,
//                  starts its clock (the -t end and the -i boundaries) and
//                  writes -l blocks, one blocking write() after the other;
//   -t expired  -> the write in progress completes (it started before the end
//                  time), then the stream shuts down: the server is told how
//                  many bytes it will read (set_on_shutdown);
//   server close-> the stream's final report ends (on_peer_close).
// A stream counts a write when the whole -l block is in the send buffer (a
// blocking write returns then); its bytes are the header's 60 plus whole
// blocks, as iperf2 reports them. The TCP_INFO readings at each interval's end
// are FreeBSD's: tcpi_snd_cwnd (bytes), tcpi_rtt and tcpi_rttvar (us, tick
// resolution), tcpi_snd_rexmitpack (its delta is the interval's retransmits).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "netsim/app/iperf2_protocol.h"
#include "netsim/app/iperf2_server.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/simulation.h"
#include "netsim/tcp/tcp_send_socket.h"
#include "netsim/tcp/sender_report_fields.h"

namespace netsim::app {

struct Iperf2ClientConfig {
  SimTime start = 0;                     // when the streams connect
  SimTime time = 10'000'000'000'000;     // -t: from the connect (header sent) to the last write's start
  SimTime run_end = 0;                   // the test is cut here if it has not ended (0: never)
  SimTime interval = 0;                  // -i (0: no interval statistics)
  std::uint64_t write_len = 131072;      // -l: bytes per write (TCP default 128 KiB)
  // How often the writer of the last block looks for room in the send buffer
  // once -t has expired (a blocked write is woken by the ACK that frees room).
  SimTime last_write_poll = 50'000'000;  // 50 us
};

// One stream's statistics over one reporting interval (or the whole test), on
// the client's clock: what iperf2 -e prints, plus the server's reads sampled
// at the same instants.
struct Iperf2ClientSample {
  SimTime start = 0;  // absolute simulated times
  SimTime end = 0;
  std::uint64_t bytes_written = 0;  // the header's 60 in the first interval, then whole blocks
  std::uint64_t writes = 0;         // completed write() calls (the header's send is not one)
  std::uint64_t retransmits = 0;    // tcpi_snd_rexmitpack delta
  std::uint32_t snd_cwnd = 0;       // bytes, at the end
  std::uint32_t rtt_us = 0;         // tcpi_rtt at the end
  std::uint32_t rttvar_us = 0;      // tcpi_rttvar at the end
  Iperf2ReadCounters read;          // the server's reads in the same span
};

// The sender side of one connection (FlowStats): live until the stream's
// report ends, frozen after. Its data segments and bytes include the test
// header's.
struct Iperf2SenderCounters : tcp::SenderReportCounters {};

// TCP_INFO right after connect() returned (iperf2's tcpinitstats).
struct Iperf2ConnectInfo {
  SimTime connect_start = 0;  // connect() called (the SYN)
  SimTime connected = 0;      // connect() returned
  std::uint32_t mss = 0;      // tcpi_snd_mss
  std::uint32_t cwnd = 0;     // tcpi_snd_cwnd, bytes
  std::uint32_t rtt_us = 0;   // tcpi_rtt
};

class Iperf2Client final : public Component, public EventHandler {
 public:
  // `streams` (at least one): unconnected senders to the server's port.
  Iperf2Client(Simulation& sim, std::string name, const Iperf2ClientConfig& config,
               std::vector<tcp::TcpSendSocket*> streams);

  // Where the interval samples take the server's reads of stream i from.
  void set_read_counter(std::function<Iperf2ReadCounters(int)> f) { read_counter_ = std::move(f); }
  // Called when stream i has written its last byte (`total` bytes, the header
  // included) and shuts down.
  void set_on_shutdown(std::function<void(int, std::uint64_t)> f) { on_shutdown_ = std::move(f); }
  // The server has closed stream i: its report ends now.
  void on_peer_close(int i);
  // The run ends: every stream's report that has not ended ends now.
  void finish();

  void handle_event(std::uint64_t tag) override;

  // The test clock: [header sent, last report end]. start() is 0 and end()
  // start() until the streams are connected; end() grows as streams end.
  SimTime start() const { return start_; }
  SimTime end() const { return end_; }
  bool test_started() const { return started_; }
  bool test_ended() const { return ended_; }  // every stream's report has ended
  int stream_count() const { return static_cast<int>(streams_.size()); }
  std::uint64_t write_len() const { return config_.write_len; }
  const tcp::TcpSendSocket& stream(int i) const { return *at(i).tcp; }
  const Iperf2ConnectInfo& connect_info(int i) const { return at(i).connect; }
  // The -i samples of stream i, the last one possibly shorter (up to its report's end).
  const std::vector<Iperf2ClientSample>& samples(int i) const { return at(i).samples; }
  // The whole test of stream i (the final line), valid once stream_ended(i).
  const Iperf2ClientSample& total(int i) const { return at(i).total; }
  bool stream_ended(int i) const { return at(i).ended; }
  // When stream i's last write completed (it shut down); 0 until then.
  SimTime shutdown_time(int i) const { return at(i).shutdown_at; }
  // Bytes stream i has written so far: the header (once sent) and whole blocks.
  std::uint64_t bytes_written(int i) const { return written(at(i)); }
  std::uint64_t writes(int i) const { return blocks(at(i)); }
  Iperf2SenderCounters counters(int i) const;

 private:
  enum Tag : std::uint64_t { kConnect = 1, kEnd = 2, kSample = 3, kFeed = 4 };
  struct Stream {
    tcp::TcpSendSocket* tcp = nullptr;
    Iperf2ConnectInfo connect;
    bool connected = false;
    bool header_sent = false;
    std::uint64_t rexmit_at_start = 0;
    std::vector<Iperf2ClientSample> samples;
    Iperf2ClientSample last;        // cumulative counters at the previous sample
    std::uint64_t last_block = 0;   // stop at this many blocks (0: still writing freely)
    bool shut = false;
    SimTime shutdown_at = 0;
    bool ended = false;
    Iperf2ClientSample total;
    Iperf2SenderCounters frozen;
  };

  const Stream& at(int i) const { return streams_.at(static_cast<std::size_t>(i)); }
  void on_connected(std::size_t i);
  void start_test();
  void end_writing();
  void feed();
  void end_stream(std::size_t i);
  Iperf2ClientSample cumulative(std::size_t i) const;
  Iperf2ClientSample delta(const Iperf2ClientSample& now, const Iperf2ClientSample& before) const;
  void take_sample(SimTime now);
  std::uint64_t written(const Stream& s) const;
  std::uint64_t blocks(const Stream& s) const;
  Iperf2SenderCounters live_counters(const Stream& s) const;

  Iperf2ClientConfig config_;
  std::vector<Stream> streams_;
  std::function<Iperf2ReadCounters(int)> read_counter_;
  std::function<void(int, std::uint64_t)> on_shutdown_;
  int connected_ = 0;
  SimTime start_ = 0;
  SimTime end_ = 0;
  SimTime write_end_ = 0;  // -t expires
  bool started_ = false;
  bool writing_ended_ = false;
  bool ended_ = false;
  bool feeding_ = false;
};

}  // namespace netsim::app
