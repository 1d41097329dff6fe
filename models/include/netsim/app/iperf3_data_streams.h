// What the iperf3 control protocol (Iperf3ClientProtocol, Iperf3ServerProtocol)
// needs from one side's data connections.
//
// The protocol says when a side's test starts and ends and when it samples;
// the streams say what that means for their direction. FreeBSD senders write
// -l blocks (Iperf3SendingStreams: the forward client, the reverse server);
// Linux connections count what the application reads
// (Iperf3ReceivingStreams: the forward server, the reverse client). The
// protocols take the streams as a template parameter: these calls come per
// control message or per interval, and the per-packet work (counting reads)
// stays a plain member call of the concrete streams.
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <string>

#include "netsim/app/iperf3_messages.h"
#include "netsim/sim/time.h"

namespace netsim::app {

// One stream's statistics over one reporting interval, as iperf3's
// stats_callback takes them: bytes of completed writes, the reads of the
// stream on the other side, retransmissions and the sender's TCP_INFO at the
// interval's end. The client samples; the sending side's streams give the
// write, retransmit and TCP_INFO fields, the receiving side's the reads.
struct Iperf3IntervalSample {
  SimTime start = 0;  // absolute simulated times
  SimTime end = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t retransmits = 0;
  std::uint32_t snd_cwnd = 0;
  std::uint32_t snd_wnd = 0;
  std::uint32_t rtt_us = 0;
  std::uint32_t rttvar_us = 0;
};

template <typename S>
concept Iperf3DataStreams = requires(S& s, const S& cs, int i, Iperf3IntervalSample& x, Iperf3ResultsMessage& m) {
  { cs.count() } -> std::convertible_to<int>;
  // The side's test clock starts (the client reads TEST_START, the server
  // writes it): the baselines of what the test counts.
  s.begin_test();
  // TEST_RUNNING: the streams write, or count what is read, from now on.
  s.start();
  // The side's test ends (the client's -t timer, the server's TEST_END, or
  // the run's end): writing or counting stops and the counters freeze.
  s.stop();
  // Stream i's cumulative figures now, into the fields of `x` this direction
  // knows; the interval samples are differences of them.
  cs.read_figures(i, x);
  // What send_results says that depends on the direction: whether stream
  // counts include retransmits, the congestion control, and per stream (in
  // order, one entry each) its bytes and retransmits.
  cs.describe_results(m);
};

// send_results of one side: its CPU figures (Iperf3CpuMeter: total, user,
// system), its streams' totals, and every stream's end time `span`
// after its start, in iperf3's microseconds (struct iperf_time).
template <Iperf3DataStreams Streams>
std::string iperf3_side_results_json(const Streams& streams, const std::array<double, 3>& cpu, SimTime span) {
  Iperf3ResultsMessage m;
  m.cpu_util_total = cpu[0];
  m.cpu_util_user = cpu[1];
  m.cpu_util_system = cpu[2];
  streams.describe_results(m);
  const double end_time = std::round(static_cast<double>(span) / 1e6) / 1e6;
  for (std::size_t i = 0; i < m.streams.size(); ++i) {
    m.streams[i].id = iperf3_stream_id(static_cast<int>(i));
    m.streams[i].start_time = 0;
    m.streams[i].end_time = end_time;
  }
  return iperf3_results_json(m);
}

}  // namespace netsim::app
