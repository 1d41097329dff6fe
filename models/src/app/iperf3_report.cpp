#include "netsim/app/iperf3_report.h"

#include <cctype>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cjson_print.h"
#include "printf_format.h"

namespace netsim::app {
namespace {

using printf_format::civil_time;
using printf_format::CivilTime;
using printf_format::fixed;
using printf_format::two_digits;
using printf_format::left;
using printf_format::right;

// ---------------------------------------------------------------------------
// unit_snprintf (iperf3 src/units.c): conversion factors and labels per unit.

constexpr double kByteFactor[] = {1.0, 1.0 / 1024, 1.0 / 1024 / 1024, 1.0 / 1024 / 1024 / 1024,
                                  1.0 / 1024 / 1024 / 1024 / 1024};
constexpr double kBitFactor[] = {1.0, 1.0 / 1000, 1.0 / 1000 / 1000, 1.0 / 1000 / 1000 / 1000,
                                 1.0 / 1000 / 1000 / 1000 / 1000};
constexpr const char* kByteLabel[] = {"Byte", "KByte", "MByte", "GByte", "TByte"};
constexpr const char* kBitLabel[] = {"bit", "Kbit", "Mbit", "Gbit", "Tbit"};
constexpr int kTera = 4;

// Transfer column: adaptive bytes plus iperf3's "s".
std::string transfer(double bytes) { return iperf3_unit_snprintf(bytes, 'A') + "s"; }
// Bitrate column: adaptive bits/s (the argument is bytes per second) plus "s/sec".
std::string bitrate(double bytes_per_second) { return iperf3_unit_snprintf(bytes_per_second, 'a') + "s/sec"; }

double per_second(std::uint64_t bytes, double seconds) {
  return seconds > 0.0 ? static_cast<double>(bytes) / seconds : 0.0;
}

// iperf3 keeps an interval's duration in a float.
double interval_seconds(const Iperf3StreamInterval& iv) {
  return static_cast<double>(static_cast<float>(iv.end_s - iv.start_s));
}

// ---------------------------------------------------------------------------
// A minimal JSON tree printed like cJSON_Print (cJSON 1.7.15, as bundled with
// iperf3 3.17.1): objects one member per line, indented with tabs, "key":<TAB>value;
// arrays on one line with ", " between elements.

class Json {
 public:
  static Json number(double d) {
    Json j(Type::number);
    j.number_ = d;
    return j;
  }
  static Json integer(std::int64_t i) { return number(static_cast<double>(i)); }
  static Json unsigned_integer(std::uint64_t u) { return number(static_cast<double>(u)); }
  static Json string(std::string s) {
    Json j(Type::string);
    j.string_ = std::move(s);
    return j;
  }
  static Json boolean(bool b) {
    Json j(Type::boolean);
    j.boolean_ = b;
    return j;
  }
  static Json array() { return Json(Type::array); }
  static Json object() { return Json(Type::object); }

  // Appends a member (objects); returns *this for chaining.
  Json& add(std::string key, Json value) {
    keys_.push_back(std::move(key));
    items_.push_back(std::move(value));
    return *this;
  }
  Json& add(std::string key, std::string value) { return add(std::move(key), string(std::move(value))); }
  Json& add(std::string key, const char* value) { return add(std::move(key), string(value)); }
  Json& add_num(std::string key, double value) { return add(std::move(key), number(value)); }
  Json& add_int(std::string key, std::int64_t value) { return add(std::move(key), integer(value)); }
  Json& add_uint(std::string key, std::uint64_t value) { return add(std::move(key), unsigned_integer(value)); }
  Json& add_bool(std::string key, bool value) { return add(std::move(key), boolean(value)); }

  // Appends an element (arrays).
  Json& push(Json value) {
    items_.push_back(std::move(value));
    return *this;
  }

  void print(std::string& out, int depth) const {
    switch (type_) {
      case Type::number: cjson_print_number(out, number_); break;
      case Type::string: cjson_print_string(out, string_); break;
      case Type::boolean: out += boolean_ ? "true" : "false"; break;
      case Type::array:
        out += '[';
        for (std::size_t i = 0; i < items_.size(); ++i) {
          items_[i].print(out, depth + 1);
          if (i + 1 < items_.size()) out += ", ";
        }
        out += ']';
        break;
      case Type::object:
        out += "{\n";
        for (std::size_t i = 0; i < items_.size(); ++i) {
          out.append(static_cast<std::size_t>(depth + 1), '\t');
          cjson_print_string(out, keys_[i]);
          out += ":\t";
          items_[i].print(out, depth + 1);
          if (i + 1 < items_.size()) out += ',';
          out += '\n';
        }
        out.append(static_cast<std::size_t>(depth), '\t');
        out += '}';
        break;
    }
  }

 private:
  enum class Type { number, string, boolean, array, object };
  explicit Json(Type t) : type_(t) {}

  Type type_;
  double number_ = 0.0;
  bool boolean_ = false;
  std::string string_;
  std::vector<std::string> keys_;  // objects only, parallel to items_
  std::vector<Json> items_;
};

// ---------------------------------------------------------------------------
// What one side knows and prints.

struct View {
  const Iperf3Test& test;
  bool client;        // which side's report
  bool local_sender;  // this side writes the data (iperf3: sp->sender, test->mode == SENDER)
  // The results exchange has happened before the summary: true on the client,
  // false on the server, which prints its summary first.
  bool peer_known;

  // iperf3's sender_has_retransmits while the test runs (TCP_INFO is read by the sender)...
  bool tcpinfo_in_intervals() const { return local_sender; }
  // ...and when the summary is printed (a -R client has received the server's by then).
  bool retransmits_in_summary() const { return local_sender || peer_known; }

  const std::vector<Iperf3StreamInterval>& intervals(const Iperf3StreamResult& s) const {
    if (local_sender || s.receiver_intervals.empty()) return s.intervals;
    return s.receiver_intervals;
  }
};

View make_view(const Iperf3Test& test, Iperf3Side side) {
  const bool client = side == Iperf3Side::client;
  return View{test, client, client ? !test.reverse : test.reverse, client};
}

// End-of-test figures of one stream as this side reports them (iperf3's
// bytes_sent / bytes_received / sender_time / receiver_time / end_time).
struct StreamTotals {
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  double sender_time = 0;
  double receiver_time = 0;
  double local_time = 0;  // this side's own duration: the JSON receiver "seconds"
};

StreamTotals totals(const Iperf3StreamResult& s, const View& v) {
  StreamTotals t;
  if (v.local_sender) {
    t.local_time = t.sender_time = s.sender_seconds;
    // Unknown (or 0) peer duration: iperf3 falls back to its own.
    t.receiver_time = v.peer_known && s.receiver_seconds != 0.0 ? s.receiver_seconds : t.sender_time;
  } else {
    t.local_time = t.receiver_time = s.receiver_seconds;
    t.sender_time = v.peer_known && s.sender_seconds != 0.0 ? s.sender_seconds : t.receiver_time;
  }
  t.bytes_sent = v.local_sender || v.peer_known ? s.sender_bytes : 0;
  t.bytes_received = !v.local_sender || v.peer_known ? s.receiver_bytes : 0;
  return t;
}

std::string stream_id(int socket) {
  std::string id = "[";
  id += right(std::to_string(socket), 3);
  id += ']';
  return id;
}

// The common head of every bandwidth line: "[  5]   0.00-1.00   sec   112 MBytes   940 Mbits/sec".
std::string line_head(const std::string& id, double start, double end, std::uint64_t bytes,
                      double bytes_per_second) {
  return id + " " + right(fixed(start, 2), 6) + "-" + left(fixed(end, 2), 6) + " sec  " +
         transfer(static_cast<double>(bytes)) + "  " + bitrate(bytes_per_second);
}

// The tails of iperf3's report_bw_format, report_bw_retrans_format and
// report_bw_retrans_cwnd_format (and their [SUM] twins).
std::string tail_plain(const std::string& tag) { return std::string(18, ' ') + tag + "\n"; }
std::string tail_retrans(std::uint64_t retransmits, const std::string& tag) {
  return "  " + right(std::to_string(retransmits), 3) + std::string(13, ' ') + tag + "\n";
}
std::string tail_retrans_cwnd(std::uint64_t retransmits, std::uint64_t cwnd, const std::string& tag) {
  return "  " + right(std::to_string(retransmits), 3) + "   " + transfer(static_cast<double>(cwnd)) +
         std::string(7, ' ') + tag + "\n";
}

constexpr const char* kHeader = "[ ID] Interval           Transfer     Bitrate\n";
constexpr const char* kHeaderRetr = "[ ID] Interval           Transfer     Bitrate         Retr\n";
constexpr const char* kHeaderRetrCwnd = "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n";
constexpr const char* kSeparator = "- - - - - - - - - - - - - - - - - - - - - - - - -\n";
constexpr const char* kOmitted = "(omitted)";

std::string listening_banner(const Iperf3Test& t, int test_number) {
  const std::string dashes(59, '-');
  return dashes + "\nServer listening on " + std::to_string(t.server_port) + " (test #" +
         std::to_string(test_number) + ")\n" + dashes + "\n";
}

// "%a, %d %b %Y %H:%M:%S GMT" of a Unix time, independent of locale and time zone.
std::string rfc1123_gmt(std::int64_t unix_seconds) {
  static constexpr const char* kDay[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonth[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const CivilTime c = civil_time(unix_seconds);
  return std::string(kDay[c.weekday]) + ", " + two_digits(c.day) + " " + kMonth[c.month - 1] + " " +
         std::to_string(c.year) + " " + two_digits(c.hour) + ":" + two_digits(c.minute) + ":" + two_digits(c.second) +
         " GMT";
}

// ---------------------------------------------------------------------------
// Text report.

void text_intervals(std::string& o, const View& v) {
  const auto& streams = v.test.streams;
  if (streams.empty()) return;
  const bool several = streams.size() > 1;
  const std::size_t n = v.intervals(streams.front()).size();
  for (std::size_t k = 0; k < n; ++k) {
    if (k == 0) {
      o += v.tcpinfo_in_intervals() ? kHeaderRetrCwnd : kHeader;
    } else if (several) {
      o += kSeparator;
    }
    std::uint64_t bytes = 0, retransmits = 0;
    for (const auto& s : streams) {
      const auto& ivs = v.intervals(s);
      if (k >= ivs.size()) continue;
      const auto& iv = ivs[k];
      bytes += iv.bytes;
      retransmits += iv.retransmits;
      o += line_head(stream_id(s.socket), iv.start_s, iv.end_s, iv.bytes, per_second(iv.bytes, interval_seconds(iv)));
      const std::string tag = iv.omitted ? kOmitted : "";
      o += v.tcpinfo_in_intervals() ? tail_retrans_cwnd(iv.retransmits, iv.snd_cwnd_bytes, tag) : tail_plain(tag);
    }
    if (several) {
      // Timing and the omitted flag come from the first stream.
      const auto& first = v.intervals(streams.front())[k];
      const std::string tag = first.omitted ? kOmitted : "";
      o += line_head("[SUM]", first.start_s, first.end_s, bytes, per_second(bytes, interval_seconds(first)));
      o += v.tcpinfo_in_intervals() ? tail_retrans(retransmits, tag) : tail_plain(tag);
    }
  }
}

void text_summary(std::string& o, const View& v) {
  const auto& streams = v.test.streams;
  // A server prints only its own half (iperf3 prints "(sender statistics not
  // available)" there in verbose mode only).
  const bool print_sender = v.client || v.local_sender;
  const bool print_receiver = v.client || !v.local_sender;
  o += kSeparator;
  o += v.retransmits_in_summary() ? kHeaderRetr : kHeader;
  std::uint64_t total_sent = 0, total_received = 0, total_retransmits = 0;
  for (const auto& s : streams) {
    const StreamTotals t = totals(s, v);
    total_sent += t.bytes_sent;
    total_received += t.bytes_received;
    if (v.retransmits_in_summary()) total_retransmits += s.sender_retransmits;
    const std::string id = stream_id(s.socket);
    if (print_sender) {
      o += line_head(id, 0.0, t.sender_time, t.bytes_sent, per_second(t.bytes_sent, t.sender_time));
      o += v.retransmits_in_summary() ? tail_retrans(s.sender_retransmits, "sender") : tail_plain("sender");
    }
    if (print_receiver) {
      o += line_head(id, 0.0, t.receiver_time, t.bytes_received, per_second(t.bytes_received, t.receiver_time));
      o += tail_plain("receiver");
    }
  }
  if (streams.size() > 1) {
    const StreamTotals first = totals(streams.front(), v);
    if (print_sender) {
      o += line_head("[SUM]", 0.0, first.sender_time, total_sent, per_second(total_sent, first.sender_time));
      o += v.retransmits_in_summary() ? tail_retrans(total_retransmits, "sender") : tail_plain("sender");
    }
    if (print_receiver) {
      o += line_head("[SUM]", 0.0, first.receiver_time, total_received,
                     per_second(total_received, first.receiver_time));
      o += tail_plain("receiver");
    }
  }
}

// ---------------------------------------------------------------------------
// JSON report.

Json json_start(const View& v) {
  const Iperf3Test& t = v.test;
  Json connected = Json::array();
  for (const auto& s : t.streams) {
    Json c = Json::object();
    c.add_int("socket", s.socket);
    if (v.client) {
      c.add("local_host", s.local_host).add_uint("local_port", s.local_port);
      c.add("remote_host", s.remote_host).add_uint("remote_port", s.remote_port);
    } else {
      c.add("local_host", s.remote_host).add_uint("local_port", s.remote_port);
      c.add("remote_host", s.local_host).add_uint("remote_port", s.local_port);
    }
    connected.push(std::move(c));
  }

  Json start = Json::object();
  start.add("connected", std::move(connected));
  start.add("version", t.version).add("system_info", t.system_info);
  // The server records the client's -b when it reads the test parameters.
  if (!v.client && t.target_bitrate != 0) start.add_uint("target_bitrate", t.target_bitrate);
  start.add("timestamp", Json::object()
                             .add("time", rfc1123_gmt(t.timestamp_unix))
                             .add_int("timesecs", t.timestamp_unix));
  if (v.client) {
    start.add("connecting_to", Json::object().add("host", t.server_host).add_uint("port", t.server_port));
  } else {
    start.add("accepted_connection",
              Json::object().add("host", t.accepted_host).add_uint("port", t.accepted_port));
  }
  start.add("cookie", t.cookie);
  if (t.tcp_mss != 0) {
    start.add_uint("tcp_mss", t.tcp_mss);
  } else {
    // Only the client reads its control connection's MSS.
    start.add_uint("tcp_mss_default", v.client ? t.tcp_mss_default : 0);
  }
  start.add_uint("target_bitrate", t.target_bitrate).add_uint("fq_rate", t.fq_rate);
  start.add_uint("sock_bufsize", t.sock_bufsize)
      .add_uint("sndbuf_actual", t.sndbuf_actual)
      .add_uint("rcvbuf_actual", t.rcvbuf_actual);
  start.add("test_start", Json::object()
                              .add("protocol", "TCP")
                              .add_uint("num_streams", t.streams.size())
                              .add_uint("blksize", t.blksize)
                              .add_int("omit", t.omit_s)
                              .add_int("duration", t.duration_s)
                              .add_uint("bytes", t.bytes_to_send)
                              .add_uint("blocks", t.blocks_to_send)
                              .add_int("reverse", t.reverse ? 1 : 0)
                              .add_int("tos", t.tos)
                              .add_uint("target_bitrate", t.target_bitrate)
                              .add_int("bidir", 0)
                              .add_uint("fqrate", t.fq_rate)
                              .add_num("interval", t.interval_s));
  return start;
}

Json json_intervals(const View& v) {
  Json intervals = Json::array();
  const auto& streams = v.test.streams;
  if (streams.empty()) return intervals;
  const std::size_t n = v.intervals(streams.front()).size();
  for (std::size_t k = 0; k < n; ++k) {
    Json list = Json::array();
    std::uint64_t bytes = 0, retransmits = 0;
    for (const auto& s : streams) {
      const auto& ivs = v.intervals(s);
      if (k >= ivs.size()) continue;
      const auto& iv = ivs[k];
      bytes += iv.bytes;
      retransmits += iv.retransmits;
      const double seconds = interval_seconds(iv);
      Json j = Json::object();
      j.add_int("socket", s.socket)
          .add_num("start", iv.start_s)
          .add_num("end", iv.end_s)
          .add_num("seconds", seconds)
          .add_uint("bytes", iv.bytes)
          .add_num("bits_per_second", per_second(iv.bytes, seconds) * 8);
      if (v.tcpinfo_in_intervals()) {
        j.add_uint("retransmits", iv.retransmits)
            .add_uint("snd_cwnd", iv.snd_cwnd_bytes)
            .add_uint("snd_wnd", iv.snd_wnd_bytes)
            .add_uint("rtt", iv.rtt_us)
            .add_uint("rttvar", iv.rttvar_us)
            .add_uint("pmtu", iv.pmtu);
      }
      j.add_bool("omitted", iv.omitted).add_bool("sender", v.local_sender);
      list.push(std::move(j));
    }
    const auto& first = v.intervals(streams.front())[k];
    const double seconds = interval_seconds(first);
    Json sum = Json::object();
    sum.add_num("start", first.start_s)
        .add_num("end", first.end_s)
        .add_num("seconds", seconds)
        .add_uint("bytes", bytes)
        .add_num("bits_per_second", per_second(bytes, seconds) * 8);
    if (v.tcpinfo_in_intervals()) sum.add_uint("retransmits", retransmits);
    sum.add_bool("omitted", first.omitted).add_bool("sender", v.local_sender);
    intervals.push(Json::object().add("streams", std::move(list)).add("sum", std::move(sum)));
  }
  return intervals;
}

Json json_end(const View& v) {
  const Iperf3Test& t = v.test;
  const bool with_retransmits = v.retransmits_in_summary();
  Json streams = Json::array();
  std::uint64_t total_sent = 0, total_received = 0, total_retransmits = 0;
  for (const auto& s : t.streams) {
    const StreamTotals tot = totals(s, v);
    total_sent += tot.bytes_sent;
    total_received += tot.bytes_received;
    Json sender = Json::object();
    sender.add_int("socket", s.socket)
        .add_num("start", 0.0)
        .add_num("end", tot.sender_time)
        .add_num("seconds", tot.sender_time)
        .add_uint("bytes", tot.bytes_sent)
        .add_num("bits_per_second", per_second(tot.bytes_sent, tot.sender_time) * 8);
    if (with_retransmits) {
      total_retransmits += s.sender_retransmits;
      // The TCP_INFO extremes are this side's own measurements: 0 unless it sent.
      const bool own = v.local_sender;
      sender.add_uint("retransmits", s.sender_retransmits)
          .add_uint("max_snd_cwnd", own ? s.max_snd_cwnd : 0)
          .add_uint("max_snd_wnd", own ? s.max_snd_wnd : 0)
          .add_uint("max_rtt", own ? s.max_rtt_us : 0)
          .add_uint("min_rtt", own ? s.min_rtt_us : 0)
          .add_uint("mean_rtt", own ? s.mean_rtt_us : 0);
    }
    sender.add_bool("sender", v.local_sender);
    Json receiver = Json::object();
    receiver.add_int("socket", s.socket)
        .add_num("start", 0.0)
        .add_num("end", tot.receiver_time)
        .add_num("seconds", tot.local_time)
        .add_uint("bytes", tot.bytes_received)
        .add_num("bits_per_second", per_second(tot.bytes_received, tot.receiver_time) * 8)
        .add_bool("sender", v.local_sender);
    streams.push(Json::object().add("sender", std::move(sender)).add("receiver", std::move(receiver)));
  }

  StreamTotals first;
  if (!t.streams.empty()) first = totals(t.streams.front(), v);
  Json sum_sent = Json::object();
  sum_sent.add_num("start", 0.0)
      .add_num("end", first.sender_time)
      .add_num("seconds", first.sender_time)
      .add_uint("bytes", total_sent)
      .add_num("bits_per_second", per_second(total_sent, first.sender_time) * 8);
  if (with_retransmits) sum_sent.add_uint("retransmits", total_retransmits);
  sum_sent.add_bool("sender", v.local_sender);
  Json sum_received = Json::object();
  sum_received.add_num("start", 0.0)
      .add_num("end", first.receiver_time)
      .add_num("seconds", first.receiver_time)
      .add_uint("bytes", total_received)
      .add_num("bits_per_second", per_second(total_received, first.receiver_time) * 8)
      .add_bool("sender", v.local_sender);

  // The server has not received the client's CPU figures when it prints.
  const double host[3] = {v.client ? t.client_cpu_total : t.server_cpu_total,
                          v.client ? t.client_cpu_user : t.server_cpu_user,
                          v.client ? t.client_cpu_system : t.server_cpu_system};
  const double remote[3] = {v.client ? t.server_cpu_total : 0.0, v.client ? t.server_cpu_user : 0.0,
                            v.client ? t.server_cpu_system : 0.0};

  Json end = Json::object();
  end.add("streams", std::move(streams)).add("sum_sent", std::move(sum_sent)).add("sum_received", std::move(sum_received));
  end.add("cpu_utilization_percent", Json::object()
                                         .add_num("host_total", host[0])
                                         .add_num("host_user", host[1])
                                         .add_num("host_system", host[2])
                                         .add_num("remote_total", remote[0])
                                         .add_num("remote_user", remote[1])
                                         .add_num("remote_system", remote[2]));
  // Each side knows its own algorithm; the peer's only after the exchange.
  if ((v.local_sender || v.peer_known) && !t.sender_tcp_congestion.empty())
    end.add("sender_tcp_congestion", t.sender_tcp_congestion);
  if ((!v.local_sender || v.peer_known) && !t.receiver_tcp_congestion.empty())
    end.add("receiver_tcp_congestion", t.receiver_tcp_congestion);
  return end;
}

}  // namespace

std::string iperf3_unit_snprintf(double value, char format) {
  const bool bits = !std::isupper(static_cast<unsigned char>(format));
  if (bits) value *= 8;
  int conv = 0;
  switch (std::toupper(static_cast<unsigned char>(format))) {
    case 'B': conv = 0; break;
    case 'K': conv = 1; break;
    case 'M': conv = 2; break;
    case 'G': conv = 3; break;
    case 'T': conv = 4; break;
    default: {  // 'A' / 'a': the largest unit that keeps the number below 1024 (1000)
      const double base = bits ? 1000.0 : 1024.0;
      double scaled = value;
      while (scaled >= base && conv < kTera) {
        scaled /= base;
        ++conv;
      }
      break;
    }
  }
  value *= bits ? kBitFactor[conv] : kByteFactor[conv];
  // Four places: 9.995 would round to 10.00 and 99.95 to 100.0.
  const int precision = value < 9.995 ? 2 : value < 99.95 ? 1 : 0;
  return right(fixed(value, precision), 4) + " " + (bits ? kBitLabel : kByteLabel)[conv];
}

void write_iperf3_text(std::ostream& out, const Iperf3Test& test, Iperf3Side side) {
  const View v = make_view(test, side);
  std::string o;
  if (v.client) {
    o += "Connecting to host " + test.server_host + ", port " + std::to_string(test.server_port) + "\n";
    if (test.reverse) o += "Reverse mode, remote host " + test.server_host + " is sending\n";
  } else {
    o += listening_banner(test, 1);
    o += "Accepted connection from " + test.accepted_host + ", port " + std::to_string(test.accepted_port) + "\n";
  }
  for (const auto& s : test.streams) {
    const auto& [lh, lp, rh, rp] = v.client ? std::tie(s.local_host, s.local_port, s.remote_host, s.remote_port)
                                            : std::tie(s.remote_host, s.remote_port, s.local_host, s.local_port);
    o += stream_id(s.socket) + " local " + lh + " port " + std::to_string(lp) + " connected to " + rh + " port " +
         std::to_string(rp) + "\n";
  }
  text_intervals(o, v);
  text_summary(o, v);
  if (v.client) {
    o += "\niperf Done.\n";
  } else if (!test.server_one_off) {
    o += listening_banner(test, 2);
  }
  out << o;
}

void write_iperf3_json(std::ostream& out, const Iperf3Test& test, Iperf3Side side) {
  const View v = make_view(test, side);
  Json top = Json::object();
  top.add("start", json_start(v)).add("intervals", json_intervals(v)).add("end", json_end(v));
  std::string o;
  top.print(o, 0);
  o += '\n';
  out << o;
}

}  // namespace netsim::app
