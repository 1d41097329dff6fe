#include "netsim/scenario/measured_comparison.h"

#include <gtest/gtest.h>

#include <sstream>
#include <tuple>

#include "netsim/scenario/scenario_loader.h"

namespace netsim {
namespace {

const char* kScenario = R"(
name: cmp
duration: 1s
hosts:
  a: { address: 10.0.0.1 }
  b: { address: 10.0.0.2 }
links:
  ab: { ends: [a, b], rate: 1Gbps }
traffic:
  f: { type: udp, from: a, to: b, rate: 100Mbps }
sweep:
  traffic.f.rate: [100Mbps, 200Mbps]
measured:
  source: "hand-made"
  keys: { rate: traffic.f.rate }
  cells:
    - { rate: 100Mbps, value: 100 }
    - { rate: 200Mbps, value: 250 }
  claims:
    - { text: "200 over 100", measured: 2.5, numerator: { rate: 200Mbps }, denominator: { rate: 100Mbps } }
)";

results::RunSet make_runs() {
  results::RunSet set;
  // Two seeds of the 100 Mbit/s cell and one of the 200 Mbit/s cell.
  for (auto [rate, seed, mbps] : {std::tuple{"100Mbps", 1, 90.0}, {"100Mbps", 2, 110.0}, {"200Mbps", 1, 200.0}}) {
    auto* r = set.add_runs();
    r->set_seed(seed);
    auto* o = r->add_overrides();
    o->set_key("traffic.f.rate");
    o->set_value(rate);
    auto* f = r->add_flows();
    f->set_name("f");
    f->set_receiver_mbps(mbps);
    f->set_sender_mbps(mbps + 1);
    f->set_packets_lost(7);
  }
  return set;
}

TEST(MeasuredComparison, MeanRangeErrorAndClaims) {
  const ScenarioSpec spec = parse_scenario_text(kScenario, "cmp.yaml");
  const auto m = parse_measured(spec);
  ASSERT_TRUE(m.has_value());
  const auto rows = compare(make_runs(), *m);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].runs, 2u);
  EXPECT_DOUBLE_EQ(rows[0].sim_mean, 100.0);
  EXPECT_DOUBLE_EQ(rows[0].sim_min, 90.0);
  EXPECT_DOUBLE_EQ(rows[0].sim_max, 110.0);
  EXPECT_DOUBLE_EQ(rows[0].error_pct, 0.0);
  EXPECT_DOUBLE_EQ(rows[1].error_pct, -20.0);  // 200 vs 250
  std::ostringstream text;
  write_comparison_text(text, make_runs(), *m);
  EXPECT_NE(text.str().find("  200Mbps  1     200.0                  250.0     -20.0"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("200 over 100: simulated +1.00x, measured +1.50x"), std::string::npos) << text.str();
  std::ostringstream csv;
  write_comparison_csv(csv, make_runs(), *m);
  EXPECT_EQ(csv.str(),
            "rate,seed,sender_mbps,receiver_mbps,retransmits,measured_mbps,error_pct\n"
            "100Mbps,1,91,90,7,100,-10\n"
            "100Mbps,2,111,110,7,100,10\n"
            "200Mbps,1,201,200,7,250,-20\n");
}

// measured.columns: extra CSV columns, each the compared flow's value of a
// metric (a SIFTR log's size on its sending host, iperf3's max_snd_cwnd).
TEST(MeasuredComparison, ColumnsAddTheFlowsMetricsToTheCsv) {
  std::string text = kScenario;
  text.replace(text.find("  claims:"), std::string::npos,
               "  columns: { mbps: sender_mbps, log_bytes: siftr_log_bytes, max_cwnd_bytes: max_cwnd_bytes }\n");
  const auto m = parse_measured(parse_scenario_text(text, "cmp.yaml"));
  ASSERT_TRUE(m.has_value());
  results::RunSet runs = make_runs();
  for (auto& r : *runs.mutable_runs()) {
    r.mutable_flows(0)->set_src("a");
    auto* s = r.add_siftr();
    s->set_host("a");
    s->set_log_bytes(1000 * r.seed());
    auto* i = r.add_iperf3();
    i->set_flow("f");
    i->add_streams()->set_max_snd_cwnd(5000);
    i->add_streams()->set_max_snd_cwnd(7000);
  }
  std::ostringstream csv;
  write_comparison_csv(csv, runs, *m);
  EXPECT_EQ(csv.str(),
            "rate,seed,sender_mbps,receiver_mbps,retransmits,measured_mbps,error_pct,mbps,log_bytes,max_cwnd_bytes\n"
            "100Mbps,1,91,90,7,100,-10,91,1000,7000\n"
            "100Mbps,2,111,110,7,100,10,111,2000,7000\n"
            "200Mbps,1,201,200,7,250,-20,201,1000,7000\n");
  text.replace(text.find("max_cwnd_bytes: max_cwnd_bytes"), 30, "max_cwnd_bytes: cwnd_max");
  try {
    parse_measured(parse_scenario_text(text, "cmp.yaml"));
    ADD_FAILURE() << "an unknown column metric was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("measured.columns.max_cwnd_bytes"), std::string::npos) << e.what();
  }
}

TEST(MeasuredComparison, NoCellsMeansNoComparison) {
  std::string text = kScenario;
  text = text.substr(0, text.find("measured:"));
  EXPECT_FALSE(parse_measured(parse_scenario_text(text, "x.yaml")).has_value());
}

const char* kLabelled = R"(
name: lab
duration: 1s
hosts:
  a: { address: 10.0.0.1 }
  b: { address: 10.0.0.2, nic: { gro: false } }
links:
  ab: { ends: [a, b], rate: 1Gbps }
traffic:
  f: { type: tcp, from: a, to: b, tso: false }
measured:
  keys:
    offload:
      paths: traffic.f.tso + hosts.b.nic.gro
      labels: { per-packet: [false, false], tso: [true, false], gro: [false, true] }
)";

results::RunSet offload_runs() {
  results::RunSet set;
  for (auto [tso, gro, mbps] : {std::tuple{"true", "false", 900.0}, {"false", "true", 800.0}, {"true", "true", 1.0}}) {
    auto* r = set.add_runs();
    r->set_seed(1);
    for (auto [key, value] : {std::pair{"traffic.f.tso", tso}, {"hosts.b.nic.gro", gro}}) {
      auto* o = r->add_overrides();
      o->set_key(key);
      o->set_value(value);
    }
    auto* f = r->add_flows();
    f->set_name("f");
    f->set_kind("tcp");
    f->set_receiver_mbps(mbps);
    f->set_sender_mbps(mbps);
  }
  return set;
}

TEST(MeasuredComparison, ALabelledKeyNamesATupleOfPathValues) {
  // Without cells the block still gives the CSV its key columns.
  const auto m = parse_measured(parse_scenario_text(kLabelled, "lab.yaml"));
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(m->keys.size(), 1u);
  EXPECT_EQ(m->keys[0].second, "traffic.f.tso + hosts.b.nic.gro");
  EXPECT_TRUE(m->cells.empty());
  EXPECT_EQ(key_value_paths(*m, 0, "gro"),
            (std::vector<std::pair<std::string, std::string>>{{"traffic.f.tso", "false"}, {"hosts.b.nic.gro", "true"}}));
  EXPECT_TRUE(key_value_paths(*m, 0, "lro").empty());
  EXPECT_TRUE(is_measured_key_path(*m, "hosts.b.nic.gro"));
  EXPECT_FALSE(is_measured_key_path(*m, "traffic.f.tso + hosts.b.nic.gro"));
  std::ostringstream csv;
  write_comparison_csv(csv, offload_runs(), *m);
  EXPECT_EQ(csv.str(),
            "offload,seed,sender_mbps,receiver_mbps,retransmits,measured_mbps,error_pct\n"
            "tso,1,900,900,0,,\n"
            "gro,1,800,800,0,,\n"
            "true+true,1,1,1,0,,\n");

  // Cells by label are compared with the runs whose paths carry its values.
  std::string text = std::string(kLabelled) + "  cells:\n    - { offload: gro, value: 1000 }\n";
  const auto c = parse_measured(parse_scenario_text(text, "lab.yaml"));
  ASSERT_TRUE(c.has_value());
  const auto rows = compare(offload_runs(), *c);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].runs, 1u);
  EXPECT_DOUBLE_EQ(rows[0].sim_mean, 800.0);
}

TEST(MeasuredComparison, ALabelledKeyIsCheckedWithItsLine) {
  auto error_of = [](const std::string& text) -> std::pair<std::string, int> {
    try {
      parse_measured(parse_scenario_text(text, "lab.yaml"));
    } catch (const ScenarioError& e) {
      return {e.field, e.loc.line};
    }
    return {"", 0};
  };
  const std::string base = kLabelled;
  auto replaced = [&base](const std::string& from, const std::string& to) {
    std::string s = base;
    return s.replace(s.find(from), from.size(), to);
  };
  EXPECT_EQ(error_of(replaced("tso: [true, false]", "tso: [true]")),
            (std::pair<std::string, int>{"measured.keys.offload.labels.tso", 15}));
  EXPECT_EQ(error_of(replaced("gro: [false, true]", "gro: [true, false]")),
            (std::pair<std::string, int>{"measured.keys.offload.labels.gro", 15}));
  EXPECT_EQ(error_of(replaced("paths: traffic.f.tso + hosts.b.nic.gro", "paths: traffic.f.tso")),
            (std::pair<std::string, int>{"measured.keys.offload.paths", 14}));
  EXPECT_EQ(error_of(replaced("      labels:", "      label:")).first, "measured.keys.offload");
  EXPECT_EQ(error_of(base + "  cells:\n    - { offload: lro, value: 1 }\n"),
            (std::pair<std::string, int>{"measured.cells[0].offload", 17}));
  EXPECT_EQ(error_of(base + "  claims:\n    - { measured: 2, numerator: {}, denominator: {} }\n").first,
            "measured.claims");
}

TEST(MeasuredComparison, MalformedBlockNamesFileLineAndField) {
  std::string text = kScenario;
  const auto pos = text.find("value: 250");
  text.replace(pos, 10, "value: lots");
  try {
    parse_measured(parse_scenario_text(text, "bad.yaml"));
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.loc.file, "bad.yaml");
    EXPECT_EQ(e.loc.line, 18);  // the raw string starts with a newline
    EXPECT_EQ(e.field, "measured.cells[1].value");
    EXPECT_NE(std::string(e.what()).find("expected a number"), std::string::npos);
  }
}

// Two flows per cell (T2's layout): each sender's throughput and Jain's index.
const char* kTwoFlows = R"(
name: cmp2
duration: 1s
hosts:
  a: { address: 10.0.0.1 }
  c: { address: 10.0.0.3 }
  b: { address: 10.0.0.2 }
switches:
  sw: {}
links:
  ab: { ends: [a, sw], rate: 1Gbps }
  cb: { ends: [c, sw], rate: 1Gbps }
  sb: { ends: [sw, b], rate: 1Gbps }
traffic:
  s1: { type: udp, from: a, to: b, dst_port: 5001, rate: 100Mbps }
  s2: { type: udp, from: c, to: b, dst_port: 5002, rate: 100Mbps }
sweep:
  traffic.s1.rate: [100Mbps, 200Mbps]
measured:
  source: "two flows"
  keys: { r1: traffic.s1.rate }
  metrics:
    s1: { flow: s1 }
    s2: { flow: s2, metric: receiver_mbps }
    jain: { fairness: [s1, s2] }
  cells:
    - { r1: 100Mbps, s1: 317, s2: 533, jain: 0.94 }
    - { r1: 200Mbps, s1: 500, s2: 500, jain: 1 }
)";

results::RunSet two_flow_runs() {
  results::RunSet set;
  // Cell 100Mbps: seeds 1 and 2; cell 200Mbps: seed 1.
  for (auto [rate, seed, a, c] : {std::tuple{"100Mbps", 1, 317.0, 533.0}, {"100Mbps", 2, 400.0, 400.0},
                                  {"200Mbps", 1, 600.0, 200.0}}) {
    auto* r = set.add_runs();
    r->set_seed(seed);
    auto* o = r->add_overrides();
    o->set_key("traffic.s1.rate");
    o->set_value(rate);
    for (auto [name, mbps] : {std::pair{"s1", a}, {"s2", c}}) {
      auto* f = r->add_flows();
      f->set_name(name);
      f->set_receiver_mbps(mbps);
      f->set_sender_mbps(mbps);
    }
  }
  return set;
}

TEST(MeasuredComparison, SeveralMetricsPerCellWithJainsIndex) {
  const auto m = parse_measured(parse_scenario_text(kTwoFlows, "cmp2.yaml"));
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(m->metrics.size(), 3u);
  EXPECT_TRUE(m->multi);
  EXPECT_TRUE(m->metrics[2].is_fairness());
  const auto rows = compare(two_flow_runs(), *m);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[0].metrics.size(), 3u);
  // s1: (317 + 400) / 2 = 358.5 against 317: +13.09%.
  EXPECT_EQ(rows[0].metrics[0].runs, 2u);
  EXPECT_DOUBLE_EQ(rows[0].metrics[0].sim_mean, 358.5);
  EXPECT_NEAR(rows[0].metrics[0].error, (358.5 - 317.0) / 317.0 * 100.0, 1e-12);
  // Jain: seed 1 850^2 / (2 x 384578) = 0.939337..., seed 2 exactly 1; mean
  // 0.969668...; error in index points against 0.94: +2.97.
  const double j1 = 722500.0 / 769156.0;
  EXPECT_NEAR(rows[0].metrics[2].sim_min, j1, 1e-15);
  EXPECT_DOUBLE_EQ(rows[0].metrics[2].sim_max, 1.0);
  EXPECT_NEAR(rows[0].metrics[2].sim_mean, (j1 + 1.0) / 2, 1e-15);
  EXPECT_NEAR(rows[0].metrics[2].error, ((j1 + 1.0) / 2 - 0.94) * 100.0, 1e-12);
  // Cell 200Mbps: 600 / 200 -> 800^2 / (2 x 400000) = 0.8, 20 points below 1.
  EXPECT_NEAR(rows[1].metrics[2].sim_mean, 0.8, 1e-15);
  EXPECT_NEAR(rows[1].metrics[2].error, -20.0, 1e-12);
  // The first metric also fills the single-metric fields (claims use them).
  EXPECT_DOUBLE_EQ(rows[0].sim_mean, 358.5);
}

TEST(MeasuredComparison, SeveralMetricsCsvAndText) {
  const auto m = parse_measured(parse_scenario_text(kTwoFlows, "cmp2.yaml"));
  ASSERT_TRUE(m.has_value());
  std::ostringstream csv;
  write_comparison_csv(csv, two_flow_runs(), *m);
  std::istringstream lines(csv.str());
  std::string header, row1;
  std::getline(lines, header);
  std::getline(lines, row1);
  EXPECT_EQ(header, "r1,seed,s1_mbps,s2_mbps,jain,measured_s1_mbps,measured_s2_mbps,measured_jain,error_pct");
  EXPECT_EQ(row1.substr(0, 20), "100Mbps,1,317,533,0.");
  EXPECT_NE(row1.find(",317,533,0.94"), std::string::npos) << row1;
  std::ostringstream text;
  write_comparison_text(text, two_flow_runs(), *m);
  EXPECT_NE(text.str().find("error pt"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("94.0%"), std::string::npos) << text.str();   // measured Jain
  EXPECT_NE(text.str().find("+3.0"), std::string::npos) << text.str();    // +2.97 points
}

// The last line of a comparison table that starts with `prefix` ("" if none).
std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::string line, found;
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) == 0) found = line;
  }
  return found;
}

TEST(MeasuredComparison, RepeatedMeasurementsShowTheirRunsAndRange) {
  // Cells from repeated measurement files (--data) carry how many runs gave
  // each value and their range; the tables then print both.
  auto m = parse_measured(parse_scenario_text(kTwoFlows, "cmp2.yaml"));
  ASSERT_TRUE(m.has_value());
  std::ostringstream plain;
  write_comparison_text(plain, two_flow_runs(), *m);
  EXPECT_EQ(plain.str().find("measured r"), std::string::npos) << plain.str();
  MeasuredCell& c = m->cells[0];
  c.runs = {3, 3, 3};
  c.min_values = {290, 500, 0.92};
  c.max_values = {340, 560, 0.96};
  const auto rows = compare(two_flow_runs(), *m);
  EXPECT_EQ(rows[0].metrics[2].measured_runs, 3u);
  EXPECT_DOUBLE_EQ(rows[0].metrics[0].measured_min, 290);
  EXPECT_DOUBLE_EQ(rows[0].metrics[2].measured_max, 0.96);
  EXPECT_EQ(rows[1].metrics[0].measured_runs, 1u);  // a cell without repeats
  EXPECT_DOUBLE_EQ(rows[1].metrics[0].measured_min, rows[1].metrics[0].measured);
  std::ostringstream text;
  write_comparison_text(text, two_flow_runs(), *m);
  const std::string header = line_starting(text.str(), "  r1 ");
  const std::string cell100 = line_starting(text.str(), "  100Mbps ");
  const std::string cell200 = line_starting(text.str(), "  200Mbps ");
  EXPECT_NE(header.find("  runs  measured runs  s1 "), std::string::npos) << text.str();
  EXPECT_NE(header.find("  measured  measured range  error %"), std::string::npos) << text.str();
  EXPECT_NE(cell100.find("  2     3              "), std::string::npos) << text.str();
  EXPECT_NE(cell100.find("290.0-340.0"), std::string::npos) << text.str();
  EXPECT_NE(cell100.find("92.0%-96.0%"), std::string::npos) << text.str();
  EXPECT_NE(cell200.find("  1     1              "), std::string::npos) << text.str();

  // The single-metric layout.
  auto one = parse_measured(parse_scenario_text(kScenario, "cmp.yaml"));
  ASSERT_TRUE(one.has_value());
  one->cells[1].runs = {4};
  one->cells[1].min_values = {240};
  one->cells[1].max_values = {262.5};
  std::ostringstream single;
  write_comparison_text(single, make_runs(), *one);
  EXPECT_NE(single.str().find("  runs  measured runs  simulated  range       measured  measured range  error %"),
            std::string::npos) << single.str();
  EXPECT_NE(single.str().find("  200Mbps  1     4              200.0                  250.0     240.0-262.5     -20.0"),
            std::string::npos) << single.str();
}

// A block's cell may give a value as { mean, runs, range }: the mean of
// repeated measurements and their spread (table T3's 20 runs per kernel).
TEST(MeasuredComparison, ABlockCellMayGiveMeanRunsAndRange) {
  std::string text = kTwoFlows;
  const std::string from = "s1: 317, ";
  text.replace(text.find(from), from.size(), "s1: { mean: 317, runs: 20, range: [290, 340] }, ");
  auto m = parse_measured(parse_scenario_text(text, "cmp2.yaml"));
  ASSERT_TRUE(m.has_value());
  const MeasuredCell& c = m->cells[0];
  EXPECT_DOUBLE_EQ(c.values[0], 317);
  ASSERT_EQ(c.runs.size(), 3u);
  EXPECT_EQ(c.runs[0], 20u);
  EXPECT_EQ(c.runs[1], 1u);  // a plain number in the same cell: one run
  EXPECT_DOUBLE_EQ(c.min_values[0], 290);
  EXPECT_DOUBLE_EQ(c.max_values[0], 340);
  EXPECT_DOUBLE_EQ(c.min_values[1], 533);
  EXPECT_TRUE(m->cells[1].runs.empty());  // no map: as before
  std::ostringstream out;
  write_comparison_text(out, two_flow_runs(), *m);
  EXPECT_NE(line_starting(out.str(), "  100Mbps ").find("290.0-340.0"), std::string::npos) << out.str();

  auto expect_error = [&](const std::string& value, const std::string& field, const std::string& fragment) {
    std::string bad = kTwoFlows;
    bad.replace(bad.find(from), from.size(), "s1: " + value + ", ");
    try {
      parse_measured(parse_scenario_text(bad, "bad2.yaml"));
      FAIL() << "no error for " << value;
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.field, field) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("{ runs: 3 }", "measured.cells[0].s1.mean", "needs its mean");
  expect_error("{ mean: 317, range: [290, 340] }", "measured.cells[0].s1.runs", "number of runs");
  expect_error("{ mean: 317, runs: 1, range: [290, 340] }", "measured.cells[0].s1.runs", "at least 2");
  expect_error("{ mean: 317, runs: 5, range: [320, 340] }", "measured.cells[0].s1.range", "hold the mean");
  expect_error("{ mean: 317, runs: 5, range: [300] }", "measured.cells[0].s1.range", "[min, max]");
  expect_error("{ mean: 317, spread: 3 }", "measured.cells[0].s1.spread", "unknown key");
  expect_error("{ mean: -1 }", "measured.cells[0].s1.mean", "positive");
}

TEST(MeasuredComparison, RankingOfTheThroughputsAgainstMeasured) {
  const auto m = parse_measured(parse_scenario_text(kTwoFlows, "cmp2.yaml"));
  ASSERT_TRUE(m.has_value());
  std::ostringstream text;
  write_comparison_text(text, two_flow_runs(), *m);
  const std::string header = line_starting(text.str(), "  r1 ");
  const std::string cell100 = line_starting(text.str(), "  100Mbps ");
  const std::string cell200 = line_starting(text.str(), "  200Mbps ");
  EXPECT_EQ(header.substr(header.size() - 7), "ranking") << text.str();
  // 100Mbps: simulated 358.5 < 466.5 as measured 317 < 533.
  EXPECT_EQ(cell100.substr(cell100.size() - 4), "same") << text.str();
  // 200Mbps: simulated 600 > 200, measured a tie: no direction to match.
  EXPECT_EQ(cell200.substr(cell200.size() - 7), "differs") << text.str();
}

TEST(MeasuredComparison, SeveralMetricsErrorsNameTheField) {
  auto expect_error = [](const std::string& from, const std::string& to, const std::string& field,
                         const std::string& fragment) {
    std::string text = kTwoFlows;
    const auto pos = text.find(from);
    ASSERT_NE(pos, std::string::npos) << from;
    text.replace(pos, from.size(), to);
    try {
      parse_measured(parse_scenario_text(text, "bad2.yaml"));
      FAIL() << "no error for " << to;
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.field, field);
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("jain: 0.94", "jain: 94", "measured.cells[0].jain", "at most 1");
  expect_error("s1: 317, ", "", "measured.cells[0].s1", "missing the measured value 's1'");
  expect_error("fairness: [s1, s2]", "fairness: [s1]", "measured.metrics.jain.fairness", "at least two");
  expect_error("{ flow: s1 }", "{ flow: s1, colour: red }", "measured.metrics.s1.colour", "unknown key");
  expect_error("  metrics:", "  metric: receiver_mbps\n  metrics:", "measured.metrics", "not both");
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

TEST(MeasuredComparison, RetransmitsAsTheComparedMetric) {
  std::string text = kScenario;
  text.replace(text.find("  keys:"), 0, "  metric: retransmits\n");
  const ScenarioSpec spec = parse_scenario_text(text, "cmp.yaml");
  const auto m = parse_measured(spec);
  ASSERT_TRUE(m.has_value());
  // The udp flows' lost datagrams (7 in every run) against 100 and 250.
  const auto rows = compare(make_runs(), *m);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].sim_mean, 7.0);
  EXPECT_DOUBLE_EQ(rows[0].error_pct, -93.0);
  std::ostringstream csv;
  write_comparison_csv(csv, make_runs(), *m);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "rate,seed,sender_mbps,receiver_mbps,retransmits,measured_retransmits,error_pct");
  EXPECT_NE(csv.str().find("100Mbps,1,91,90,7,100,-93\n"), std::string::npos) << csv.str();

  // Jain's index is over throughputs only.
  std::string jain = kScenario;
  jain.replace(jain.find("  keys:"), 0, "  metrics:\n    j: { fairness: [f, f], metric: retransmits }\n");
  const std::size_t v = jain.find("value: 100");
  jain.replace(v, 10, "j: 0.9");
  jain.replace(jain.find("value: 250"), 10, "j: 0.8");
  try {
    parse_measured(parse_scenario_text(jain, "cmp.yaml"));
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("taken over throughputs"), std::string::npos) << e.what();
  }
}

TEST(MeasuredComparison, CellsFromDataLeaveTheBlocksCellsUnread) {
  // Metrics renamed for measurement files: the block's cells have no values
  // for them, which is an error when they are the data and none with --data.
  std::string text = kTwoFlows;
  text.replace(text.find("    s1: { flow: s1 }"), 0, "    ping: { flow: p, metric: rtt_avg_ms }\n");
  const ScenarioSpec spec = parse_scenario_text(text, "cmp2.yaml");
  try {
    parse_measured(spec);
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("missing the measured value 'ping'"), std::string::npos) << e.what();
  }
  const auto m = parse_measured(spec, CellsFrom::data);
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->cells.empty());
  EXPECT_TRUE(m->claims.empty());
  ASSERT_EQ(m->metrics.size(), 4u);
  EXPECT_EQ(m->metrics[0].metric, "rtt_avg_ms");
  EXPECT_EQ(m->keys.size(), 1u);
  // The rest of the block is still checked.
  std::string bad = text;
  bad.replace(bad.find("metric: rtt_avg_ms"), 18, "metric: rtt_typical_ms");
  EXPECT_THROW(parse_measured(parse_scenario_text(bad, "cmp2.yaml"), CellsFrom::data), ScenarioError);
}

TEST(MeasuredComparison, SenderTxDropsAreTheSendingHostsQueueDrops) {
  // The flow f goes a -> b. Its sending host's queues are those of the links
  // a transmits on (a -> b: 5, a -> c: 2); what b sends back (7) is not its.
  std::string text = kScenario;
  text.replace(text.find("  keys:"), 0, "  metric: sender_tx_drops\n");
  const auto m = parse_measured(parse_scenario_text(text, "cmp.yaml"));
  ASSERT_TRUE(m.has_value());
  results::RunSet runs = make_runs();
  for (auto& r : *runs.mutable_runs()) {
    r.mutable_flows(0)->set_src("a");
    for (auto [from, to, dropped] : {std::tuple{"a", "b", 5}, {"b", "a", 7}, {"a", "c", 2}}) {
      auto* l = r.add_links();
      l->set_from(from);
      l->set_to(to);
      l->set_packets_dropped(dropped);
    }
  }
  const auto rows = compare(runs, *m);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].sim_mean, 7.0);
  EXPECT_DOUBLE_EQ(rows[1].error_pct, (7.0 - 250.0) / 250.0 * 100.0);
  std::ostringstream csv;
  write_comparison_csv(csv, runs, *m);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "rate,seed,sender_mbps,receiver_mbps,retransmits,sender_tx_drops,measured_sender_tx_drops,error_pct");
  EXPECT_NE(csv.str().find("200Mbps,1,201,200,7,7,250,"), std::string::npos) << csv.str();
}

TEST(MeasuredComparison, ReceiverRxDropsAreTheReceivingHostsRingDrops) {
  // The flow f goes a -> b: b's receive rings (two NICs: 4 + 1 full-ring
  // drops) count, a's (9) do not.
  std::string text = kScenario;
  text.replace(text.find("  keys:"), 0, "  metric: receiver_rx_drops\n");
  const auto m = parse_measured(parse_scenario_text(text, "cmp.yaml"));
  ASSERT_TRUE(m.has_value());
  results::RunSet runs = make_runs();
  for (auto& r : *runs.mutable_runs()) {
    r.mutable_flows(0)->set_dst("b");
    for (auto [host, drops] : {std::pair{"b", 4}, {"a", 9}, {"b", 1}}) {
      auto* n = r.add_nics();
      n->set_host(host);
      n->set_ring_drops(drops);
    }
  }
  const auto rows = compare(runs, *m);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].sim_mean, 5.0);
  EXPECT_TRUE(m->metrics.front().is_count());
}

TEST(MeasuredComparison, ReceiverPauseFramesAreTheReceivingHostsXoffAndXon) {
  // The flow f goes a -> b: b's NICs sent 30 + 28 and 2 + 2 PAUSE frames; a's (50) do not count.
  std::string text = kScenario;
  text.replace(text.find("  keys:"), 0, "  metric: receiver_pause_frames\n");
  const auto m = parse_measured(parse_scenario_text(text, "cmp.yaml"));
  ASSERT_TRUE(m.has_value());
  results::RunSet runs = make_runs();
  for (auto& r : *runs.mutable_runs()) {
    r.mutable_flows(0)->set_dst("b");
    for (auto [host, xoff, xon] : {std::tuple{"b", 30, 28}, {"a", 25, 25}, {"b", 2, 2}}) {
      auto* n = r.add_nics();
      n->set_host(host);
      n->set_pause_xoff_frames(xoff);
      n->set_pause_xon_frames(xon);
    }
  }
  const auto rows = compare(runs, *m);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].sim_mean, 62.0);
  EXPECT_TRUE(m->metrics.front().is_count());
}

TEST(MeasuredComparison, StackCountersWithAMeasuredZero) {
  // RTO counts: 0 and 3 measured; the runs' flows (udp here, the field is
  // read as it is) have 2 RTOs each. A measured 0 is a valid count, and its
  // error is taken relative to 1.
  std::string text = kScenario;
  text.replace(text.find("  keys:"), 0, "  metric: rto_count\n");
  text.replace(text.find("value: 100"), 10, "value: 0");
  text.replace(text.find("value: 250"), 10, "value: 3");
  const auto m = parse_measured(parse_scenario_text(text, "cmp.yaml"));
  ASSERT_TRUE(m.has_value());
  results::RunSet runs = make_runs();
  for (auto& r : *runs.mutable_runs()) r.mutable_flows(0)->set_rto_count(2);
  const auto rows = compare(runs, *m);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].sim_mean, 2.0);
  EXPECT_DOUBLE_EQ(rows[0].error_pct, 200.0);           // (2 - 0) / max(0, 1)
  EXPECT_DOUBLE_EQ(rows[1].error_pct, -100.0 / 3.0);    // (2 - 3) / 3
  std::ostringstream csv;
  write_comparison_csv(csv, runs, *m);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "rate,seed,sender_mbps,receiver_mbps,retransmits,rto_count,measured_rto_count,error_pct");
  EXPECT_NE(csv.str().find("100Mbps,1,91,90,7,2,0,200\n"), std::string::npos) << csv.str();

  // The receiver's delayed-ACK timer ACKs among several metrics: its column names the counter.
  std::string multi = kScenario;
  multi.replace(multi.find("  keys:"), 0,
                "  metrics:\n    t: { flow: f }\n    d: { flow: f, metric: receiver_delayed_acks }\n");
  multi.replace(multi.find("value: 100"), 10, "t: 100, d: 0");
  multi.replace(multi.find("value: 250"), 10, "t: 250, d: 40");
  const auto mm = parse_measured(parse_scenario_text(multi, "cmp.yaml"));
  ASSERT_TRUE(mm.has_value());
  for (auto& r : *runs.mutable_runs()) r.mutable_flows(0)->set_receiver_delayed_acks(50);
  std::ostringstream csv2;
  write_comparison_csv(csv2, runs, *mm);
  EXPECT_EQ(csv2.str().substr(0, csv2.str().find('\n')),
            "rate,seed,t_mbps,d_receiver_delayed_acks,measured_t_mbps,measured_d_receiver_delayed_acks,error_pct");
  EXPECT_DOUBLE_EQ(compare(runs, *mm)[1].metrics[1].error, 25.0);

  // A negative count is an error; a rate of 0 still is one.
  std::string negative = text;
  negative.replace(negative.find("value: 0"), 8, "value: -1");
  try {
    parse_measured(parse_scenario_text(negative, "cmp.yaml"));
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("a measured count cannot be negative"), std::string::npos) << e.what();
  }
  std::string zero_rate = kScenario;
  zero_rate.replace(zero_rate.find("value: 100"), 10, "value: 0");
  EXPECT_THROW(parse_measured(parse_scenario_text(zero_rate, "cmp.yaml")), ScenarioError);
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

// T4's block: throughput in Gbit/s and both hosts' CPU, named CSV columns,
// CPU errors in points, and a cell that leaves a CPU figure out.
TEST(MeasuredComparison, NamedColumnsGbpsCpuPointsAndCellsWithoutAMetric) {
  std::string text = kTwoFlows;
  const std::string from = text.substr(text.find("  metrics:"));
  text.replace(text.find("  metrics:"), from.size(), R"(  metrics:
    gbps: { flow: s1, metric: receiver_gbps, column: gbps }
    rx_cpu: { flow: s1, metric: cpu_receiver_pct, column: server_cpu_pct }
  cells:
    - { r1: 100Mbps, gbps: 0.3, rx_cpu: 50 }
    - { r1: 200Mbps, gbps: 0.5 }
)");
  const auto m = parse_measured(parse_scenario_text(text, "t4.yaml"));
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(m->cells.size(), 2u);
  EXPECT_FALSE(is_measured(m->cells[1].values[1]));
  results::RunSet runs = two_flow_runs();
  for (auto& r : *runs.mutable_runs()) r.mutable_flows(0)->set_receiver_cpu_pct(55.0);
  const auto rows = compare(runs, *m);
  ASSERT_EQ(rows.size(), 2u);
  // s1 at 358.5 Mbit/s = 0.3585 Gbit/s against 0.3; CPU 55 against 50: +5 points.
  EXPECT_NEAR(rows[0].metrics[0].sim_mean, 0.3585, 1e-12);
  EXPECT_NEAR(rows[0].metrics[1].error, 5.0, 1e-12);
  EXPECT_FALSE(is_measured(rows[1].metrics[1].measured));
  std::ostringstream csv;
  write_comparison_csv(csv, runs, *m);
  const std::string out = csv.str();
  EXPECT_EQ(out.substr(0, out.find('\n')), "r1,seed,gbps,server_cpu_pct,measured_gbps,measured_server_cpu_pct,error_pct");
  // The 200Mbps run: no measured CPU (empty), the throughput error -> 0.6 vs 0.5: +20%.
  EXPECT_NE(out.find("200Mbps,1,0.6,55,0.5,,19.99"), std::string::npos) << out;
  std::ostringstream table;
  write_comparison_text(table, runs, *m);
  EXPECT_NE(table.str().find("error pt"), std::string::npos) << table.str();
}

TEST(MeasuredComparison, AColumnNameMayNotShadowAFixedColumn) {
  std::string text = kTwoFlows;
  text.replace(text.find("s2: { flow: s2, metric: receiver_mbps }"), 39, "s2: { flow: s2, column: error_pct }");
  try {
    parse_measured(parse_scenario_text(text, "bad.yaml"));
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field, "measured.metrics.s2.column");
  }
}

}  // namespace
}  // namespace netsim
