// iperf3 -J reports and the strict JSON reader behind them.
#include <gtest/gtest.h>

#include <string>

#include "measure_test_support.h"
#include "netsim/measure/measurement_file.h"

namespace netsim::measure {
namespace {

using test_support::kData;
using test_support::thrown;

MeasuredRun only_run(const std::string& name) {
  const LoadedMeasurements loaded = load_measurement_file(kData + name);
  EXPECT_TRUE(loaded.errors.empty()) << (loaded.errors.empty() ? "" : loaded.errors.front().what());
  EXPECT_EQ(loaded.runs.size(), 1u);
  return loaded.runs.empty() ? MeasuredRun{} : loaded.runs.front();
}

// The error of parsing `json` as iperf3 JSON in a file named "t.json".
MeasureError json_error(const std::string& json) {
  return thrown([&] { parse_measurements(json, "t.json", MeasurementFormat::iperf3_json); });
}

TEST(MeasureIperf3Json, ClientSingleStream) {
  const MeasuredRun run = only_run("iperf3-client.json");
  EXPECT_EQ(run.tool, "iperf3-json");
  EXPECT_EQ(run.side, "client");
  EXPECT_EQ(run.line, 1);
  EXPECT_EQ(run.protocol, "TCP");
  EXPECT_FALSE(run.reverse);
  EXPECT_EQ(run.streams, 1);
  ASSERT_TRUE(run.sender_mbps && run.receiver_mbps);
  // end.sum_sent / sum_received bits_per_second / 1e6.
  EXPECT_NEAR(*run.sender_mbps, 938.4595661873748, 1e-9);
  EXPECT_NEAR(*run.receiver_mbps, 934.1217925474052, 1e-9);
  EXPECT_DOUBLE_EQ(run.throughput_mbps, *run.receiver_mbps);
  EXPECT_EQ(run.retransmits, 3u);
  EXPECT_NEAR(run.duration_s, 3.000512, 1e-12);
  EXPECT_EQ(run.cpu_sender_pct, 5.25);  // host_total: the client sends
  EXPECT_EQ(run.cpu_receiver_pct, 20.5);
  EXPECT_EQ(run.congestion, "newreno");
  ASSERT_EQ(run.interval_mbps.size(), 3u);
  EXPECT_NEAR(run.interval_mbps[0], 936.2463572636259, 1e-9);
  EXPECT_NEAR(run.interval_mbps[2], 939.5635576694222, 1e-9);
}

TEST(MeasureIperf3Json, ClientTwoStreamsUsesTheSums) {
  const MeasuredRun run = only_run("iperf3-client-P2.json");
  EXPECT_EQ(run.streams, 2);
  EXPECT_NEAR(*run.sender_mbps, 939.4296833168265, 1e-9);
  EXPECT_NEAR(*run.receiver_mbps, 936.0722723669361, 1e-9);
  EXPECT_EQ(run.retransmits, 7u);
  EXPECT_EQ(run.congestion, "cubic");
  ASSERT_EQ(run.interval_mbps.size(), 2u);
  EXPECT_NEAR(run.interval_mbps[1], 947.8283472770921, 1e-9);
}

TEST(MeasureIperf3Json, ConcatenatedReportsAreSeveralRuns) {
  const std::string one = R"({"start": {"connecting_to": {"host": "h", "port": 5201},
 "test_start": {"protocol": "TCP", "num_streams": 1, "reverse": 1}},
 "intervals": [{"sum": {"bits_per_second": 5e8, "omitted": true}}, {"sum": {"bits_per_second": 6e8, "omitted": false}}],
 "end": {"sum_sent": {"start": 0, "end": 10, "bytes": 1, "bits_per_second": 7e8, "retransmits": 2},
         "sum_received": {"start": 0, "end": 10.5, "bytes": 1, "bits_per_second": 6.5e8},
         "cpu_utilization_percent": {"host_total": 10, "remote_total": 90}}}
)";
  const auto runs = parse_measurements(one + one, "two.json");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].line, 1);
  EXPECT_EQ(runs[1].line, 7);
  // -R: the client receives, so its own CPU (host_total) is the receiver's.
  EXPECT_TRUE(runs[1].reverse);
  EXPECT_EQ(runs[1].cpu_receiver_pct, 10.0);
  EXPECT_EQ(runs[1].cpu_sender_pct, 90.0);
  EXPECT_EQ(runs[1].interval_mbps, std::vector<double>{600.0});  // the omitted interval is left out
  EXPECT_EQ(runs[1].receiver_mbps, 650.0);
  EXPECT_DOUBLE_EQ(runs[1].duration_s, 10.5);
}

TEST(MeasureIperf3Json, ServerKnowsOnlyItsOwnHalf) {
  // iperf3 -s prints before the results exchange: the sender's half is zeros.
  const std::string server = R"({"start": {"accepted_connection": {"host": "h", "port": 1},
 "test_start": {"protocol": "TCP", "num_streams": 1, "reverse": 0}}, "intervals": [],
 "end": {"sum_sent": {"start": 0, "end": 10, "bytes": 0, "bits_per_second": 0},
         "sum_received": {"start": 0, "end": 10, "bytes": 5, "bits_per_second": 9.4e8},
         "cpu_utilization_percent": {"host_total": 20, "remote_total": 0}}})";
  const auto run = parse_measurements(server, "s.json").front();
  EXPECT_EQ(run.side, "server");
  EXPECT_FALSE(run.sender_mbps);
  EXPECT_FALSE(run.retransmits);
  EXPECT_EQ(run.receiver_mbps, 940.0);
  EXPECT_EQ(run.cpu_receiver_pct, 20.0);
  EXPECT_FALSE(run.cpu_sender_pct);
}

TEST(MeasureIperf3Json, TruncatedFileNamesTheLastLine) {
  const LoadedMeasurements loaded = load_measurement_file(kData + "broken-iperf3-truncated.json");
  EXPECT_TRUE(loaded.runs.empty());
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_EQ(loaded.errors[0].line, 100);
  EXPECT_EQ(std::string(loaded.errors[0].what()),
            kData + "broken-iperf3-truncated.json:100: error: JSON: expected a member name in double quotes, found the "
                    "end of the file");
}

TEST(MeasureIperf3Json, StrictJsonSyntax) {
  EXPECT_STREQ(json_error("{\"a\": 1,\n}").what(), "t.json:2: error: JSON: expected a member name in double quotes, found '}'");
  EXPECT_STREQ(json_error("{\"a\": 1,\n \"a\": 2}").what(), "t.json:2: error: JSON: duplicate member \"a\"");
  EXPECT_STREQ(json_error("{\"a\":\n 01}").what(), "t.json:2: error: JSON: expected ',' or '}' in an object, found '1'");
  EXPECT_STREQ(json_error("{\"a\": nan}").what(), "t.json:1: error: JSON: expected a value, found 'n'");
  EXPECT_STREQ(json_error("{'a': 1}").what(), "t.json:1: error: JSON: expected a member name in double quotes, found '''");
  EXPECT_STREQ(json_error("{\"a\": \"x\ny\"}").what(),
               "t.json:1: error: JSON: control character in a string (a newline must be written \\n)");
}

TEST(MeasureIperf3Json, MissingAndMistypedMembersNameTheirPathAndLine) {
  EXPECT_STREQ(json_error("{\n\"start\": {}}").what(),
               "t.json:2: error: missing \"start.test_start\" (not an iperf3 -J report, or truncated?)");
  const std::string head = "{\"start\": {\"test_start\": {\"protocol\": \"TCP\", \"num_streams\": 1}},\n";
  EXPECT_STREQ(json_error(head + "\"end\": {\"sum_sent\":\n \"fast\"}}").what(),
               "t.json:3: error: \"end.sum_sent\" must be an object, not a string");
  EXPECT_STREQ(json_error(head + "\"error\": \"unable to connect to server: Connection refused\"}").what(),
               "t.json:2: error: iperf3 reported an error: unable to connect to server: Connection refused");
  EXPECT_STREQ(json_error("{\"start\": {\"test_start\": {\n\"protocol\": \"UDP\"}}}").what(),
               "t.json:2: error: only TCP tests are supported, not UDP");
}

}  // namespace
}  // namespace netsim::measure
