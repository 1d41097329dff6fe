#include "netsim/app/iperf3_report.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

namespace netsim::app {
namespace {

// ---------------------------------------------------------------------------
// Fixtures. Byte counts are whole MiB (or KiB) so that the expected text can be
// worked out by hand from iperf3's unit_snprintf rules.

constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::uint64_t kKiB = 1024;

Iperf3StreamInterval interval(double start, double end, std::uint64_t bytes, std::uint64_t retransmits = 0,
                              std::uint64_t cwnd = 0) {
  Iperf3StreamInterval iv;
  iv.start_s = start;
  iv.end_s = end;
  iv.bytes = bytes;
  iv.retransmits = retransmits;
  iv.snd_cwnd_bytes = cwnd;
  iv.snd_wnd_bytes = 3 * kMiB;
  iv.rtt_us = 250;
  iv.rttvar_us = 40;
  iv.pmtu = 1500;
  return iv;
}

Iperf3Test base_test() {
  Iperf3Test t;
  t.system_info = "Linux client 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 x86_64";
  t.cookie = "abcdefghijklmnopqrstuvwxyz0123456789";
  t.timestamp_unix = 1732046732;
  t.server_host = "10.0.0.2";
  t.accepted_host = "10.0.0.1";
  t.accepted_port = 43208;
  t.duration_s = 2;
  t.tcp_mss_default = 1448;
  t.sndbuf_actual = 16384;
  t.rcvbuf_actual = 131072;
  t.sender_tcp_congestion = "cubic";
  t.receiver_tcp_congestion = "newreno";
  t.client_cpu_total = 3.5;
  t.client_cpu_user = 0.5;
  t.client_cpu_system = 3.0;
  t.server_cpu_total = 12.25;
  t.server_cpu_user = 1.25;
  t.server_cpu_system = 11.0;
  return t;
}

// One stream, two 1-second intervals (TCP_INFO on the sender), a receiver that
// saw the data slightly later.
Iperf3Test one_stream_test() {
  Iperf3Test t = base_test();
  Iperf3StreamResult s;
  s.socket = 5;
  s.local_host = "10.0.0.1";
  s.local_port = 43210;
  s.remote_host = "10.0.0.2";
  s.remote_port = 5201;
  s.intervals = {interval(0.0, 1.0, 112 * kMiB, 0, 372 * kKiB), interval(1.0, 2.0, 110 * kMiB, 3, 256 * kKiB)};
  s.receiver_intervals = {interval(0.0, 1.0, 111 * kMiB), interval(1.0, 2.04, 110 * kMiB)};
  s.sender_bytes = 222 * kMiB;
  s.sender_seconds = 2.0;
  s.sender_retransmits = 3;
  s.max_snd_cwnd = 372 * kKiB;
  s.max_snd_wnd = 3 * kMiB;
  s.max_rtt_us = 310;
  s.min_rtt_us = 190;
  s.mean_rtt_us = 250;
  s.receiver_bytes = 221 * kMiB;
  s.receiver_seconds = 2.04;
  t.streams.push_back(s);
  return t;
}

// -P 2: sockets 5 and 7, two intervals each.
Iperf3Test two_stream_test() {
  Iperf3Test t = base_test();
  Iperf3StreamResult a;
  a.socket = 5;
  a.local_host = "10.0.0.1";
  a.local_port = 43210;
  a.remote_host = "10.0.0.2";
  a.intervals = {interval(0.0, 1.0, 56 * kMiB, 1, 190 * kKiB), interval(1.0, 2.0, 50 * kMiB, 0, 190 * kKiB)};
  a.sender_bytes = 106 * kMiB;
  a.sender_seconds = 2.0;
  a.sender_retransmits = 1;
  a.receiver_bytes = 106 * kMiB;
  a.receiver_seconds = 2.0;
  Iperf3StreamResult b = a;
  b.socket = 7;
  b.local_port = 43212;
  b.intervals = {interval(0.0, 1.0, 55 * kMiB, 2, 186 * kKiB), interval(1.0, 2.0, 50 * kMiB, 0, 186 * kKiB)};
  b.sender_bytes = 105 * kMiB;
  b.sender_retransmits = 2;
  b.receiver_bytes = 105 * kMiB;
  t.streams = {a, b};
  return t;
}

std::string text(const Iperf3Test& t, Iperf3Side side) {
  std::ostringstream out;
  write_iperf3_text(out, t, side);
  return out.str();
}

std::string json(const Iperf3Test& t, Iperf3Side side) {
  std::ostringstream out;
  write_iperf3_json(out, t, side);
  return out.str();
}

// ---------------------------------------------------------------------------
// A small accessor over a parsed google::protobuf::Struct; a missing key or
// index is a test failure (and yields a null value).

class J {
 public:
  explicit J(const google::protobuf::Value& v) : v_(&v) {}

  J operator[](const std::string& key) const {
    if (v_->kind_case() != google::protobuf::Value::kStructValue) {
      ADD_FAILURE() << "not an object when looking up \"" << key << "\"";
      return J(null());
    }
    const auto& fields = v_->struct_value().fields();
    const auto it = fields.find(key);
    if (it == fields.end()) {
      ADD_FAILURE() << "missing key \"" << key << "\"";
      return J(null());
    }
    return J(it->second);
  }
  J operator[](int i) const {
    if (v_->kind_case() != google::protobuf::Value::kListValue || i >= v_->list_value().values_size()) {
      ADD_FAILURE() << "no element " << i;
      return J(null());
    }
    return J(v_->list_value().values(i));
  }
  bool has(const std::string& key) const {
    return v_->kind_case() == google::protobuf::Value::kStructValue && v_->struct_value().fields().count(key) > 0;
  }
  int size() const {
    if (v_->kind_case() == google::protobuf::Value::kListValue) return v_->list_value().values_size();
    if (v_->kind_case() == google::protobuf::Value::kStructValue) return v_->struct_value().fields_size();
    return 0;
  }
  double num() const {
    EXPECT_EQ(v_->kind_case(), google::protobuf::Value::kNumberValue);
    return v_->number_value();
  }
  std::uint64_t u64() const { return static_cast<std::uint64_t>(num()); }
  std::string str() const {
    EXPECT_EQ(v_->kind_case(), google::protobuf::Value::kStringValue);
    return v_->string_value();
  }
  bool boolean() const {
    EXPECT_EQ(v_->kind_case(), google::protobuf::Value::kBoolValue);
    return v_->bool_value();
  }

 private:
  static const google::protobuf::Value& null() {
    static const google::protobuf::Value v;
    return v;
  }
  const google::protobuf::Value* v_;
};

// Parses with protobuf's JSON parser (strict JSON) into a Struct.
google::protobuf::Value parse(const std::string& text) {
  google::protobuf::Value root;
  google::protobuf::Struct* s = root.mutable_struct_value();
  const auto status = google::protobuf::util::JsonStringToMessage(text, s);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << text;
  return root;
}

void expect_keys(const J& obj, std::initializer_list<const char*> keys) {
  for (const char* k : keys) EXPECT_TRUE(obj.has(k)) << "missing key " << k;
  EXPECT_EQ(obj.size(), static_cast<int>(keys.size())) << "unexpected extra keys";
}

// bits_per_second = bytes * 8 / seconds, up to the last bits of rounding.
void expect_rate(const J& obj) {
  const double bytes = obj["bytes"].num();
  const double seconds = obj["seconds"].num();
  const double bps = obj["bits_per_second"].num();
  if (seconds > 0) {
    EXPECT_NEAR(bps, bytes * 8 / seconds, 1e-12 * bps) << "bytes " << bytes << " seconds " << seconds;
  }
}

// ---------------------------------------------------------------------------
// unit_snprintf

TEST(Iperf3ReportUnits, AdaptiveBytesHitEveryPrecisionBranch) {
  EXPECT_EQ(iperf3_unit_snprintf(0, 'A'), "0.00 Byte");
  EXPECT_EQ(iperf3_unit_snprintf(512, 'A'), " 512 Byte");   // %4.0f
  EXPECT_EQ(iperf3_unit_snprintf(1000, 'A'), "1000 Byte");  // 1000..1023 still fits four places
  EXPECT_EQ(iperf3_unit_snprintf(1023, 'A'), "1023 Byte");
  EXPECT_EQ(iperf3_unit_snprintf(1024, 'A'), "1.00 KByte");  // %4.2f
  EXPECT_EQ(iperf3_unit_snprintf(1536, 'A'), "1.50 KByte");
  // 9.995 is the %4.2f / %4.1f boundary (9.995 would round to 10.00).
  EXPECT_EQ(iperf3_unit_snprintf(10234, 'A'), "9.99 KByte");  // 9.994140625 KiB
  EXPECT_EQ(iperf3_unit_snprintf(10235, 'A'), "10.0 KByte");  // 9.9951171875 KiB
  // 99.95 is the %4.1f / %4.0f boundary.
  EXPECT_EQ(iperf3_unit_snprintf(102348, 'A'), "99.9 KByte");  // 99.94921875 KiB
  EXPECT_EQ(iperf3_unit_snprintf(102349, 'A'), " 100 KByte");  // 99.9501953125 KiB
  EXPECT_EQ(iperf3_unit_snprintf(1048575, 'A'), "1024 KByte");  // just below 1 MiB: %4.0f of 1023.999
  EXPECT_EQ(iperf3_unit_snprintf(12.5 * kMiB, 'A'), "12.5 MByte");
  EXPECT_EQ(iperf3_unit_snprintf(117440512, 'A'), " 112 MByte");
  EXPECT_EQ(iperf3_unit_snprintf(1170210816, 'A'), "1.09 GByte");  // 1.08984375 GiB
  EXPECT_EQ(iperf3_unit_snprintf(3.0 * 1024 * kMiB * 1024, 'A'), "3.00 TByte");
}

TEST(Iperf3ReportUnits, AdaptiveBitsAreBase1000OfBytesTimesEight) {
  // 117,440,512 bytes in 1.00 s: 939,524,096 bit/s = 939.52 Mbit/s, which "%4.0f" rounds to 940.
  EXPECT_EQ(iperf3_unit_snprintf(117440512, 'a'), " 940 Mbit");
  EXPECT_EQ(iperf3_unit_snprintf(124, 'a'), " 992 bit");
  EXPECT_EQ(iperf3_unit_snprintf(125, 'a'), "1.00 Kbit");
  EXPECT_EQ(iperf3_unit_snprintf(1.25e9, 'a'), "10.0 Gbit");
  EXPECT_EQ(iperf3_unit_snprintf(1.25e12, 'a'), "10.0 Tbit");
  EXPECT_EQ(iperf3_unit_snprintf(1.25e15, 'a'), "10000 Tbit");  // no larger unit: wider than four places
}

TEST(Iperf3ReportUnits, FixedUnits) {
  EXPECT_EQ(iperf3_unit_snprintf(2048, 'K'), "2.00 KByte");
  EXPECT_EQ(iperf3_unit_snprintf(125000, 'm'), "1.00 Mbit");
  EXPECT_EQ(iperf3_unit_snprintf(3 * kMiB, 'B'), "3145728 Byte");
}

// ---------------------------------------------------------------------------
// Text

TEST(Iperf3ReportText, IntervalLineColumnsMatchIperf3FormatString) {
  // report_bw_retrans_cwnd_format is "[%3d]%s %6.2f-%-6.2f sec  %ss  %ss/sec  %3u   %ss       %s\n" with
  // an empty role tag and an empty omitted tag: socket 5, 0.00-1.00, " 112 MByte"+"s",
  // " 940 Mbit"+"s/sec", 0 retransmits, " 372 KByte"+"s", then 7 blanks.
  const std::string line = "[  5]   0.00-1.00   sec   112 MBytes   940 Mbits/sec    0    372 KBytes       \n";
  const std::string out = text(one_stream_test(), Iperf3Side::client);
  EXPECT_NE(out.find(line), std::string::npos) << out;
  // Columns: "[  5]" 0-4, start 6-11, end 13-18, "sec" 20-22, transfer 25-35, bitrate 38-51,
  // Retr 54-56, Cwnd 60-70, then 7 blanks and the (empty) omitted tag.
  ASSERT_EQ(line.size(), 79u);
  EXPECT_EQ(line.substr(0, 5), "[  5]");
  EXPECT_EQ(line.substr(6, 6), "  0.00");
  EXPECT_EQ(line.substr(13, 6), "1.00  ");
  EXPECT_EQ(line.substr(20, 3), "sec");
  EXPECT_EQ(line.substr(25, 11), " 112 MBytes");
  EXPECT_EQ(line.substr(38, 14), " 940 Mbits/sec");
  EXPECT_EQ(line.substr(54, 3), "  0");
  EXPECT_EQ(line.substr(60, 11), " 372 KBytes");
}

TEST(Iperf3ReportText, ClientReportIsExact) {
  const std::string expected =
      "Connecting to host 10.0.0.2, port 5201\n"
      "[  5] local 10.0.0.1 port 43210 connected to 10.0.0.2 port 5201\n"
      "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
      "[  5]   0.00-1.00   sec   112 MBytes   940 Mbits/sec    0    372 KBytes       \n"
      "[  5]   1.00-2.00   sec   110 MBytes   923 Mbits/sec    3    256 KBytes       \n"
      "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
      "[ ID] Interval           Transfer     Bitrate         Retr\n"
      "[  5]   0.00-2.00   sec   222 MBytes   931 Mbits/sec    3             sender\n"
      "[  5]   0.00-2.04   sec   221 MBytes   909 Mbits/sec                  receiver\n"
      "\n"
      "iperf Done.\n";
  EXPECT_EQ(text(one_stream_test(), Iperf3Side::client), expected);
}

TEST(Iperf3ReportText, ServerReportShowsOnlyItsOwnHalf) {
  // The server prints its summary before the results exchange: no Retr column,
  // no sender line; its intervals are the bytes it read.
  const std::string expected =
      "-----------------------------------------------------------\n"
      "Server listening on 5201 (test #1)\n"
      "-----------------------------------------------------------\n"
      "Accepted connection from 10.0.0.1, port 43208\n"
      "[  5] local 10.0.0.2 port 5201 connected to 10.0.0.1 port 43210\n"
      "[ ID] Interval           Transfer     Bitrate\n"
      "[  5]   0.00-1.00   sec   111 MBytes   931 Mbits/sec                  \n"
      "[  5]   1.00-2.04   sec   110 MBytes   887 Mbits/sec                  \n"
      "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
      "[ ID] Interval           Transfer     Bitrate\n"
      "[  5]   0.00-2.04   sec   221 MBytes   909 Mbits/sec                  receiver\n"
      "-----------------------------------------------------------\n"
      "Server listening on 5201 (test #2)\n"
      "-----------------------------------------------------------\n";
  EXPECT_EQ(text(one_stream_test(), Iperf3Side::server), expected);

  Iperf3Test one_off = one_stream_test();
  one_off.server_one_off = true;
  const std::string out = text(one_off, Iperf3Side::server);
  EXPECT_EQ(out.find("test #2"), std::string::npos);
  const std::string last = "[  5]   0.00-2.04   sec   221 MBytes   909 Mbits/sec                  receiver\n";
  ASSERT_GE(out.size(), last.size());
  EXPECT_EQ(out.substr(out.size() - last.size()), last);
}

TEST(Iperf3ReportText, ReverseClientReceivesAndPrintsTheServersRetransmits) {
  Iperf3Test t = one_stream_test();
  t.reverse = true;
  const std::string expected =
      "Connecting to host 10.0.0.2, port 5201\n"
      "Reverse mode, remote host 10.0.0.2 is sending\n"
      "[  5] local 10.0.0.1 port 43210 connected to 10.0.0.2 port 5201\n"
      "[ ID] Interval           Transfer     Bitrate\n"
      "[  5]   0.00-1.00   sec   111 MBytes   931 Mbits/sec                  \n"
      "[  5]   1.00-2.04   sec   110 MBytes   887 Mbits/sec                  \n"
      "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
      "[ ID] Interval           Transfer     Bitrate         Retr\n"
      "[  5]   0.00-2.00   sec   222 MBytes   931 Mbits/sec    3             sender\n"
      "[  5]   0.00-2.04   sec   221 MBytes   909 Mbits/sec                  receiver\n"
      "\n"
      "iperf Done.\n";
  EXPECT_EQ(text(t, Iperf3Side::client), expected);

  // The -R server sends: TCP_INFO columns in its intervals, only the sender line in its summary.
  const std::string server = text(t, Iperf3Side::server);
  EXPECT_NE(server.find("[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
                        "[  5]   0.00-1.00   sec   112 MBytes   940 Mbits/sec    0    372 KBytes       \n"),
            std::string::npos)
      << server;
  EXPECT_NE(server.find("[ ID] Interval           Transfer     Bitrate         Retr\n"
                        "[  5]   0.00-2.00   sec   222 MBytes   931 Mbits/sec    3             sender\n"
                        "-----------"),
            std::string::npos)
      << server;
  EXPECT_EQ(server.find("receiver"), std::string::npos);
}

TEST(Iperf3ReportText, TwoStreamsHaveSumLinesAndSeparators) {
  const std::string expected =
      "Connecting to host 10.0.0.2, port 5201\n"
      "[  5] local 10.0.0.1 port 43210 connected to 10.0.0.2 port 5201\n"
      "[  7] local 10.0.0.1 port 43212 connected to 10.0.0.2 port 5201\n"
      "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
      "[  5]   0.00-1.00   sec  56.0 MBytes   470 Mbits/sec    1    190 KBytes       \n"
      "[  7]   0.00-1.00   sec  55.0 MBytes   461 Mbits/sec    2    186 KBytes       \n"
      "[SUM]   0.00-1.00   sec   111 MBytes   931 Mbits/sec    3             \n"
      "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
      "[  5]   1.00-2.00   sec  50.0 MBytes   419 Mbits/sec    0    190 KBytes       \n"
      "[  7]   1.00-2.00   sec  50.0 MBytes   419 Mbits/sec    0    186 KBytes       \n"
      "[SUM]   1.00-2.00   sec   100 MBytes   839 Mbits/sec    0             \n"
      "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
      "[ ID] Interval           Transfer     Bitrate         Retr\n"
      "[  5]   0.00-2.00   sec   106 MBytes   445 Mbits/sec    1             sender\n"
      "[  5]   0.00-2.00   sec   106 MBytes   445 Mbits/sec                  receiver\n"
      "[  7]   0.00-2.00   sec   105 MBytes   440 Mbits/sec    2             sender\n"
      "[  7]   0.00-2.00   sec   105 MBytes   440 Mbits/sec                  receiver\n"
      "[SUM]   0.00-2.00   sec   211 MBytes   885 Mbits/sec    3             sender\n"
      "[SUM]   0.00-2.00   sec   211 MBytes   885 Mbits/sec                  receiver\n"
      "\n"
      "iperf Done.\n";
  EXPECT_EQ(text(two_stream_test(), Iperf3Side::client), expected);

  // The server's [SUM] lines have no Retr column.
  const std::string server = text(two_stream_test(), Iperf3Side::server);
  EXPECT_NE(server.find("[SUM]   0.00-1.00   sec   111 MBytes   931 Mbits/sec                  \n"), std::string::npos)
      << server;
  EXPECT_NE(server.find("[SUM]   0.00-2.00   sec   211 MBytes   885 Mbits/sec                  receiver\n"),
            std::string::npos)
      << server;
}

TEST(Iperf3ReportText, OmittedIntervalsAreTagged) {
  Iperf3Test t = one_stream_test();
  auto& ivs = t.streams[0].intervals;
  ivs.insert(ivs.begin(), interval(0.0, 1.0, 10 * kMiB, 7, 64 * kKiB));
  ivs[0].omitted = true;
  const std::string out = text(t, Iperf3Side::client);
  EXPECT_NE(out.find("[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
                     "[  5]   0.00-1.00   sec  10.0 MBytes  83.9 Mbits/sec    7   64.0 KBytes       (omitted)\n"
                     "[  5]   0.00-1.00   sec   112 MBytes   940 Mbits/sec    0    372 KBytes       \n"),
            std::string::npos)
      << out;
}

// ---------------------------------------------------------------------------
// JSON

TEST(Iperf3ReportJson, ClientStructureAndFieldNames) {
  const auto root_value = parse(json(one_stream_test(), Iperf3Side::client));
  const J root(root_value);
  expect_keys(root, {"start", "intervals", "end"});

  const J start = root["start"];
  expect_keys(start, {"connected", "version", "system_info", "timestamp", "connecting_to", "cookie",
                      "tcp_mss_default", "target_bitrate", "fq_rate", "sock_bufsize", "sndbuf_actual",
                      "rcvbuf_actual", "test_start"});
  ASSERT_EQ(start["connected"].size(), 1);
  expect_keys(start["connected"][0], {"socket", "local_host", "local_port", "remote_host", "remote_port"});
  EXPECT_EQ(start["connected"][0]["socket"].num(), 5);
  EXPECT_EQ(start["connected"][0]["local_host"].str(), "10.0.0.1");
  EXPECT_EQ(start["connected"][0]["local_port"].num(), 43210);
  EXPECT_EQ(start["connected"][0]["remote_port"].num(), 5201);
  EXPECT_EQ(start["version"].str(), "iperf 3.17.1");
  EXPECT_EQ(start["timestamp"]["time"].str(), "Tue, 19 Nov 2024 20:05:32 GMT");
  EXPECT_EQ(start["timestamp"]["timesecs"].num(), 1732046732);
  EXPECT_EQ(start["connecting_to"]["host"].str(), "10.0.0.2");
  EXPECT_EQ(start["connecting_to"]["port"].num(), 5201);
  EXPECT_EQ(start["cookie"].str(), "abcdefghijklmnopqrstuvwxyz0123456789");
  EXPECT_EQ(start["tcp_mss_default"].num(), 1448);
  EXPECT_EQ(start["sndbuf_actual"].num(), 16384);
  EXPECT_EQ(start["rcvbuf_actual"].num(), 131072);
  const J ts = start["test_start"];
  expect_keys(ts, {"protocol", "num_streams", "blksize", "omit", "duration", "bytes", "blocks", "reverse", "tos",
                   "target_bitrate", "bidir", "fqrate", "interval"});
  EXPECT_EQ(ts["protocol"].str(), "TCP");
  EXPECT_EQ(ts["num_streams"].num(), 1);
  EXPECT_EQ(ts["blksize"].num(), 131072);
  EXPECT_EQ(ts["duration"].num(), 2);
  EXPECT_EQ(ts["reverse"].num(), 0);
  EXPECT_EQ(ts["interval"].num(), 1);

  const J intervals = root["intervals"];
  ASSERT_EQ(intervals.size(), 2);
  for (int k = 0; k < 2; ++k) {
    expect_keys(intervals[k], {"streams", "sum"});
    const J s = intervals[k]["streams"][0];
    expect_keys(s, {"socket", "start", "end", "seconds", "bytes", "bits_per_second", "retransmits", "snd_cwnd",
                    "snd_wnd", "rtt", "rttvar", "pmtu", "omitted", "sender"});
    EXPECT_TRUE(s["sender"].boolean());
    EXPECT_FALSE(s["omitted"].boolean());
    expect_rate(s);
    expect_keys(intervals[k]["sum"],
                {"start", "end", "seconds", "bytes", "bits_per_second", "retransmits", "omitted", "sender"});
    expect_rate(intervals[k]["sum"]);
  }
  EXPECT_EQ(intervals[1]["streams"][0]["snd_cwnd"].num(), 256 * kKiB);
  EXPECT_EQ(intervals[1]["streams"][0]["rtt"].num(), 250);
  EXPECT_EQ(intervals[1]["streams"][0]["pmtu"].num(), 1500);

  const J end = root["end"];
  expect_keys(end, {"streams", "sum_sent", "sum_received", "cpu_utilization_percent", "sender_tcp_congestion",
                    "receiver_tcp_congestion"});
  const J sender = end["streams"][0]["sender"];
  expect_keys(sender, {"socket", "start", "end", "seconds", "bytes", "bits_per_second", "retransmits",
                       "max_snd_cwnd", "max_snd_wnd", "max_rtt", "min_rtt", "mean_rtt", "sender"});
  EXPECT_EQ(sender["max_snd_cwnd"].num(), 372 * kKiB);
  EXPECT_EQ(sender["max_rtt"].num(), 310);
  EXPECT_EQ(sender["min_rtt"].num(), 190);
  EXPECT_EQ(sender["mean_rtt"].num(), 250);
  const J receiver = end["streams"][0]["receiver"];
  expect_keys(receiver, {"socket", "start", "end", "seconds", "bytes", "bits_per_second", "sender"});
  // iperf3's receiver entry: "end" is the receiver's duration, "seconds" this (sending) side's own.
  EXPECT_EQ(receiver["end"].num(), 2.04);
  EXPECT_EQ(receiver["seconds"].num(), 2.0);
  EXPECT_NEAR(receiver["bits_per_second"].num(), 221.0 * kMiB * 8 / 2.04, 1e-6);
  expect_keys(end["sum_sent"], {"start", "end", "seconds", "bytes", "bits_per_second", "retransmits", "sender"});
  expect_keys(end["sum_received"], {"start", "end", "seconds", "bytes", "bits_per_second", "sender"});
  const J cpu = end["cpu_utilization_percent"];
  expect_keys(cpu, {"host_total", "host_user", "host_system", "remote_total", "remote_user", "remote_system"});
  EXPECT_EQ(cpu["host_total"].num(), 3.5);
  EXPECT_EQ(cpu["remote_system"].num(), 11.0);
  EXPECT_EQ(end["sender_tcp_congestion"].str(), "cubic");
  EXPECT_EQ(end["receiver_tcp_congestion"].str(), "newreno");
}

TEST(Iperf3ReportJson, StartMembersAreInIperf3Order) {
  const std::string out = json(one_stream_test(), Iperf3Side::client);
  std::size_t pos = 0;
  for (const char* key : {"\"start\"", "\"connected\"", "\"version\"", "\"system_info\"", "\"timestamp\"",
                          "\"connecting_to\"", "\"cookie\"", "\"tcp_mss_default\"", "\"target_bitrate\"",
                          "\"fq_rate\"", "\"sock_bufsize\"", "\"sndbuf_actual\"", "\"rcvbuf_actual\"",
                          "\"test_start\"", "\"intervals\"", "\"end\"", "\"sum_sent\"", "\"sum_received\"",
                          "\"cpu_utilization_percent\"", "\"sender_tcp_congestion\"",
                          "\"receiver_tcp_congestion\""}) {
    const std::size_t next = out.find(key, pos);
    ASSERT_NE(next, std::string::npos) << key << " missing or out of order";
    pos = next;
  }
}

TEST(Iperf3ReportJson, TotalsAreComputedFromTheStreams) {
  for (const Iperf3Test& t : {one_stream_test(), two_stream_test()}) {
    const auto root_value = parse(json(t, Iperf3Side::client));
    const J root(root_value);
    const J intervals = root["intervals"];
    const J end = root["end"];
    const int n = static_cast<int>(t.streams.size());
    ASSERT_EQ(intervals.size(), static_cast<int>(t.streams[0].intervals.size()));
    ASSERT_EQ(end["streams"].size(), n);

    std::uint64_t sent = 0, received = 0, retransmits = 0;
    for (int i = 0; i < n; ++i) {
      const Iperf3StreamResult& s = t.streams[static_cast<std::size_t>(i)];
      // Per stream: the interval bytes add up to what went in.
      std::uint64_t interval_bytes = 0, expected_bytes = 0;
      for (int k = 0; k < intervals.size(); ++k) {
        const J js = intervals[k]["streams"][i];
        EXPECT_EQ(js["socket"].num(), s.socket);
        interval_bytes += js["bytes"].u64();
      }
      for (const auto& iv : s.intervals) expected_bytes += iv.bytes;
      EXPECT_EQ(interval_bytes, expected_bytes);

      const J sender = end["streams"][i]["sender"];
      const J receiver = end["streams"][i]["receiver"];
      EXPECT_EQ(sender["bytes"].u64(), s.sender_bytes);
      EXPECT_EQ(sender["retransmits"].u64(), s.sender_retransmits);
      EXPECT_EQ(receiver["bytes"].u64(), s.receiver_bytes);
      expect_rate(sender);
      EXPECT_NEAR(receiver["bits_per_second"].num(), receiver["bytes"].num() * 8 / receiver["end"].num(),
                  1e-12 * receiver["bits_per_second"].num());
      sent += s.sender_bytes;
      received += s.receiver_bytes;
      retransmits += s.sender_retransmits;
    }
    // Interval sums: bytes and retransmits over the streams, rate over the first stream's duration.
    for (int k = 0; k < intervals.size(); ++k) {
      std::uint64_t bytes = 0, retr = 0;
      for (int i = 0; i < n; ++i) {
        bytes += intervals[k]["streams"][i]["bytes"].u64();
        retr += intervals[k]["streams"][i]["retransmits"].u64();
      }
      EXPECT_EQ(intervals[k]["sum"]["bytes"].u64(), bytes);
      EXPECT_EQ(intervals[k]["sum"]["retransmits"].u64(), retr);
      EXPECT_EQ(intervals[k]["sum"]["seconds"].num(), intervals[k]["streams"][0]["seconds"].num());
      expect_rate(intervals[k]["sum"]);
    }
    EXPECT_EQ(end["sum_sent"]["bytes"].u64(), sent);
    EXPECT_EQ(end["sum_sent"]["retransmits"].u64(), retransmits);
    EXPECT_EQ(end["sum_received"]["bytes"].u64(), received);
    expect_rate(end["sum_sent"]);
    expect_rate(end["sum_received"]);
    EXPECT_EQ(root["start"]["test_start"]["num_streams"].num(), n);
    EXPECT_EQ(root["start"]["connected"].size(), n);
  }
}

TEST(Iperf3ReportJson, TwoStreamSums) {
  const auto root_value = parse(json(two_stream_test(), Iperf3Side::client));
  const J root(root_value);
  EXPECT_EQ(root["intervals"][0]["sum"]["bytes"].u64(), 111 * kMiB);
  EXPECT_EQ(root["intervals"][0]["sum"]["retransmits"].num(), 3);
  EXPECT_EQ(root["intervals"][0]["sum"]["bits_per_second"].num(), 111.0 * kMiB * 8);
  EXPECT_EQ(root["intervals"][1]["sum"]["bytes"].u64(), 100 * kMiB);
  EXPECT_EQ(root["end"]["sum_sent"]["bytes"].u64(), 211 * kMiB);
  EXPECT_EQ(root["end"]["sum_sent"]["retransmits"].num(), 3);
  EXPECT_EQ(root["end"]["sum_sent"]["bits_per_second"].num(), 211.0 * kMiB * 8 / 2);
  EXPECT_EQ(root["end"]["sum_received"]["bytes"].u64(), 211 * kMiB);
  EXPECT_EQ(root["start"]["connected"][1]["socket"].num(), 7);
  EXPECT_EQ(root["start"]["connected"][1]["local_port"].num(), 43212);
}

TEST(Iperf3ReportJson, ServerKnowsOnlyItsOwnHalf) {
  const auto root_value = parse(json(one_stream_test(), Iperf3Side::server));
  const J root(root_value);
  const J start = root["start"];
  EXPECT_FALSE(start.has("connecting_to"));
  EXPECT_EQ(start["accepted_connection"]["host"].str(), "10.0.0.1");
  EXPECT_EQ(start["accepted_connection"]["port"].num(), 43208);
  EXPECT_EQ(start["tcp_mss_default"].num(), 0);  // only the client measures it
  EXPECT_EQ(start["connected"][0]["local_host"].str(), "10.0.0.2");
  EXPECT_EQ(start["connected"][0]["local_port"].num(), 5201);
  EXPECT_EQ(start["connected"][0]["remote_port"].num(), 43210);

  const J s = root["intervals"][1]["streams"][0];
  expect_keys(s, {"socket", "start", "end", "seconds", "bytes", "bits_per_second", "omitted", "sender"});
  EXPECT_FALSE(s["sender"].boolean());
  EXPECT_EQ(s["bytes"].u64(), 110 * kMiB);  // the receiver's own interval
  expect_keys(root["intervals"][1]["sum"], {"start", "end", "seconds", "bytes", "bits_per_second", "omitted", "sender"});

  const J end = root["end"];
  const J sender = end["streams"][0]["sender"];
  expect_keys(sender, {"socket", "start", "end", "seconds", "bytes", "bits_per_second", "sender"});
  EXPECT_EQ(sender["bytes"].num(), 0);
  EXPECT_EQ(sender["bits_per_second"].num(), 0);
  EXPECT_EQ(sender["end"].num(), 2.04);  // falls back to the receiver's own duration
  EXPECT_EQ(end["streams"][0]["receiver"]["bytes"].u64(), 221 * kMiB);
  EXPECT_EQ(end["sum_sent"]["bytes"].num(), 0);
  EXPECT_FALSE(end["sum_sent"].has("retransmits"));
  EXPECT_EQ(end["sum_received"]["bytes"].u64(), 221 * kMiB);
  EXPECT_FALSE(end["sum_received"]["sender"].boolean());
  EXPECT_EQ(end["cpu_utilization_percent"]["host_total"].num(), 12.25);
  EXPECT_EQ(end["cpu_utilization_percent"]["remote_total"].num(), 0);
  EXPECT_FALSE(end.has("sender_tcp_congestion"));
  EXPECT_EQ(end["receiver_tcp_congestion"].str(), "newreno");
}

TEST(Iperf3ReportJson, ReverseClientGetsRetransmitsButNoTcpInfoExtremes) {
  Iperf3Test t = one_stream_test();
  t.reverse = true;
  const auto root_value = parse(json(t, Iperf3Side::client));
  const J root(root_value);
  EXPECT_EQ(root["start"]["test_start"]["reverse"].num(), 1);
  expect_keys(root["intervals"][0]["streams"][0],
              {"socket", "start", "end", "seconds", "bytes", "bits_per_second", "omitted", "sender"});
  EXPECT_EQ(root["intervals"][0]["streams"][0]["bytes"].u64(), 111 * kMiB);
  const J sender = root["end"]["streams"][0]["sender"];
  EXPECT_EQ(sender["retransmits"].num(), 3);
  EXPECT_EQ(sender["max_snd_cwnd"].num(), 0);
  EXPECT_EQ(sender["mean_rtt"].num(), 0);
  EXPECT_FALSE(sender["sender"].boolean());
  EXPECT_EQ(root["end"]["streams"][0]["receiver"]["seconds"].num(), 2.04);  // the client's own duration
  EXPECT_EQ(root["end"]["sum_sent"]["retransmits"].num(), 3);
  EXPECT_EQ(root["end"]["sender_tcp_congestion"].str(), "cubic");
  EXPECT_EQ(root["end"]["receiver_tcp_congestion"].str(), "newreno");
}

TEST(Iperf3ReportJson, EscapesStrings) {
  Iperf3Test t = one_stream_test();
  t.server_host = "evil\"host\\name\t\x01";
  const std::string out = json(t, Iperf3Side::client);
  EXPECT_NE(out.find("\"host\":\t\"evil\\\"host\\\\name\\t\\u0001\""), std::string::npos) << out;
  const auto root_value = parse(out);
  EXPECT_EQ(J(root_value)["start"]["connecting_to"]["host"].str(), t.server_host);
  EXPECT_NE(text(t, Iperf3Side::client).find("Connecting to host evil\"host\\name\t\x01, port 5201\n"),
            std::string::npos);
}

TEST(Iperf3ReportJson, LayoutAndNumbersAreCJsonLike) {
  const std::string out = json(one_stream_test(), Iperf3Side::client);
  // Tabs, "key":<TAB>value, arrays of objects joined by ", ".
  EXPECT_EQ(out.substr(0, 32), "{\n\t\"start\":\t{\n\t\t\"connected\":\t[{\n");
  EXPECT_NE(out.find("\t\t\t\t\"socket\":\t5,\n\t\t\t\t\"local_host\":\t\"10.0.0.1\",\n"), std::string::npos);
  EXPECT_NE(out.find("\t\"intervals\":\t[{\n\t\t\t\"streams\":\t[{\n\t\t\t\t\t\"socket\":\t5,\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\t\t}, {\n\t\t\t\"streams\":\t[{\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\t\t\t\"omit\":\t0,\n"), std::string::npos);
  EXPECT_NE(out.find("\"receiver_tcp_congestion\":\t\"newreno\"\n\t}\n}\n"), std::string::npos);
  EXPECT_EQ(out.back(), '\n');
}

// Figures copied from real iperf3 -J output (Linux, cJSON formatting): the same
// inputs must print the same digits, including the float interval duration.
TEST(Iperf3ReportJson, ReproducesRealIperf3Digits) {
  Iperf3Test t = base_test();
  Iperf3StreamResult s;
  s.socket = 5;
  s.intervals = {interval(0.0, 1.000984, 25934304)};
  s.sender_bytes = 7500201984;
  s.sender_seconds = 60.001675;
  s.receiver_bytes = 7500201984;
  s.receiver_seconds = 60.001851;
  t.streams = {s, s};
  t.streams[1].socket = 7;
  t.streams[1].intervals = {interval(0.0, 1.000984, 25934304)};
  const std::string out = json(t, Iperf3Side::client);
  // One interval of one stream: 1.000984 s held in a float, and the rate over it.
  EXPECT_NE(out.find("\"start\":\t0,\n\t\t\t\t\t\"end\":\t1.000984,\n\t\t\t\t\t\"seconds\":\t1.0009839534759521,\n"
                     "\t\t\t\t\t\"bytes\":\t25934304,\n\t\t\t\t\t\"bits_per_second\":\t207270487.48337844,\n"),
            std::string::npos)
      << out;
  // End of test: the per-stream and summed rates, and the receiver's end/seconds pair.
  EXPECT_NE(out.find("\"bytes\":\t7500201984,\n\t\t\t\t\t\"bits_per_second\":\t999999014.56084359,\n"),
            std::string::npos);
  EXPECT_NE(out.find("\"end\":\t60.001851,\n\t\t\t\t\t\"seconds\":\t60.001675,\n\t\t\t\t\t\"bytes\":\t7500201984,\n"
                     "\t\t\t\t\t\"bits_per_second\":\t999996081.32089126,\n"),
            std::string::npos);
  EXPECT_NE(out.find("\"bytes\":\t15000403968,\n\t\t\t\"bits_per_second\":\t1999998029.1216872,\n"), std::string::npos);
  EXPECT_NE(out.find("\"bytes\":\t15000403968,\n\t\t\t\"bits_per_second\":\t1999992162.6417825,\n"), std::string::npos);
}

}  // namespace
}  // namespace netsim::app
