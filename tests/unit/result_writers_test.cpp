#include "netsim/results/result_writers.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "netsim/sim/time.h"

namespace netsim {
namespace {

using namespace netsim::literals;
using google::protobuf::util::MessageDifferencer;

// Two runs: a successful one with everything filled in, and a failed one without flows.
results::RunSet sample_runs() {
  results::RunSet set;

  results::RunResult& ok = *set.add_runs();
  ok.set_netsim_version("0.1.0");
  ok.set_scenario_name("lan-udp");
  ok.set_scenario_file("scenarios/lan.yaml");
  auto* o1 = ok.add_overrides();
  o1->set_key("links.wan.delay");
  o1->set_value("300us");
  auto* o2 = ok.add_overrides();
  o2->set_key("flows.udp1.note");
  o2->set_value("a,b \"c\"");  // comma and quotes: must survive CSV quoting
  ok.set_seed(42);
  ok.set_sim_time_ps(1_s);
  ok.set_wall_time_s(0.25);
  ok.set_events(123456);

  // 100000 datagrams of 1250 bytes sent in 1 s (1000 Mbit/s), 99000 received (990 Mbit/s).
  auto* udp1 = ok.add_flows();
  udp1->set_name("udp1");
  udp1->set_kind("udp");
  udp1->set_src("h1");
  udp1->set_dst("h2");
  udp1->set_packets_sent(100000);
  udp1->set_bytes_sent(125'000'000);
  udp1->set_packets_received(99000);
  udp1->set_bytes_received(123'750'000);
  udp1->set_packets_lost(1000);
  udp1->set_loss_pct(1.0);
  udp1->set_sender_mbps(1000.0);
  udp1->set_receiver_mbps(990.0);
  udp1->set_start_ps(0);
  udp1->set_end_ps(1_s);

  // Not physically consistent on purpose: doubles that need many digits to round-trip.
  auto* udp2 = ok.add_flows();
  udp2->set_name("udp2");
  udp2->set_kind("udp");
  udp2->set_src("h3");
  udp2->set_dst("h2");
  udp2->set_packets_sent(5000);
  udp2->set_bytes_sent(7'360'000);
  udp2->set_packets_received(5000);
  udp2->set_bytes_received(7'360'000);
  udp2->set_packets_lost(0);
  udp2->set_loss_pct(1e-9);
  udp2->set_sender_mbps(912.3456789);
  udp2->set_receiver_mbps(912.3456788);
  udp2->set_start_ps(500_ms);
  udp2->set_end_ps(1_s);

  auto* fwd = ok.add_links();
  fwd->set_link("wan");
  fwd->set_from("sw1");
  fwd->set_to("sw2");
  fwd->set_packets_sent(1000);
  fwd->set_bytes_sent(1'538'000);
  fwd->set_packets_dropped(5);
  fwd->set_bytes_dropped(7690);
  fwd->set_busy_ps(12'304_us);
  fwd->set_utilization(0.012304);
  fwd->set_max_queue_packets(17);
  fwd->set_max_queue_bytes(26146);
  fwd->set_low_power_idle(true);  // Energy-Efficient Ethernet, this direction only
  fwd->set_lpi_wakeups(3);
  fwd->set_lpi_joined(1);
  fwd->set_pause_frames(4);
  fwd->set_paused_ps(2'000'000);
  fwd->set_pause_frames_sent(6);
  fwd->set_lpi_wait_ps(49'500_ns);
  auto* rev = ok.add_links();
  rev->set_link("wan");
  rev->set_from("sw2");
  rev->set_to("sw1");
  rev->set_packets_sent(10);
  rev->set_bytes_sent(640);
  rev->set_busy_ps(5120_ns);
  rev->set_utilization(5.12e-6);
  rev->set_max_queue_packets(1);
  rev->set_max_queue_bytes(64);

  auto* filter = ok.add_filters();
  filter->set_name("drop-nth");
  filter->set_host("h2");
  filter->set_hook("ingress");
  filter->set_type("nth");
  filter->set_matched(1000);
  filter->set_dropped(1000);

  // Interleaved flows: the text report groups them.
  auto sample = [&](const char* flow, SimTime start, SimTime end, std::uint64_t packets, std::uint64_t bytes,
                    double mbps) {
    auto* s = ok.add_intervals();
    s->set_flow(flow);
    s->set_start_ps(start);
    s->set_end_ps(end);
    s->set_packets(packets);
    s->set_bytes(bytes);
    s->set_mbps(mbps);
  };
  sample("udp1", 0, 500_ms, 49500, 61'875'000, 990.0);
  sample("udp2", 500_ms, 1_s, 5000, 7'360'000, 117.76);
  sample("udp1", 500_ms, 1_s, 49500, 61'875'000, 990.0);

  results::RunResult& failed = *set.add_runs();
  failed.set_netsim_version("0.1.0");
  failed.set_scenario_name("broken");
  failed.set_seed(7);
  failed.set_wall_time_s(0.001);
  failed.set_error("link wan: unknown endpoint \"x\"\nsee scenario line 12");
  return set;
}

std::string text_of(const results::RunSet& set, OutputFormat format) {
  std::ostringstream out;
  write_results(out, set, format);
  return out.str();
}

double parse_double(const std::string& text) {
  double value = std::numeric_limits<double>::quiet_NaN();
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  EXPECT_EQ(ec, std::errc{}) << text;
  EXPECT_EQ(end, text.data() + text.size()) << text;
  return value;
}

TEST(ResultWriters, ParseOutputFormat) {
  EXPECT_EQ(parse_output_format("text"), OutputFormat::text);
  EXPECT_EQ(parse_output_format("json"), OutputFormat::json);
  EXPECT_EQ(parse_output_format("csv"), OutputFormat::csv);
  EXPECT_EQ(parse_output_format("pb"), OutputFormat::pb);
  EXPECT_FALSE(parse_output_format("xml"));
  EXPECT_FALSE(parse_output_format(""));
  EXPECT_FALSE(parse_output_format("JSON"));
  for (auto f : {OutputFormat::text, OutputFormat::json, OutputFormat::csv, OutputFormat::pb})
    EXPECT_EQ(parse_output_format(to_string(f)), f);
}

TEST(ResultWriters, JsonRoundTrip) {
  results::RunSet original = sample_runs();
  std::string json = text_of(original, OutputFormat::json);
  EXPECT_NE(json.find("\"sim_time_ps\""), std::string::npos) << "proto field names, not lowerCamelCase";
  EXPECT_NE(json.find("\"error\": \"\""), std::string::npos) << "default-valued fields are printed";
  EXPECT_NE(json.find('\n'), std::string::npos) << "pretty-printed";
  results::RunSet back = read_json(json);
  std::string diff;
  MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differencer.Compare(original, back)) << diff;
  EXPECT_TRUE(MessageDifferencer::Equals(original, back));
}

TEST(ResultWriters, JsonReaderRejectsMalformedInput) {
  EXPECT_THROW(read_json("{\"runs\": ["), std::runtime_error);
  EXPECT_THROW(read_json("{\"no_such_field\": 1}"), std::runtime_error);
  EXPECT_THROW(read_json("[]"), std::runtime_error);
  EXPECT_THROW(read_json("{\"runs\": [{\"seed\": \"many\"}]}"), std::runtime_error);
}

TEST(ResultWriters, PbRoundTrip) {
  results::RunSet original = sample_runs();
  std::stringstream buffer(text_of(original, OutputFormat::pb));
  results::RunSet back = read_pb(buffer);
  EXPECT_TRUE(MessageDifferencer::Equals(original, back));

  std::stringstream garbage("\x0f\xff\xff");  // field 1 with wire type 7: not valid protobuf
  EXPECT_THROW(read_pb(garbage), std::runtime_error);
}

TEST(ResultWriters, CsvRoundTrip) {
  results::RunSet original = sample_runs();
  std::string csv = text_of(original, OutputFormat::csv);

  // Header row first, in the documented order.
  std::string header;
  for (std::string_view c : kFlowCsvColumns) header += (header.empty() ? "" : ",") + std::string(c);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), header);
  // RFC 4180: the field with a comma and quotes is quoted, its quotes doubled.
  EXPECT_NE(csv.find(",\"links.wan.delay=300us;flows.udp1.note=a,b \"\"c\"\"\","), std::string::npos) << csv;

  std::istringstream in(csv);
  auto rows = read_csv(in);
  ASSERT_EQ(rows.size(), 3u);  // two flows of run 1, one flow-less row for run 2

  // Expected values, straight from the message: strings compare as text, doubles must parse back exactly.
  std::size_t r = 0;
  for (const auto& run : original.runs()) {
    std::vector<const results::FlowStats*> flows;
    for (const auto& f : run.flows()) flows.push_back(&f);
    if (flows.empty()) flows.push_back(nullptr);
    for (const results::FlowStats* f : flows) {
      SCOPED_TRACE("row " + std::to_string(r));
      const auto& row = rows.at(r++);
      ASSERT_EQ(row.size(), std::size(kFlowCsvColumns));
      EXPECT_EQ(row.at("scenario"), run.scenario_name());
      EXPECT_EQ(row.at("file"), run.scenario_file());
      EXPECT_EQ(row.at("seed"), std::to_string(run.seed()));
      std::string overrides;
      for (const auto& o : run.overrides()) overrides += (overrides.empty() ? "" : ";") + o.key() + "=" + o.value();
      EXPECT_EQ(row.at("overrides"), overrides);
      EXPECT_EQ(parse_double(row.at("sim_time_s")), to_seconds(run.sim_time_ps()));
      EXPECT_EQ(row.at("events"), std::to_string(run.events()));
      EXPECT_EQ(parse_double(row.at("wall_time_s")), run.wall_time_s());
      EXPECT_EQ(row.at("error"), run.error());
      if (f == nullptr) {
        for (const char* c : {"flow", "kind", "src", "dst", "packets_sent", "bytes_sent", "packets_received",
                              "bytes_received", "packets_lost", "loss_pct", "sender_mbps", "receiver_mbps"})
          EXPECT_EQ(row.at(c), "") << c;
        continue;
      }
      EXPECT_EQ(row.at("flow"), f->name());
      EXPECT_EQ(row.at("kind"), f->kind());
      EXPECT_EQ(row.at("src"), f->src());
      EXPECT_EQ(row.at("dst"), f->dst());
      EXPECT_EQ(row.at("packets_sent"), std::to_string(f->packets_sent()));
      EXPECT_EQ(row.at("bytes_sent"), std::to_string(f->bytes_sent()));
      EXPECT_EQ(row.at("packets_received"), std::to_string(f->packets_received()));
      EXPECT_EQ(row.at("bytes_received"), std::to_string(f->bytes_received()));
      EXPECT_EQ(row.at("packets_lost"), std::to_string(f->packets_lost()));
      EXPECT_EQ(parse_double(row.at("loss_pct")), f->loss_pct());
      EXPECT_EQ(parse_double(row.at("sender_mbps")), f->sender_mbps());
      EXPECT_EQ(parse_double(row.at("receiver_mbps")), f->receiver_mbps());
    }
  }
  // Spot checks that the shortest form is used (no "%.17g" noise).
  EXPECT_EQ(rows[1].at("sender_mbps"), "912.3456789");
  EXPECT_EQ(rows[1].at("loss_pct"), "1e-09");
  EXPECT_EQ(rows[2].at("error"), "link wan: unknown endpoint \"x\"\nsee scenario line 12");
}

TEST(ResultWriters, LinksCsv) {
  std::ostringstream out;
  write_links_csv(out, sample_runs());
  std::istringstream in(out.str());
  auto rows = read_csv(in);
  ASSERT_EQ(rows.size(), 3u);  // two directions of run 1, one link-less row for run 2
  EXPECT_EQ(rows[0].at("link"), "wan");
  EXPECT_EQ(rows[0].at("from"), "sw1");
  EXPECT_EQ(rows[0].at("to"), "sw2");
  EXPECT_EQ(rows[0].at("packets_dropped"), "5");
  EXPECT_EQ(parse_double(rows[0].at("busy_s")), 0.012304);
  EXPECT_EQ(parse_double(rows[1].at("utilization")), 5.12e-6);
  EXPECT_EQ(rows[0].at("lpi_wakeups"), "3");
  EXPECT_EQ(rows[0].at("lpi_joined"), "1");
  EXPECT_EQ(parse_double(rows[0].at("lpi_wait_s")), 49.5e-6);
  EXPECT_EQ(rows[1].at("lpi_wakeups"), "");  // no EEE on that direction's link record
  EXPECT_EQ(rows[1].at("lpi_wait_s"), "");
  EXPECT_EQ(rows[0].at("pause_frames"), "4");  // 802.3x: PAUSE frames received, time frames were held
  EXPECT_EQ(parse_double(rows[0].at("paused_s")), 2e-6);
  EXPECT_EQ(rows[0].at("pause_frames_sent"), "6");
  EXPECT_EQ(rows[1].at("pause_frames"), "0");
  EXPECT_EQ(rows[2].at("link"), "");
  EXPECT_EQ(rows[2].at("scenario"), "broken");
}

TEST(ResultWriters, DoublesRoundTripExactly) {
  for (double v : {0.1 + 0.2, 912.3456789, 1e-9, 5e-324, std::numeric_limits<double>::max(), -0.0, 1.0 / 3.0}) {
    std::string text = format_double_roundtrip(v);
    double back = parse_double(text);
    EXPECT_EQ(std::memcmp(&back, &v, sizeof v), 0) << text;
  }
}

TEST(ResultWriters, CsvReaderFollowsRfc4180) {
  // CRLF line ends, quoted fields with embedded CRLF, doubled quotes and commas, an empty last field.
  std::istringstream in("\xEF\xBB\xBF" "a,b,c\r\n1,\"x,\"\"y\"\"\r\nz\",\r\n\"\",2,3");
  auto rows = read_csv(in);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("a"), "1");
  EXPECT_EQ(rows[0].at("b"), "x,\"y\"\r\nz");
  EXPECT_EQ(rows[0].at("c"), "");
  EXPECT_EQ(rows[1].at("a"), "");
  EXPECT_EQ(rows[1].at("c"), "3");

  auto parse = [](const std::string& text) {
    std::istringstream s(text);
    return read_csv(s);
  };
  EXPECT_TRUE(parse("a,b\n").empty());
  EXPECT_THROW(parse(""), std::runtime_error);
  EXPECT_THROW(parse("a,b\n1,\"open\n"), std::runtime_error);     // unterminated quote
  EXPECT_THROW(parse("a,b\n1,2,3\n"), std::runtime_error);        // too many fields
  EXPECT_THROW(parse("a,b\n1\n"), std::runtime_error);            // too few fields
  EXPECT_THROW(parse("a,b\n1,x\"y\n"), std::runtime_error);       // quote in an unquoted field
  EXPECT_THROW(parse("a,b\n1,\"x\"y\n"), std::runtime_error);     // text after the closing quote
  EXPECT_THROW(parse("a,a\n1,2\n"), std::runtime_error);          // duplicate column
  try {
    parse("a,b\n1,2\n3\n");
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
}

TEST(ResultWriters, TextReport) {
  std::string text = text_of(sample_runs(), OutputFormat::text);
  SCOPED_TRACE(text);
  auto has_line = [&](const std::string& line) { return text.find("\n" + line + "\n") != std::string::npos; };

  EXPECT_EQ(text.rfind("== run 1/2: lan-udp (scenarios/lan.yaml)  seed=42  links.wan.delay=300us "
                       "flows.udp1.note=a,b \"c\"  sim_time=1.00 s  events=123456  wall_time=0.250 s\n",
                       0),
            0u);

  // Column widths are the widest of title and cells; text columns left, numbers right, two blanks between.
  EXPECT_TRUE(has_line("flows:"));
  EXPECT_TRUE(has_line("  name  src->dst  sent pkts  rcvd pkts  lost  loss %  sender Mbit/s  receiver Mbit/s"));
  EXPECT_TRUE(has_line("  udp1  h1->h2       100000      99000  1000    1.00      1000.0000         990.0000"));
  EXPECT_TRUE(has_line("  udp2  h3->h2         5000       5000     0    0.00       912.3457         912.3457"));

  // nuttcp: 123750000 B / 2^20 = 118.017196... MB; 1 s; receiver 990 Mbit/s; 1000 of 100000 lost = 1.00 %.
  EXPECT_TRUE(has_line("  udp1: 118.0172 MB / 1.00 sec = 990.0000 Mbps 1000 / 100000 drop/pkt 1.00 %loss"));
  // 7360000 B / 2^20 = 7.019042... MB over 0.5 s; 912.3456788 rounds to 912.3457; loss 1e-9 % shows as 0.00.
  EXPECT_TRUE(has_line("  udp2: 7.0190 MB / 0.50 sec = 912.3457 Mbps 0 / 5000 drop/pkt 0.00 %loss"));

  EXPECT_TRUE(has_line("  link  from->to  packets    bytes  dropped  utilization %  max queue pkts  max queue bytes"));
  EXPECT_TRUE(has_line("  wan   sw1->sw2     1000  1538000        5           1.23              17            26146"));
  EXPECT_TRUE(has_line("  wan   sw2->sw1       10      640        0           0.00               1               64"));

  // Energy-Efficient Ethernet: only the records that have it, wait in microseconds.
  EXPECT_TRUE(has_line("eee:"));
  EXPECT_TRUE(has_line("  link  from->to  wake-ups  joined a wake-up  waited us"));
  EXPECT_TRUE(has_line("  wan   sw1->sw2         3                 1     49.500"));
  EXPECT_EQ(text.find("  wan   sw2->sw1         0"), std::string::npos);

  EXPECT_TRUE(has_line("  name      host  hook     type  matched  dropped"));
  EXPECT_TRUE(has_line("  drop-nth  h2    ingress  nth      1000     1000"));

  // Intervals grouped per flow (udp1's two samples together although udp2's came between them),
  // 61875000 B / 2^20 = 59.0086 MBytes; aligned across groups, a blank line between groups.
  EXPECT_NE(text.find("intervals:\n"
                      "  [udp1]  0.00-0.50 sec  59.0086 MBytes  990.0000 Mbits/sec  49500 pkts\n"
                      "  [udp1]  0.50-1.00 sec  59.0086 MBytes  990.0000 Mbits/sec  49500 pkts\n"
                      "\n"
                      "  [udp2]  0.50-1.00 sec   7.0190 MBytes  117.7600 Mbits/sec   5000 pkts\n"),
            std::string::npos);

  // The failed run: error banner, no empty sections.
  std::string run2 = text.substr(text.find("== run 2/2"));
  EXPECT_EQ(run2,
            "== run 2/2: broken  seed=7  sim_time=0.00 s  events=0  wall_time=0.001 s\n"
            "!! ERROR: link wan: unknown endpoint \"x\"\n"
            "!!        see scenario line 12\n");
  EXPECT_EQ(text.find(" \n"), std::string::npos) << "no trailing blanks";
}

TEST(ResultWriters, TextShowsSubsecondIntervalsExactly) {
  results::RunSet set;
  auto& run = *set.add_runs();
  run.set_scenario_name("fast");
  run.set_sim_time_ps(1500_us);
  auto* s = run.add_intervals();
  s->set_flow("f");
  s->set_start_ps(250_us);
  s->set_end_ps(500_us);
  std::string text = text_of(set, OutputFormat::text);
  EXPECT_NE(text.find("sim_time=0.0015 s"), std::string::npos) << text;
  EXPECT_NE(text.find("  [f]  0.00025-0.00050 sec  0.0000 MBytes  0.0000 Mbits/sec  0 pkts\n"), std::string::npos)
      << text;
  EXPECT_EQ(text_of(results::RunSet{}, OutputFormat::text), "(no runs)\n");
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

// The receive-NIC table: a plain NAPI/GRO path keeps its nine columns; the
// box NIC's moderation, idle wake-ups and timer polls each add theirs only
// when some NIC has them.
TEST(ResultWriters, ReceiveNicTableShowsOptionalStagesOnlyWhenUsed) {
  results::RunSet set;
  results::RunResult& run = *set.add_runs();
  run.set_scenario_name("nics");
  auto* plain = run.add_nics();
  plain->set_host("rcv");
  plain->set_link("a-rcv");
  plain->set_wire_packets(100);
  plain->set_delivered_packets(40);
  plain->set_mean_aggregate_segments(2.5);
  plain->set_max_aggregate_segments(4);
  plain->set_interrupts(30);
  std::ostringstream out;
  write_results(out, set, OutputFormat::text);
  EXPECT_NE(out.str().find("  host  link   wire pkts  delivered  segs/aggregate  max  interrupts  ring drops  filtered\n"
                           "  rcv   a-rcv        100         40            2.50    4          30           0         0\n"),
            std::string::npos)
      << out.str();

  auto* vm = run.add_nics();
  vm->set_host("vm");
  vm->set_link("b-vm");
  vm->set_wire_packets(100);
  vm->set_delivered_packets(20);
  vm->set_mean_aggregate_segments(5.0);
  vm->set_max_aggregate_segments(9);
  vm->set_interrupts(12);
  vm->set_host_rx_interrupts(15);
  vm->set_host_timer_frames(85);
  vm->set_idle_wakeups(2);
  vm->set_timer_polls(7);
  std::ostringstream both;
  write_results(both, set, OutputFormat::text);
  EXPECT_NE(both.str().find("  host  link   wire pkts  delivered  segs/aggregate  max  interrupts  box nic irqs  "
                            "box timer frames  idle wakeups  timer polls  ring drops  filtered\n"
                            "  rcv   a-rcv        100         40            2.50    4          30             0  "
                            "               0             0            0           0         0\n"
                            "  vm    b-vm         100         20            5.00    9          12            15  "
                            "              85             2            7           0         0\n"),
            std::string::npos)
      << both.str();
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

// The tcp table: the sender's counters, then the Linux receiver's ACKs by
// cause after RTOs. The CSV's columns stay as they are (a stable interface).
TEST(ResultWriters, TcpTableShowsTheReceiversAckCauses) {
  results::RunSet set;
  results::RunResult& run = *set.add_runs();
  run.set_scenario_name("acks");
  auto* f = run.add_flows();
  f->set_name("iperf3");
  f->set_kind("tcp");
  f->set_src("sender");
  f->set_dst("receiver");
  f->set_retransmits(12);
  f->set_recovery_episodes(3);
  f->set_rto_count(1);
  f->set_receiver_delayed_acks(4567);
  f->set_receiver_quickack_acks(89);
  f->set_final_cwnd(14480);
  f->set_srtt_us(375);
  const std::string text = text_of(set, OutputFormat::text);
  EXPECT_NE(text.find("tcp:\n"
                      "  flow    retransmits  recoveries  RTOs  delayed ACKs  quick ACKs  cwnd bytes  srtt us\n"
                      "  iperf3           12           3     1          4567          89       14480      375\n"),
            std::string::npos)
      << text;

  const std::string csv = text_of(set, OutputFormat::csv);
  std::string header;
  for (std::string_view c : kFlowCsvColumns) header += (header.empty() ? "" : ",") + std::string(c);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), header);
  EXPECT_EQ(csv.find("4567"), std::string::npos) << csv;
}

}  // namespace
}  // namespace netsim
