#include "netsim/app/iperf3_from_result.h"

#include <cmath>
#include <string_view>

namespace netsim::app {
namespace {

// FNV-1a, then a splitmix64 stream: a stable 36-character cookie from the
// alphabet iperf3 uses (make_cookie: a-z and 2-7).
std::string make_cookie(std::uint64_t seed, std::string_view flow) {
  std::uint64_t h = 1469598103934665603ull ^ seed;
  for (char c : flow) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  static constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz234567";
  std::string cookie;
  for (int i = 0; i < 36; ++i) {
    h += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = h;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    cookie.push_back(kAlphabet[z % kAlphabet.size()]);
  }
  return cookie;
}

}  // namespace

Iperf3Test iperf3_test_from_result(const results::Iperf3Result& r, std::uint64_t seed) {
  Iperf3Test t;
  // The modelled client: FreeBSD, or the Linux receiver for -R.
  t.reverse = r.reverse();
  // Each side's CPU (zeros for a host without a CPU model).
  t.client_cpu_total = r.client_cpu().total();
  t.client_cpu_user = r.client_cpu().user();
  t.client_cpu_system = r.client_cpu().system();
  t.server_cpu_total = r.server_cpu().total();
  t.server_cpu_user = r.server_cpu().user();
  t.server_cpu_system = r.server_cpu().system();
  t.system_info = t.reverse ? "Linux receiver 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 x86_64"
                            : "FreeBSD sender 15.0-CURRENT FreeBSD 15.0-CURRENT amd64";
  t.cookie = make_cookie(seed, r.flow());
  t.timestamp_unix = static_cast<std::int64_t>(std::floor(r.test_start_s()));
  t.server_host = r.server_address();
  t.server_port = static_cast<std::uint16_t>(r.server_port());
  t.accepted_host = r.client_address();
  t.accepted_port = static_cast<std::uint16_t>(r.control_port());
  t.blksize = r.blksize();
  t.duration_s = static_cast<int>(std::lround(r.duration_s()));
  t.interval_s = r.interval_s();
  t.tcp_mss_default = r.mss();
  t.sender_tcp_congestion = r.congestion();
  t.receiver_tcp_congestion = "cubic";  // the Linux receiver's default; -C is not applied there
  // iperf3's first data socket on a fresh client process is fd 5; every stream
  // also opens a temporary file for its buffer (iperf_new_stream: mkstemp), so
  // the next stream's socket is two further: 5, 7, 9, ...
  int socket = 5;
  for (const results::Iperf3Stream& s : r.streams()) {
    Iperf3StreamResult out;
    out.socket = socket;
    socket += 2;
    out.local_host = r.client_address();
    out.local_port = static_cast<std::uint16_t>(s.local_port());
    out.remote_host = r.server_address();
    out.remote_port = static_cast<std::uint16_t>(r.server_port());
    for (const results::Iperf3Interval& i : s.intervals()) {
      Iperf3StreamInterval sent;
      sent.start_s = i.start_s();
      sent.end_s = i.end_s();
      sent.bytes = i.bytes_sent();
      sent.retransmits = i.retransmits();
      sent.snd_cwnd_bytes = i.snd_cwnd();
      sent.snd_wnd_bytes = i.snd_wnd();
      sent.rtt_us = i.rtt_us();
      sent.rttvar_us = i.rttvar_us();
      sent.pmtu = 1500;
      out.intervals.push_back(sent);
      Iperf3StreamInterval read;
      read.start_s = i.start_s();
      read.end_s = i.end_s();
      read.bytes = i.bytes_received();
      out.receiver_intervals.push_back(read);
    }
    out.sender_bytes = s.sender_bytes();
    out.sender_seconds = s.sender_seconds();
    out.sender_retransmits = s.sender_retransmits();
    out.max_snd_cwnd = s.max_snd_cwnd();
    out.max_snd_wnd = s.max_snd_wnd();
    out.max_rtt_us = s.max_rtt_us();
    out.min_rtt_us = s.min_rtt_us();
    out.mean_rtt_us = s.mean_rtt_us();
    out.receiver_bytes = s.receiver_bytes();
    out.receiver_seconds = s.receiver_seconds();
    t.streams.push_back(std::move(out));
  }
  return t;
}

}  // namespace netsim::app
