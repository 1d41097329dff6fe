#include "netsim/app/iperf2_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace netsim::app {
namespace {

// ---------------------------------------------------------------------------
// Fixtures. Byte counts are whole MiB so that the expected text can be worked
// out by hand from iperf2's byte_snprintf rules.

constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::int64_t k20240501Noon = 1714564800;  // 2024-05-01 12:00:00 UTC

Iperf2Interval client_iv(double start, double end, std::uint64_t mib, std::uint64_t retransmits,
                         std::uint64_t cwnd_kbytes, std::uint32_t rtt, std::uint32_t rttvar) {
  Iperf2Interval iv;
  iv.start_s = start;
  iv.end_s = end;
  iv.bytes = mib * kMiB;
  iv.writes = mib;  // -l 1M: one write() per MiB
  iv.retransmits = retransmits;
  iv.cwnd_bytes = cwnd_kbytes * 1024;
  iv.rtt_us = rtt;
  iv.rttvar_us = rttvar;
  return iv;
}

Iperf2Interval server_iv(double start, double end, std::uint64_t bytes, std::array<std::uint64_t, 8> bins) {
  Iperf2Interval iv;
  iv.start_s = start;
  iv.end_s = end;
  iv.bytes = bytes;
  iv.read_bins = bins;
  for (auto b : bins) iv.reads += b;
  return iv;
}

Iperf2Stream stream(int id, std::uint16_t local_port, int client_sock) {
  Iperf2Stream s;
  s.id = id;
  s.local_host = "10.0.0.1";
  s.local_port = local_port;
  s.remote_host = "10.0.0.2";
  s.remote_port = 5001;
  s.client_sock = client_sock;
  s.client_init = {1448, 10 * 1448, 510};  // 10 segments of 1448 bytes: icwnd 14480 / 1024 = 14 KBytes
  s.server_init = {1448, 10 * 1448, 430};
  s.client_connect_unix_s = k20240501Noon;
  s.server_accept_unix_s = k20240501Noon;
  return s;
}

Iperf2Test base_test() {
  Iperf2Test t;
  t.server_host = "10.0.0.2";
  t.port = 5001;
  t.client_pid = 4242;
  t.server_pid = 1717;
  t.write_len = kMiB;  // -l 1M
  t.interval_s = 2;    // -i 2
  t.client_window_bytes = 16384;
  t.server_window_bytes = 131072;
  return t;
}

// `iperf -c 10.0.0.2 -l 1M -t 30 -i 2 -e`: fifteen 2-second intervals of
// 224 MiB each (939.5 Mbit/s), then the final line over 30 s.
Iperf2Test thirty_second_test() {
  Iperf2Test t = base_test();
  Iperf2Stream s = stream(1, 43210, 3);
  s.connect_time_ms = 0.52;
  for (int k = 0; k < 15; ++k) {
    s.intervals.push_back(client_iv(2.0 * k, 2.0 * (k + 1), 224, 3, 241, 2178, 1007));
  }
  s.total_client = client_iv(0.0, 30.0, 3360, 45, 241, 2200, 900);
  s.total_server = server_iv(0.0, 30.0008, 3360 * kMiB, {10, 4, 2, 3, 5, 8, 12, 26836});
  t.streams.push_back(s);
  return t;
}

// `iperf -c 10.0.0.2 -l 1M -t 4 -i 2 -e -P 2` and the server side of it.
Iperf2Test two_stream_test() {
  Iperf2Test t = base_test();
  Iperf2Stream a = stream(1, 40000, 3);
  a.connect_time_ms = 1.25;
  a.server_id = 3;  // the server had served two connections before
  a.server_sock = 4;
  a.intervals = {client_iv(0.0, 2.0, 112, 2, 120, 4000, 500), client_iv(2.0, 4.0, 110, 1, 100, 4200, 300)};
  a.total_client = client_iv(0.0, 4.01, 222, 3, 100, 4100, 400);
  a.total_server = server_iv(0.0, 4.015, 222 * kMiB, {5, 3, 2, 4, 6, 10, 20, 1750});

  Iperf2Stream b = stream(2, 40002, 4);
  b.connect_time_ms = 1.75;
  b.server_id = 4;
  b.server_sock = 5;
  b.client_init.initial_rtt_us = 620;
  b.intervals = {client_iv(0.0, 2.0, 100, 0, 90, 5000, 800), client_iv(2.0, 4.0, 98, 4, 80, 5100, 700)};
  b.total_client = client_iv(0.0, 4.02, 198, 4, 80, 5100, 700);
  b.total_server = server_iv(0.0, 4.023, 198 * kMiB, {4, 2, 2, 2, 5, 5, 10, 1570});

  t.streams = {a, b};
  t.client_sum_end_s = 4.005;
  t.server_sum_end_s = 4.026;
  return t;
}

std::string render(const Iperf2Test& t, Iperf2Side side) {
  std::ostringstream out;
  write_iperf2_text(out, t, side);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// ---------------------------------------------------------------------------
// byte_snprintf. Adaptive formats step up while the magnitude is >= 1024 (bytes)
// or >= 1000 (bits); then "%4.3f" below 0.9995, "%4.2f" below 9.995, "%4.1f"
// below 99.95, "%4.0f" otherwise.

TEST(Iperf2ReportByteSnprintf, AdaptiveBytesAre1024Based) {
  // 117440512 / 1024 / 1024 = 112 exactly -> MByte, >= 99.95 -> "%4.0f" -> " 112".
  EXPECT_EQ(iperf2_byte_snprintf(117440512.0, 'A'), " 112 MByte");
  // 16384 / 1024 = 16 -> "%4.1f" -> "16.0"; 131072 / 1024 = 128 -> " 128".
  EXPECT_EQ(iperf2_byte_snprintf(16384.0, 'A'), "16.0 KByte");
  EXPECT_EQ(iperf2_byte_snprintf(131072.0, 'A'), " 128 KByte");
  // 5000 / 1024 = 4.8828125 -> "%4.2f" -> "4.88".
  EXPECT_EQ(iperf2_byte_snprintf(5000.0, 'A'), "4.88 KByte");
  // 3360 MiB = 3.28125 GiB -> "3.28".
  EXPECT_EQ(iperf2_byte_snprintf(3360.0 * kMiB, 'A'), "3.28 GByte");
  // 1000 < 1024 stays in bytes; 1000 >= 999.5 -> "%4.0f" -> "1000".
  EXPECT_EQ(iperf2_byte_snprintf(1000.0, 'A'), "1000 Byte");
  // Below 1 (only possible in the base unit): "%4.3f".
  EXPECT_EQ(iperf2_byte_snprintf(0.0, 'A'), "0.000 Byte");
  EXPECT_EQ(iperf2_byte_snprintf(0.5, 'A'), "0.500 Byte");
  // Tera and peta exist; adaptive stops at peta.
  EXPECT_EQ(iperf2_byte_snprintf(3.0 * kMiB * kMiB, 'A'), "3.00 TByte");           // 3 * 2^40
  EXPECT_EQ(iperf2_byte_snprintf(2000.0 * kMiB * kMiB * 1024, 'A'), "2000 PByte");  // 2000 * 2^50
}

TEST(Iperf2ReportByteSnprintf, PrecisionBoundaries) {
  // 9.99 KiB -> "9.99"; 9.996 KiB would round to 10.00 so it takes "%4.1f" -> "10.0".
  EXPECT_EQ(iperf2_byte_snprintf(9.99 * 1024, 'A'), "9.99 KByte");
  EXPECT_EQ(iperf2_byte_snprintf(9.996 * 1024, 'A'), "10.0 KByte");
  // 99.9 Mbit -> "99.9"; 99.96 Mbit would round to 100.0 -> "%4.0f" -> " 100".
  EXPECT_EQ(iperf2_byte_snprintf(99.9e6 / 8, 'a'), "99.9 Mbit");
  EXPECT_EQ(iperf2_byte_snprintf(99.96e6 / 8, 'a'), " 100 Mbit");
  // 0.9994 Gbit -> "%4.3f" -> "0.999"; 0.9996 Gbit is adaptive-Mbit anyway: 999.6 -> "%4.0f" -> "1000".
  EXPECT_EQ(iperf2_byte_snprintf(0.9994e9 / 8, 'g'), "0.999 Gbit");
  EXPECT_EQ(iperf2_byte_snprintf(0.9996e9 / 8, 'a'), "1000 Mbit");
}

TEST(Iperf2ReportByteSnprintf, BitsAre1000BasedOfBytesTimesEight) {
  // 117440512 bytes/s * 8 = 939524096 bit/s.
  // 'a': 939524096 / 1000 / 1000 = 939.524096 Mbit -> "%4.0f" -> " 940".
  EXPECT_EQ(iperf2_byte_snprintf(117440512.0, 'a'), " 940 Mbit");
  // 'm': fixed Mbit, the same number.
  EXPECT_EQ(iperf2_byte_snprintf(117440512.0, 'm'), " 940 Mbit");
  // 'k': 939524.096 Kbit, beyond 4 places: "%4.0f" -> "939524".
  EXPECT_EQ(iperf2_byte_snprintf(117440512.0, 'k'), "939524 Kbit");
  // 'g': 0.939524096 Gbit -> "%4.3f" -> "0.940".
  EXPECT_EQ(iperf2_byte_snprintf(117440512.0, 'g'), "0.940 Gbit");
  // 'b': plain bits.
  EXPECT_EQ(iperf2_byte_snprintf(117440512.0, 'b'), "939524096 bit");
  // 2484 MiB in 2 s: 1302331392 B/s * 8 = 10.418651136 Gbit -> "%4.1f" -> "10.4".
  EXPECT_EQ(iperf2_byte_snprintf(2484.0 * kMiB / 2, 'a'), "10.4 Gbit");
  // Fixed byte units: 'B' never scales ("Write buffer size: 1048576 Byte").
  EXPECT_EQ(iperf2_byte_snprintf(1048576.0, 'B'), "1048576 Byte");
  EXPECT_EQ(iperf2_byte_snprintf(117440512.0, 'M'), " 112 MByte");
  EXPECT_EQ(iperf2_byte_snprintf(117440512.0, 'G'), "0.109 GByte");  // 0.109375
}

TEST(Iperf2ReportReadBin, EighthsOfTheReadBuffer) {
  // 128 KiB read buffer -> 8 bins of 16 KiB; a read of n bytes goes to (n - 1) / 16384.
  EXPECT_EQ(iperf2_read_bin(1, 131072), 0u);
  EXPECT_EQ(iperf2_read_bin(16384, 131072), 0u);
  EXPECT_EQ(iperf2_read_bin(16385, 131072), 1u);
  EXPECT_EQ(iperf2_read_bin(1448, 131072), 0u);
  EXPECT_EQ(iperf2_read_bin(65536, 131072), 3u);
  EXPECT_EQ(iperf2_read_bin(131072, 131072), 7u);
  EXPECT_EQ(iperf2_read_bin(131073, 131072), 8u);  // fits no bin
  EXPECT_EQ(iperf2_read_bin(0, 131072), 8u);
}

// ---------------------------------------------------------------------------
// Client.

TEST(Iperf2ReportClient, IntervalLineFromFormatString) {
  // report_bw_write_enhanced_format:
  //   "%s" "%4.4f-%4.4f" " sec  %ss  %ss/sec  %d/%d %10d %8dK/%u(%u) us  %s\n"
  // with, for the interval 0-2 s of 224 MiB, 224 writes, 3 retransmits, cwnd
  // 241 KiB, rtt 2178 us, rttvar 1007 us:
  //   %s            "[  1] "                      transferIDStr "[%3d] "
  //   times         "0.0000-2.0000"
  //   Transfer      224 MiB -> 224 >= 99.95 -> "%4.0f" -> " 224 MByte", + "s"
  //   Bandwidth     234881024 / 2 = 117440512 B/s -> 939524096 bit/s -> " 940 Mbit", + "s/sec"
  //   Write/Err     "224/0"
  //   Rtry  %10d    "         3"
  //   Cwnd  %8dK    "     241K"  (247808 bytes / 1024)
  //   RTT(var)      "2178(1007) us"
  //   NetPwr        1e-6 * 117440512 / 2178e-6 = 53921.26 > 100 -> "%.0f" -> "53921"
  const auto lines = lines_of(render(thirty_second_test(), Iperf2Side::client));
  ASSERT_GE(lines.size(), 9u);
  EXPECT_EQ(lines[8], "[  1] 0.0000-2.0000 sec   224 MBytes   940 Mbits/sec  224/0          3      241K/2178(1007) us  53921");
  // Later intervals: times grow past 10 s without changing the column layout ("%4.4f").
  EXPECT_EQ(lines[13], "[  1] 10.0000-12.0000 sec   224 MBytes   940 Mbits/sec  224/0          3      241K/2178(1007) us  53921");
}

TEST(Iperf2ReportClient, BannerConnectLineHeaderAndFinalLine) {
  const std::string text = render(thirty_second_test(), Iperf2Side::client);
  const auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), 8u + 15u + 1u);  // banner (6), connect line, header, 15 intervals, final line
  EXPECT_EQ(lines[0], "------------------------------------------------------------");
  EXPECT_EQ(lines[1], "Client connecting to 10.0.0.2, TCP port 5001 with pid 4242 (1 flows)");
  EXPECT_EQ(lines[2], "Write buffer size: 1048576 Byte");
  EXPECT_EQ(lines[3], "TOS set to 0x0 (Nagle on)");
  EXPECT_EQ(lines[4], "TCP window size: 16.0 KByte (default)");
  EXPECT_EQ(lines[5], "------------------------------------------------------------");
  // report_peer + " (sock=%d)" + " (icwnd/mss/irtt=%u/%u/%u)" + " (ct=%4.2f ms) on %s":
  // icwnd = 14480 / 1024 = 14 KBytes, ct 0.52 -> "0.52".
  EXPECT_EQ(lines[6],
            "[  1] local 10.0.0.1 port 43210 connected with 10.0.0.2 port 5001 (sock=3) "
            "(icwnd/mss/irtt=14/1448/510) (ct=0.52 ms) on 2024-05-01 12:00:00 (UTC)");
  EXPECT_EQ(lines[7],
            "[ ID] Interval            Transfer    Bandwidth       Write/Err  Rtry     Cwnd/RTT(var)        NetPwr");
  // Final line: 3360 MiB = 3.28125 GiB -> "3.28 GBytes"; 3523215360 / 30 = 117440512 B/s -> " 940 Mbits/sec";
  // 3360/0 writes, 45 retransmits in %10d; last sample 241K/2200(900);
  // NetPwr 1e-6 * 117440512 / 2200e-6 = 53382.05 -> "53382".
  EXPECT_EQ(lines[23], "[  1] 0.0000-30.0000 sec  3.28 GBytes   940 Mbits/sec  3360/0         45      241K/2200(900) us  53382");
  EXPECT_EQ(text.back(), '\n');
}

TEST(Iperf2ReportClient, ParallelStreamsSumLinesAndConnectTimes) {
  // Hand-worked (bit rates = MiB * 1048576 * 8 / seconds):
  //  [1] 0-2: 112 MiB -> 469.76 Mbit/s, NetPwr 58720256/4000 = 14680.06
  //  [2] 0-2: 100 MiB -> 419.43 Mbit/s, NetPwr 52428800/5000 = 10485.76
  //  SUM 0-2: 212 MiB -> 889.19 Mbit/s, 212/0 writes, 2 + 0 retransmits ("%d/%d%10d")
  //  [1] 2-4: 110 MiB -> 461.37, NetPwr 57671680/4200 = 13731.35
  //  [2] 2-4:  98 MiB -> "98.0 MBytes", 411.04, NetPwr 51380224/5100 = 10074.55
  //  SUM 2-4: 208 MiB -> 872.42, 208/0, 1 + 4 = 5
  //  [1] 0-4.01: 222 MiB -> 464.41, NetPwr 14158.74;  [2] 0-4.02: 198 MiB -> 413.17, NetPwr 10126.72
  //  SUM 0-4.005 (client_sum_end_s): 420 MiB -> 879.70, 420/0, 3 + 4 = 7
  //  [ CT] 1.25 and 1.75 ms: min 1.250, avg 1.500, max 1.750, stdev sqrt(0.125) = 0.353553 ms,
  //        printed * 1e3 as iperf 2.1.8 does: 353.553.
  const std::string expected =
      "------------------------------------------------------------\n"
      "Client connecting to 10.0.0.2, TCP port 5001 with pid 4242 (2 flows)\n"
      "Write buffer size: 1048576 Byte\n"
      "TOS set to 0x0 (Nagle on)\n"
      "TCP window size: 16.0 KByte (default)\n"
      "------------------------------------------------------------\n"
      "[  1] local 10.0.0.1 port 40000 connected with 10.0.0.2 port 5001 (sock=3) (icwnd/mss/irtt=14/1448/510) "
      "(ct=1.25 ms) on 2024-05-01 12:00:00 (UTC)\n"
      "[  2] local 10.0.0.1 port 40002 connected with 10.0.0.2 port 5001 (sock=4) (icwnd/mss/irtt=14/1448/620) "
      "(ct=1.75 ms) on 2024-05-01 12:00:00 (UTC)\n"
      "[ ID] Interval            Transfer    Bandwidth       Write/Err  Rtry     Cwnd/RTT(var)        NetPwr\n"
      "[  1] 0.0000-2.0000 sec   112 MBytes   470 Mbits/sec  112/0          2      120K/4000(500) us  14680\n"
      "[  2] 0.0000-2.0000 sec   100 MBytes   419 Mbits/sec  100/0          0       90K/5000(800) us  10486\n"
      "[SUM] 0.0000-2.0000 sec   212 MBytes   889 Mbits/sec  212/0         2\n"
      "[  1] 2.0000-4.0000 sec   110 MBytes   461 Mbits/sec  110/0          1      100K/4200(300) us  13731\n"
      "[  2] 2.0000-4.0000 sec  98.0 MBytes   411 Mbits/sec  98/0          4       80K/5100(700) us  10075\n"
      "[SUM] 2.0000-4.0000 sec   208 MBytes   872 Mbits/sec  208/0         5\n"
      "[  1] 0.0000-4.0100 sec   222 MBytes   464 Mbits/sec  222/0          3      100K/4100(400) us  14159\n"
      "[  2] 0.0000-4.0200 sec   198 MBytes   413 Mbits/sec  198/0          4       80K/5100(700) us  10127\n"
      "[SUM] 0.0000-4.0050 sec   420 MBytes   880 Mbits/sec  420/0         7\n"
      "[ CT] final connect times (min/avg/max/stdev) = 1.250/1.500/1.750/353.553 ms (tot/err) = 2/0\n";
  EXPECT_EQ(render(two_stream_test(), Iperf2Side::client), expected);
}

TEST(Iperf2ReportClient, SumFinalEndDefaultsToLatestStream) {
  Iperf2Test t = two_stream_test();
  t.client_sum_end_s = 0;
  const auto lines = lines_of(render(t, Iperf2Side::client));
  // 420 MiB over 4.02 s = 876.42 Mbit/s.
  EXPECT_EQ(lines[lines.size() - 2], "[SUM] 0.0000-4.0200 sec   420 MBytes   876 Mbits/sec  420/0         7");
}

TEST(Iperf2ReportClient, ShortFinalPartialIntervalsAreNotPrinted) {
  // Final partial intervals of 0.01 and 0.02 s, and a [SUM] partial of 0.005 s,
  // are not longer than PARTIALPERCENT (0.25) * 2 s: iperf2 prints none of them.
  Iperf2Test t = two_stream_test();
  const std::string without = render(t, Iperf2Side::client);
  t.streams[0].intervals.push_back(client_iv(4.0, 4.01, 1, 0, 100, 4100, 400));
  t.streams[1].intervals.push_back(client_iv(4.0, 4.02, 1, 0, 80, 5100, 700));
  for (auto& st : t.streams) {
    st.total_client.bytes += kMiB;
    st.total_client.writes += 1;
  }
  const auto lines = lines_of(render(t, Iperf2Side::client));
  const auto before = lines_of(without);
  ASSERT_EQ(lines.size(), before.size());
  for (std::size_t i = 0; i + 4 < lines.size(); ++i) EXPECT_EQ(lines[i], before[i]);
  // The final lines carry the extra MiB (223 MiB in 4.01 s = 466.50 Mbit/s, NetPwr
  // 58312996.6 / 4100 = 14222.52 -> "14223"); still no [SUM] partial line.
  EXPECT_EQ(lines[lines.size() - 4], "[  1] 0.0000-4.0100 sec   223 MBytes   466 Mbits/sec  223/0          3      100K/4100(400) us  14223");
  EXPECT_EQ(lines[lines.size() - 2].substr(0, 20), "[SUM] 0.0000-4.0050 ");
}

TEST(Iperf2ReportClient, LongFinalPartialIntervalsAndSumPartial) {
  // The streams end 0.8 and 0.9 s into the third interval: longer than 0.25 * 2 s,
  // so iperf2 prints them, each stream's followed by its final line, then a
  // [SUM] partial from the last [SUM] boundary (4.0) to the [SUM] end (4.9) with
  // the totals less the printed [SUM] intervals:
  //   [1] 4.0-4.8:  80 MiB -> "80.0 MBytes", 104857600 B/s -> 838.86 Mbit/s, NetPwr 104857600/4000 = 26214.4
  //   [1] 0-4.81:  302 MiB -> 526.69 Mbit/s, NetPwr 65835749.4/4100 = 16057.50 -> "16057"
  //   [2] 4.0-4.9:  90 MiB -> 838.86 Mbit/s, NetPwr 104857600/5000 = 20971.52 -> "20972"
  //   [2] 0-4.91:  288 MiB -> 492.04 Mbit/s, NetPwr 61505068.8/5100 = 12059.82 -> "12060"
  //   SUM 4.0-4.9: 590 - 212 - 208 = 170 MiB, 198064355.6 B/s -> 1.5845 Gbit/s -> "1.58 Gbits/sec",
  //                170/0 writes, 10 - 2 - 5 = 3 retransmits
  //   SUM 0-4.9:   590 MiB -> 1010.06 Mbit/s -> "1.01 Gbits/sec", 590/0, 10
  Iperf2Test t = two_stream_test();
  t.streams[0].intervals.push_back(client_iv(4.0, 4.8, 80, 1, 100, 4000, 300));
  t.streams[0].total_client = client_iv(0.0, 4.81, 302, 4, 100, 4100, 400);
  t.streams[1].intervals.push_back(client_iv(4.0, 4.9, 90, 2, 80, 5000, 600));
  t.streams[1].total_client = client_iv(0.0, 4.91, 288, 6, 80, 5100, 700);
  t.client_sum_end_s = 4.9;
  const auto lines = lines_of(render(t, Iperf2Side::client));
  ASSERT_EQ(lines.size(), 22u);  // the [ CT] line comes last
  const std::vector<std::string> tail(lines.begin() + 15, lines.end() - 1);
  const std::vector<std::string> expected = {
      "[  1] 4.0000-4.8000 sec  80.0 MBytes   839 Mbits/sec  80/0          1      100K/4000(300) us  26214",
      "[  1] 0.0000-4.8100 sec   302 MBytes   527 Mbits/sec  302/0          4      100K/4100(400) us  16057",
      "[  2] 4.0000-4.9000 sec  90.0 MBytes   839 Mbits/sec  90/0          2       80K/5000(600) us  20972",
      "[  2] 0.0000-4.9100 sec   288 MBytes   492 Mbits/sec  288/0          6       80K/5100(700) us  12060",
      "[SUM] 4.0000-4.9000 sec   170 MBytes  1.58 Gbits/sec  170/0         3",
      "[SUM] 0.0000-4.9000 sec   590 MBytes  1.01 Gbits/sec  590/0        10",
  };
  EXPECT_EQ(tail, expected);
}

TEST(Iperf2ReportClient, NetPowerBranchesAndMissingCwnd) {
  Iperf2Test t = base_test();
  Iperf2Stream s = stream(1, 43210, 3);
  // 1 MiB in 2 s = 524288 B/s:
  //  rtt 40000 us -> NetPwr 13.1072 (> 10: "%.2f") -> "13.11"
  //  rtt 80000 us -> 6.5536 ("%.6f") -> "6.553600"
  //  rtt 0 -> "NAN"
  //  cwnd below 1 KByte -> report_bw_write_enhanced_nocwnd_format "%10d       NA/%u us  %s"
  s.intervals = {client_iv(0, 2, 1, 0, 10, 40000, 100), client_iv(2, 4, 1, 0, 10, 80000, 100),
                 client_iv(4, 6, 1, 0, 10, 0, 0), client_iv(6, 8, 1, 7, 0, 40000, 100)};
  s.total_client = client_iv(0, 8, 4, 7, 10, 40000, 100);
  t.streams.push_back(s);
  const auto lines = lines_of(render(t, Iperf2Side::client));
  ASSERT_EQ(lines.size(), 13u);
  EXPECT_EQ(lines[8], "[  1] 0.0000-2.0000 sec  1.00 MBytes  4.19 Mbits/sec  1/0          0       10K/40000(100) us  13.11");
  EXPECT_EQ(lines[9], "[  1] 2.0000-4.0000 sec  1.00 MBytes  4.19 Mbits/sec  1/0          0       10K/80000(100) us  6.553600");
  EXPECT_EQ(lines[10], "[  1] 4.0000-6.0000 sec  1.00 MBytes  4.19 Mbits/sec  1/0          0       10K/0(0) us  NAN");
  EXPECT_EQ(lines[11], "[  1] 6.0000-8.0000 sec  1.00 MBytes  4.19 Mbits/sec  1/0          7       NA/40000 us  13.11");
}

TEST(Iperf2ReportClient, BannerOptions) {
  Iperf2Test t = thirty_second_test();
  t.client_congestion = "cubic";  // -Z cubic
  t.tos = 0x10;                   // -S 0x10
  t.nodelay = true;               // -N
  t.client_window_bytes = 425984;
  t.client_window_requested = 212992;  // -w 208K: Linux doubles it
  t.streams[0].client_device = "eth0";
  t.streams[0].client_connect_unix_s = 0;  // no time: iperf2 then prints neither ct nor date
  const auto lines = lines_of(render(t, Iperf2Side::client));
  EXPECT_EQ(lines[2], "Write buffer size: 1048576 Byte");
  EXPECT_EQ(lines[3], "TCP congestion control set to cubic");
  EXPECT_EQ(lines[4], "TOS set to 0x10 and nodelay (Nagle off)");
  EXPECT_EQ(lines[5], "TCP window size:  416 KByte (WARNING: requested  208 KByte)");
  EXPECT_EQ(lines[7],
            "[  1] local 10.0.0.1%eth0 port 43210 connected with 10.0.0.2 port 5001 (sock=3) "
            "(icwnd/mss/irtt=14/1448/510)");
}

TEST(Iperf2ReportClient, LocalTimeZone) {
  Iperf2Test t = thirty_second_test();
  t.time_zone = "CEST";
  t.utc_offset_s = 2 * 3600;
  t.streams[0].client_init.mss = 0;  // no TCP_INFO: no icwnd/mss/irtt
  const auto lines = lines_of(render(t, Iperf2Side::client));
  EXPECT_EQ(lines[6],
            "[  1] local 10.0.0.1 port 43210 connected with 10.0.0.2 port 5001 (sock=3) (ct=0.52 ms) "
            "on 2024-05-01 14:00:00 (CEST)");
}

// ---------------------------------------------------------------------------
// Server.

TEST(Iperf2ReportServer, SingleStreamSummary) {
  // `iperf -s -e` (no -i): the banner, the connection, the header and one final line.
  // 3360 MiB in 30.0008 s: 3523215360 * 8 / 30.0008 = 939.499 Mbit/s -> " 939";
  // Reads=Dist: 26880 reads = 10+4+2+3+5+8+12+26836.
  const std::string expected =
      "------------------------------------------------------------\n"
      "Server listening on TCP port 5001 with pid 1717\n"
      "Read buffer size:  128 KByte (Dist bin width=16.0 KByte)\n"
      "TCP window size:  128 KByte (default)\n"
      "------------------------------------------------------------\n"
      "[  1] local 10.0.0.2 port 5001 connected with 10.0.0.1 port 43210 (sock=4) (peer 2.1.8) "
      "(icwnd/mss/irtt=14/1448/430) on 2024-05-01 12:00:00 (UTC)\n"
      "[ ID] Interval            Transfer    Bandwidth       Reads=Dist\n"
      "[  1] 0.0000-30.0008 sec  3.28 GBytes   939 Mbits/sec  26880=10:4:2:3:5:8:12:26836\n";
  EXPECT_EQ(render(thirty_second_test(), Iperf2Side::server), expected);
}

TEST(Iperf2ReportServer, ParallelStreamsSum) {
  // [3] 222 MiB in 4.015 s = 463.83 Mbit/s, 1800 reads; [4] 198 MiB in 4.023 s = 412.86, 1600 reads;
  // SUM 420 MiB in 4.026 s (server_sum_end_s) = 875.12, 3400 reads, bins added bin by bin.
  const std::string expected =
      "------------------------------------------------------------\n"
      "Server listening on TCP port 5001 with pid 1717\n"
      "Read buffer size:  128 KByte (Dist bin width=16.0 KByte)\n"
      "TCP window size:  128 KByte (default)\n"
      "------------------------------------------------------------\n"
      "[  3] local 10.0.0.2 port 5001 connected with 10.0.0.1 port 40000 (sock=4) (peer 2.1.8) "
      "(icwnd/mss/irtt=14/1448/430) on 2024-05-01 12:00:00 (UTC)\n"
      "[  4] local 10.0.0.2 port 5001 connected with 10.0.0.1 port 40002 (sock=5) (peer 2.1.8) "
      "(icwnd/mss/irtt=14/1448/430) on 2024-05-01 12:00:00 (UTC)\n"
      "[ ID] Interval            Transfer    Bandwidth       Reads=Dist\n"
      "[  3] 0.0000-4.0150 sec   222 MBytes   464 Mbits/sec  1800=5:3:2:4:6:10:20:1750\n"
      "[  4] 0.0000-4.0230 sec   198 MBytes   413 Mbits/sec  1600=4:2:2:2:5:5:10:1570\n"
      "[SUM] 0.0000-4.0260 sec   420 MBytes   875 Mbits/sec  3400=9:5:4:6:11:15:30:3320\n";
  EXPECT_EQ(render(two_stream_test(), Iperf2Side::server), expected);
}

TEST(Iperf2ReportServer, IntervalsWithServerDashI) {
  // `iperf -s -e -i 2 -Z reno`, the client's version not known.
  Iperf2Test t = two_stream_test();
  t.server_interval_s = 2;
  t.server_congestion = "reno";
  t.peer_version.clear();
  t.streams[0].server_intervals = {server_iv(0, 2, 112 * kMiB, {0, 0, 0, 0, 0, 0, 0, 896})};
  t.streams[1].server_intervals = {server_iv(0, 2, 100 * kMiB, {1, 0, 0, 0, 0, 0, 0, 799})};
  const auto lines = lines_of(render(t, Iperf2Side::server));
  ASSERT_EQ(lines.size(), 16u);
  EXPECT_EQ(lines[3], "TCP congestion control set to reno");
  EXPECT_EQ(lines[6],
            "[  3] local 10.0.0.2 port 5001 connected with 10.0.0.1 port 40000 (sock=4) "
            "(icwnd/mss/irtt=14/1448/430) on 2024-05-01 12:00:00 (UTC)");
  EXPECT_EQ(lines[9], "[  3] 0.0000-2.0000 sec   112 MBytes   470 Mbits/sec  896=0:0:0:0:0:0:0:896");
  EXPECT_EQ(lines[10], "[  4] 0.0000-2.0000 sec   100 MBytes   419 Mbits/sec  800=1:0:0:0:0:0:0:799");
  EXPECT_EQ(lines[11], "[SUM] 0.0000-2.0000 sec   212 MBytes   889 Mbits/sec  1696=1:0:0:0:0:0:0:1695");
  EXPECT_EQ(lines[12], "[  3] 0.0000-4.0150 sec   222 MBytes   464 Mbits/sec  1800=5:3:2:4:6:10:20:1750");
  EXPECT_EQ(lines[13], "[  4] 0.0000-4.0230 sec   198 MBytes   413 Mbits/sec  1600=4:2:2:2:5:5:10:1570");
  // The rest of the test (2.026 s > 0.25 * 2 s): totals less the [SUM] 0-2 line,
  // 420 - 212 = 208 MiB in 2.026 s = 861.22 Mbit/s, 3400 - 1696 = 1704 reads, bins
  // 9:5:4:6:11:15:30:3320 less 1:0:0:0:0:0:0:1695.
  EXPECT_EQ(lines[14], "[SUM] 2.0000-4.0260 sec   208 MBytes   861 Mbits/sec  1704=8:5:4:6:11:15:30:1625");
  EXPECT_EQ(lines[15], "[SUM] 0.0000-4.0260 sec   420 MBytes   875 Mbits/sec  3400=9:5:4:6:11:15:30:3320");
}

// ---------------------------------------------------------------------------
// Against the Debian 12 binary (iperf 2.1.8+dfsg-1) on loopback:
//   iperf -s -e -p 5099  /  iperf -c 127.0.0.1 -p 5099 -l 1M -t 4 -i 2 -e -P 2
// The data below is what that run measured (writes of 1 MiB, intervals of
// exactly 2 s; the final lines' end times beyond the 4 printed decimals and the
// connect times beyond 2 decimals were picked inside the printed rounding so
// that NetPwr and the [ CT] line come out as printed). iperf2's reporter
// threads printed the streams in another order than the one here, so the lines
// are compared as sorted lists.

Iperf2Test debian_loopback_test() {
  Iperf2Test t;
  t.server_host = "127.0.0.1";
  t.port = 5099;
  t.client_pid = 9476;
  t.server_pid = 9455;
  t.write_len = kMiB;
  t.client_window_bytes = 16384;
  t.server_window_bytes = 131072;
  const std::int64_t when = 1795997460;  // 2026-11-30 00:11:00 UTC
  auto make = [&](int id, int server_id, std::uint16_t port, int csock, int ssock, std::uint32_t irtt,
                  std::uint32_t server_irtt, double ct) {
    Iperf2Stream s;
    s.id = id;
    s.server_id = server_id;
    s.local_host = s.remote_host = "127.0.0.1";
    s.local_port = port;
    s.remote_port = 5099;
    s.client_device = s.server_device = "lo";
    s.client_sock = csock;
    s.server_sock = ssock;
    s.client_init = {32741, 10 * 32741, irtt};
    s.server_init = {32768, 10 * 32768, server_irtt};
    s.connect_time_ms = ct;
    s.client_connect_unix_s = s.server_accept_unix_s = when;
    return s;
  };
  Iperf2Stream a = make(1, 2, 33280, 3, 5, 48, 28, 0.27905);
  a.intervals = {client_iv(0, 2, 1888, 36, 4220, 597, 632), client_iv(2, 4, 1997, 19, 4604, 693, 975)};
  a.total_client = client_iv(0, 4.016444, 3886, 55, 4604, 2126, 3598);
  a.total_server = server_iv(0, 4.0033, 3886 * kMiB, {161, 4, 1, 102, 117, 6, 1, 30973});
  Iperf2Stream b = make(2, 3, 33288, 4, 4, 24, 13, 0.05605);
  b.intervals = {client_iv(0, 2, 3169, 5, 3581, 239, 132), client_iv(2, 4, 3346, 0, 1918, 202, 208)};
  b.total_client = client_iv(0, 4.019886, 6516, 5, 2302, 260, 271);
  b.total_server = server_iv(0, 3.9982, 6516 * kMiB, {391, 1, 2, 197, 236, 1, 0, 51910});
  t.streams = {a, b};
  t.client_sum_end_s = 4.0014;
  t.server_sum_end_s = 4.0045;
  return t;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Iperf2ReportDebianBinary, ClientOutputOfALoopbackRun) {
  const std::vector<std::string> real = {
      "------------------------------------------------------------",
      "Client connecting to 127.0.0.1, TCP port 5099 with pid 9476 (2 flows)",
      "Write buffer size: 1048576 Byte",
      "TOS set to 0x0 (Nagle on)",
      "TCP window size: 16.0 KByte (default)",
      "------------------------------------------------------------",
      "[  1] local 127.0.0.1%lo port 33280 connected with 127.0.0.1 port 5099 (sock=3) "
      "(icwnd/mss/irtt=319/32741/48) (ct=0.28 ms) on 2026-11-30 00:11:00 (UTC)",
      "[  2] local 127.0.0.1%lo port 33288 connected with 127.0.0.1 port 5099 (sock=4) "
      "(icwnd/mss/irtt=319/32741/24) (ct=0.06 ms) on 2026-11-30 00:11:00 (UTC)",
      "[ ID] Interval            Transfer    Bandwidth       Write/Err  Rtry     Cwnd/RTT(var)        NetPwr",
      "[  2] 0.0000-2.0000 sec  3.09 GBytes  13.3 Gbits/sec  3169/0          5     3581K/239(132) us  6951752",
      "[  1] 0.0000-2.0000 sec  1.84 GBytes  7.92 Gbits/sec  1888/0         36     4220K/597(632) us  1658050",
      "[SUM] 0.0000-2.0000 sec  4.94 GBytes  21.2 Gbits/sec  5057/0        41",
      "[  2] 2.0000-4.0000 sec  3.27 GBytes  14.0 Gbits/sec  3346/0          0     1918K/202(208) us  8684493",
      "[  1] 2.0000-4.0000 sec  1.95 GBytes  8.38 Gbits/sec  1997/0         19     4604K/693(975) us  1510827",
      "[SUM] 2.0000-4.0000 sec  5.22 GBytes  22.4 Gbits/sec  5343/0        19",
      "[  1] 0.0000-4.0164 sec  3.79 GBytes  8.12 Gbits/sec  3886/0         55     4604K/2126(3598) us  477197",
      "[  2] 0.0000-4.0199 sec  6.36 GBytes  13.6 Gbits/sec  6516/0          5     2302K/260(271) us  6537232",
      "[SUM] 0.0000-4.0014 sec  10.2 GBytes  21.8 Gbits/sec  10402/0        60",
      "[ CT] final connect times (min/avg/max/stdev) = 0.056/0.168/0.279/157.685 ms (tot/err) = 2/0",
  };
  EXPECT_EQ(sorted(lines_of(render(debian_loopback_test(), Iperf2Side::client))), sorted(real));
}

TEST(Iperf2ReportDebianBinary, ServerOutputOfALoopbackRun) {
  // The server's banner (printed once when it started) and its lines for that test.
  const std::string real =
      "------------------------------------------------------------\n"
      "Server listening on TCP port 5099 with pid 9455\n"
      "Read buffer size:  128 KByte (Dist bin width=16.0 KByte)\n"
      "TCP window size:  128 KByte (default)\n"
      "------------------------------------------------------------\n"
      "[  2] local 127.0.0.1%lo port 5099 connected with 127.0.0.1 port 33280 (sock=5) (peer 2.1.8) "
      "(icwnd/mss/irtt=320/32768/28) on 2026-11-30 00:11:00 (UTC)\n"
      "[  3] local 127.0.0.1%lo port 5099 connected with 127.0.0.1 port 33288 (sock=4) (peer 2.1.8) "
      "(icwnd/mss/irtt=320/32768/13) on 2026-11-30 00:11:00 (UTC)\n"
      "[ ID] Interval            Transfer    Bandwidth       Reads=Dist\n"
      "[  2] 0.0000-4.0033 sec  3.79 GBytes  8.14 Gbits/sec  31365=161:4:1:102:117:6:1:30973\n"
      "[  3] 0.0000-3.9982 sec  6.36 GBytes  13.7 Gbits/sec  52738=391:1:2:197:236:1:0:51910\n"
      "[SUM] 0.0000-4.0045 sec  10.2 GBytes  21.8 Gbits/sec  84103=552:5:3:299:353:7:1:82883\n";
  EXPECT_EQ(render(debian_loopback_test(), Iperf2Side::server), real);
}

TEST(Iperf2ReportDebianBinary, ServerWithIntervalsAndPartials) {
  // iperf -s -e -i 1 -p 5099  /  iperf -c 127.0.0.1 -p 5099 -l 1M -t 2 -i 1 -e -P 2
  // Read counts and histograms as printed; byte counts (not printed exactly)
  // chosen to give every printed Transfer and Bandwidth. Stream 1's last
  // interval (2.0000-2.0055) is too short to be printed, but its 89 reads are
  // in the [SUM] partial line: 29155 = (27776 - 14011) + (29050 - 13660). The
  // order is iperf2's: stream 1 ended (its final line) before stream 2's
  // partial interval and final line.
  Iperf2Test t;
  t.port = 5099;
  t.server_pid = 13917;
  t.server_interval_s = 1;
  t.server_sum_end_s = 2.0063;
  const std::int64_t when = 1795998074;  // 2026-11-30 00:21:14 UTC
  auto make = [&](int id, std::uint16_t port, int sock, std::uint32_t irtt) {
    Iperf2Stream s;
    s.id = id;
    s.local_host = s.remote_host = "127.0.0.1";
    s.local_port = port;
    s.remote_port = 5099;
    s.server_device = "lo";
    s.server_sock = sock;
    s.server_init = {32768, 10 * 32768, irtt};
    s.server_accept_unix_s = when;
    return s;
  };
  constexpr std::uint64_t a0 = 1814036480, a1 = 1771765760, a2 = 11616256, b0 = 1767505920, b1 = 1991835648;
  Iperf2Stream a = make(1, 34764, 4, 23);
  a.server_intervals = {server_iv(0, 1, a0, {100, 0, 0, 55, 70, 1, 1, 13784}),
                        server_iv(1, 2, a1, {92, 0, 0, 70, 74, 0, 0, 13440}),
                        server_iv(2, 2.0055, a2, {1, 0, 0, 0, 0, 0, 0, 88})};
  a.total_server = server_iv(0, 2.0055, a0 + a1 + a2, {193, 0, 0, 125, 144, 1, 1, 27312});
  Iperf2Stream b = make(2, 34780, 5, 10);
  b.server_intervals = {server_iv(0, 1, b0, {99, 1, 0, 72, 86, 0, 0, 13402}),
                        server_iv(1, 1.9975, b1, {97, 1, 0, 77, 77, 0, 0, 15138})};
  b.total_server = server_iv(0, 1.9975, b0 + b1, {196, 2, 0, 149, 163, 0, 0, 28540});
  t.streams = {a, b};

  const std::string real =
      "------------------------------------------------------------\n"
      "Server listening on TCP port 5099 with pid 13917\n"
      "Read buffer size:  128 KByte (Dist bin width=16.0 KByte)\n"
      "TCP window size:  128 KByte (default)\n"
      "------------------------------------------------------------\n"
      "[  1] local 127.0.0.1%lo port 5099 connected with 127.0.0.1 port 34764 (sock=4) (peer 2.1.8) "
      "(icwnd/mss/irtt=320/32768/23) on 2026-11-30 00:21:14 (UTC)\n"
      "[  2] local 127.0.0.1%lo port 5099 connected with 127.0.0.1 port 34780 (sock=5) (peer 2.1.8) "
      "(icwnd/mss/irtt=320/32768/10) on 2026-11-30 00:21:14 (UTC)\n"
      "[ ID] Interval            Transfer    Bandwidth       Reads=Dist\n"
      "[  1] 0.0000-1.0000 sec  1.69 GBytes  14.5 Gbits/sec  14011=100:0:0:55:70:1:1:13784\n"
      "[  2] 0.0000-1.0000 sec  1.65 GBytes  14.1 Gbits/sec  13660=99:1:0:72:86:0:0:13402\n"
      "[SUM] 0.0000-1.0000 sec  3.34 GBytes  28.7 Gbits/sec  27671=199:1:0:127:156:1:1:27186\n"
      "[  1] 1.0000-2.0000 sec  1.65 GBytes  14.2 Gbits/sec  13676=92:0:0:70:74:0:0:13440\n"
      "[  1] 0.0000-2.0055 sec  3.35 GBytes  14.4 Gbits/sec  27776=193:0:0:125:144:1:1:27312\n"
      "[  2] 1.0000-1.9975 sec  1.86 GBytes  16.0 Gbits/sec  15390=97:1:0:77:77:0:0:15138\n"
      "[  2] 0.0000-1.9975 sec  3.50 GBytes  15.1 Gbits/sec  29050=196:2:0:149:163:0:0:28540\n"
      "[SUM] 1.0000-2.0063 sec  3.52 GBytes  30.0 Gbits/sec  29155=190:1:0:147:151:0:0:28666\n"
      "[SUM] 0.0000-2.0063 sec  6.85 GBytes  29.3 Gbits/sec  56826=389:2:0:274:307:1:1:55852\n";
  EXPECT_EQ(render(t, Iperf2Side::server), real);
}

}  // namespace
}  // namespace netsim::app
