// iperf3 text, iperf2 text and nuttcp reports: real-format samples under
// tests/data/measure/, broken ones, and format detection.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "measure_test_support.h"
#include "netsim/measure/measurement_file.h"

namespace netsim::measure {
namespace {

using test_support::kData;
using test_support::runs_of;
using test_support::thrown;

// The error of a broken sample file, which must yield no runs.
MeasureError error_of(const std::string& name) {
  const LoadedMeasurements loaded = load_measurement_file(kData + name);
  EXPECT_TRUE(loaded.runs.empty());
  if (loaded.errors.size() != 1) {
    ADD_FAILURE() << name << ": expected one error, got " << loaded.errors.size();
    return MeasureError("", 0, "");
  }
  return loaded.errors.front();
}

MeasureError text_error(const std::string& text, MeasurementFormat format) {
  return thrown([&] { parse_measurements(text, "t.txt", format); });
}

// ---------------------------------------------------------------------------
// iperf3 text

TEST(MeasureIperf3Text, VerboseClientWithCpuAndCongestion) {
  const auto runs = runs_of("iperf3-client-verbose.txt");
  ASSERT_EQ(runs.size(), 1u);
  const MeasuredRun& run = runs[0];
  EXPECT_EQ(run.tool, "iperf3-text");
  EXPECT_EQ(run.side, "client");
  EXPECT_EQ(run.line, 6);  // "Connecting to host", after the prompt and the -V preamble
  EXPECT_EQ(run.sender_mbps, 938.0);
  EXPECT_EQ(run.receiver_mbps, 934.0);
  EXPECT_EQ(run.throughput_mbps, 934.0);
  EXPECT_EQ(run.retransmits, 3u);
  EXPECT_EQ(run.duration_s, 3.0);
  EXPECT_EQ(run.streams, 1);
  EXPECT_EQ(run.interval_mbps, (std::vector<double>{936, 940, 940}));
  EXPECT_EQ(run.cpu_sender_pct, 5.2);
  EXPECT_EQ(run.cpu_receiver_pct, 20.5);
  EXPECT_EQ(run.congestion, "newreno");
}

TEST(MeasureIperf3Text, ParallelStreamsUseTheSumLines) {
  const auto runs = runs_of("iperf3-client-P2.txt");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].streams, 2);
  EXPECT_EQ(runs[0].sender_mbps, 939.0);
  EXPECT_EQ(runs[0].receiver_mbps, 936.0);
  EXPECT_EQ(runs[0].retransmits, 7u);
  EXPECT_EQ(runs[0].interval_mbps, (std::vector<double>{931, 948}));
  EXPECT_FALSE(runs[0].cpu_sender_pct);  // no -V: no CPU line
}

TEST(MeasureIperf3Text, ServerLogWithTwoTests) {
  const auto runs = runs_of("iperf3-server.txt");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].side, "server");
  EXPECT_EQ(runs[0].line, 2);
  EXPECT_EQ(runs[1].line, 14);
  EXPECT_FALSE(runs[0].sender_mbps);
  EXPECT_EQ(runs[0].receiver_mbps, 934.0);
  EXPECT_EQ(runs[1].receiver_mbps, 168.0);
  EXPECT_FALSE(runs[1].retransmits);
  EXPECT_EQ(runs[1].interval_mbps, (std::vector<double>{169, 167, 168}));
}

TEST(MeasureIperf3Text, GarbledIntervalLineNamesItsLine) {
  const MeasureError e = error_of("broken-iperf3-garbled.txt");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(std::string(e.what()), kData + "broken-iperf3-garbled.txt:5: error: malformed rate '9#0'");
}

TEST(MeasureIperf3Text, MissingSummaryNamesTheLastIntervalLine) {
  const MeasureError e = error_of("broken-iperf3-no-summary.txt");
  EXPECT_EQ(std::string(e.what()),
            kData +
                "broken-iperf3-no-summary.txt:5: error: no summary line ('... sender' or '... receiver') after the "
                "interval lines (truncated?)");
}

TEST(MeasureIperf3Text, StrictOnRecognisedLines) {
  const std::string head = "Connecting to host h, port 5201\n[ ID] Interval           Transfer     Bitrate         Retr\n";
  EXPECT_STREQ(text_error(head + "[  5]   0.00-1.00   sec   112 MBytes   936 Mbit/s    0\n", MeasurementFormat::iperf3_text)
                   .what(),
               "t.txt:3: error: unknown rate unit 'Mbit/s' (expected bits/sec, Kbits/sec, Mbits/sec, Gbits/sec, "
               "Tbits/sec or KBytes/sec ... GBytes/sec)");
  EXPECT_STREQ(text_error(head + "[  5]   0.00-1.00   sec   112 MBytes\n", MeasurementFormat::iperf3_text).what(),
               "t.txt:3: error: the line ends before the rate (truncated?)");
  EXPECT_STREQ(text_error(head + "[  5]   0.00-1.00   sec   112 MBytes   936 Mbits/sec   x3\n",
                          MeasurementFormat::iperf3_text)
                   .what(),
               "t.txt:3: error: malformed Retr 'x3'");
  EXPECT_STREQ(text_error("[  5]   0.00-1.00   sec   112 MBytes   936 Mbits/sec\n", MeasurementFormat::iperf3_text).what(),
               "t.txt:1: error: bandwidth line before any '[ ID] Interval ...' header");
  EXPECT_STREQ(text_error("Connecting to host h, port 5201\nCPU Utilization: local/sender 5.2%\n",
                          MeasurementFormat::iperf3_text)
                   .what(),
               "t.txt:2: error: malformed CPU Utilization line (expected 'CPU Utilization: local/ROLE P% (U%u/S%s), "
               "remote/ROLE P% (U%u/S%s)')");
}

TEST(MeasureIperf3Text, OlderBandwidthHeaderAndReverseMode) {
  // iperf 3.1 wrote "Bandwidth"; -R makes the client the receiver.
  const std::string text =
      "Connecting to host h, port 5201\n"
      "Reverse mode, remote host h is sending\n"
      "[  4] local 10.0.0.1 port 5 connected to 10.0.0.2 port 5201\n"
      "[ ID] Interval           Transfer     Bandwidth\n"
      "[  4]   0.00-1.00   sec   105 MBytes   880 Mbits/sec\n"
      "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
      "[ ID] Interval           Transfer     Bandwidth       Retr\n"
      "[  4]   0.00-1.00   sec   106 MBytes   885 Mbits/sec   12             sender\n"
      "[  4]   0.00-1.00   sec   105 MBytes   880 Mbits/sec                  receiver\n"
      "CPU Utilization: local/receiver 3.0% (0.5%u/2.5%s), remote/sender 14.0% (1.0%u/13.0%s)\n";
  const auto runs = parse_measurements(text, "r.txt");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_TRUE(runs[0].reverse);
  EXPECT_EQ(runs[0].retransmits, 12u);
  EXPECT_EQ(runs[0].cpu_receiver_pct, 3.0);
  EXPECT_EQ(runs[0].cpu_sender_pct, 14.0);
}

// ---------------------------------------------------------------------------
// iperf2

TEST(MeasureIperf2, EnhancedClientTwoStreamsUsesTheSumFinalLine) {
  const auto runs = runs_of("iperf2-client-P2.txt");
  ASSERT_EQ(runs.size(), 1u);
  const MeasuredRun& run = runs[0];
  EXPECT_EQ(run.tool, "iperf2");
  EXPECT_EQ(run.side, "client");
  EXPECT_EQ(run.line, 3);
  EXPECT_EQ(run.streams, 2);
  EXPECT_EQ(run.sender_mbps, 21800.0);  // "[SUM] 0.0000-4.0014 sec  10.2 GBytes  21.8 Gbits/sec"
  EXPECT_FALSE(run.receiver_mbps);
  EXPECT_EQ(run.throughput_mbps, 21800.0);
  EXPECT_EQ(run.retransmits, 60u);
  EXPECT_DOUBLE_EQ(run.duration_s, 4.0014);
  EXPECT_EQ(run.interval_mbps, (std::vector<double>{21200, 22400}));
}

TEST(MeasureIperf2, EnhancedServerTwoStreams) {
  const auto runs = runs_of("iperf2-server-P2.txt");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].side, "server");
  EXPECT_EQ(runs[0].receiver_mbps, 21800.0);
  EXPECT_FALSE(runs[0].sender_mbps);
  EXPECT_FALSE(runs[0].retransmits);
  EXPECT_TRUE(runs[0].interval_mbps.empty());
}

TEST(MeasureIperf2, PlainOutputTwoRunsAfterShellPrompts) {
  const auto runs = runs_of("iperf2-plain.txt");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].line, 3);
  EXPECT_EQ(runs[0].sender_mbps, 941.0);
  EXPECT_EQ(runs[0].interval_mbps, (std::vector<double>{942, 941}));  // "0.0- 1.0" padding read as one interval
  EXPECT_EQ(runs[0].duration_s, 2.0);
  EXPECT_FALSE(runs[0].retransmits);
  EXPECT_EQ(runs[1].line, 13);
  EXPECT_EQ(runs[1].sender_mbps, 941.0);
  EXPECT_EQ(runs[1].duration_s, 10.0);
  EXPECT_TRUE(runs[1].interval_mbps.empty());
}

TEST(MeasureIperf2, LineWithoutBannerHasOnlyAThroughput) {
  const auto runs =
      parse_measurements("[ ID] Interval       Transfer     Bandwidth\n[  3]  0.0-10.0 sec  1.10 GBytes   941 Mbits/sec\n",
                         "p.txt", MeasurementFormat::iperf2);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].side, "");
  EXPECT_EQ(runs[0].throughput_mbps, 941.0);
  EXPECT_FALSE(runs[0].sender_mbps);
  EXPECT_FALSE(runs[0].receiver_mbps);
}

TEST(MeasureIperf2, UnknownUnitNamesItsLine) {
  const MeasureError e = error_of("broken-iperf2-unit.txt");
  EXPECT_EQ(std::string(e.what()),
            kData +
                "broken-iperf2-unit.txt:7: error: unknown transfer unit 'GiBytes' (expected Bytes, KBytes, MBytes, "
                "GBytes, TBytes)");
}

TEST(MeasureIperf2, MissingFinalLine) {
  const std::string text =
      "Client connecting to h, TCP port 5001\n"
      "[ ID] Interval       Transfer     Bandwidth\n"
      "[  3]  0.0- 1.0 sec   112 MBytes   942 Mbits/sec\n"
      "[  3]  1.0- 2.0 sec   112 MBytes   941 Mbits/sec\n";
  EXPECT_STREQ(text_error(text, MeasurementFormat::iperf2).what(),
               "t.txt:4: error: no final (0.0-END) line for [3] after its interval lines (truncated?)");
  EXPECT_STREQ(text_error("Client connecting to h, TCP port 5001\n"
                          "[ ID] Interval            Transfer    Bandwidth       Write/Err  Rtry     Cwnd/RTT(var)        NetPwr\n"
                          "[  1] 0.0000-2.0000 sec   224 MBytes   940 Mbits/sec  224/0  many\n",
                          MeasurementFormat::iperf2)
                   .what(),
               "t.txt:3: error: malformed Rtry 'many'");
}

// ---------------------------------------------------------------------------
// nuttcp

TEST(MeasureNuttcp, OldStyleLinesAreOneRunEach) {
  const auto runs = runs_of("nuttcp-tcp.txt");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].tool, "nuttcp");
  EXPECT_EQ(runs[0].line, 3);
  EXPECT_EQ(runs[0].receiver_mbps, 5367.3217);
  EXPECT_EQ(runs[0].cpu_sender_pct, 99.0);
  EXPECT_EQ(runs[0].cpu_receiver_pct, 45.0);
  EXPECT_FALSE(runs[0].retransmits);  // nuttcp 5.x does not report them
  EXPECT_EQ(runs[0].duration_s, 10.0);
  EXPECT_EQ(runs[1].line, 5);
  EXPECT_EQ(runs[1].receiver_mbps, 5681.0125);
  EXPECT_EQ(runs[2].receiver_mbps, 5089.0451);
}

TEST(MeasureNuttcp, IntervalsRetransAndRtt) {
  const auto runs = runs_of("nuttcp-intervals.txt");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].line, 2);
  EXPECT_EQ(runs[0].receiver_mbps, 938.6011);
  EXPECT_EQ(runs[0].retransmits, 3u);
  EXPECT_EQ(runs[0].interval_mbps, (std::vector<double>{936.3950, 940.0651, 939.5422}));
}

TEST(MeasureNuttcp, Udp) {
  const auto runs = runs_of("nuttcp-udp.txt");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].protocol, "UDP");
  EXPECT_EQ(runs[0].receiver_mbps, 5399.7840);
  EXPECT_EQ(runs[0].cpu_receiver_pct, 58.0);
  EXPECT_EQ(runs[0].interval_mbps.size(), 3u);
}

TEST(MeasureNuttcp, Errors) {
  EXPECT_EQ(std::string(error_of("broken-nuttcp-garbled.txt").what()),
            kData + "broken-nuttcp-garbled.txt:2: error: unknown field '%XX'");
  EXPECT_STREQ(text_error(" 6398.6250 MB /  10.00 sec = 5367.3217 Mbit 99 %TX\n", MeasurementFormat::nuttcp).what(),
               "t.txt:1: error: malformed nuttcp line (expected 'MEGABYTES MB / SECONDS sec = RATE Mbps ...')");
  EXPECT_STREQ(text_error("  111.6250 MB /   1.00 sec =  936.3950 Mbps     0 retrans\n\n", MeasurementFormat::nuttcp).what(),
               "t.txt:1: error: no final line ('... Mbps N %TX N %RX ...') after the interval lines (truncated?)");
}

// ---------------------------------------------------------------------------
// Detection

TEST(MeasureDetection, EachSampleIsRecognised) {
  auto detected = [](const std::string& name) {
    const auto runs = runs_of(name);
    return runs.empty() ? std::string() : runs.front().tool;
  };
  EXPECT_EQ(detected("iperf3-client.json"), "iperf3-json");
  EXPECT_EQ(detected("iperf3-client-verbose.txt"), "iperf3-text");
  EXPECT_EQ(detected("iperf3-server.txt"), "iperf3-text");
  EXPECT_EQ(detected("iperf2-client-P2.txt"), "iperf2");
  EXPECT_EQ(detected("iperf2-server-P2.txt"), "iperf2");
  EXPECT_EQ(detected("iperf2-plain.txt"), "iperf2");
  EXPECT_EQ(detected("nuttcp-udp.txt"), "nuttcp");
  EXPECT_EQ(detected("nstat-receiver.txt"), "nstat");
  EXPECT_EQ(detected("netstat-tcp-sender.txt"), "netstat-tcp");
  EXPECT_EQ(detected("ping-freebsd.txt"), "ping");
  EXPECT_EQ(detected("ping-linux.txt"), "ping");
}

TEST(MeasureDetection, UnrecognisedAndEmptyFiles) {
  EXPECT_STREQ(text_error("$ ls\nfoo bar\n", MeasurementFormat::iperf3_text).what(),
               "t.txt: error: no complete iperf3-text run in the file");
  const MeasureError e = thrown([] { parse_measurements("$ ls\nfoo bar\n", "t.txt"); });
  EXPECT_EQ(e.line, 0);
  EXPECT_STREQ(e.what(),
               "t.txt: error: no measurement recognised (expected iperf3 -J JSON, iperf3 or iperf2 text output, "
               "nuttcp lines, nstat output, FreeBSD netstat -s -p tcp or netstat -I IFACE -d output, Linux /proc/net/dev, ping output or a SIFTR log)");
  const LoadedMeasurements missing = load_measurement_file(kData + "no-such-file.txt");
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_EQ(std::string(missing.errors[0].what()), kData + "no-such-file.txt: error: cannot read the file: No such file or directory");
}

}  // namespace
}  // namespace netsim::measure
