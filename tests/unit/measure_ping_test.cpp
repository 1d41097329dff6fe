// ping output as measured data: FreeBSD ping(8) and Linux iputils ping, their
// statistics blocks as runs with the round-trip metrics, from samples under
// tests/data/measure/.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "measure_test_support.h"
#include "netsim/measure/measured_cells.h"
#include "netsim/measure/measurement_file.h"
#include "netsim/measure/measurement_mapping.h"

namespace netsim::measure {
namespace {

using test_support::kData;
using test_support::runs_of;
using test_support::file_error;

std::string ping_error(const std::string& text) { return test_support::parse_error(text, MeasurementFormat::ping); }

TEST(MeasurePing, FreeBsdWithSourceAddressAndALostReply) {
  const auto runs = runs_of("ping-freebsd.txt");
  ASSERT_EQ(runs.size(), 1u);
  const MeasuredRun& r = runs[0];
  EXPECT_EQ(r.file, kData + "ping-freebsd.txt");
  EXPECT_EQ(r.line, 2);  // the "PING ... from 192.168.50.37: 56 data bytes" banner
  EXPECT_EQ(r.tool, "ping");
  EXPECT_EQ(r.side, "");
  EXPECT_EQ(r.protocol, "ICMP");
  EXPECT_FALSE(r.has_rates);
  EXPECT_EQ(r.ping_transmitted, 6u);
  EXPECT_EQ(r.ping_received, 5u);  // "Request timeout for icmp_seq 2" is skipped
  // The statistics as printed; they agree with the five reply lines.
  EXPECT_EQ(r.rtt_min_ms, 0.534);
  EXPECT_EQ(r.rtt_avg_ms, 0.660);
  EXPECT_EQ(r.rtt_max_ms, 0.799);
  EXPECT_EQ(r.rtt_stddev_ms, 0.089);
  EXPECT_EQ(metric_value(r, "rtt_min_ms"), 0.534);
  EXPECT_EQ(metric_value(r, "rtt_avg_ms"), 0.660);
  EXPECT_EQ(metric_value(r, "rtt_max_ms"), 0.799);
  EXPECT_EQ(metric_value(r, "rtt_stddev_ms"), 0.089);
  // A ping carries no rate and none of the TCP figures.
  EXPECT_FALSE(metric_value(r, "throughput_mbps").has_value());
  EXPECT_FALSE(metric_value(r, "receiver_mbps").has_value());
  EXPECT_FALSE(metric_value(r, "retransmits").has_value());
  EXPECT_FALSE(metric_value(r, "rto_count").has_value());
  EXPECT_FALSE(r.sender_mbps.has_value());
  EXPECT_FALSE(r.cpu_sender_pct.has_value());
  EXPECT_TRUE(r.interval_mbps.empty());
  EXPECT_EQ(r.congestion, "");
}

TEST(MeasurePing, LinuxWithPipe) {
  const auto runs = runs_of("ping-linux.txt");
  ASSERT_EQ(runs.size(), 1u);
  const MeasuredRun& r = runs[0];
  EXPECT_EQ(r.line, 2);
  EXPECT_EQ(r.tool, "ping");
  EXPECT_EQ(r.side, "");
  EXPECT_EQ(r.protocol, "ICMP");
  EXPECT_FALSE(r.has_rates);
  EXPECT_EQ(r.ping_transmitted, 5u);
  EXPECT_EQ(r.ping_received, 5u);
  EXPECT_EQ(r.rtt_min_ms, 250.0);
  EXPECT_EQ(r.rtt_avg_ms, 251.0);
  EXPECT_EQ(r.rtt_max_ms, 253.0);
  EXPECT_EQ(r.rtt_stddev_ms, 1.095);  // mdev
  EXPECT_EQ(metric_value(r, "rtt_stddev_ms"), 1.095);
  EXPECT_EQ(metric_value(r, "rtt_avg_ms"), 251.0);
}

TEST(MeasurePing, TwoPingsOneWithEveryReplyLost) {
  const auto runs = runs_of("ping-two-runs.txt");
  ASSERT_EQ(runs.size(), 2u);
  const MeasuredRun& a = runs[0];
  EXPECT_EQ(a.line, 1);
  EXPECT_EQ(a.tool, "ping");
  EXPECT_EQ(a.protocol, "ICMP");
  EXPECT_FALSE(a.has_rates);
  EXPECT_EQ(a.ping_transmitted, 3u);
  EXPECT_EQ(a.ping_received, 3u);
  EXPECT_EQ(a.rtt_min_ms, 0.540);
  EXPECT_EQ(a.rtt_avg_ms, 0.650);
  EXPECT_EQ(a.rtt_max_ms, 0.799);
  EXPECT_EQ(a.rtt_stddev_ms, 0.109);

  // Linux, host unreachable: "+3 errors", no rtt line, "pipe 3" on its own.
  const MeasuredRun& b = runs[1];
  EXPECT_EQ(b.line, 9);
  EXPECT_EQ(b.tool, "ping");
  EXPECT_EQ(b.side, "");
  EXPECT_EQ(b.protocol, "ICMP");
  EXPECT_FALSE(b.has_rates);
  EXPECT_EQ(b.ping_transmitted, 4u);
  EXPECT_EQ(b.ping_received, 0u);
  EXPECT_FALSE(b.rtt_min_ms.has_value());
  EXPECT_FALSE(b.rtt_avg_ms.has_value());
  EXPECT_FALSE(b.rtt_max_ms.has_value());
  EXPECT_FALSE(b.rtt_stddev_ms.has_value());
  for (const char* name : {"rtt_min_ms", "rtt_avg_ms", "rtt_max_ms", "rtt_stddev_ms"}) {
    EXPECT_FALSE(metric_value(b, name).has_value()) << name;
  }
}

TEST(MeasurePing, VariantsOfTheStatisticsLines) {
  // Linux, pasted without banner and replies (or run with -q): duplicates,
  // corrupted replies and errors are counted apart from the replies; the
  // figures after the rtt ones are checked and skipped.
  const auto linux_runs = parse_measurements(
      "--- h ping statistics ---\n"
      "3 packets transmitted, 3 received, +1 duplicates, +1 corrupted, +2 errors, 0% packet loss, time 2003ms\n"
      "rtt min/avg/max/mdev = 0.100/0.200/0.300/0.050 ms, pipe 2, ipg/ewma 1.001/0.190 ms\n",
      "t.txt");
  ASSERT_EQ(linux_runs.size(), 1u);
  EXPECT_EQ(linux_runs[0].line, 1);  // no banner: the statistics line
  EXPECT_EQ(linux_runs[0].ping_transmitted, 3u);
  EXPECT_EQ(linux_runs[0].ping_received, 3u);
  EXPECT_EQ(linux_runs[0].rtt_stddev_ms, 0.050);

  // FreeBSD: a duplicate reply is in the times but not in the received count.
  const auto freebsd_runs = parse_measurements(
      "PING h (10.0.0.2): 56 data bytes\n"
      "64 bytes from 10.0.0.2: icmp_seq=0 ttl=64 time=0.300 ms\n"
      "64 bytes from 10.0.0.2: icmp_seq=0 ttl=64 time=0.400 ms (DUP!)\n"
      "\n"
      "--- h ping statistics ---\n"
      "1 packets transmitted, 1 packets received, +1 duplicates, 0.0% packet loss\n"
      "round-trip min/avg/max/stddev = 0.300/0.350/0.400/0.050 ms\n",
      "t.txt");
  ASSERT_EQ(freebsd_runs.size(), 1u);
  EXPECT_EQ(freebsd_runs[0].ping_received, 1u);
  EXPECT_EQ(freebsd_runs[0].rtt_avg_ms, 0.350);

  // Received but too small to carry a timestamp (-s 4): no round-trip line,
  // so no rtt figures, and the next ping follows directly.
  const auto untimed = parse_measurements(
      "--- h ping statistics ---\n"
      "2 packets transmitted, 2 packets received, 0.0% packet loss\n"
      "--- h ping statistics ---\n"
      "0 packets transmitted, 0 packets received, \n",
      "t.txt");
  ASSERT_EQ(untimed.size(), 2u);
  EXPECT_EQ(untimed[0].ping_received, 2u);
  EXPECT_FALSE(untimed[0].rtt_avg_ms.has_value());
  EXPECT_EQ(untimed[1].line, 3);
  EXPECT_EQ(untimed[1].ping_transmitted, 0u);
}

TEST(MeasurePing, BrokenFiles) {
  EXPECT_EQ(file_error("broken-ping-number.txt"),
            kData + "broken-ping-number.txt:7: error: malformed round-trip avg '0.7O6'");
  EXPECT_EQ(file_error("broken-ping-order.txt"),
            kData + "broken-ping-order.txt:7: error: round-trip values out of order: min 0.899 > avg 0.706 "
                    "(expected min <= avg <= max)");
  // Ctrl-C always prints the statistics: without them the file was cut off.
  EXPECT_EQ(file_error("broken-ping-truncated.txt"),
            kData + "broken-ping-truncated.txt:4: error: ping output without its '--- HOST ping statistics ---' "
                    "block after it (truncated?)");
}

TEST(MeasurePing, Errors) {
  const std::string stats = "--- h ping statistics ---\n";
  EXPECT_EQ(ping_error(stats),
            "t.txt:1: error: ping statistics without the 'N packets transmitted, ...' line after them");
  EXPECT_EQ(ping_error(stats + "\n2 packets transmitted, 2 received\n"),
            "t.txt:1: error: ping statistics without the 'N packets transmitted, ...' line after them");
  EXPECT_EQ(ping_error(stats + "2 packets transmitted, 2 packets got\n"),
            "t.txt:2: error: malformed counts line (expected 'N packets transmitted, N [packets] received, ...')");
  EXPECT_EQ(ping_error(stats + "2 packets transmitted, two received\n"),
            "t.txt:2: error: malformed count 'two' of packets received");
  EXPECT_EQ(ping_error(stats + "2x packets transmitted, 2 received\n"),
            "t.txt:2: error: malformed count '2x' of packets transmitted");
  EXPECT_EQ(ping_error(stats + "2 packets transmitted, 3 packets received, -- somebody's printing up packets!\n"),
            "t.txt:2: error: 3 replies received for 2 requests transmitted");
  EXPECT_EQ(ping_error(stats + "2 packets transmitted, 2 received, 0% packet loss, 1 lost\n"),
            "t.txt:2: error: unknown part '1 lost' of the counts line");
  EXPECT_EQ(ping_error(stats + "2 packets transmitted, 2 received, x% packet loss\n"),
            "t.txt:2: error: malformed packet loss 'x'");
  const std::string counts = stats + "2 packets transmitted, 2 received\n";
  EXPECT_EQ(ping_error(counts + "round-trip min/avg/max = 0.1/0.2/0.3 ms\n"),
            "t.txt:3: error: malformed round-trip line (expected 'round-trip min/avg/max/stddev = "
            "MIN/AVG/MAX/STDDEV ms' or 'rtt min/avg/max/mdev = MIN/AVG/MAX/MDEV ms')");
  EXPECT_EQ(ping_error(counts + "rtt min/avg/max/mdev = 0.1/0.2/0.3 ms\n"),
            "t.txt:3: error: expected four values MIN/AVG/MAX/mdev, found '0.1/0.2/0.3'");
  EXPECT_EQ(ping_error(counts + "rtt min/avg/max/mdev = 0.1/0.2/0.3/-0.1 ms\n"),
            "t.txt:3: error: malformed round-trip mdev '-0.1'");
  EXPECT_EQ(ping_error(counts + "rtt min/avg/max/mdev = 0.1/0.4/0.3/0.1 ms\n"),
            "t.txt:3: error: round-trip values out of order: avg 0.4 > max 0.3 (expected min <= avg <= max)");
  EXPECT_EQ(ping_error(counts + "rtt min/avg/max/mdev = 0.1/0.2/0.3/0.1 ms, pipe two\n"),
            "t.txt:3: error: malformed count 'two' of pipe");
  EXPECT_EQ(ping_error(counts + "rtt min/avg/max/mdev = 0.1/0.2/0.3/0.1 ms, ewma 2\n"),
            "t.txt:3: error: unknown part 'ewma 2' (expected 'pipe N' or 'ipg/ewma IPG/EWMA ms')");
  EXPECT_EQ(ping_error(stats + "2 packets transmitted, 0 received\nrtt min/avg/max/mdev = 0.1/0.2/0.3/0.1 ms\n"),
            "t.txt:3: error: round-trip figures without any reply received");
  // Lines of a statistics block out of place.
  EXPECT_EQ(ping_error("PING h (10.0.0.2): 56 data bytes\nround-trip min/avg/max/stddev = 0.1/0.2/0.3/0.1 ms\n"),
            "t.txt:2: error: round-trip line without a '--- HOST ping statistics ---' line before it");
  const std::string rtt = "rtt min/avg/max/mdev = 0.1/0.2/0.3/0.1 ms\n";
  EXPECT_EQ(ping_error(counts + rtt + rtt),
            "t.txt:4: error: round-trip line without a '--- HOST ping statistics ---' line before it");
  EXPECT_EQ(ping_error("2 packets transmitted, 2 received\n"),
            "t.txt:1: error: counts line without a '--- HOST ping statistics ---' line before it");
  // A reply line's numbers must parse.
  EXPECT_EQ(ping_error("64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0,3 ms\n"),
            "t.txt:1: error: malformed reply time '0,3'");
  EXPECT_EQ(ping_error("64 bytes from 10.0.0.2: icmp_seq=x ttl=64 time=0.3 ms\n"),
            "t.txt:1: error: malformed count 'x' of icmp_seq");
  EXPECT_EQ(ping_error("64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.3\n"),
            "t.txt:1: error: expected 'ms' after 'time=0.3'");
  // A second banner before the first ping's statistics: the first was cut off.
  EXPECT_EQ(ping_error("PING a (10.0.0.2): 56 data bytes\n64 bytes from 10.0.0.2: icmp_seq=0 ttl=64 time=0.3 ms\n"
                       "PING b (10.0.0.3): 56 data bytes\n"),
            "t.txt:2: error: ping output without its '--- HOST ping statistics ---' block after it (truncated?)");
  EXPECT_EQ(ping_error("$ ping\n"), "t.txt: error: no complete ping run in the file");
}

TEST(MeasurePing, DetectedAmongTheOtherFormats) {
  auto detected = [](const std::string& name) {
    const auto runs = runs_of(name);
    return runs.empty() ? std::string() : runs.front().tool;
  };
  EXPECT_EQ(detected("ping-freebsd.txt"), "ping");
  EXPECT_EQ(detected("ping-linux.txt"), "ping");
  EXPECT_EQ(detected("ping-two-runs.txt"), "ping");
  // The broken files are read as ping too, so that their error is ping's.
  for (const char* name : {"broken-ping-number.txt", "broken-ping-order.txt", "broken-ping-truncated.txt"}) {
    std::ifstream in(kData + name);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(detect_format(text.str(), name), MeasurementFormat::ping) << name;
  }
  EXPECT_EQ(detect_format("--- h ping statistics ---\n1 packets transmitted, 1 received\n", "t"),
            MeasurementFormat::ping);
  EXPECT_EQ(detect_format("rtt min/avg/max/mdev = 0.1/0.2/0.3/0.1 ms\n", "t"), MeasurementFormat::ping);
  EXPECT_EQ(detect_format("round-trip min/avg/max/stddev = 0.1/0.2/0.3/0.1 ms\n", "t"), MeasurementFormat::ping);
  EXPECT_EQ(detect_format("64 bytes from 10.0.0.2: icmp_seq=0 ttl=64 time=0.3 ms\n", "t"), MeasurementFormat::ping);
  // The other formats are still theirs.
  EXPECT_EQ(detected("nstat-receiver.txt"), "nstat");
  EXPECT_EQ(detected("netstat-tcp-sender.txt"), "netstat-tcp");
  EXPECT_EQ(detected("nuttcp-udp.txt"), "nuttcp");
  EXPECT_EQ(detected("iperf3-client.json"), "iperf3-json");
  EXPECT_EQ(detected("iperf3-server.txt"), "iperf3-text");
  EXPECT_EQ(detected("iperf2-plain.txt"), "iperf2");

  EXPECT_EQ(format_name(MeasurementFormat::ping), "ping");
  EXPECT_EQ(format_from_name("ping"), MeasurementFormat::ping);
}

TEST(MeasurePing, MetricsAndMapping) {
  const auto& names = metric_names();
  for (const char* name : {"rtt_min_ms", "rtt_avg_ms", "rtt_max_ms", "rtt_stddev_ms"}) {
    EXPECT_TRUE(is_metric(name)) << name;
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  // A TCP report has no round-trip figures.
  const auto tcp = runs_of("iperf3-client.json");
  ASSERT_FALSE(tcp.empty());
  EXPECT_FALSE(metric_value(tcp[0], "rtt_avg_ms").has_value());

  // Through a mapping, as calibration reads them: one cell per ping, and the
  // ping whose replies were all lost has no rtt_avg_ms: an error, not a 0.
  const MeasurementMapping mapping = parse_mapping_text(
      "runs:\n"
      "  - { file: ping-freebsd.txt, params: { delay: 100us }, format: ping, metric: rtt_avg_ms }\n"
      "  - { file: ping-two-runs.txt, params: { delay: 200us }, metric: rtt_max_ms }\n",
      kData + "pings.yaml");
  const MeasuredCells cells = cells_from(mapping, "receiver_mbps");
  ASSERT_EQ(cells.cells.size(), 2u);
  EXPECT_EQ(cells.cells[0].metric, "rtt_avg_ms");
  EXPECT_EQ(cells.cells[0].value, 0.660);
  EXPECT_EQ(cells.cells[0].source, kData + "ping-freebsd.txt:2");
  EXPECT_EQ(cells.cells[1].metric, "rtt_max_ms");
  EXPECT_EQ(cells.cells[1].value, 0.799);
  ASSERT_EQ(cells.errors.size(), 1u);
  EXPECT_EQ(cells.errors[0].file, kData + "ping-two-runs.txt");
  EXPECT_EQ(cells.errors[0].line, 9);
}

}  // namespace
}  // namespace netsim::measure
