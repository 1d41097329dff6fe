// Mapping files, --data arguments and the measured cells built from them.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "measure_test_support.h"
#include "netsim/measure/measured_cells.h"
#include "netsim/measure/measurement_mapping.h"

namespace netsim::measure {
namespace {

using test_support::kData;
using test_support::thrown;

std::string mapping_error(const std::string& yaml) {
  return thrown([&] { parse_mapping_text(yaml, "m.yaml"); }).what();
}

std::string data_arg_error(const std::string& arg) {
  return thrown([&] { parse_data_arg(arg); }).what();
}

TEST(MeasureMapping, LoadsEntriesWithResolvedPaths) {
  const MeasurementMapping m = load_mapping(kData + "measurements.yaml");
  ASSERT_EQ(m.entries.size(), 6u);
  EXPECT_EQ(m.entries[0].file, kData + "iperf3-client.json");
  EXPECT_EQ(m.entries[0].params, (std::map<std::string, std::string>{{"cc", "newreno"}, {"hz", "100"}, {"every", "100"}}));
  EXPECT_EQ(m.entries[0].metric, "");
  EXPECT_EQ(m.entries[0].source, kData + "measurements.yaml:3");
  EXPECT_EQ(m.entries[2].params, (std::map<std::string, std::string>{{"hosts.sender.hz", "100"}}));
  EXPECT_EQ(m.entries[2].metric, "cpu_sender_pct");
  EXPECT_EQ(m.entries[2].source, kData + "measurements.yaml:5");

  const MeasurementMapping abs = parse_mapping_text("runs:\n - {file: /a/b.json, params: {}, format: nuttcp}\n", "d/m.yaml");
  EXPECT_EQ(abs.entries[0].file, "/a/b.json");
  EXPECT_EQ(abs.entries[0].format, MeasurementFormat::nuttcp);
  EXPECT_TRUE(abs.entries[0].params.empty());
  EXPECT_EQ(parse_mapping_text("runs:\n - {file: b.json, params: {}}\n", "d/m.yaml").entries[0].file, "d/b.json");
  // Which of a scenario's flows a file measured (T2's senders).
  const MeasurementMapping flows =
      parse_mapping_text("runs:\n - {file: s1.txt, params: {hz: 100}, flow: s1}\n - {file: x.txt, params: {}}\n", "m.yaml");
  EXPECT_EQ(flows.entries[0].flow, "s1");
  EXPECT_EQ(flows.entries[1].flow, "");
}

TEST(MeasureMapping, StrictEntries) {
  EXPECT_EQ(mapping_error("runs:\n  - { file: a.json, params: { cc: cubic }, metrc: x }\n"),
            "m.yaml:2: error: unknown key 'metrc' (expected file, params, metric, format, flow)");
  EXPECT_EQ(mapping_error("runs:\n  - { file: a.json, params: {}, flow: '' }\n"), "m.yaml:2: error: 'flow' must not be empty");
  EXPECT_EQ(mapping_error("runs:\n  - { file: a.json, params: { cc: [a, b] } }\n"),
            "m.yaml:2: error: parameter 'cc' must be a single value");
  EXPECT_EQ(mapping_error("runs:\n  - { file: a.json, params: { cc: a, cc: b } }\n"),
            "m.yaml:2: error: parameter 'cc' is given twice");
  EXPECT_EQ(mapping_error("runs:\n  - { file: a.json }\n"), "m.yaml:2: error: missing 'params'");
  EXPECT_EQ(mapping_error("runs:\n  - { file: a.json, params: {}, metric: goodput }\n"),
            "m.yaml:2: error: unknown metric 'goodput' (expected receiver_mbps, sender_mbps, throughput_mbps, "
            "retransmits, cpu_sender_pct, cpu_receiver_pct, rto_count, recovery_episodes, receiver_delayed_acks, "
            "sender_tx_drops, receiver_rx_drops, receiver_pause_frames, rtt_min_ms, rtt_avg_ms, rtt_max_ms, "
            "rtt_stddev_ms, siftr_records_in, siftr_records_out, siftr_records, siftr_log_bytes, siftr_packets, "
            "siftr_skipped)");
  EXPECT_EQ(mapping_error("runs:\n  - { file: a.json, params: {}, format: iperf4 }\n"),
            "m.yaml:2: error: unknown format 'iperf4' (expected iperf3-json, iperf3-text, iperf2, nuttcp, nstat, netstat-tcp, netstat-if, proc-net-dev, ethtool-s, ping or siftr)");
  EXPECT_EQ(mapping_error("runs: []\n"), "m.yaml:1: error: 'runs' must be a non-empty list");
  EXPECT_EQ(mapping_error("run:\n  - { file: a.json, params: {} }\n"), "m.yaml:1: error: unknown key 'run' (expected runs)");
  EXPECT_EQ(mapping_error("# nothing\n"), "m.yaml: error: the mapping file is empty: expected 'runs:'");
  EXPECT_EQ(mapping_error("runs:\n  - { file: a.json, params: {\n"), "m.yaml:3: error: invalid YAML: end of map flow not found");
}

TEST(MeasureMapping, DataArguments) {
  const MappingEntry e = parse_data_arg("logs/x.json:cc=cubic, hz=100");
  EXPECT_EQ(e.file, "logs/x.json");
  EXPECT_EQ(e.params, (std::map<std::string, std::string>{{"cc", "cubic"}, {"hz", "100"}}));
  EXPECT_EQ(e.source, "--data logs/x.json:cc=cubic, hz=100");
  EXPECT_TRUE(parse_data_arg("logs/x.json").params.empty());
  EXPECT_EQ(parse_data_arg("C:logs/x.json:hosts.sender.hz=100").file, "C:logs/x.json");  // split at the last ':'
  EXPECT_EQ(data_arg_error("logs/x.json:cc=cubic,hz"), "--data logs/x.json:cc=cubic,hz: error: 'hz' is not KEY=VALUE");
  EXPECT_EQ(data_arg_error(":cc=cubic"), "--data :cc=cubic: error: no file before the parameters");
  EXPECT_EQ(data_arg_error("x:cc=a,cc=b"), "--data x:cc=a,cc=b: error: parameter 'cc' is given twice");
  EXPECT_EQ(data_arg_error("x:cc="), "--data x:cc=: error: 'cc=' needs a key and a value");
}

TEST(MeasureCells, BrokenFilesAreReportedAndTheRestLoads) {
  const MeasuredCells c = cells_from(load_mapping(kData + "measurements.yaml"));
  ASSERT_EQ(c.cells.size(), 5u);
  EXPECT_EQ(c.cells[0].metric, "receiver_mbps");
  EXPECT_NEAR(c.cells[0].value, 934.1217925474052, 1e-9);
  EXPECT_EQ(c.cells[0].params.at("cc"), "newreno");
  EXPECT_EQ(c.cells[0].source, kData + "iperf3-client.json:1");
  EXPECT_EQ(c.cells[0].entry, kData + "measurements.yaml:3");
  // Three nuttcp runs for the same parameters: three samples, in file order.
  for (std::size_t i = 1; i <= 3; ++i) {
    EXPECT_EQ(c.cells[i].metric, "cpu_sender_pct");
    EXPECT_EQ(c.cells[i].params.at("hosts.sender.hz"), "100");
  }
  EXPECT_EQ(c.cells[1].value, 99.0);
  EXPECT_EQ(c.cells[3].value, 98.0);
  EXPECT_EQ(c.cells[3].source, kData + "nuttcp-tcp.txt:7");
  EXPECT_EQ(c.cells[4].metric, "sender_mbps");
  EXPECT_EQ(c.cells[4].value, 21800.0);

  ASSERT_EQ(c.errors.size(), 4u);
  EXPECT_EQ(std::string(c.errors[0].what()), kData + "broken-iperf3-garbled.txt:5: error: malformed rate '9#0'");
  EXPECT_EQ(std::string(c.errors[1].what()), kData + "missing.json: error: cannot read the file: No such file or directory");
  // iperf2 client reports measure the sender: no receiver_mbps.
  EXPECT_EQ(std::string(c.errors[2].what()),
            kData + "iperf2-plain.txt:3: error: this iperf2 client report has no receiver_mbps (it has sender_mbps, "
                    "throughput_mbps; set 'metric' for " +
                kData + "measurements.yaml:10)");
  EXPECT_EQ(c.errors[3].line, 13);
}

TEST(MeasureCells, MetricArgumentAndEntryMetric) {
  MeasurementMapping m;
  m.entries.push_back(parse_data_arg(kData + "iperf2-plain.txt:cc=newreno"));
  const MeasuredCells c = cells_from(m, "throughput_mbps");
  ASSERT_EQ(c.cells.size(), 2u);
  EXPECT_TRUE(c.errors.empty());
  EXPECT_EQ(c.cells[1].value, 941.0);
  EXPECT_EQ(c.cells[1].entry, "--data " + kData + "iperf2-plain.txt:cc=newreno");
  m.entries[0].metric = "retransmits";
  EXPECT_EQ(cells_from(m, "throughput_mbps").errors.size(), 2u);  // the entry's metric wins; plain iperf2 has none
  EXPECT_THROW(cells_from(m, "goodput"), std::invalid_argument);
}

}  // namespace
}  // namespace netsim::measure
