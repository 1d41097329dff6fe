#include "netsim/app/iperf2_from_result.h"

#include <cmath>
#include <cstddef>
#include <utility>

namespace netsim::app {
namespace {

// Fixed process ids: the simulated hosts run nothing else.
constexpr int kClientPid = 2201;
constexpr int kServerPid = 1001;
// SO_SNDBUF as the FreeBSD client reads it back right after socket():
// net.inet.tcp.sendspace (autoscaling grows the buffer later).
constexpr std::uint64_t kFreeBsdSendSpace = 32768;
// SO_RCVBUF as the Linux server reads it back: tcp_rmem[1].
constexpr std::uint64_t kLinuxRcvBuf = 131072;
// TCPOLEN_TSTAMP_APPA: Linux's tcpi_snd_mss (mss_cache) leaves out the
// timestamp option, FreeBSD's (t_maxseg) does not.
constexpr std::uint32_t kTimestampOption = 12;
// Linux's initial window: TCP_INIT_CWND segments.
constexpr std::uint32_t kLinuxInitCwnd = 10;

Iperf2Interval client_interval(const results::Iperf2Interval& i) {
  Iperf2Interval out;
  out.start_s = i.start_s();
  out.end_s = i.end_s();
  out.bytes = i.bytes_sent();
  out.writes = i.writes();
  out.retransmits = i.retransmits();
  out.cwnd_bytes = i.snd_cwnd();  // FreeBSD's tcpi_snd_cwnd is in bytes already
  out.rtt_us = i.rtt_us();
  out.rttvar_us = i.rttvar_us();
  return out;
}

Iperf2Interval server_interval(const results::Iperf2Interval& i) {
  Iperf2Interval out;
  out.start_s = i.start_s();
  out.end_s = i.end_s();
  out.bytes = i.bytes_received();
  out.reads = i.reads();
  for (int b = 0; b < i.read_bins_size() && static_cast<std::size_t>(b) < out.read_bins.size(); ++b) {
    out.read_bins[static_cast<std::size_t>(b)] = i.read_bins(b);
  }
  return out;
}

std::int64_t unix_time(double simulated_s, std::int64_t epoch) {
  return epoch + static_cast<std::int64_t>(std::floor(simulated_s));
}

}  // namespace

Iperf2Test iperf2_test_from_result(const results::Iperf2Result& r, std::int64_t epoch_unix_s) {
  Iperf2Test t;
  t.server_host = r.server_address();
  t.port = static_cast<std::uint16_t>(r.server_port());
  t.client_pid = kClientPid;
  t.interval_s = r.interval_s();
  t.write_len = r.write_len();
  t.client_window_bytes = kFreeBsdSendSpace;
  t.server_pid = kServerPid;
  t.server_interval_s = r.interval_s();
  t.read_len = r.read_len();
  t.server_window_bytes = kLinuxRcvBuf;
  t.peer_version = "2.1.8";  // from the test header's version words
  int k = 0;
  for (const results::Iperf2Stream& s : r.streams()) {
    Iperf2Stream out;
    out.id = k + 1;
    out.local_host = r.client_address();
    out.local_port = static_cast<std::uint16_t>(s.local_port());
    out.remote_host = r.server_address();
    out.remote_port = static_cast<std::uint16_t>(r.server_port());
    out.client_sock = 3 + k;  // the client's sockets: 3, 4, ...
    out.server_sock = 4 + k;  // the server's listening socket is 3
    out.client_init.mss = s.mss();
    out.client_init.initial_cwnd_bytes = s.initial_cwnd();
    out.client_init.initial_rtt_us = s.initial_rtt_us();
    out.connect_time_ms = s.connect_ms();
    out.client_connect_unix_s = unix_time(s.connect_start_s(), epoch_unix_s);
    for (const results::Iperf2Interval& i : s.intervals()) out.intervals.push_back(client_interval(i));
    out.total_client = client_interval(s.client_total());
    if (s.has_server_total()) {
      const std::uint32_t mss = s.mss() > kTimestampOption ? s.mss() - kTimestampOption : s.mss();
      out.server_init.mss = mss;
      out.server_init.initial_cwnd_bytes = static_cast<std::uint64_t>(kLinuxInitCwnd) * mss;
      out.server_init.initial_rtt_us = s.server_initial_rtt_us();
      out.server_accept_unix_s = unix_time(s.server_start_s(), epoch_unix_s);
      for (const results::Iperf2Interval& i : s.server_intervals()) out.server_intervals.push_back(server_interval(i));
      out.total_server = server_interval(s.server_total());
    }
    t.streams.push_back(std::move(out));
    ++k;
  }
  return t;
}

}  // namespace netsim::app
