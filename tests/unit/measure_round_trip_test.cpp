// The project's own iperf3 and iperf2 report writers (app/iperf3_report.h,
// app/iperf2_report.h) read back by the measurement parsers give the figures
// the writers were given: JSON exactly, text to its printed precision.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "netsim/app/iperf2_report.h"
#include "netsim/app/iperf3_report.h"
#include "netsim/measure/measurement_file.h"

namespace netsim::measure {
namespace {

using app::Iperf2Side;
using app::Iperf2Test;
using app::Iperf3Side;
using app::Iperf3Test;

constexpr std::uint64_t kMiB = 1024 * 1024;

double mbps(std::uint64_t bytes, double seconds) { return static_cast<double>(bytes) * 8 / seconds / 1e6; }

// Text prints three or four significant digits.
void expect_printed(std::optional<double> parsed, double exact) {
  ASSERT_TRUE(parsed.has_value());
  EXPECT_NEAR(*parsed, exact, exact * 0.005);
}

app::Iperf3StreamInterval iperf3_interval(double start, double end, std::uint64_t bytes, std::uint64_t retransmits) {
  app::Iperf3StreamInterval iv;
  iv.start_s = start;
  iv.end_s = end;
  iv.bytes = bytes;
  iv.retransmits = retransmits;
  iv.snd_cwnd_bytes = 600 * 1024;
  return iv;
}

Iperf3Test two_stream_iperf3() {
  Iperf3Test t;
  t.server_host = "10.0.0.2";
  t.accepted_host = "10.0.0.1";
  t.accepted_port = 43208;
  t.duration_s = 2;
  t.sender_tcp_congestion = "cubic";
  t.receiver_tcp_congestion = "cubic";
  t.client_cpu_total = 3.5;
  t.server_cpu_total = 12.25;
  for (int i = 0; i < 2; ++i) {
    app::Iperf3StreamResult s;
    s.socket = 5 + 2 * i;
    s.local_host = "10.0.0.1";
    s.local_port = static_cast<std::uint16_t>(43210 + i);
    s.remote_host = "10.0.0.2";
    s.intervals = {iperf3_interval(0.0, 1.000114, (56 + i) * kMiB, 1),
                   iperf3_interval(1.000114, 2.000201, (57 - i) * kMiB, 2 + i)};
    s.sender_bytes = 113 * kMiB;
    s.sender_seconds = 2.000201;
    s.sender_retransmits = 3 + i;
    s.receiver_bytes = 112 * kMiB + 4096 * i;
    s.receiver_seconds = 2.000654;
    t.streams.push_back(s);
  }
  return t;
}

std::vector<MeasuredRun> written_iperf3(const Iperf3Test& t, Iperf3Side side, bool json) {
  std::ostringstream out;
  json ? app::write_iperf3_json(out, t, side) : app::write_iperf3_text(out, t, side);
  const auto runs = parse_measurements(out.str(), "written");  // format detected
  EXPECT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs.front().tool, json ? "iperf3-json" : "iperf3-text");
  return runs;
}

TEST(MeasureRoundTrip, Iperf3JsonClientAndServer) {
  const Iperf3Test t = two_stream_iperf3();
  const MeasuredRun client = written_iperf3(t, Iperf3Side::client, true).front();
  EXPECT_EQ(client.side, "client");
  EXPECT_EQ(client.streams, 2);
  EXPECT_DOUBLE_EQ(*client.sender_mbps, mbps(226 * kMiB, 2.000201));
  EXPECT_DOUBLE_EQ(*client.receiver_mbps, mbps(224 * kMiB + 4096, 2.000654));
  EXPECT_EQ(client.retransmits, 7u);
  EXPECT_EQ(client.cpu_sender_pct, 3.5);
  EXPECT_EQ(client.cpu_receiver_pct, 12.25);
  EXPECT_EQ(client.congestion, "cubic");
  ASSERT_EQ(client.interval_mbps.size(), 2u);
  // iperf3 keeps an interval's length in a float.
  EXPECT_DOUBLE_EQ(client.interval_mbps[1], mbps(113 * kMiB, static_cast<float>(2.000201 - 1.000114)));

  const MeasuredRun server = written_iperf3(t, Iperf3Side::server, true).front();
  EXPECT_EQ(server.side, "server");
  EXPECT_FALSE(server.sender_mbps);
  EXPECT_DOUBLE_EQ(*server.receiver_mbps, mbps(224 * kMiB + 4096, 2.000654));
  EXPECT_EQ(server.cpu_receiver_pct, 12.25);
  EXPECT_FALSE(server.cpu_sender_pct);
}

TEST(MeasureRoundTrip, Iperf3TextClientServerAndReverse) {
  Iperf3Test t = two_stream_iperf3();
  const MeasuredRun client = written_iperf3(t, Iperf3Side::client, false).front();
  expect_printed(client.sender_mbps, mbps(226 * kMiB, 2.000201));
  expect_printed(client.receiver_mbps, mbps(224 * kMiB + 4096, 2.000654));
  EXPECT_EQ(client.retransmits, 7u);
  EXPECT_EQ(client.streams, 2);
  ASSERT_EQ(client.interval_mbps.size(), 2u);
  expect_printed(client.interval_mbps[0], mbps(113 * kMiB, 1.000114));

  const MeasuredRun server = written_iperf3(t, Iperf3Side::server, false).front();
  EXPECT_FALSE(server.sender_mbps);
  expect_printed(server.receiver_mbps, mbps(224 * kMiB + 4096, 2.000654));

  t.reverse = true;
  const MeasuredRun reverse = written_iperf3(t, Iperf3Side::client, false).front();
  EXPECT_TRUE(reverse.reverse);
  EXPECT_EQ(reverse.retransmits, 7u);  // reaches the -R client through the results exchange
  expect_printed(reverse.receiver_mbps, mbps(224 * kMiB + 4096, 2.000654));
}

app::Iperf2Interval iperf2_interval(double start, double end, std::uint64_t mib, std::uint64_t retransmits) {
  app::Iperf2Interval iv;
  iv.start_s = start;
  iv.end_s = end;
  iv.bytes = mib * kMiB;
  iv.writes = mib;
  iv.retransmits = retransmits;
  iv.cwnd_bytes = 400 * 1024;
  iv.rtt_us = 700;
  iv.rttvar_us = 90;
  iv.reads = mib * 8;
  iv.read_bins[7] = mib * 8;
  return iv;
}

TEST(MeasureRoundTrip, Iperf2ClientAndServer) {
  Iperf2Test t;
  t.server_host = "10.0.0.2";
  t.interval_s = 2;
  t.client_congestion = "cubic";
  for (int i = 0; i < 2; ++i) {
    app::Iperf2Stream s;
    s.id = i + 1;
    s.local_host = "10.0.0.1";
    s.local_port = static_cast<std::uint16_t>(40000 + i);
    s.remote_host = "10.0.0.2";
    s.intervals = {iperf2_interval(0, 2, 100 + 10 * i, 4), iperf2_interval(2, 4, 110, 1 + i)};
    s.total_client = iperf2_interval(0, 4.0150 + 0.01 * i, 210 + 10 * i, 5 + i);
    s.total_server = iperf2_interval(0, 4.0180 + 0.01 * i, 210 + 10 * i, 0);
    t.streams.push_back(s);
  }
  std::ostringstream client_text, server_text;
  app::write_iperf2_text(client_text, t, Iperf2Side::client);
  app::write_iperf2_text(server_text, t, Iperf2Side::server);

  const auto client = parse_measurements(client_text.str(), "client.txt");
  ASSERT_EQ(client.size(), 1u);
  EXPECT_EQ(client[0].tool, "iperf2");
  EXPECT_EQ(client[0].side, "client");
  EXPECT_EQ(client[0].streams, 2);
  // [SUM] final line: 430 MiB over the latest stream end, 4.025 s.
  expect_printed(client[0].sender_mbps, mbps(430 * kMiB, 4.025));
  EXPECT_EQ(client[0].retransmits, 11u);
  EXPECT_EQ(client[0].congestion, "cubic");
  ASSERT_EQ(client[0].interval_mbps.size(), 2u);
  expect_printed(client[0].interval_mbps[1], mbps(220 * kMiB, 2.0));

  const auto server = parse_measurements(server_text.str(), "server.txt");
  ASSERT_EQ(server.size(), 1u);
  EXPECT_EQ(server[0].side, "server");
  EXPECT_FALSE(server[0].sender_mbps);
  expect_printed(server[0].receiver_mbps, mbps(430 * kMiB, 4.028));
}

}  // namespace
}  // namespace netsim::measure
