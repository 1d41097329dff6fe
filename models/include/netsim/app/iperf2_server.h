// The server side of one iperf 2.1.8 TCP test (`iperf -s -e [-i I]`) on a
// Linux TCP endpoint listening on the server port (5001 by default): each of
// the client's connections is accepted, its 60-byte test header read (one
// read) and answered with the 28-byte client_test_ack, then read until end of
// file (see iperf2_protocol.h).
//
// Reads. iperf2's server thread loops on recv(sock, buf, -l) (128 KiB by
// default) and counts every read that returned data in the Reads=Dist
// histogram (8 bins of -l / 8 bytes). The Linux endpoint model hands the
// application its in-order bytes as they become readable (one delivery per
// processed segment or GRO aggregate, or a whole range when a retransmission
// fills a hole). The model assumes a reader that is always waiting in recv():
// every delivery is read at once, in reads of at most -l bytes (a delivery of
// n bytes gives floor(n / -l) full reads and one of the rest). A real server
// that is busy or descheduled when data arrives reads several deliveries in
// one call; no CPU time is modelled, so it never does here.
//
// End of file. The TCP models have no FIN: the client tells the server (set_eof)
// how many bytes it will have written when it shuts the connection down, and
// the server's read loop ends once it has read that many (the FIN follows the
// last data byte). Its close is reported to the client at once (the FIN's trip
// back to the client is not modelled).
//
// A real iperf -s serves any number of clients at once; here each flow has its
// own Iperf2Server on the shared listening endpoint, which hands it the
// connections of its client (by the client's ports).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "netsim/app/iperf2_protocol.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/simulation.h"
#include "netsim/tcp/tcp_receive_endpoint.h"

namespace netsim::app {

struct Iperf2ServerConfig {
  NodeId client = kNoNode;                  // the client's host
  std::vector<std::uint16_t> stream_ports;  // the client's ports, stream order
  std::uint64_t read_len = 131072;          // the server's -l (default 128 KiB)
  SimTime interval = 0;                     // the server's -i (0: no interval samples)
  SimTime run_end = 0;                      // for sizing the sample vectors (0: unknown)
};

// What the server has read on one connection: bytes (the 60-byte header
// included), read() calls that returned data, and their sizes' histogram.
struct Iperf2ReadCounters {
  std::uint64_t bytes = 0;
  std::uint64_t reads = 0;
  std::array<std::uint64_t, kIperf2ReadBins> bins{};
};

// One reporting interval of one connection on the server's clock (from its accept).
struct Iperf2ServerSample {
  SimTime start = 0;  // absolute simulated times
  SimTime end = 0;
  Iperf2ReadCounters read;
};

class Iperf2Server final : public Component, public EventHandler {
 public:
  using ConnId = tcp::TcpReceiveEndpoint::ConnId;

  Iperf2Server(Simulation& sim, std::string name, tcp::TcpReceiveEndpoint& endpoint, const Iperf2ServerConfig& config);

  // Called when stream i's read loop has reached end of file (the client is told).
  void set_on_close(std::function<void(int)> f) { on_close_ = std::move(f); }

  // Whether endpoint connection `c` belongs to this test.
  bool owns(ConnId c) const;
  // From the endpoint: a connection was accepted / has `bytes` more in-order bytes.
  void on_accept(ConnId c);
  void on_data(ConnId c, std::uint64_t bytes);
  // From the client: stream i shuts down after `total` bytes (header included).
  void set_eof(int i, std::uint64_t total);
  // The run ends: every stream still open stops counting now.
  void finish();

  void handle_event(std::uint64_t tag) override;

  int stream_count() const { return static_cast<int>(streams_.size()); }
  std::uint64_t read_len() const { return config_.read_len; }
  bool accepted(int i) const { return at(i).conn >= 0; }
  ConnId stream_connection(int i) const { return at(i).conn; }
  SimTime accept_time(int i) const { return at(i).accepted_at; }
  // tcpi_rtt right after the accept (the handshake's sample: the server's "irtt").
  std::uint32_t initial_rtt_us(int i) const { return at(i).initial_rtt_us; }
  // When stream i's read loop ended (end of file or the run's end); valid once closed(i).
  SimTime close_time(int i) const { return at(i).closed_at; }
  bool closed(int i) const { return at(i).closed; }
  bool header_read(int i) const { return at(i).header_left == 0; }
  // Everything read on stream i so far (frozen once closed).
  const Iperf2ReadCounters& reads(int i) const { return at(i).total; }
  const std::vector<Iperf2ServerSample>& samples(int i) const { return at(i).samples; }
  // Stream i's connection counters (frozen once closed; zero before the accept).
  tcp::TcpReceiverStats connection_stats(int i) const;
  // The test header's ack was written on stream i.
  bool header_acked(int i) const { return at(i).acked; }

 private:
  struct Stream {
    std::uint16_t port = 0;
    ConnId conn = -1;
    SimTime accepted_at = 0;
    std::uint32_t initial_rtt_us = 0;
    std::uint64_t header_left = iperf2_header_length(iperf2_plain_tcp_flags());
    bool acked = false;
    Iperf2ReadCounters total;
    Iperf2ServerSample last;  // cumulative at the previous sample
    std::vector<Iperf2ServerSample> samples;
    std::uint64_t eof = 0;  // bytes after which the client shuts down; 0 = not yet known
    bool eof_known = false;
    bool closed = false;
    SimTime closed_at = 0;
    tcp::TcpReceiverStats frozen_stats;
  };

  const Stream& at(int i) const { return streams_.at(static_cast<std::size_t>(i)); }
  int stream_of(ConnId c) const;
  void count_read(Stream& s, std::uint64_t n);
  void take_sample(Stream& s, SimTime now);
  void close(int i);

  tcp::TcpReceiveEndpoint& endpoint_;
  Iperf2ServerConfig config_;
  std::vector<Stream> streams_;
  std::vector<int> stream_of_conn_;  // endpoint connection -> stream index (-1: none), once accepted
  std::function<void(int)> on_close_;
};

}  // namespace netsim::app
