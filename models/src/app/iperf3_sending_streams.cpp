#include "netsim/app/iperf3_sending_streams.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "netsim/app/iperf3_protocol.h"
#include "netsim/tcp/sender_report_fields.h"

namespace netsim::app {

void iperf3_write_whole(tcp::TcpSendSocket& tcp, std::uint64_t bytes) {
  if (tcp.write(bytes) != bytes) throw std::runtime_error("iperf3 control message larger than the send buffer");
}

Iperf3SendingStreams::Iperf3SendingStreams(std::vector<tcp::TcpSendSocket*> senders, std::uint64_t blksize,
                                           std::string congestion, bool cookie_written)
    : blksize_(std::max<std::uint64_t>(1, blksize)),
      congestion_(std::move(congestion)),
      cookie_bytes_(cookie_written ? kIperf3CookieBytes : 0) {
  for (tcp::TcpSendSocket* s : senders) streams_.push_back(Stream{.tcp = s});
}

void Iperf3SendingStreams::begin_test() {
  started_ = true;
  for (Stream& s : streams_) {
    s.written_at_start = blocks_written(s);
    s.rexmit_at_start = tcp::report_retransmits(*s.tcp);
  }
}

void Iperf3SendingStreams::start() {
  // The sending threads write -l blocks from now on: the send buffer is kept full.
  for (Stream& s : streams_) {
    s.tcp->set_unlimited_data(true);
    s.tcp->write(s.tcp->send_buffer_room());
  }
}

void Iperf3SendingStreams::stop() {
  // What is buffered when writing stops is still sent (no teardown is
  // modelled); the counters keep the test's figures.
  for (Stream& s : streams_) {
    s.frozen = live_counters(s);
    s.tcp->set_unlimited_data(false);
  }
  stopped_ = true;
}

// Whole -l blocks: iperf3 counts a write once it completes.
std::uint64_t Iperf3SendingStreams::blocks_written(const Stream& s) const {
  const std::uint64_t w = s.tcp->bytes_written();
  const std::uint64_t data = w > cookie_bytes_ ? w - cookie_bytes_ : 0;
  return data / blksize_ * blksize_;
}

void Iperf3SendingStreams::read_figures(int i, Iperf3IntervalSample& x) const {
  const Stream& s = streams_.at(static_cast<std::size_t>(i));
  const tcp::TcpSendSocket& tcp = *s.tcp;
  x.bytes_written = blocks_written(s);
  const tcp::TcpSocketInfo info = tcp.info();
  x.retransmits = info.retransmits;
  x.snd_cwnd = info.snd_cwnd_bytes;
  x.snd_wnd = info.snd_wnd_bytes;
  x.rtt_us = info.rtt_us;
  x.rttvar_us = info.rttvar_us;
}

Iperf3SenderCounters Iperf3SendingStreams::live_counters(const Stream& s) const {
  // The cookie an active open wrote is one data segment and its bytes of the
  // connection's, not of the test's. (data_segments_sent leaves out an active
  // open's SYNs; a passive open's SYN-ACKs and anyone's pure ACKs are not
  // counted at all.)
  const tcp::TcpSendSocket& tcp = *s.tcp;
  const tcp::TcpSocketInfo info = tcp.info();
  Iperf3SenderCounters c;
  const std::uint64_t data_segments = info.data_segments_sent;
  const std::uint64_t cookie_segments = cookie_bytes_ > 0 && tcp.bytes_written() >= cookie_bytes_ ? 1 : 0;
  c.segments_sent = data_segments - std::min(data_segments, cookie_segments);
  c.bytes_sent = info.bytes_sent - std::min(info.bytes_sent, cookie_bytes_);
  c.bytes_acked = tcp.bytes_acked() - std::min(tcp.bytes_acked(), cookie_bytes_);
  tcp::fill_sender_report_fields(tcp, c);
  c.bytes_written = started_ ? blocks_written(s) - s.written_at_start : 0;
  return c;
}

Iperf3SenderCounters Iperf3SendingStreams::counters(int i) const {
  const Stream& s = streams_.at(static_cast<std::size_t>(i));
  return stopped_ ? s.frozen : live_counters(s);
}

void Iperf3SendingStreams::describe_results(Iperf3ResultsMessage& m) const {
  // FreeBSD (tcpi_snd_rexmitpack) and Linux (tcpi_total_retrans) both report them.
  m.sender_has_retransmits = streams_.empty() || streams_.front().tcp->reports_retransmits() ? 1 : 0;
  m.congestion_used = congestion_;
  for (int i = 0; i < count(); ++i) {
    const Iperf3SenderCounters c = counters(i);
    const std::uint64_t at_start = streams_[static_cast<std::size_t>(i)].rexmit_at_start;
    const auto retransmits = static_cast<std::int64_t>(c.retransmits - std::min(c.retransmits, at_start));
    m.streams.push_back(Iperf3StreamResultsEntry{.bytes = c.bytes_written, .retransmits = retransmits});
  }
}

}  // namespace netsim::app
