// SIFTR logs as measured data: detected as format siftr, one MeasuredRun per
// session with the siftr_* metrics and its series, through --data and
// mapping files, and a log too large to want in memory twice, streamed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "measure_test_support.h"
#include "netsim/measure/measured_cells.h"
#include "netsim/measure/measurement_file.h"
#include "netsim/measure/measurement_mapping.h"
#include "netsim/measure/siftr_flow_series.h"

namespace netsim::measure {
namespace {

using test_support::kData;
using test_support::runs_of;

constexpr const char* kEnable =
    "enable_time_secs=1685191807\tenable_time_usecs=160752\tsiftrver=1.3.0\tsysname=FreeBSD\tsysver=1400089\t"
    "ipmode=6\n";
constexpr const char* kData130 =
    "o,1685191814.185109,10.1.1.2,32291,10.1.1.3,5001,1073725440,14480,2,65160,65700,7,9,4,1460,1000,1,16778209,"
    "230000,33580,0,65700,0,0,0,86707916,130\n";

std::string detected(const std::string& name) {
  std::ifstream in(kData + name, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return format_name(detect_format(text, name));
}

TEST(MeasureSiftrRuns, DetectedAsSiftr) {
  EXPECT_EQ(detected("siftr-sample.log"), "siftr");
  EXPECT_EQ(detected("siftr-1.2.4.log"), "siftr");
  // Without its enable line first (a prompt before it, or only data lines),
  // by its 27- or 28-field data lines.
  EXPECT_EQ(format_name(detect_format(std::string("$ tail siftr.log\n") + kData130 + kData130, "t")), "siftr");
  EXPECT_EQ(format_name(MeasurementFormat::siftr), "siftr");
  EXPECT_EQ(format_from_name("siftr"), MeasurementFormat::siftr);
  // The other formats are still theirs.
  EXPECT_EQ(detected("ping-freebsd.txt"), "ping");
  EXPECT_EQ(detected("iperf3-client.json"), "iperf3-json");
  EXPECT_EQ(detected("nuttcp-tcp.txt"), "nuttcp");
}

TEST(MeasureSiftrRuns, SampleGivesARunPerSession) {
  const auto runs = runs_of("siftr-sample.log");
  ASSERT_EQ(runs.size(), 2u);
  const MeasuredRun& r = runs[0];
  EXPECT_EQ(r.file, kData + "siftr-sample.log");
  EXPECT_EQ(r.line, 1);
  EXPECT_EQ(r.tool, "siftr");
  EXPECT_EQ(r.side, "");
  EXPECT_EQ(r.protocol, "TCP");
  EXPECT_FALSE(r.has_rates);
  EXPECT_FALSE(r.siftr_cut);
  EXPECT_EQ(r.streams, 2);
  EXPECT_NEAR(r.duration_s, 1685191816.629397 - 1685191807.160752, 1e-6);
  EXPECT_EQ(metric_value(r, "siftr_records_in"), 8.0);
  EXPECT_EQ(metric_value(r, "siftr_records_out"), 8.0);
  EXPECT_EQ(metric_value(r, "siftr_records"), 16.0);
  EXPECT_EQ(metric_value(r, "siftr_log_bytes"), 2891.0);  // lines 1-18 of the file
  EXPECT_EQ(metric_value(r, "siftr_packets"), 20.0);
  EXPECT_EQ(metric_value(r, "siftr_skipped"), 4.0);
  EXPECT_FALSE(metric_value(r, "throughput_mbps").has_value());
  EXPECT_FALSE(metric_value(r, "receiver_mbps").has_value());
  EXPECT_FALSE(metric_value(r, "rtt_avg_ms").has_value());
  // Both runs' sizes are the file's.
  EXPECT_EQ(*runs[0].siftr_log_bytes + *runs[1].siftr_log_bytes,
            std::filesystem::file_size(kData + "siftr-sample.log"));
  EXPECT_EQ(runs[1].line, 19);

  // Its series, in the default bins, for the trace comparison.
  ASSERT_NE(r.siftr_series, nullptr);
  const SiftrSummary& s = *r.siftr_series;
  EXPECT_EQ(s.options.bin_width, SiftrSeriesOptions{}.bin_width);
  EXPECT_EQ(s.records_in, 8u);
  ASSERT_EQ(s.flows.size(), 2u);
  EXPECT_EQ(s.flows[0].flow.lport, 32291);
  EXPECT_EQ(s.flows[1].flow.lport, 58544);
  ASSERT_EQ(s.flows[0].bins.size(), 1u);  // 15 ms of records
  EXPECT_EQ(s.flows[0].bins[0].records(), 8u);
  EXPECT_EQ(runs[1].siftr_series->flows[0].flow.laddr.family, IpVersion::v6);

  // Other reports carry none of it.
  const auto ping = runs_of("ping-freebsd.txt");
  ASSERT_FALSE(ping.empty());
  for (const char* m : {"siftr_records_in", "siftr_records", "siftr_log_bytes", "siftr_skipped"}) {
    EXPECT_FALSE(metric_value(ping[0], m).has_value()) << m;
  }
  EXPECT_EQ(ping[0].siftr_series, nullptr);
}

TEST(MeasureSiftrRuns, CutLogHasNoCounters) {
  const std::string text = std::string(kEnable) + kData130 + kData130;
  const auto runs = parse_measurements(text, "cut.log");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_TRUE(runs[0].siftr_cut);
  EXPECT_EQ(metric_value(runs[0], "siftr_records"), 2.0);
  EXPECT_EQ(metric_value(runs[0], "siftr_log_bytes"), static_cast<double>(text.size()));
  EXPECT_FALSE(metric_value(runs[0], "siftr_packets").has_value());
  EXPECT_FALSE(metric_value(runs[0], "siftr_skipped").has_value());
  EXPECT_NEAR(runs[0].duration_s, 1685191814.185109 - 1685191807.160752, 1e-6);  // to its last record
}

TEST(MeasureSiftrRuns, MetricsAndMapping) {
  const auto& names = metric_names();
  for (const char* name : {"siftr_records_in", "siftr_records_out", "siftr_records", "siftr_log_bytes", "siftr_packets",
                           "siftr_skipped"}) {
    EXPECT_TRUE(is_metric(name)) << name;
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  const MeasurementMapping mapping = parse_mapping_text(
      "runs:\n"
      "  - { file: siftr-sample.log, params: { family: 4 }, format: siftr, metric: siftr_log_bytes }\n"
      "  - { file: siftr-1.2.4.log, params: { family: 6 } }\n",
      kData + "siftr.yaml");
  ASSERT_EQ(mapping.entries.size(), 2u);
  EXPECT_EQ(mapping.entries[0].format, MeasurementFormat::siftr);
  const MeasuredCells cells = cells_from(mapping, "siftr_records");
  EXPECT_TRUE(cells.errors.empty()) << (cells.errors.empty() ? "" : cells.errors[0].what());
  ASSERT_EQ(cells.cells.size(), 3u);
  EXPECT_EQ(cells.cells[0].metric, "siftr_log_bytes");
  EXPECT_EQ(cells.cells[0].value, 2891.0);
  EXPECT_EQ(cells.cells[0].source, kData + "siftr-sample.log:1");
  EXPECT_EQ(cells.cells[2].metric, "siftr_records");
  EXPECT_EQ(cells.cells[2].value, 6.0);
}

TEST(MeasureSiftrRuns, ErrorsThroughTheMeasurementFiles) {
  EXPECT_EQ(test_support::parse_error(std::string(kEnable) + "o,1,2\n", MeasurementFormat::siftr),
            "t.txt:2: error: expected 27 comma-separated fields (siftrver 1.3.0), found 3");
  EXPECT_EQ(test_support::parse_error("no log\n", MeasurementFormat::siftr),
            "t.txt: error: no complete siftr run in the file");
  const LoadedMeasurements missing = load_measurement_file(kData + "no-such.log", MeasurementFormat::siftr);
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_EQ(std::string(missing.errors[0].what()),
            kData + "no-such.log: error: cannot read the file: No such file or directory");
}

TEST(MeasureSiftrRuns, LargeLogIsStreamed) {
  // 200000 records (about 30 MB), read from the file line by line: the
  // memory it takes is the series', not the log's.
  const std::string path = testing::TempDir() + "siftr-large.log";
  constexpr int kRecords = 200'000;
  {
    std::ofstream out(path, std::ios::binary);
    out << kEnable;
    char line[256];
    for (int i = 0; i < kRecords; ++i) {
      const int us = i * 50;  // 10 s of records
      std::snprintf(line, sizeof(line),
                    "%c,%d.%06d,10.1.1.2,32291,10.1.1.3,5001,1073725440,%d,2,65160,65700,7,9,4,1460,%d,1,16778209,"
                    "230000,33580,0,65700,0,%d,0,86707916,130\n",
                    i % 3 == 0 ? 'i' : 'o', 1685191814 + us / 1'000'000, us % 1'000'000, 14480 + i % 1000, 1000 + i % 7,
                    i % 5000);
      out << line;
    }
  }
  const LoadedMeasurements loaded = load_measurement_file(path);
  ASSERT_TRUE(loaded.errors.empty()) << loaded.errors[0].what();
  ASSERT_EQ(loaded.runs.size(), 1u);
  const MeasuredRun& r = loaded.runs[0];
  EXPECT_TRUE(r.siftr_cut);
  EXPECT_EQ(metric_value(r, "siftr_records"), static_cast<double>(kRecords));
  EXPECT_EQ(*r.siftr_records_in, static_cast<std::uint64_t>((kRecords + 2) / 3));
  EXPECT_EQ(*r.siftr_log_bytes, std::filesystem::file_size(path));
  ASSERT_EQ(r.siftr_series->flows.size(), 1u);
  EXPECT_EQ(r.siftr_series->flows[0].bins.size(), 100u);  // 10 s in 100 ms bins
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace netsim::measure
