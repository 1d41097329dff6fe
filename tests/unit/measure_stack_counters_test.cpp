// Counter snapshots of the TCP stacks: Linux nstat (the receiver's delayed-ACK
// timer ACKs) and FreeBSD netstat -s -p tcp (the sender's retransmitted
// segments, RTOs and SACK recoveries), from samples under tests/data/measure/.
#include <gtest/gtest.h>

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

TEST(MeasureNstat, ReceiverSnapshotAfterShellPrompts) {
  const auto runs = runs_of("nstat-receiver.txt");
  ASSERT_EQ(runs.size(), 1u);
  const MeasuredRun& r = runs[0];
  EXPECT_EQ(r.tool, "nstat");
  EXPECT_EQ(r.side, "receiver");
  EXPECT_EQ(r.line, 2);  // the "#kernel" header
  ASSERT_TRUE(r.receiver_delayed_acks.has_value());
  EXPECT_EQ(*r.receiver_delayed_acks, 137u);  // not TcpExtDelayedACKLost (3018) on the next line
  EXPECT_EQ(metric_value(r, "receiver_delayed_acks"), 137.0);
  // A counter snapshot has no rate, and none of the sender's counters.
  EXPECT_FALSE(metric_value(r, "throughput_mbps").has_value());
  EXPECT_FALSE(metric_value(r, "receiver_mbps").has_value());
  EXPECT_FALSE(metric_value(r, "retransmits").has_value());
  EXPECT_FALSE(metric_value(r, "rto_count").has_value());
}

TEST(MeasureNstat, EachHeaderStartsARunAndAMissingCounterIsZero) {
  const auto runs = runs_of("nstat-two-runs.txt");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].line, 1);
  EXPECT_EQ(runs[0].receiver_delayed_acks, 12u);
  EXPECT_EQ(runs[1].line, 4);
  EXPECT_EQ(runs[1].receiver_delayed_acks, 0u);  // nstat leaves zero counters out
}

TEST(MeasureNstat, PastedCounterLinesWithoutHeaderAreOneRun) {
  const auto runs = parse_measurements("TcpExtDelayedACKs 41\nTcpExtTCPOFOQueue 7 0.0\n", "t.txt");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].tool, "nstat");
  EXPECT_EQ(runs[0].line, 1);
  EXPECT_EQ(runs[0].receiver_delayed_acks, 41u);
}

TEST(MeasureNstat, Errors) {
  EXPECT_EQ(file_error("broken-nstat-value.txt"),
            kData + "broken-nstat-value.txt:3: error: malformed value '1e3' of TcpExtDelayedACKs");
  auto error = [](const std::string& text) { return test_support::parse_error(text, MeasurementFormat::nstat); };
  EXPECT_EQ(error("#kernel\nTcpExtDelayedACKs 3 0.0\nTcpExtDelayedACKs 4 0.0\n"),
            "t.txt:3: error: TcpExtDelayedACKs appears twice in one snapshot (a new one starts with '#kernel')");
  EXPECT_EQ(error("#kernel\nTcpInSegs 3 fast\n"), "t.txt:2: error: malformed rate 'fast' of TcpInSegs");
  EXPECT_EQ(error("#kernel\nTcpInSegs 3 0.0 extra\n"), "t.txt:2: error: malformed nstat line (expected 'COUNTER VALUE RATE')");
  EXPECT_EQ(error("$ nstat\n"), "t.txt: error: no complete nstat run in the file");
}

TEST(MeasureNetstatTcp, FreeBsdSenderSection) {
  const auto runs = runs_of("netstat-tcp-sender.txt");
  ASSERT_EQ(runs.size(), 1u);
  const MeasuredRun& r = runs[0];
  EXPECT_EQ(r.tool, "netstat-tcp");
  EXPECT_EQ(r.side, "sender");
  EXPECT_EQ(r.line, 2);
  EXPECT_EQ(r.retransmits, 4218u);  // not "0 data packets unnecessarily retransmitted"
  EXPECT_EQ(r.rto_count, 9u);
  // Not "4190 segment rexmits in SACK recovery episodes".
  EXPECT_EQ(r.recovery_episodes, 1398u);
  EXPECT_EQ(metric_value(r, "rto_count"), 9.0);
  EXPECT_EQ(metric_value(r, "recovery_episodes"), 1398.0);
  EXPECT_EQ(metric_value(r, "retransmits"), 4218.0);
  EXPECT_FALSE(metric_value(r, "throughput_mbps").has_value());
  EXPECT_FALSE(metric_value(r, "receiver_delayed_acks").has_value());
}

TEST(MeasureNetstatTcp, SingularLinesSectionsAndOmittedZeros) {
  // netstat -ss leaves zero counters out; "udp:" ends the second section.
  const auto runs = runs_of("netstat-tcp-ss-two-runs.txt");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].rto_count, 1u);
  EXPECT_EQ(runs[0].retransmits, 1u);
  EXPECT_EQ(runs[0].recovery_episodes, 0u);
  EXPECT_EQ(runs[1].line, 4);
  EXPECT_EQ(runs[1].rto_count, 0u);
  EXPECT_EQ(runs[1].retransmits, 4218u);
  EXPECT_EQ(runs[1].recovery_episodes, 1u);
}

TEST(MeasureNetstatTcp, Errors) {
  EXPECT_EQ(file_error("broken-netstat-count.txt"),
            kData + "broken-netstat-count.txt:4: error: malformed count 'nine' of 'retransmit timeouts'");
  auto error = [](const std::string& text) { return test_support::parse_error(text, MeasurementFormat::netstat_tcp); };
  EXPECT_EQ(error("tcp:\n\t3 retransmit timeouts\n\t4 retransmit timeouts\n"),
            "t.txt:3: error: 'retransmit timeouts' appears twice in one tcp: section");
  EXPECT_EQ(error("tcp:\n\t\t3 data packets (x bytes) retransmitted\n"),
            "t.txt:2: error: malformed byte count 'x' of 'data packets (...) retransmitted'");
  // Counter lines outside a tcp: section are not the stack's TCP counters.
  EXPECT_EQ(error("\t3 retransmit timeouts\n"), "t.txt: error: no complete netstat-tcp run in the file");
}

TEST(MeasureNetstatIf, DropsOfTheBoxInterfaceBetweenTwoSnapshots) {
  // Two runs: netstat -I re0 -d before and after each (the second pair with
  // -b, whose Ibytes and Obytes columns move Drop to another word).
  const auto runs = runs_of("netstat-if-box.txt");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].tool, "netstat-if");
  EXPECT_EQ(runs[0].side, "sender");
  EXPECT_EQ(runs[0].line, 2);  // the first snapshot's header
  EXPECT_EQ(runs[0].tx_drops, 1693u - 120u);
  EXPECT_EQ(metric_value(runs[0], "sender_tx_drops"), 1573.0);
  EXPECT_EQ(runs[1].line, 12);
  EXPECT_EQ(runs[1].tx_drops, 2001u - 1693u);
  EXPECT_FALSE(metric_value(runs[1], "throughput_mbps").has_value());
  EXPECT_FALSE(metric_value(runs[1], "rto_count").has_value());
  // An interface without a link-level address leaves Address blank: the
  // counters are taken from the end of the line.
  const std::string header = "Name    Mtu Network       Address              Ipkts Ierrs Idrop    Opkts Oerrs  Coll  Drop\n";
  const auto lo = parse_measurements(header + "lo0   16384 <Link#2>                              10     0     0       10     0     0     3\n" +
                                         header + "lo0   16384 <Link#2>                              12     0     0       12     0     0     5\n",
                                     "t.txt", MeasurementFormat::netstat_if);
  ASSERT_EQ(lo.size(), 1u);
  EXPECT_EQ(lo[0].tx_drops, 2u);
}

TEST(MeasureNetstatIf, Errors) {
  auto error = [](const std::string& text) { return test_support::parse_error(text, MeasurementFormat::netstat_if); };
  const std::string header = "Name    Mtu Network       Address              Ipkts Ierrs Idrop    Opkts Oerrs  Coll  Drop\n";
  auto link = [](const std::string& name, const std::string& drop) {
    return name + "    1500 <Link#1>      7c:83:34:b9:1a:2e  1234567     0     0  2345678     0     0 " + drop + "\n";
  };
  EXPECT_EQ(error("Name    Mtu Network       Address              Ipkts Ierrs Idrop    Opkts Oerrs  Coll\n" + link("re0", "0")),
            "t.txt:1: error: no Drop column: run netstat -I IFACE -d");
  EXPECT_EQ(error(header + link("re0", "10")),
            "t.txt:1: error: this snapshot has no pair: give netstat -I IFACE -d before and after each run");
  EXPECT_EQ(error(header + link("re0", "10") + header + link("re0", "9")),
            "t.txt:3: error: the Drop counter went down (10 -> 9): the interface was reset between the snapshots");
  EXPECT_EQ(error(header + link("re0", "10") + header + link("em0", "12")),
            "t.txt:3: error: the snapshot after the run is of em0, the one before it (line 1) of re0");
  EXPECT_EQ(error(header + link("re0", "10") + link("em0", "12")),
            "t.txt:3: error: a second interface (re0, em0) in one snapshot: netstat -I IFACE shows one");
  EXPECT_EQ(error(header + link("re0", "1.2K") + header + link("re0", "2K")),
            "t.txt:2: error: malformed Drop count '1.2K'");
  EXPECT_EQ(error(header + header + link("re0", "1")),
            "t.txt:1: error: no <Link#N> line after this header: the interface's counters");
  EXPECT_EQ(error(header + "re0 1500 <Link#1> 0\n"), "t.txt:2: error: a <Link#N> line with fewer counters than its header");
}

TEST(MeasureProcNetDev, ReceiveDropsOfTheReceiverBetweenTwoSnapshots) {
  // Two runs: /proc/net/dev's header and the receiver's interface, before
  // and after each; the receive drop column is the fourth count.
  const auto runs = runs_of("proc-net-dev-receiver.txt");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].tool, "proc-net-dev");
  EXPECT_EQ(runs[0].side, "receiver");
  EXPECT_EQ(runs[0].line, 2);
  EXPECT_EQ(runs[0].rx_drops, 0u);
  EXPECT_EQ(metric_value(runs[1], "receiver_rx_drops"), 225.0);
  EXPECT_EQ(runs[1].line, 10);
  EXPECT_FALSE(metric_value(runs[1], "sender_tx_drops").has_value());
  EXPECT_FALSE(metric_value(runs[1], "throughput_mbps").has_value());
  // Older kernels glue the first count to the colon.
  const std::string header =
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n";
  const auto glued = parse_measurements(header + "  eth0:100 10 0 4 0 0 0 0 200 20 0 0 0 0 0 0\n" + header +
                                            "  eth0:900 90 0 9 0 0 0 0 800 80 0 0 0 0 0 0\n",
                                        "t.txt", MeasurementFormat::proc_net_dev);
  ASSERT_EQ(glued.size(), 1u);
  EXPECT_EQ(glued[0].rx_drops, 5u);
}

TEST(MeasureProcNetDev, Errors) {
  auto error = [](const std::string& text) { return test_support::parse_error(text, MeasurementFormat::proc_net_dev); };
  const std::string header = "Inter-|   Receive |  Transmit\n face |bytes packets errs drop|bytes packets\n";
  auto line = [](const std::string& name, const std::string& drop) {
    return name + ": 100 10 0 " + drop + " 0 0 0 0 200 20 0 0 0 0 0 0\n";
  };
  EXPECT_EQ(error(header + line("eno1", "4")),
            "t.txt:1: error: this snapshot has no pair: give /proc/net/dev before and after each run");
  EXPECT_EQ(error(header + line("eno1", "4") + header + line("eno1", "3")),
            "t.txt:4: error: the drop counter went down (4 -> 3): the interface was reset between the snapshots");
  EXPECT_EQ(error(header + line("eno1", "4") + header + line("eno2", "5")),
            "t.txt:4: error: the snapshot after the run is of eno2, the one before it (line 1) of eno1");
  EXPECT_EQ(error(header + line("lo", "0") + line("eno1", "4")),
            "t.txt:4: error: a second interface (lo, eno1) in one snapshot: keep one, e.g. grep -E '^ *(Inter|face|lo:)' "
            "/proc/net/dev");
  EXPECT_EQ(error(header + "eno1: 100 10 0 4\n"), "t.txt:3: error: an interface line with 4 counts (expected 16)");
  EXPECT_EQ(error(header + "eno1: 100 10 0 x 0 0 0 0 200 20 0 0 0 0 0 0\n"), "t.txt:3: error: malformed count 'x'");
  EXPECT_EQ(error(header + header + line("eno1", "1")), "t.txt:1: error: no interface line after this header");
}

TEST(MeasureEthtoolStats, PauseFramesTheReceiverSentBetweenTwoSnapshots) {
  // Two runs of ethtool -S before and after, shell prompts between them:
  // none sent in the first, 2500 XON + 2502 XOFF in the second.
  const auto runs = runs_of("ethtool-s-receiver.txt");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].tool, "ethtool-s");
  EXPECT_EQ(runs[0].side, "receiver");
  EXPECT_EQ(runs[0].line, 2);
  EXPECT_EQ(runs[0].pause_frames_sent, 0u);
  EXPECT_EQ(metric_value(runs[1], "receiver_pause_frames"), 5002.0);
  EXPECT_EQ(runs[1].line, 26);
  EXPECT_FALSE(metric_value(runs[1], "receiver_rx_drops").has_value());
  EXPECT_FALSE(metric_value(runs[1], "throughput_mbps").has_value());
  // Other drivers' names: bnxt's tx_pause_frames, mlx5's tx_pause_ctrl_phy.
  const auto other = parse_measurements(
      "NIC statistics:\n     tx_pause_frames: 4\n     rx_pause_frames: 9\n"
      "NIC statistics:\n     tx_pause_frames: 10\n     rx_pause_frames: 90\n"
      "NIC statistics:\n     tx_pause_ctrl_phy: 1\nNIC statistics:\n     tx_pause_ctrl_phy: 8\n",
      "t.txt", MeasurementFormat::ethtool_stats);
  ASSERT_EQ(other.size(), 2u);
  EXPECT_EQ(other[0].pause_frames_sent, 6u);
  EXPECT_EQ(other[1].pause_frames_sent, 7u);
}

TEST(MeasureEthtoolStats, Errors) {
  auto error = [](const std::string& text) { return test_support::parse_error(text, MeasurementFormat::ethtool_stats); };
  const std::string h = "NIC statistics:\n";
  auto xoff = [](const std::string& n) { return "     tx_flow_control_xoff: " + n + "\n"; };
  EXPECT_EQ(error(h + xoff("4")), "t.txt:1: error: this snapshot has no pair: give ethtool -S before and after each run");
  EXPECT_EQ(error(h + xoff("4") + h + xoff("3")),
            "t.txt:3: error: the transmitted-PAUSE counter went down (4 -> 3): the interface was reset between the "
            "snapshots");
  EXPECT_EQ(error(h + "     tx_packets: 5\n" + h + "     tx_packets: 6\n"),
            "t.txt:1: error: this snapshot has no transmitted-PAUSE counter (tx_flow_control_xon/_xoff, "
            "tx_pause_frames, tx_pause_ctrl_phy): the driver may not count PAUSE frames");
  EXPECT_EQ(error(h + xoff("4") + xoff("5")), "t.txt:3: error: tx_flow_control_xoff appears twice in one snapshot: "
                                             "keep one ethtool -S per snapshot");
  EXPECT_EQ(error(h + xoff("1.2K")), "t.txt:2: error: malformed count '1.2K' for tx_flow_control_xoff");
  EXPECT_EQ(error(h + "     no colon here\n"), "t.txt:2: error: expected 'name: value' in ethtool -S output");
}

TEST(MeasureStackCounters, DetectedAndMappedLikeReports) {
  EXPECT_EQ(detect_format("#kernel\nTcpExtDelayedACKs 3 0.0\n", "t"), MeasurementFormat::nstat);
  EXPECT_EQ(detect_format("tcp:\n\t3 retransmit timeouts\n", "t"), MeasurementFormat::netstat_tcp);
  EXPECT_EQ(format_from_name("nstat"), MeasurementFormat::nstat);
  EXPECT_EQ(format_from_name("netstat-tcp"), MeasurementFormat::netstat_tcp);
  EXPECT_EQ(format_name(MeasurementFormat::netstat_tcp), "netstat-tcp");
  EXPECT_EQ(detect_format("Name Mtu Network Address Ipkts Ierrs Idrop Opkts Oerrs Coll Drop\n"
                          "re0 1500 <Link#1> 7c:83:34:b9:1a:2e 1 0 0 2 0 0 3\n",
                          "t"),
            MeasurementFormat::netstat_if);
  EXPECT_EQ(format_from_name("netstat-if"), MeasurementFormat::netstat_if);
  EXPECT_EQ(format_name(MeasurementFormat::netstat_if), "netstat-if");
  EXPECT_EQ(detect_format("Inter-|   Receive |  Transmit\n"
                          " face |bytes packets errs drop|bytes packets\n"
                          "eno1: 100 10 0 4 0 0 0 0 200 20 0 0 0 0 0 0\n",
                          "t"),
            MeasurementFormat::proc_net_dev);
  EXPECT_EQ(format_from_name("proc-net-dev"), MeasurementFormat::proc_net_dev);
  EXPECT_EQ(format_name(MeasurementFormat::proc_net_dev), "proc-net-dev");
  EXPECT_EQ(detect_format("NIC statistics:\n     tx_flow_control_xon: 3\n", "t"), MeasurementFormat::ethtool_stats);
  EXPECT_EQ(format_from_name("ethtool-s"), MeasurementFormat::ethtool_stats);
  EXPECT_EQ(format_name(MeasurementFormat::ethtool_stats), "ethtool-s");

  // Through a mapping, as calibration reads them: one cell per snapshot.
  const MeasurementMapping mapping = parse_mapping_text(
      "runs:\n"
      "  - { file: netstat-tcp-sender.txt, params: { cc: cubic, hz: 100, every: 33 }, metric: rto_count }\n"
      "  - { file: nstat-two-runs.txt, params: { cc: cubic, hz: 100, every: 33 }, metric: receiver_delayed_acks }\n",
      kData + "counters.yaml");
  const MeasuredCells cells = cells_from(mapping, "receiver_mbps");
  EXPECT_TRUE(cells.errors.empty());
  ASSERT_EQ(cells.cells.size(), 3u);
  EXPECT_EQ(cells.cells[0].metric, "rto_count");
  EXPECT_EQ(cells.cells[0].value, 9.0);
  EXPECT_EQ(cells.cells[1].metric, "receiver_delayed_acks");
  EXPECT_EQ(cells.cells[1].value, 12.0);
  EXPECT_EQ(cells.cells[2].value, 0.0);

  // The rate a counter snapshot lacks is an error naming the run, not a 0.
  const MeasuredCells rates = cells_from(
      parse_mapping_text("runs:\n  - { file: nstat-two-runs.txt, params: {} }\n", kData + "counters.yaml"),
      "receiver_mbps");
  EXPECT_TRUE(rates.cells.empty());
  EXPECT_EQ(rates.errors.size(), 2u);
}

}  // namespace
}  // namespace netsim::measure
