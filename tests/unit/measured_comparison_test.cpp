#include "netsim/scenario/measured_comparison.h"

#include <gtest/gtest.h>

#include <sstream>

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

TEST(MeasuredComparison, NoCellsMeansNoComparison) {
  std::string text = kScenario;
  text = text.substr(0, text.find("measured:"));
  EXPECT_FALSE(parse_measured(parse_scenario_text(text, "x.yaml")).has_value());
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

}  // namespace
}  // namespace netsim
