// FreeBSD SIFTR logs: the real 1.3.0 sample (an IPv4 and an IPv6 session),
// a 1.2.4 log written by hand after that version's format strings, cut logs,
// and the errors a damaged line gives (file, line and field).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "measure_test_support.h"
#include "netsim/measure/siftr_log.h"

namespace netsim::measure {
namespace {

using tcp::SiftrAddress;
using tcp::SiftrDirection;
using tcp::SiftrFlow;
using tcp::SiftrRecord;
using tcp::SiftrVersion;
using test_support::kData;
using test_support::thrown;

std::string file_text(const std::string& name) {
  std::ifstream in(kData + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

SiftrAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  SiftrAddress x;
  x.family = IpVersion::v4;
  x.bytes[0] = a;
  x.bytes[1] = b;
  x.bytes[2] = c;
  x.bytes[3] = d;
  return x;
}

// fd00::N
SiftrAddress fd00(std::uint8_t n) {
  SiftrAddress x;
  x.family = IpVersion::v6;
  x.bytes[0] = 0xfd;
  x.bytes[15] = n;
  return x;
}

constexpr const char* kEnable130 =
    "enable_time_secs=1685191807\tenable_time_usecs=160752\tsiftrver=1.3.0\tsysname=FreeBSD\tsysver=1400089\t"
    "ipmode=6\n";
constexpr const char* kData130 =
    "o,1685191814.185109,10.1.1.2,32291,10.1.1.3,5001,1073725440,14480,2,65160,65700,7,9,4,1460,1000,1,16778209,"
    "230000,33580,0,65700,0,0,0,86707916,130\n";
constexpr const char* kDisable130 =
    "disable_time_secs=1685191816\tdisable_time_usecs=629397\tnum_inbound_tcp_pkts=0\tnum_outbound_tcp_pkts=1\t"
    "total_tcp_pkts=1\tnum_inbound_skipped_pkts_malloc=0\tnum_outbound_skipped_pkts_malloc=0\t"
    "num_inbound_skipped_pkts_tcpcb=0\tnum_outbound_skipped_pkts_tcpcb=0\tnum_inbound_skipped_pkts_inpcb=0\t"
    "num_outbound_skipped_pkts_inpcb=0\ttotal_skipped_tcp_pkts=0\tflow_list=10.1.1.2;32291-10.1.1.3;5001,\n";

std::string error_of(const std::string& text) {
  return thrown([&] { parse_siftr_log(text, "t.log"); }).what();
}

// The data line kData130 with field `n` (1-based) replaced.
std::string with_field(int n, const std::string& value) {
  std::string line = kData130;
  std::size_t b = 0;
  for (int i = 1; i < n; ++i) b = line.find(',', b) + 1;
  const std::size_t e = line.find_first_of(",\n", b);
  return line.replace(b, e - b, value);
}

TEST(MeasureSiftrLog, SampleHasTwoSessionsWithEveryRecord) {
  const std::string text = file_text("siftr-sample.log");
  const auto sessions = parse_siftr_log(text, "siftr-sample.log");
  ASSERT_EQ(sessions.size(), 2u);
  const SiftrSession& a = sessions[0];
  EXPECT_EQ(a.line, 1);
  EXPECT_EQ(a.end_line, 18);
  EXPECT_EQ(a.version, SiftrVersion::v1_3_0);
  EXPECT_EQ(a.enable.secs, 1685191807);
  EXPECT_EQ(a.enable.usecs, 160752);
  EXPECT_EQ(a.enable.siftrver, "1.3.0");
  EXPECT_EQ(a.enable.sysname, "FreeBSD");
  EXPECT_EQ(a.enable.sysver, 1400089u);
  EXPECT_EQ(a.enable.ipmode, 6u);
  EXPECT_EQ(a.enable.hz, 0u);  // 1.3.0 does not print it
  ASSERT_EQ(a.records.size(), 16u);
  EXPECT_EQ(a.records_in, 8u);
  EXPECT_EQ(a.records_out, 8u);
  EXPECT_FALSE(a.cut());
  EXPECT_FALSE(a.dropped_partial_line);

  // The first line, field by field.
  SiftrRecord first;
  first.direction = SiftrDirection::out;
  first.tv_sec = 1685191814;
  first.tv_usec = 185109;
  first.laddr = v4(10, 1, 1, 2);
  first.lport = 32291;
  first.faddr = v4(10, 1, 1, 3);
  first.fport = 5001;
  first.snd_ssthresh = 1073725440;
  first.snd_cwnd = 14480;
  first.t_flags2 = 2;
  first.snd_wnd = 65160;
  first.rcv_wnd = 65700;
  first.snd_scale = 7;
  first.rcv_scale = 9;
  first.conn_state = 4;
  first.mss = 1460;
  first.srtt = 1000;
  first.sack_enabled = 1;
  first.t_flags = 16778209;
  first.rto = 230000;
  first.snd_buf_hiwater = 33580;
  first.snd_buf_cc = 0;
  first.rcv_buf_hiwater = 65700;
  first.rcv_buf_cc = 0;
  first.sent_inflight_bytes = 0;
  first.t_segqlen = 0;
  first.flowid = 86707916;
  first.flowtype = 130;
  EXPECT_EQ(a.records[0], first);

  // Line 9: the second 'i' line, the first after an RTT sample.
  const SiftrRecord& r = a.records[7];
  EXPECT_EQ(r.direction, SiftrDirection::in);
  EXPECT_EQ(r.tv_usec, 186204);
  EXPECT_EQ(r.snd_cwnd, 14540u);
  EXPECT_EQ(r.snd_wnd, 65152u);
  EXPECT_EQ(r.rcv_wnd, 66048u);
  EXPECT_EQ(r.conn_state, 6);
  EXPECT_EQ(r.srtt, 875u);
  EXPECT_EQ(r.t_flags, 1008u);
  EXPECT_EQ(r.snd_buf_cc, 940u);
  EXPECT_EQ(r.sent_inflight_bytes, 941u);
  // The last record: the other flow, TIME_WAIT, t_flags2 1026.
  const SiftrRecord& last = a.records.back();
  EXPECT_EQ(last.lport, 58544);
  EXPECT_EQ(last.t_flags2, 1026u);
  EXPECT_EQ(last.conn_state, 10);
  EXPECT_EQ(last.rcv_wnd, 66020u);
  EXPECT_EQ(last.srtt, 906u);
  EXPECT_EQ(last.flowid, 857676142u);

  ASSERT_TRUE(a.disable.has_value());
  EXPECT_EQ(a.disable->secs, 1685191816);
  EXPECT_EQ(a.disable->usecs, 629397);
  // In = out = 10, 2 of each skipped (the SYNs: t_state < ESTABLISHED), nothing else.
  tcp::SiftrCounters counters;
  counters.n_in = counters.n_out = 10;
  counters.nskip_in_tcpcb = counters.nskip_out_tcpcb = 2;
  EXPECT_EQ(a.disable->counters, counters);
  EXPECT_EQ(a.disable->counters.total_skipped(), 4u);
  EXPECT_EQ(a.disable->flows, (std::vector<SiftrFlow>{{v4(10, 1, 1, 2), 32291, v4(10, 1, 1, 3), 5001},
                                                      {v4(10, 1, 1, 2), 58544, v4(10, 1, 1, 3), 5001}}));

  // The IPv6 session, addresses as ip6_sprintf compresses them.
  const SiftrSession& b = sessions[1];
  EXPECT_EQ(b.line, 19);
  EXPECT_EQ(b.end_line, 36);
  EXPECT_EQ(b.enable.secs, 1685191819);
  EXPECT_EQ(b.enable.usecs, 576664);
  ASSERT_EQ(b.records.size(), 16u);
  EXPECT_EQ(b.records_in, 8u);
  EXPECT_EQ(b.records_out, 8u);
  EXPECT_EQ(b.records[0].laddr, fd00(2));
  EXPECT_EQ(b.records[0].faddr, fd00(3));
  EXPECT_EQ(b.records[0].lport, 47852);
  EXPECT_EQ(b.records[0].mss, 1440u);
  EXPECT_EQ(b.records[0].flowid, 3915584443u);
  EXPECT_EQ(b.records[0].flowtype, 132u);
  ASSERT_TRUE(b.disable.has_value());
  EXPECT_EQ(b.disable->flows,
            (std::vector<SiftrFlow>{{fd00(2), 47852, fd00(3), 5001}, {fd00(2), 64057, fd00(3), 5001}}));

  // Each session's bytes are its share of the file.
  const std::size_t second = text.find("enable_time_secs", 1);
  EXPECT_EQ(a.bytes, second);
  EXPECT_EQ(b.bytes, text.size() - second);
}

TEST(MeasureSiftrLog, Version124WrittenAfterItsFormatStrings) {
  const auto sessions = load_siftr_log(kData + "siftr-1.2.4.log");
  ASSERT_EQ(sessions.size(), 1u);
  const SiftrSession& s = sessions[0];
  EXPECT_EQ(s.version, SiftrVersion::v1_2_4);
  EXPECT_EQ(s.enable.siftrver, "1.2.4");
  EXPECT_EQ(s.enable.hz, 1000u);
  EXPECT_EQ(s.enable.tcp_rtt_scale, 32u);
  EXPECT_EQ(s.enable.usecs, 60752);
  ASSERT_EQ(s.records.size(), 6u);
  EXPECT_EQ(s.records_in, 3u);
  EXPECT_EQ(s.records_out, 3u);
  const SiftrRecord& r = s.records[2];
  EXPECT_EQ(r.hash, 0x1a2b3c4du);  // net.inet.siftr.genhashes
  EXPECT_EQ(r.tv_usec, 199871);
  EXPECT_EQ(r.laddr, v4(10, 1, 1, 2));
  EXPECT_EQ(r.snd_ssthresh, 20272u);
  EXPECT_EQ(r.snd_cwnd, 15481u);
  EXPECT_EQ(r.t_flags2, 0u);  // snd_bwnd
  EXPECT_EQ(r.srtt, 25u);     // t_srtt: ticks << 5, as logged
  EXPECT_EQ(r.rto, 201u);     // t_rxtcur: ticks
  EXPECT_EQ(r.snd_buf_cc, 1448u);
  EXPECT_EQ(r.sent_inflight_bytes, 2896u);
  EXPECT_EQ(r.flowtype, 130u);
  // Eight uncompressed %x groups.
  EXPECT_EQ(s.records[3].laddr, fd00(2));
  EXPECT_EQ(s.records[3].faddr, fd00(3));
  EXPECT_EQ(s.records[3].direction, SiftrDirection::out);
  EXPECT_EQ(s.records[5].conn_state, 9);
  ASSERT_TRUE(s.disable.has_value());
  tcp::SiftrCounters counters;  // the mtx counters are printed, and 0
  counters.n_in = 3;
  counters.n_out = 4;
  counters.nskip_out_tcpcb = 1;
  EXPECT_EQ(s.disable->counters, counters);
  EXPECT_EQ(s.disable->flows,
            (std::vector<SiftrFlow>{{v4(10, 1, 1, 2), 32291, v4(10, 1, 1, 3), 5001}, {fd00(2), 47852, fd00(3), 5001}}));
}

TEST(MeasureSiftrLog, SpacesOrTabsAndTheLinePieces) {
  // The sample separates the enable and disable words by spaces, SIFTR by tabs.
  std::string spaced = std::string(kEnable130) + kData130 + kDisable130;
  for (char& ch : spaced) ch = ch == '\t' ? ' ' : ch;
  const auto a = parse_siftr_log(std::string(kEnable130) + kData130 + kDisable130, "t.log");
  const auto b = parse_siftr_log(spaced, "t.log");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].enable, b[0].enable);
  EXPECT_EQ(a[0].disable, b[0].disable);
  EXPECT_EQ(a[0].records, b[0].records);

  EXPECT_EQ(siftr_version_from_name("1.2.4"), SiftrVersion::v1_2_4);
  EXPECT_EQ(siftr_version_from_name("1.3.0"), SiftrVersion::v1_3_0);
  EXPECT_FALSE(siftr_version_from_name("1.3.1").has_value());
  EXPECT_EQ(siftr_field_count(SiftrVersion::v1_2_4), 28u);
  EXPECT_EQ(siftr_field_count(SiftrVersion::v1_3_0), 27u);
  // A writer's line with its line end.
  const SiftrRecord r = parse_siftr_record(kData130, SiftrVersion::v1_3_0, "t.log", 7);
  EXPECT_EQ(r.snd_cwnd, 14480u);
  EXPECT_EQ(parse_siftr_enable_line(kEnable130, "t.log", 1).sysver, 1400089u);
  EXPECT_TRUE(parse_siftr_disable_line("disable_time_secs=1 disable_time_usecs=2 num_inbound_tcp_pkts=0 "
                                       "num_outbound_tcp_pkts=0 total_tcp_pkts=0 num_inbound_skipped_pkts_malloc=0 "
                                       "num_outbound_skipped_pkts_malloc=0 num_inbound_skipped_pkts_tcpcb=0 "
                                       "num_outbound_skipped_pkts_tcpcb=0 num_inbound_skipped_pkts_inpcb=0 "
                                       "num_outbound_skipped_pkts_inpcb=0 total_skipped_tcp_pkts=0 flow_list=",
                                       SiftrVersion::v1_3_0, "t.log", 3)
                  .flows.empty());
}

TEST(MeasureSiftrLog, CutLogs) {
  const std::string head = std::string(kEnable130) + kData130 + kData130;
  // Stopped while enabled: no disable line.
  auto s = parse_siftr_log(head, "t.log");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].cut());
  EXPECT_EQ(s[0].records.size(), 2u);
  EXPECT_EQ(s[0].end_line, 3);
  EXPECT_EQ(s[0].bytes, head.size());
  EXPECT_FALSE(s[0].dropped_partial_line);

  // Copied in the middle of a write: the unterminated line is left out, even
  // where what is left of it would parse.
  for (std::size_t keep : {std::size_t{40}, std::string(kData130).size() - 2}) {
    const std::string text = head + std::string(kData130).substr(0, keep);
    s = parse_siftr_log(text, "t.log");
    ASSERT_EQ(s.size(), 1u);
    EXPECT_TRUE(s[0].cut());
    EXPECT_TRUE(s[0].dropped_partial_line);
    EXPECT_EQ(s[0].records.size(), 2u);
    EXPECT_EQ(s[0].bytes, head.size());
  }

  // Enabled again after a crash: the first session is cut, the second whole.
  s = parse_siftr_log(head + "\n" + kEnable130 + kData130 + kDisable130, "t.log");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(s[0].cut());
  EXPECT_EQ(s[0].bytes, head.size());  // the blank line before the next enable line is no part of it
  EXPECT_FALSE(s[1].cut());
  EXPECT_EQ(s[1].line, 5);
  EXPECT_EQ(s[1].end_line, 7);

  // A disable line without its line end is whole.
  std::string disable = kDisable130;
  disable.pop_back();
  s = parse_siftr_log(std::string(kEnable130) + kData130 + disable, "t.log");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_FALSE(s[0].cut());

  // Only the enable line.
  s = parse_siftr_log(kEnable130, "t.log");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].cut());
  EXPECT_TRUE(s[0].records.empty());
}

TEST(MeasureSiftrLog, LinesAroundTheLogAndBlankLines) {
  std::string crlf = kData130;
  crlf.insert(crlf.size() - 1, "\r");
  const auto s = parse_siftr_log(
      std::string("$ cat /var/log/siftr.log\n") + kEnable130 + "\n" + crlf + kDisable130 + "$ \n", "t.log");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].line, 2);
  EXPECT_EQ(s[0].end_line, 5);
  EXPECT_EQ(s[0].records.size(), 1u);
  EXPECT_FALSE(s[0].cut());
  EXPECT_TRUE(parse_siftr_log("no log here\n", "t.log").empty());
}

TEST(MeasureSiftrLog, ErrorsNameTheLineAndField) {
  const std::string e = kEnable130;
  EXPECT_EQ(error_of(e + with_field(8, "14x80")),
            "t.log:2: error: field 8 (snd_cwnd): '14x80' is not an unsigned integer");
  EXPECT_EQ(error_of(e + with_field(7, "-1")),
            "t.log:2: error: field 7 (snd_ssthresh): '-1' is not an unsigned integer");
  EXPECT_EQ(error_of(e + with_field(8, "4294967296")),
            "t.log:2: error: field 8 (snd_cwnd): '4294967296' is out of range (at most 4294967295)");
  EXPECT_EQ(error_of(e + with_field(27, "")), "t.log:2: error: field 27 (flowtype): '' is not an unsigned integer");
  EXPECT_EQ(error_of(e + with_field(3, "10.1.1.300")),
            "t.log:2: error: field 3 (laddr): '10.1.1.300' is not an IPv4 or IPv6 address");
  EXPECT_EQ(error_of(e + with_field(5, "fd00::3")),
            "t.log:2: error: field 5 (faddr): 'fd00::3' is an IPv6 address, laddr an IPv4 one");
  EXPECT_EQ(error_of(e + with_field(4, "65536")),
            "t.log:2: error: field 4 (lport): '65536' is out of range (at most 65535)");
  EXPECT_EQ(error_of(e + with_field(2, "1685191814.18510")),
            "t.log:2: error: field 2 (time): '1685191814.18510' is not a time SECONDS.MICROSECONDS (six digits after "
            "the point)");
  EXPECT_EQ(error_of(e + with_field(1, "x")), "t.log:2: error: field 1 (direction): 'x' is not 'i' or 'o'");
  // Field counts: another count, and the other version's.
  EXPECT_EQ(error_of(e + with_field(27, "130,1")),
            "t.log:2: error: 28 fields, a siftrver 1.2.4 data line, in a siftrver 1.3.0 session (whose data lines "
            "have 27)");
  EXPECT_EQ(error_of(e + "o,1685191814.185109,10.1.1.2\n"),
            "t.log:2: error: expected 27 comma-separated fields (siftrver 1.3.0), found 3");
  EXPECT_EQ(error_of("enable_time_secs=1\tenable_time_usecs=0\tsiftrver=1.2.4\thz=1000\ttcp_rtt_scale=32\t"
                     "sysname=FreeBSD\tsysver=1\tipmode=6\n" +
                     std::string(kData130)),
            "t.log:2: error: 27 fields, a siftrver 1.3.0 data line, in a siftrver 1.2.4 session (whose data lines "
            "have 28)");
  // Order of the lines.
  EXPECT_EQ(error_of(kData130), "t.log:1: error: data line before any enable line (enable_time_secs=...)");
  EXPECT_EQ(error_of(kDisable130),
            "t.log:1: error: disable line without an enable line (enable_time_secs=...) before it");
  EXPECT_EQ(error_of(e + "hello world\n"),
            "t.log:2: error: expected a data line or the disable line (disable_time_secs=...), found 'hello world'");
}

TEST(MeasureSiftrLog, EnableAndDisableLineErrors) {
  EXPECT_EQ(error_of("enable_time_secs=1\tenable_time_usecs=0\tsiftrver=1.2.4\tsysname=FreeBSD\tsysver=1\tipmode=6\n"),
            "t.log:1: error: enable line: expected hz=, found sysname= (a siftrver 1.2.4 enable line has "
            "enable_time_secs, enable_time_usecs, siftrver, hz, tcp_rtt_scale, sysname, sysver, ipmode)");
  EXPECT_EQ(error_of("enable_time_secs=1\tenable_time_usecs=0\tsiftrver=1.3.0\thz=1000\tsysname=FreeBSD\tsysver=1\t"
                     "ipmode=6\n"),
            "t.log:1: error: enable line: expected sysname=, found hz= (a siftrver 1.3.0 enable line has "
            "enable_time_secs, enable_time_usecs, siftrver, sysname, sysver, ipmode)");
  EXPECT_EQ(error_of("enable_time_secs=1\tenable_time_usecs=0\tsiftrver=1.1.0\tsysname=FreeBSD\n"),
            "t.log:1: error: enable line, siftrver: '1.1.0' is not supported (expected 1.2.4 or 1.3.0)");
  EXPECT_EQ(error_of("enable_time_secs=1\tenable_time_usecs=0\n"), "t.log:1: error: enable line without siftrver=");
  EXPECT_EQ(error_of("enable_time_secs=1\tenable_time_usecs=0\tsiftrver=1.2.4\thz=0\ttcp_rtt_scale=32\t"
                     "sysname=FreeBSD\tsysver=1\tipmode=6\n"),
            "t.log:1: error: enable line, hz: '0' is not a tick rate");
  EXPECT_EQ(error_of("enable_time_secs=1\tenable_time_usecs=0\tsiftrver=1.3.0\tsysname=FreeBSD\tsysver=1\t"
                     "ipmode=5\n"),
            "t.log:1: error: enable line, ipmode: '5' is not 4 or 6");

  const std::string e = std::string(kEnable130) + kData130;
  auto disable = [](const std::string& from, const std::string& to) {
    std::string d = kDisable130;
    return d.replace(d.find(from), from.size(), to);
  };
  EXPECT_EQ(error_of(e + disable("total_tcp_pkts=1", "total_tcp_pkts=2")),
            "t.log:3: error: disable line: total_tcp_pkts 2 is not num_inbound_tcp_pkts + num_outbound_tcp_pkts (1)");
  EXPECT_EQ(error_of(e + disable("total_skipped_tcp_pkts=0", "total_skipped_tcp_pkts=3")),
            "t.log:3: error: disable line: total_skipped_tcp_pkts 3 is not the sum of the skipped counts (0)");
  EXPECT_EQ(error_of(e + disable("num_outbound_tcp_pkts=1", "num_outbound_tcp_pkts=x")),
            "t.log:3: error: disable line, num_outbound_tcp_pkts: 'x' is not an unsigned integer");
  EXPECT_EQ(error_of(e + disable("10.1.1.3;5001,", "10.1.1.3:5001,")),
            "t.log:3: error: disable line, flow_list entry 1: '10.1.1.2;32291-10.1.1.3:5001' is not "
            "LADDR;LPORT-FADDR;FPORT");
  EXPECT_EQ(error_of(e + disable("10.1.1.2;32291", "10.1.1.x;32291")),
            "t.log:3: error: disable line, flow_list entry 1 laddr: '10.1.1.x' is not an IPv4 or IPv6 address");
  // A 1.2.4 disable line (with the mtx counters) in a 1.3.0 session.
  EXPECT_EQ(error_of(e + disable("num_inbound_skipped_pkts_tcpcb=0", "num_inbound_skipped_pkts_mtx=0")),
            "t.log:3: error: disable line: expected num_inbound_skipped_pkts_tcpcb=, found "
            "num_inbound_skipped_pkts_mtx= (a siftrver 1.3.0 disable line has disable_time_secs, disable_time_usecs, "
            "num_inbound_tcp_pkts, num_outbound_tcp_pkts, total_tcp_pkts, num_inbound_skipped_pkts_malloc, "
            "num_outbound_skipped_pkts_malloc, num_inbound_skipped_pkts_tcpcb, num_outbound_skipped_pkts_tcpcb, "
            "num_inbound_skipped_pkts_inpcb, num_outbound_skipped_pkts_inpcb, total_skipped_tcp_pkts, flow_list)");
  // 1.2.4's hash field.
  const std::string old = file_text("siftr-1.2.4.log");
  std::string bad = old;
  bad.replace(bad.find("0x1a2b3c4d"), 10, "0x1a2b3c4");
  EXPECT_EQ(error_of(bad), "t.log:4: error: field 2 (hash): '0x1a2b3c4' is not a hash 0xXXXXXXXX");
}

// Counts what it is given and keeps nothing.
class Counter : public SiftrLogVisitor {
 public:
  void begin(const SiftrSession& s) override { begun.push_back(s.line); }
  void record(const SiftrSession& s, const SiftrRecord& r) override {
    ++records;
    EXPECT_TRUE(s.records.empty());
    if (r.direction == SiftrDirection::in) ++in;
  }
  void end(const SiftrSession& s) override { ended.push_back(s); }

  std::vector<int> begun;
  std::vector<SiftrSession> ended;
  int records = 0;
  int in = 0;
};

TEST(MeasureSiftrLog, VisitorFromTextStreamAndFile) {
  const std::string text = file_text("siftr-sample.log");
  Counter from_text, from_stream, from_file;
  read_siftr_log(text, "s", from_text);
  std::istringstream in(text);
  read_siftr_log(in, "s", from_stream);
  read_siftr_log_file(kData + "siftr-sample.log", from_file);
  for (const Counter* c : {&from_text, &from_stream, &from_file}) {
    EXPECT_EQ(c->begun, (std::vector<int>{1, 19}));
    EXPECT_EQ(c->records, 32);
    EXPECT_EQ(c->in, 16);
    ASSERT_EQ(c->ended.size(), 2u);
    EXPECT_EQ(c->ended[1].records_out, 8u);
    EXPECT_EQ(c->ended[0].bytes + c->ended[1].bytes, text.size());
    EXPECT_TRUE(c->ended[1].disable.has_value());
  }
  // The stream's last line without a line end is as in text.
  std::istringstream cut(std::string(kEnable130) + kData130 + "o,1685191814.1");
  Counter c;
  read_siftr_log(cut, "s", c);
  ASSERT_EQ(c.ended.size(), 1u);
  EXPECT_TRUE(c.ended[0].dropped_partial_line);
  EXPECT_EQ(c.records, 1);

  const MeasureError e = thrown([] { load_siftr_log(kData + "no-such.log"); });
  EXPECT_EQ(std::string(e.what()), kData + "no-such.log: error: cannot read the file: No such file or directory");
  const MeasureError dir = thrown([] { load_siftr_log(kData); });
  EXPECT_EQ(dir.line, 0);
  EXPECT_NE(std::string(dir.what()).find("it is a directory"), std::string::npos);
}

}  // namespace
}  // namespace netsim::measure
