#include "netsim/app/iperf2_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "printf_format.h"

namespace netsim::app {
namespace {

using printf_format::cat;
using printf_format::civil_time;
using printf_format::CivilTime;
using printf_format::fixed;
using printf_format::two_digits;
using printf_format::right;

// ---------------------------------------------------------------------------
// byte_snprintf (src/stdio.c): conversion factors and labels per unit, written
// as iperf2 writes them so that the products round the same way.

constexpr int kPeta = 5;
constexpr double kByteFactor[] = {1.0,
                                  1.0 / 1024,
                                  1.0 / 1024 / 1024,
                                  1.0 / 1024 / 1024 / 1024,
                                  1.0 / 1024 / 1024 / 1024 / 1024,
                                  1.0 / 1024 / 1024 / 1024 / 1024 / 1024};
constexpr double kBitFactor[] = {1.0,
                                 1.0 / 1000,
                                 1.0 / 1000 / 1000,
                                 1.0 / 1000 / 1000 / 1000,
                                 1.0 / 1000 / 1000 / 1000 / 1000,
                                 1.0 / 1000 / 1000 / 1000 / 1000 / 1000};
constexpr const char* kByteLabel[] = {"Byte", "KByte", "MByte", "GByte", "TByte", "PByte"};
constexpr const char* kBitLabel[] = {"bit", "Kbit", "Mbit", "Gbit", "Tbit", "Pbit"};

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
char to_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

// ---------------------------------------------------------------------------
// Column pieces.

// transferIDStr: "[%3d] ".
std::string id_str(int id) { return cat({"[", right(std::to_string(id), 3), "] "}); }
constexpr const char* kSumId = "[SUM] ";

// IPERFTimeFrmt with HAVE_FASTSAMPLING: "%4.4f-%4.4f".
std::string times(double start, double end) {
  return cat({right(fixed(start, 4), 4), "-", right(fixed(end, 4), 4)});
}

double seconds(const Iperf2Interval& iv) { return iv.end_s - iv.start_s; }

// bytes / (iEnd - iStart); a zero-length interval (which iperf2 would print as
// inf or nan) is shown as 0 here.
double per_second(std::uint64_t bytes, double secs) {
  return secs > 0.0 ? static_cast<double>(bytes) / secs : 0.0;
}

// "%ss  %ss/sec": Transfer in toupper(Format) = 'A', Bandwidth in Format = 'a'.
std::string transfer_bandwidth(std::uint64_t bytes, double secs) {
  return cat({iperf2_byte_snprintf(static_cast<double>(bytes), 'A'), "s  ",
              iperf2_byte_snprintf(per_second(bytes, secs), 'a'), "s/sec"});
}

// The common head: "[  1] 0.0000-2.0000 sec   224 MBytes   940 Mbits/sec".
std::string line_head(const std::string& id, const Iperf2Interval& iv) {
  return cat({id, times(iv.start_s, iv.end_s), " sec  ", transfer_bandwidth(iv.bytes, seconds(iv))});
}

// set_netpowerbuf with the sampled RTT as the mean transit time:
// NETPOWERCONSTANT (1e-6) * bytes / seconds / (rtt_us * 1e-6).
std::string netpower(const Iperf2Interval& iv) {
  const double meantransit = iv.rtt_us * 1e-6;
  if (meantransit == 0.0) return "NAN";
  const double netpwr = 1e-6 * (per_second(iv.bytes, seconds(iv)) / meantransit);
  if (netpwr < -1e7) return "OBL";
  if (netpwr > 100) return fixed(netpwr, 0);
  if (netpwr > 10) return fixed(netpwr, 2);
  return fixed(netpwr, 6);
}

// report_bw_write_enhanced_format: "%s" IPERFTimeFrmt " sec  %ss  %ss/sec  %d/%d %10d %8dK/%u(%u) us  %s\n",
// or report_bw_write_enhanced_nocwnd_format ("... %d/%d %10d       NA/%u us  %s\n") without a cwnd.
std::string client_line(const std::string& id, const Iperf2Interval& iv) {
  std::string s = cat({line_head(id, iv), "  ", std::to_string(iv.writes), "/", std::to_string(iv.write_errors), " ",
                       right(iv.retransmits, 10)});
  const std::uint64_t cwnd_k = iv.cwnd_bytes / 1024;
  if (cwnd_k > 0) {
    s += cat({" ", right(cwnd_k, 8), "K/", std::to_string(iv.rtt_us), "(", std::to_string(iv.rttvar_us), ") us  "});
  } else {
    s += cat({"       NA/", std::to_string(iv.rtt_us), " us  "});
  }
  return cat({s, netpower(iv), "\n"});
}

// report_sum_bw_write_enhanced_format: "[SUM] " IPERFTimeFrmt " sec  %ss  %ss/sec  %d/%d%10d\n".
std::string client_sum_line(const Iperf2Interval& sum) {
  return cat({line_head(kSumId, sum), "  ", std::to_string(sum.writes), "/", std::to_string(sum.write_errors),
              right(sum.retransmits, 10), "\n"});
}

// report_bw_read_enhanced_format and report_sum_bw_read_enhanced_format:
// "... sec  %ss  %ss/sec  %d=%d:%d:%d:%d:%d:%d:%d:%d\n".
std::string server_line(const std::string& id, const Iperf2Interval& iv) {
  std::string s = cat({line_head(id, iv), "  ", std::to_string(iv.reads), "="});
  for (std::size_t i = 0; i < iv.read_bins.size(); ++i) {
    if (i > 0) s += ':';
    s += std::to_string(iv.read_bins[i]);
  }
  s += '\n';
  return s;
}

constexpr const char* kSeparator = "------------------------------------------------------------\n";
// report_bw_write_enhanced_header / report_bw_read_enhanced_header, "[ ID] Interval" IPERFTimeSpace "...".
constexpr const char* kClientHeader =
    "[ ID] Interval            Transfer    Bandwidth       Write/Err  Rtry     Cwnd/RTT(var)        NetPwr\n";
constexpr const char* kServerHeader = "[ ID] Interval            Transfer    Bandwidth       Reads=Dist\n";

// output_window_size: "TCP window size: %s" then " (default)" or " (WARNING: requested %s)".
std::string window_line(std::uint64_t actual, std::uint64_t requested) {
  std::string s = cat({"TCP window size: ", iperf2_byte_snprintf(static_cast<double>(actual), 'A')});
  if (requested == 0) {
    s += " (default)";
  } else if (requested != actual) {
    s += cat({" (WARNING: requested ", iperf2_byte_snprintf(static_cast<double>(requested), 'A'), ")"});
  }
  s += '\n';
  return s;
}

// strftime "%Y-%m-%d %H:%M:%S (%Z)" of local time = UTC + offset.
std::string local_time(std::int64_t unix_seconds, std::int64_t utc_offset_s, const std::string& zone) {
  const CivilTime c = civil_time(unix_seconds + utc_offset_s);
  return cat({std::to_string(c.year), "-", two_digits(c.month), "-", two_digits(c.day), " ", two_digits(c.hour), ":",
              two_digits(c.minute), ":", two_digits(c.second), " (", zone, ")"});
}

// " (icwnd/mss/irtt=%u/%u/%u)" when TCP_INFO was read at connect time.
std::string tcp_init(const Iperf2TcpInit& init) {
  if (init.mss == 0) return "";
  return cat({" (icwnd/mss/irtt=", std::to_string(init.initial_cwnd_bytes / 1024), "/", std::to_string(init.mss), "/",
              std::to_string(init.initial_rtt_us), ")"});
}

// report_peer / report_peer_dev: "%slocal %s[%%%s] port %u connected with %s port %u%s\n".
std::string peer_line(int id, const std::string& local, const std::string& device, std::uint16_t local_port,
                      const std::string& remote, std::uint16_t remote_port, const std::string& extras) {
  std::string s = cat({id_str(id), "local ", local});
  if (!device.empty()) s += cat({"%", device});
  s += cat({" port ", std::to_string(local_port), " connected with ", remote, " port ", std::to_string(remote_port),
            extras, "\n"});
  return s;
}

std::string client_connection(const Iperf2Test& t, const Iperf2Stream& s) {
  std::string extras = cat({" (sock=", std::to_string(s.client_sock), ")", tcp_init(s.client_init)});
  if (s.client_connect_unix_s > 0) {
    if (s.connect_time_ms > 0) extras += cat({" (ct=", right(fixed(s.connect_time_ms, 2), 4), " ms)"});
    extras += cat({" on ", local_time(s.client_connect_unix_s, t.utc_offset_s, t.time_zone)});
  }
  return peer_line(s.id, s.local_host, s.client_device, s.local_port, s.remote_host, s.remote_port, extras);
}

std::string server_connection(const Iperf2Test& t, const Iperf2Stream& s) {
  std::string extras = cat({" (sock=", std::to_string(s.server_sock), ")"});
  if (!t.peer_version.empty()) extras += cat({" (peer ", t.peer_version, ")"});
  extras += tcp_init(s.server_init);
  if (s.server_accept_unix_s > 0) {
    extras += cat({" on ", local_time(s.server_accept_unix_s, t.utc_offset_s, t.time_zone)});
  }
  return peer_line(s.server_id != 0 ? s.server_id : s.id, s.remote_host, s.server_device, s.remote_port,
                   s.local_host, s.local_port, extras);
}

// ---------------------------------------------------------------------------
// Sums over the streams.

void accumulate(Iperf2Interval& sum, const Iperf2Interval& iv) {
  sum.bytes += iv.bytes;
  sum.writes += iv.writes;
  sum.write_errors += iv.write_errors;
  sum.retransmits += iv.retransmits;
  sum.reads += iv.reads;
  for (std::size_t i = 0; i < sum.read_bins.size(); ++i) sum.read_bins[i] += iv.read_bins[i];
}

using IntervalsOf = const std::vector<Iperf2Interval>& (*)(const Iperf2Stream&);
using TotalOf = const Iperf2Interval& (*)(const Iperf2Stream&);

// PARTIALPERCENT (include/Reporter.h): a final partial interval is printed
// only if it is longer than this fraction of the report interval.
constexpr double kPartialPercent = 0.25;

bool same_bounds(const Iperf2Interval& a, const Iperf2Interval& b) {
  return std::abs(a.start_s - b.start_s) <= 1e-9 && std::abs(a.end_s - b.end_s) <= 1e-9;
}

// The number of leading interval slots that every stream has, with the same
// boundaries in every stream and not as a too short last interval: these get
// [SUM] lines.
template <typename Shown>
std::size_t aligned_slots(const std::vector<Iperf2Stream>& streams, IntervalsOf intervals, Shown shown) {
  const auto& first = intervals(streams.front());
  std::size_t k = 0;
  for (; k < first.size(); ++k) {
    for (const auto& s : streams) {
      const auto& ivs = intervals(s);
      if (k >= ivs.size() || !same_bounds(ivs[k], first[k]) || !shown(ivs, k)) return k;
    }
  }
  return k;
}

Iperf2Interval sum_slot(const std::vector<Iperf2Stream>& streams, IntervalsOf intervals, std::size_t k) {
  Iperf2Interval sum;
  sum.start_s = intervals(streams.front())[k].start_s;
  sum.end_s = intervals(streams.front())[k].end_s;
  for (const auto& s : streams) accumulate(sum, intervals(s)[k]);
  return sum;
}

Iperf2Interval sum_total(const std::vector<Iperf2Stream>& streams, TotalOf total, double end_override) {
  Iperf2Interval sum;
  double latest = 0;
  for (const auto& s : streams) {
    accumulate(sum, total(s));
    latest = std::max(latest, total(s).end_s);
  }
  sum.start_s = 0;
  sum.end_s = end_override > 0 ? end_override : latest;
  return sum;
}

std::uint64_t minus(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }

// What the sum report has gathered since its last interval line: the totals
// less the printed [SUM] intervals, from the last [SUM] boundary to the sum's end.
Iperf2Interval sum_remainder(const Iperf2Interval& total, const std::vector<Iperf2Interval>& printed) {
  Iperf2Interval rest = total;
  rest.start_s = printed.empty() ? 0.0 : printed.back().end_s;
  for (const auto& iv : printed) {
    rest.bytes = minus(rest.bytes, iv.bytes);
    rest.writes = minus(rest.writes, iv.writes);
    rest.write_errors = minus(rest.write_errors, iv.write_errors);
    rest.retransmits = minus(rest.retransmits, iv.retransmits);
    rest.reads = minus(rest.reads, iv.reads);
    for (std::size_t i = 0; i < rest.read_bins.size(); ++i) rest.read_bins[i] = minus(rest.read_bins[i], iv.read_bins[i]);
  }
  return rest;
}

// The interval and final lines of one side, in iperf2's order: the interval
// slots common to all streams, each stream's line then the [SUM]; then, stream
// by stream, its remaining intervals and its final line (a stream reports its
// end when it ends); then the [SUM] of the final partial interval and the
// [SUM] final line. A stream's last interval, and the [SUM] partial, are left
// out when not longer than PARTIALPERCENT of the report interval.
void data_lines(std::string& o, const Iperf2Test& t, double interval_s, IntervalsOf intervals, TotalOf total,
                double sum_end, std::string (*line)(const std::string&, const Iperf2Interval&),
                std::string (*sum_line)(const Iperf2Interval&), int (*id_of)(const Iperf2Stream&)) {
  const auto& streams = t.streams;
  const bool several = streams.size() > 1;
  const double significant_partial = interval_s * kPartialPercent;
  auto shown = [&](const std::vector<Iperf2Interval>& ivs, std::size_t k) {
    return k + 1 < ivs.size() || interval_s <= 0 || seconds(ivs[k]) > significant_partial;
  };

  const std::size_t common = several ? aligned_slots(streams, intervals, shown) : 0;
  std::vector<Iperf2Interval> sums;
  for (std::size_t k = 0; k < common; ++k) {
    for (const auto& s : streams) o += line(id_str(id_of(s)), intervals(s)[k]);
    sums.push_back(sum_slot(streams, intervals, k));
    o += sum_line(sums.back());
  }
  for (const auto& s : streams) {
    const auto& ivs = intervals(s);
    for (std::size_t k = common; k < ivs.size(); ++k) {
      if (shown(ivs, k)) o += line(id_str(id_of(s)), ivs[k]);
    }
    o += line(id_str(id_of(s)), total(s));
  }
  if (!several) return;
  const Iperf2Interval final_sum = sum_total(streams, total, sum_end);
  if (interval_s > 0) {
    const Iperf2Interval partial = sum_remainder(final_sum, sums);
    if (partial.bytes > 0 && seconds(partial) > significant_partial) o += sum_line(partial);
  }
  o += sum_line(final_sum);
}

std::string server_sum_line(const Iperf2Interval& sum) { return server_line(kSumId, sum); }

// reporter_connect_printf_tcp_final: only with more than one connect time.
std::string connect_times_line(const std::vector<Iperf2Stream>& streams) {
  std::vector<double> ct;
  for (const auto& s : streams) {
    if (s.connect_time_ms > 0) ct.push_back(s.connect_time_ms);
  }
  if (ct.size() < 2) return "";
  double sum = 0, min = ct.front(), max = ct.front();
  for (double c : ct) {
    sum += c;
    min = std::min(min, c);
    max = std::max(max, c);
  }
  const double mean = sum / static_cast<double>(ct.size());
  double m2 = 0;
  for (double c : ct) m2 += (c - mean) * (c - mean);
  // iperf 2.1.8 scales the (already millisecond) standard deviation by 1e3 once more.
  const double stdev = 1e3 * std::sqrt(m2 / static_cast<double>(ct.size() - 1));
  return cat({"[ CT] final connect times (min/avg/max/stdev) = ", fixed(min, 3), "/", fixed(mean, 3), "/",
              fixed(max, 3), "/", fixed(stdev, 3), " ms (tot/err) = ", std::to_string(ct.size()), "/0\n"});
}

std::string client_report(const Iperf2Test& t) {
  std::string o = kSeparator;
  const std::size_t flows = t.streams.empty() ? 1 : t.streams.size();
  o += cat({"Client connecting to ", t.server_host, ", TCP port ", std::to_string(t.port), " with pid ",
            std::to_string(t.client_pid), " (", std::to_string(flows), " flows)\n"});
  o += cat({"Write buffer size: ", iperf2_byte_snprintf(static_cast<double>(t.write_len), 'B'), "\n"});
  if (!t.client_congestion.empty()) o += cat({"TCP congestion control set to ", t.client_congestion, "\n"});
  char tos[16];
  const auto r = std::to_chars(tos, tos + sizeof tos, t.tos, 16);
  const std::string tos_hex(tos, r.ptr);
  o += cat({"TOS set to 0x", tos_hex, t.nodelay ? " and nodelay (Nagle off)\n" : " (Nagle on)\n"});
  o += window_line(t.client_window_bytes, t.client_window_requested);
  o += kSeparator;

  for (const auto& s : t.streams) o += client_connection(t, s);
  if (t.streams.empty()) return o;
  o += kClientHeader;
  data_lines(
      o, t, t.interval_s, [](const Iperf2Stream& s) -> const std::vector<Iperf2Interval>& { return s.intervals; },
      [](const Iperf2Stream& s) -> const Iperf2Interval& { return s.total_client; }, t.client_sum_end_s, client_line,
      client_sum_line, [](const Iperf2Stream& s) { return s.id; });
  o += connect_times_line(t.streams);
  return o;
}

std::string server_report(const Iperf2Test& t) {
  std::string o = kSeparator;
  o += cat({"Server listening on TCP port ", std::to_string(t.port), " with pid ", std::to_string(t.server_pid), "\n"});
  o += cat({"Read buffer size: ", iperf2_byte_snprintf(static_cast<double>(t.read_len), 'A'), " (Dist bin width=",
            iperf2_byte_snprintf(static_cast<double>(t.read_len / 8), 'A'), ")\n"});
  if (!t.server_congestion.empty()) o += cat({"TCP congestion control set to ", t.server_congestion, "\n"});
  o += window_line(t.server_window_bytes, t.server_window_requested);
  o += kSeparator;

  for (const auto& s : t.streams) o += server_connection(t, s);
  if (t.streams.empty()) return o;
  o += kServerHeader;
  data_lines(
      o, t, t.server_interval_s,
      [](const Iperf2Stream& s) -> const std::vector<Iperf2Interval>& { return s.server_intervals; },
      [](const Iperf2Stream& s) -> const Iperf2Interval& { return s.total_server; }, t.server_sum_end_s, server_line,
      server_sum_line, [](const Iperf2Stream& s) { return s.server_id != 0 ? s.server_id : s.id; });
  return o;
}

}  // namespace

std::string iperf2_byte_snprintf(double value, char format) {
  const bool bytes = is_upper(format);
  if (!bytes) value *= 8;

  int conv = 0;
  switch (to_upper(format)) {
    case 'B': conv = 0; break;
    case 'K': conv = 1; break;
    case 'M': conv = 2; break;
    case 'G': conv = 3; break;
    case 'T': conv = 4; break;
    case 'P': conv = 5; break;
    default: {  // 'A' and anything else: adaptive
      const double base = bytes ? 1024.0 : 1000.0;
      double magnitude = std::abs(value);
      while (magnitude >= base && conv < kPeta) {
        magnitude /= base;
        ++conv;
      }
      break;
    }
  }
  const auto unit = static_cast<std::size_t>(conv);
  value *= bytes ? kByteFactor[unit] : kBitFactor[unit];
  const char* label = bytes ? kByteLabel[unit] : kBitLabel[unit];

  // Four places: "%4.3f" below 0.9995, "%4.2f" below 9.995, "%4.1f" below 99.95, else "%4.0f".
  const double magnitude = std::abs(value);
  const int precision = magnitude < 0.9995 ? 3 : magnitude < 9.995 ? 2 : magnitude < 99.95 ? 1 : 0;
  return cat({right(fixed(value, precision), 4), " ", label});
}

std::size_t iperf2_read_bin(std::uint64_t read_bytes, std::uint64_t read_len) {
  const std::uint64_t binsize = read_len / 8;
  if (read_bytes == 0 || binsize == 0) return 8;
  const std::uint64_t bin = (read_bytes - 1) / binsize;
  return bin < 8 ? static_cast<std::size_t>(bin) : 8;
}

void write_iperf2_text(std::ostream& out, const Iperf2Test& test, Iperf2Side side) {
  out << (side == Iperf2Side::client ? client_report(test) : server_report(test));
}

}  // namespace netsim::app
