// Entry templates (`repeat:`): what they expand to, in what order, how
// overrides and sweeps reach their counts and vars, and the errors a bad
// template gets (file, line and field of the template).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "netsim/scenario/scenario_loader.h"

namespace netsim {
namespace {

const std::string kTemplates = R"(name: templates
duration: 1s
hosts:
  src{i}: { repeat: 3, address: "10.0.1.{i + 1}" }
  sink: { address: 10.0.0.2 }
switches:
  sw: {}
links:
  up{i}: { repeat: 3, ends: ["src{i}", sw], rate: 1Gbps, delay: 10us }
  down: { ends: [sw, sink], rate: 1Gbps, delay: 10us }
traffic:
  f{i}:
    repeat: 6
    vars: { spread_ms: 600 }
    type: tcp
    from: "src{(i + 1) % 3}"
    to: sink
    app: bulk
    start: "{i * spread_ms / n}ms"
)";

ScenarioSpec load(const std::vector<Override>& o = {}) { return parse_scenario_text(kTemplates, "t.yaml", o); }

std::string error_of(const std::string& text, const std::vector<Override>& o = {}) {
  try {
    parse_scenario_text(text, "t.yaml", o);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

std::string with(const std::string& from, const std::string& to) {
  std::string s = kTemplates;
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(ScenarioTemplates, ExpandInPlaceAndInOrder) {
  const ScenarioSpec s = load();
  ASSERT_EQ(s.hosts.size(), 4u);
  EXPECT_EQ(s.hosts[0].name, "src0");
  EXPECT_EQ(s.hosts[2].name, "src2");
  EXPECT_EQ(s.hosts[2].address, "10.0.1.3");
  EXPECT_EQ(s.hosts[3].name, "sink");
  ASSERT_EQ(s.links.size(), 4u);
  ASSERT_EQ(s.tcp_flows.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    const TcpFlowSpec& f = s.tcp_flows[static_cast<std::size_t>(i)];
    EXPECT_EQ(f.name, "f" + std::to_string(i));
    EXPECT_EQ(f.from, "src" + std::to_string((i + 1) % 3));
    EXPECT_EQ(f.start, static_cast<SimTime>(i * 100) * kPicosPerMilli);
  }
}

TEST(ScenarioTemplates, OverridesReachCountsAndVars) {
  const ScenarioSpec s = load({parse_override("traffic.f{i}.repeat=2"), parse_override("traffic.f{i}.vars.spread_ms=0")});
  ASSERT_EQ(s.tcp_flows.size(), 2u);
  EXPECT_EQ(s.tcp_flows[1].start, 0);
  EXPECT_EQ(load({parse_override("traffic.f{i}.repeat=0")}).tcp_flows.size(), 0u);
}

TEST(ScenarioTemplates, SweepValuesAreCheckedExpanded) {
  // repeat 4 makes flow f3 start from src1: fine; a vars value that divides by zero is not.
  EXPECT_EQ(error_of(kTemplates + "sweep:\n  traffic.f{i}.repeat: [1, 4]\n"), "no error");
  const std::string e = error_of(with("start: \"{i * spread_ms / n}ms\"", "start: \"{i * 100 / spread_ms}ms\"") +
                                 "sweep:\n  traffic.f{i}.vars.spread_ms: [1, 0]\n");
  EXPECT_NE(e.find("value '0' for 'traffic.f{i}.vars.spread_ms' would make the scenario invalid"), std::string::npos) << e;
  EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
}

TEST(ScenarioTemplates, ErrorsNameTheTemplatesLineAndField) {
  EXPECT_EQ(error_of(with("from: \"src{(i + 1) % 3}\"", "from: \"src{(i + 1) % k}\"")),
            "t.yaml:16:11: error: field 'traffic.f0.from': in {(i + 1) % k}: unknown name 'k' (i, n and the "
            "template's vars are defined)");
  EXPECT_EQ(error_of(with("from: \"src{(i + 1) % 3}\"", "from: \"src{(i + 1) % 0}\"")),
            "t.yaml:16:11: error: field 'traffic.f0.from': in {(i + 1) % 0}: division by zero");
  EXPECT_EQ(error_of(with("repeat: 6", "repeat: six")),
            "t.yaml:13:13: error: field 'traffic.f{i}.repeat': expected an integer, got 'six'");
  EXPECT_EQ(error_of(with("repeat: 6", "repeat: -1")),
            "t.yaml:13:13: error: field 'traffic.f{i}.repeat': must be in [0, 1000000], got -1");
  EXPECT_EQ(error_of(with("  f{i}:\n", "  flows:\n")),
            "t.yaml:12:3: error: field 'traffic.flows': a template's name needs a pattern such as {i}, so that its 6 "
            "entries have names of their own");
  EXPECT_EQ(error_of(with("  f{i}:\n", "  f{i / 2}:\n")),
            "t.yaml:12:3: error: field 'traffic.f{i / 2}': entry 1 is named 'f0', which another entry already is");
  EXPECT_EQ(error_of(with("vars: { spread_ms: 600 }", "vars: { n: 600 }")),
            "t.yaml:14:13: error: field 'traffic.f{i}.vars.n': 'n' is the template's own");
  // An expanded value that the validator refuses is reported at the template's line.
  const std::string bad_host = error_of(with("from: \"src{(i + 1) % 3}\"", "from: \"src{i}\""));
  EXPECT_EQ(bad_host.rfind("t.yaml:16:11: error: field 'traffic.f3.from'", 0), 0u) << bad_host;
}

}  // namespace
}  // namespace netsim
