// SIFTR (netsim/tcp/freebsd/siftr.h): the hashes it computes, the log line
// formats of both versions, the hooks (both directions, port filter, state
// skips), the writer queue's overflow, its CPU cost and its records against
// the sender's own state.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "netsim/measure/siftr_log.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/tcp/freebsd/flow_hash.h"
#include "netsim/tcp/freebsd/siftr.h"
#include "netsim/tcp/freebsd/siftr_log_format.h"

namespace netsim::tcp {
namespace {

SiftrAddress addr(const char* text) {
  SiftrAddress a;
  if (inet_pton(AF_INET, text, a.bytes.data()) == 1) {
    a.family = IpVersion::v4;
  } else {
    EXPECT_EQ(inet_pton(AF_INET6, text, a.bytes.data()), 1) << text;
    a.family = IpVersion::v6;
  }
  return a;
}

TEST(SiftrFlowHash, ToeplitzMatchesTheRssVerificationSuite) {
  // Microsoft's RSS verification values for the default key (TCP/IPv4 and
  // TCP/IPv6 4-tuples: source address, destination address, ports).
  const auto v4 = [](const char* src, const char* dst, std::uint16_t sp, std::uint16_t dp) {
    return toeplitz_hash(mpath_entropy_key(), rss_hash_input(addr(src), addr(dst), sp, dp).span());
  };
  EXPECT_EQ(v4("66.9.149.187", "161.142.100.80", 2794, 1766), 0x51ccc178u);
  EXPECT_EQ(v4("199.92.111.2", "65.69.140.83", 14230, 4739), 0xc626b0eau);
  EXPECT_EQ(v4("3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766), 0x40207d3du);
}

TEST(SiftrFlowHash, SoftwareHashInputIsTheFiveTupleStruct) {
  const FiveTupleBytes v4 = software_hash_input(addr("10.1.1.2"), addr("10.1.1.3"), 0x1234, 5001, 6);
  EXPECT_EQ(v4.size, 16u);  // struct _hash_5tuple_ipv4
  EXPECT_EQ(v4.bytes[8], 0x12);
  EXPECT_EQ(v4.bytes[12], 6);
  const FiveTupleBytes v6 = software_hash_input(addr("fd00::2"), addr("fd00::3"), 1, 2, 6);
  EXPECT_EQ(v6.size, 40u);  // struct _hash_5tuple_ipv6
  EXPECT_EQ(hash32_buf(std::vector<std::uint8_t>{'a'}, 0), 97u);
  EXPECT_EQ(hash32_buf(std::vector<std::uint8_t>{'a', 'b'}, 0), 97u * 33 + 98);
}

// The sample log's first line (shared/reference/siftr-sample.log).
SiftrRecord sample_record() {
  SiftrRecord r;
  r.direction = SiftrDirection::out;
  r.tv_sec = 1685191814;
  r.tv_usec = 185109;
  r.laddr = addr("10.1.1.2");
  r.lport = 32291;
  r.faddr = addr("10.1.1.3");
  r.fport = 5001;
  r.snd_ssthresh = 1073725440;
  r.snd_cwnd = 14480;
  r.t_flags2 = 2;
  r.snd_wnd = 65160;
  r.rcv_wnd = 65700;
  r.snd_scale = 7;
  r.rcv_scale = 9;
  r.conn_state = 4;
  r.mss = 1460;
  r.srtt = 1000;
  r.sack_enabled = 1;
  r.t_flags = 16778209;
  r.rto = 230000;
  r.snd_buf_hiwater = 33580;
  r.rcv_buf_hiwater = 65700;
  r.flowid = 86707916;
  r.flowtype = 130;
  return r;
}

TEST(SiftrLogFormat, Version130LineIsTheSampleLine) {
  const SiftrRecord r = sample_record();
  SiftrLine line;
  format_siftr_record(SiftrVersion::v1_3_0, r, siftr_address_text(r.laddr), siftr_address_text(r.faddr), line);
  EXPECT_EQ(line.view(),
            "o,1685191814.185109,10.1.1.2,32291,10.1.1.3,5001,1073725440,14480,2,65160,65700,7,9,4,1460,1000,1,"
            "16778209,230000,33580,0,65700,0,0,0,86707916,130\n");
  EXPECT_EQ(line.conversions(), 28);
}

TEST(SiftrLogFormat, Version124CountsItsConversionsByFamily) {
  SiftrRecord r = sample_record();
  r.t_flags2 = 0;  // snd_bwnd
  r.srtt = 32;     // raw t_srtt
  r.rto = 230;     // t_rxtcur, ticks
  SiftrLine line;
  const SiftrAddressText none;
  format_siftr_record(SiftrVersion::v1_2_4, r, none, none, line);
  EXPECT_EQ(line.view(),
            "o,0x00000000,1685191814.185109,10.1.1.2,32291,10.1.1.3,5001,1073725440,14480,0,65160,65700,7,9,4,1460,32,"
            "1,16778209,230,33580,0,65700,0,0,0,86707916,130\n");
  EXPECT_EQ(line.conversions(), 35);
  r.laddr = addr("fd00::2");
  r.faddr = addr("fd00::3");
  format_siftr_record(SiftrVersion::v1_2_4, r, none, none, line);
  EXPECT_NE(line.view().find(",fd00:0:0:0:0:0:0:2,32291,fd00:0:0:0:0:0:0:3,5001,"), std::string_view::npos)
      << line.view();
  EXPECT_EQ(line.conversions(), 43);
  // 1.3.0 prints the cached ip6_sprintf text: the same 28 conversions for IPv6.
  format_siftr_record(SiftrVersion::v1_3_0, r, siftr_address_text(r.laddr), siftr_address_text(r.faddr), line);
  EXPECT_EQ(line.view().substr(0, 40), "o,1685191814.185109,fd00::2,32291,fd00::");
  EXPECT_EQ(line.conversions(), 28);
}

TEST(SiftrLogFormat, EnableAndDisableLinesFollowEachVersion) {
  SiftrEnableLine e;
  e.secs = 1685191807;
  e.usecs = 160752;
  e.sysver = 1400089;
  EXPECT_EQ(format_siftr_enable(SiftrVersion::v1_3_0, e),
            "enable_time_secs=1685191807\tenable_time_usecs=160752\tsiftrver=1.3.0\tsysname=FreeBSD\t"
            "sysver=1400089\tipmode=6\n");
  e.siftrver = "1.2.4";
  e.hz = 1000;
  e.tcp_rtt_scale = 32;
  EXPECT_NE(format_siftr_enable(SiftrVersion::v1_2_4, e).find("siftrver=1.2.4\thz=1000\ttcp_rtt_scale=32\t"),
            std::string::npos);
  SiftrDisableLine d;
  d.secs = 1685191816;
  d.usecs = 629397;
  d.counters.n_in = 10;
  d.counters.n_out = 10;
  d.counters.nskip_in_tcpcb = 2;
  d.counters.nskip_out_tcpcb = 2;
  d.flows = {{addr("10.1.1.2"), 32291, addr("10.1.1.3"), 5001}, {addr("10.1.1.2"), 58544, addr("10.1.1.3"), 5001}};
  std::string want =
      "disable_time_secs=1685191816 disable_time_usecs=629397 num_inbound_tcp_pkts=10 num_outbound_tcp_pkts=10 "
      "total_tcp_pkts=20 num_inbound_skipped_pkts_malloc=0 num_outbound_skipped_pkts_malloc=0 "
      "num_inbound_skipped_pkts_tcpcb=2 num_outbound_skipped_pkts_tcpcb=2 num_inbound_skipped_pkts_inpcb=0 "
      "num_outbound_skipped_pkts_inpcb=0 total_skipped_tcp_pkts=4 "
      "flow_list=10.1.1.2;32291-10.1.1.3;5001,10.1.1.2;58544-10.1.1.3;5001,\n";
  for (char& c : want) {
    if (c == ' ') c = '\t';  // the sample's web copy shows spaces; the code writes tabs
  }
  EXPECT_EQ(format_siftr_disable(SiftrVersion::v1_3_0, d), want);
  EXPECT_NE(format_siftr_disable(SiftrVersion::v1_2_4, d).find("\tnum_inbound_skipped_pkts_mtx=0\t"),
            std::string::npos);
}

// A CPU-bound FreeBSD sender (one core, 3 GHz) and a Linux receiver.
std::string scenario(const std::string& siftr, const std::string& family = "v4", const std::string& cpu = "") {
  const bool v6 = family == "v6";
  return std::string("name: siftr-test\nduration: 400ms\nhosts:\n  s1: { address: ") +
         (v6 ? "fd00::2" : "10.1.1.2") + ", hz: 1000, os: freebsd" +
         (cpu.empty() ? std::string() : ", cpu: { tx_segment: " + cpu + ", frequency: 3GHz }") +
         (siftr.empty() ? std::string() : ", siftr: " + siftr) + " }\n  r1: { address: " +
         (v6 ? "fd00::3" : "10.1.1.3") +
         ", hz: 250, nic: { gro: true, irq_delay: 5us, irq_min_interval: 50us } }\n"
         "links:\n  l: { ends: [s1, r1], rate: 1Gbps, delay: 80us }\n"
         "traffic:\n  t: { type: tcp, app: iperf2, time: 300ms, from: s1, to: r1, cc: newreno, tso: false }\n";
}

struct SiftrRun {
  std::vector<SiftrRecord> records;
  SiftrCounters counters;
  SiftrStats stats;
  std::uint64_t data_segments = 0;  // the sender's wire segments (SYN included)
  std::uint64_t acks = 0;
  double mbps = 0;
};

SiftrRun run_siftr(const std::string& text) {
  const ScenarioSpec spec = parse_scenario_text(text, "siftr.yaml");
  BuiltScenario b = build_scenario(spec);
  SiftrRun out;
  EXPECT_EQ(b.siftrs.size(), 1u);
  Siftr& s = *b.siftrs.front().siftr;
  s.set_record_observer([&out](const SiftrRecord& r) { out.records.push_back(r); });
  b.sim->run_until(spec.duration);
  s.finish();
  out.counters = s.counters();
  out.stats = s.stats();
  const auto* tx = dynamic_cast<const FreeBsdTcpSender*>(b.tcp_flows.front().sender);
  out.data_segments = tx->stats().segments_sent;
  out.acks = tx->stats().acks_received;
  out.mbps = static_cast<double>(tx->bytes_acked()) * 8 / 0.3 / 1e6;
  return out;
}

TEST(Siftr, HooksSeeBothDirectionsAndSkipTheHandshakeIn130) {
  const SiftrRun r = run_siftr(scenario("{ version: 1.3.0 }"));
  ASSERT_GT(r.records.size(), 1000u);
  std::uint64_t in = 0;
  std::uint64_t out = 0;
  for (const SiftrRecord& x : r.records) ++(x.direction == SiftrDirection::in ? in : out);
  // Every packet after the handshake, each direction once; the SYN and the
  // SYN-ACK are skipped (t_state < ESTABLISHED), as the sample's tcpcb counts show.
  EXPECT_EQ(r.counters.nskip_out_tcpcb, 1u);
  EXPECT_EQ(r.counters.nskip_in_tcpcb, 1u);
  EXPECT_EQ(out, r.counters.n_out - 1);
  EXPECT_EQ(in, r.counters.n_in - 1);
  EXPECT_GE(r.counters.n_out, r.data_segments);  // data segments plus the handshake's ACK
  EXPECT_EQ(r.counters.n_in, r.acks + 1);         // every ACK plus the SYN-ACK
  EXPECT_EQ(r.records.front().conn_state, 4);
  EXPECT_EQ(r.records.front().snd_cwnd, 14480u);  // IW10 x 1448, before any ACK, as in the sample
  EXPECT_EQ(r.records.front().mss, 1460u);
}

TEST(Siftr, Version124LogsTheSynAndKeysFlowsInTheWriter) {
  const SiftrRun r = run_siftr(scenario("{ version: 1.2.4 }"));
  ASSERT_FALSE(r.records.empty());
  EXPECT_EQ(r.counters.total_skipped(), 0u);
  EXPECT_EQ(r.records.front().conn_state, 2);  // SYN_SENT: 1.2.4 only skips TIME_WAIT
  EXPECT_EQ(r.records.size(), r.counters.n_in + r.counters.n_out);
  // srtt and rto in the tcpcb's own units: ticks << 5 and ticks.
  EXPECT_LT(r.records.back().rto, 1000u);
}

TEST(Siftr, PortFilterIsCheckedBeforeOrAfterTheLookupByVersion) {
  const SiftrRun r130 = run_siftr(scenario("{ version: 1.3.0, port_filter: 80 }"));
  EXPECT_TRUE(r130.records.empty());
  EXPECT_EQ(r130.counters.n_in + r130.counters.n_out, 0u);  // 1.3.0: filtered before counting
  const SiftrRun r124 = run_siftr(scenario("{ version: 1.2.4, port_filter: 80 }"));
  EXPECT_TRUE(r124.records.empty());
  EXPECT_GT(r124.counters.n_in + r124.counters.n_out, 1000u);  // 1.2.4: counted, then filtered
  const SiftrRun match = run_siftr(scenario("{ version: 1.3.0, port_filter: 5001 }"));
  EXPECT_GT(match.records.size(), 1000u);
}

TEST(Siftr, FullWriterQueueCountsSkippedMalloc) {
  // 8 pkt_nodes at most between two writer wake-ups (1 ms at hz 1000): at
  // ~40 packets per ms most are refused, counted per direction.
  const SiftrRun r = run_siftr(scenario("{ version: 1.3.0, queue_limit: 8 }"));
  EXPECT_GT(r.counters.nskip_out_malloc, 0u);
  EXPECT_EQ(r.stats.max_queue, 8u);
  EXPECT_EQ(r.records.size() + r.counters.total_skipped(), r.counters.n_in + r.counters.n_out);
}

TEST(Siftr, PplLogsEveryNthPacketOfAFlow) {
  const SiftrRun all = run_siftr(scenario("{ version: 1.3.0 }"));
  const SiftrRun some = run_siftr(scenario("{ version: 1.3.0, ppl: 10 }"));
  EXPECT_NEAR(static_cast<double>(some.records.size()), static_cast<double>(all.records.size()) / 10, 2);
}

TEST(Siftr, InboundRecordsShowTheStateBeforeTheAck) {
  const SiftrRun r = run_siftr(scenario("{ version: 1.3.0 }"));
  // cwnd grows only on ACKs: an outbound record carries the cwnd the last
  // inbound record's ACK left, so every cwnd change appears first on an 'o' line.
  std::uint32_t last = 0;
  bool seen_in = false;
  for (const SiftrRecord& x : r.records) {
    if (x.direction == SiftrDirection::in && seen_in) {
      EXPECT_EQ(x.snd_cwnd, last);
    }
    seen_in = seen_in || x.direction == SiftrDirection::in;
    if (x.direction == SiftrDirection::out) last = x.snd_cwnd;
  }
}

TEST(Siftr, CostsSlowACpuBoundSenderByVersionAndFamily) {
  const double off = run_siftr(scenario("{ version: 1.3.0, costs: { hook: 0, hook_record: 0, toeplitz_per_bit: 0, "
                                        "flow_setup: 0, record: 0, conversion: 0, wakeup: 0 } }",
                                        "v4", "17us"))
                         .mbps;
  const SiftrRun v130 = run_siftr(scenario("{ version: 1.3.0 }", "v4", "17us"));
  const SiftrRun v124 = run_siftr(scenario("{ version: 1.2.4 }", "v4", "17us"));
  const SiftrRun v124_6 = run_siftr(scenario("{ version: 1.2.4 }", "v6", "17us"));
  const SiftrRun v130_6 = run_siftr(scenario("{ version: 1.3.0 }", "v6", "17us"));
  EXPECT_GT(off, v130.mbps);
  EXPECT_GT(v130.mbps, v124.mbps);
  EXPECT_GT(v130_6.mbps, v124_6.mbps);
  // 1.2.4's IPv6 lines take 8 more conversions than its IPv4 ones (43 vs 35):
  // more writer cycles per record.
  EXPECT_GT(static_cast<double>(v124_6.stats.writer_cycles) / static_cast<double>(v124_6.stats.records_logged),
            static_cast<double>(v124.stats.writer_cycles) / static_cast<double>(v124.stats.records_logged) + 7 * 350);
  // IPv6 segments carry 20 bytes less payload (t_maxseg 1440).
  EXPECT_EQ(v130_6.records.back().mss, 1440u);
}

TEST(Siftr, LogFileHoldsEnableRecordsAndDisableLines) {
  const std::string path = ::testing::TempDir() + "/siftr_test.log";
  ScenarioSpec spec = parse_scenario_text(scenario("{ version: 1.3.0 }"), "siftr.yaml");
  RunOptions o;
  o.siftr_path = path;
  const results::RunResult r = run_scenario(spec, o);
  ASSERT_EQ(r.siftr_size(), 1);
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> lines;
  std::uint64_t bytes = 0;
  while (std::getline(in, line)) {
    bytes += line.size() + 1;
    lines.push_back(line);
  }
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front().rfind("enable_time_secs=1700000000\t", 0), 0u);
  EXPECT_EQ(lines.back().rfind("disable_time_secs=", 0), 0u);
  EXPECT_EQ(lines.size() - 2, r.siftr(0).records_logged());
  EXPECT_EQ(bytes, r.siftr(0).log_bytes());
  EXPECT_NE(lines.back().find("flow_list=10.1.1.2;49152-10.1.1.3;5001,"), std::string::npos);
  std::remove(path.c_str());
}

// The reader that takes real siftr.logs (netsim/measure/siftr_log.h) gives
// back, field by field, every record the writer formatted, for both versions
// and families.
TEST(Siftr, WrittenLogReadsBackFieldByField) {
  for (const char* version : {"1.2.4", "1.3.0"}) {
    for (const char* family : {"v4", "v6"}) {
      SCOPED_TRACE(std::string(version) + " " + family);
      const std::string path = ::testing::TempDir() + "/siftr_roundtrip.log";
      const ScenarioSpec spec =
          parse_scenario_text(scenario(std::string("{ version: ") + version + " }", family), "siftr.yaml");
      BuiltScenario b = build_scenario(spec);
      Siftr& s = *b.siftrs.front().siftr;
      std::vector<SiftrRecord> written;
      s.set_record_observer([&written](const SiftrRecord& r) { written.push_back(r); });
      s.set_log_file(path);
      b.sim->run_until(spec.duration);
      s.finish();
      const std::vector<measure::SiftrSession> read = measure::load_siftr_log(path);
      ASSERT_EQ(read.size(), 1u);
      EXPECT_EQ(read[0].enable, s.enable_line());
      ASSERT_TRUE(read[0].disable.has_value());
      EXPECT_EQ(*read[0].disable, *s.disable_line());
      ASSERT_EQ(read[0].records.size(), written.size());
      for (std::size_t i = 0; i < written.size(); ++i) {
        ASSERT_EQ(read[0].records[i], written[i]) << "record " << i;
      }
      std::remove(path.c_str());
    }
  }
}

TEST(Siftr, ValidatorNamesTheField) {
  const auto error = [](const std::string& text) -> std::string {
    try {
      parse_scenario_text(text, "siftr.yaml");
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error(scenario("{ version: 2.0 }")).find("hosts.s1.siftr.version"), std::string::npos);
  EXPECT_NE(error(scenario("{ version: 1.3.0 }", "v4", "17us").replace(
                      scenario("", "v4", "17us").find("frequency: 3GHz"), 15, "tick: 0s"))
                .find("frequency"),
            std::string::npos);
  EXPECT_EQ(error(scenario("{ version: off }")), "no error");
}

}  // namespace
}  // namespace netsim::tcp
