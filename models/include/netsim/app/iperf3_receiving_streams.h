// One side's iperf3 data connections on Linux TCP endpoints, whose
// application reads and counts while the test runs: the forward server's
// (connections its listening endpoint accepted) and the reverse client's (one
// endpoint per connection, each opened by the client).
#pragma once

#include <cstdint>
#include <vector>

#include "netsim/app/iperf3_data_streams.h"
#include "netsim/tcp/tcp_receive_endpoint.h"

namespace netsim::app {

// The receiving side of one data connection.
struct Iperf3ReceiverCounters {
  std::uint64_t bytes_read = 0;  // while the test ran (cookie excluded)
  tcp::TcpReceiverStats conn;   // the connection's counters so far (zero before the accept)
};

class Iperf3ReceivingStreams {
 public:
  using ConnId = tcp::TcpReceiveEndpoint::ConnId;

  // Stream i's connection will be on `endpoints[i]` (the same listening
  // endpoint for every stream of a server).
  explicit Iperf3ReceivingStreams(const std::vector<tcp::TcpReceiveEndpoint*>& endpoints) {
    for (tcp::TcpReceiveEndpoint* e : endpoints) streams_.push_back(Stream{.endpoint = e});
  }

  int count() const { return static_cast<int>(streams_.size()); }
  tcp::TcpReceiveEndpoint& endpoint(std::size_t i) { return *streams_.at(i).endpoint; }
  const tcp::TcpReceiveEndpoint& endpoint(std::size_t i) const { return *streams_.at(i).endpoint; }
  // Stream i's connection on its endpoint, once it is up (-1 before).
  ConnId connection(std::size_t i) const { return streams_.at(i).conn; }
  void set_connection(std::size_t i, ConnId c) { streams_.at(i).conn = c; }
  // The application read `bytes` more of stream i (iperf_tcp_recv,
  // iperf_recv_mt): what is read while the test runs is the stream's. Called
  // per delivery: no lookup, no allocation.
  void on_read(std::size_t i, std::uint64_t bytes) {
    if (counting_) streams_[i].bytes_read += bytes;
  }
  // Live until stop(), frozen after.
  Iperf3ReceiverCounters counters(int i) const {
    const Stream& s = streams_.at(static_cast<std::size_t>(i));
    return Iperf3ReceiverCounters{s.bytes_read, stopped_ ? s.frozen : connection_stats(s)};
  }

  // Iperf3DataStreams
  void begin_test() {}  // reads count from TEST_RUNNING on: nothing to take before
  void start() { counting_ = true; }
  void stop() {
    for (Stream& s : streams_) s.frozen = connection_stats(s);
    counting_ = false;
    stopped_ = true;
  }
  void read_figures(int i, Iperf3IntervalSample& x) const {
    x.bytes_read = streams_.at(static_cast<std::size_t>(i)).bytes_read;
  }
  void describe_results(Iperf3ResultsMessage& m) const {
    // A receiver's counts have no retransmits. Its congestion control is its
    // Linux default: a forward client's -C names a FreeBSD module, which the
    // server's setsockopt rejects (a warning; the streams keep the default),
    // and a reverse (Linux) client gives no -C.
    m.sender_has_retransmits = -1;
    m.congestion_used = "cubic";
    for (const Stream& s : streams_) {
      m.streams.push_back(Iperf3StreamResultsEntry{.bytes = s.bytes_read, .retransmits = -1});
    }
  }

 private:
  struct Stream {
    tcp::TcpReceiveEndpoint* endpoint = nullptr;
    ConnId conn = -1;
    std::uint64_t bytes_read = 0;
    tcp::TcpReceiverStats frozen{};  // the connection's counters at stop()
  };

  tcp::TcpReceiverStats connection_stats(const Stream& s) const {
    return s.conn >= 0 ? s.endpoint->stats(s.conn) : tcp::TcpReceiverStats{};
  }

  std::vector<Stream> streams_;
  bool counting_ = false;
  bool stopped_ = false;
};

static_assert(Iperf3DataStreams<Iperf3ReceivingStreams>);

}  // namespace netsim::app
