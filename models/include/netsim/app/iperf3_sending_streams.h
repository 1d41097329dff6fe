// One side's iperf3 data connections on FreeBSD senders, which write -l
// blocks while the test runs: the forward client's (active opens; each starts
// with the cookie this side wrote) and the reverse server's (passive; the
// cookie came from the client).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netsim/app/iperf3_data_streams.h"
#include "netsim/tcp/tcp_send_socket.h"
#include "netsim/tcp/sender_report_fields.h"

namespace netsim::app {

// The sender side of one data connection over the test, its cookie excluded
// (from the data segments and bytes too).
struct Iperf3SenderCounters : tcp::SenderReportCounters {
  std::uint64_t bytes_written = 0;  // whole -l blocks written within the test window
};

// Nwrite on a FreeBSD connection: the whole message goes into the socket.
// Control messages and cookies are far smaller than the send buffer (its
// 32 KB minimum); the model's write() does not block, so a message that did
// not fit would never be read whole: that is an error, not a short write.
void iperf3_write_whole(tcp::TcpSendSocket& tcp, std::uint64_t bytes);

class Iperf3SendingStreams {
 public:
  // `blksize`: -l (at least 1 is used); `congestion`: the module the results
  // name; `cookie_written`: this side opened the connections and wrote their
  // cookies, which are not the test's data.
  Iperf3SendingStreams(std::vector<tcp::TcpSendSocket*> senders, std::uint64_t blksize, std::string congestion,
                       bool cookie_written);

  int count() const { return static_cast<int>(streams_.size()); }
  tcp::TcpSendSocket& sender(std::size_t i) { return *streams_.at(i).tcp; }
  const tcp::TcpSendSocket& sender(std::size_t i) const { return *streams_.at(i).tcp; }
  // Live until stop(), frozen after.
  Iperf3SenderCounters counters(int i) const;

  // Iperf3DataStreams
  void begin_test();
  void start();
  void stop();
  void read_figures(int i, Iperf3IntervalSample& x) const;
  void describe_results(Iperf3ResultsMessage& m) const;

 private:
  struct Stream {
    tcp::TcpSendSocket* tcp = nullptr;
    std::uint64_t written_at_start = 0;
    std::uint64_t rexmit_at_start = 0;
    Iperf3SenderCounters frozen{};  // the counters at stop()
  };

  std::uint64_t blocks_written(const Stream& s) const;
  Iperf3SenderCounters live_counters(const Stream& s) const;

  std::vector<Stream> streams_;
  std::uint64_t blksize_;
  std::string congestion_;
  std::uint64_t cookie_bytes_;  // written by this side before the test's data (0: passive)
  bool started_ = false;  // begin_test() ran: blocks written count from there
  bool stopped_ = false;
};

static_assert(Iperf3DataStreams<Iperf3SendingStreams>);

}  // namespace netsim::app
