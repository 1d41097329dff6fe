// Congestion controls and filter types from the user's code, selected by name
// in a scenario through a ScenarioRegistry object.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "netsim/cc/newreno.h"
#include "netsim/filter/filter_registry.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_registry.h"
#include "netsim/scenario/scenario_runner.h"

namespace netsim {
namespace {

// NewReno, counting the hook calls of all its connections.
struct HookCounts {
  int connections = 0;
  int acks = 0;
  int signals = 0;
};
class CountingNewReno final : public cc::CcAlgo {
 public:
  explicit CountingNewReno(std::shared_ptr<HookCounts> counts) : counts_(std::move(counts)) {}
  const char* name() const override { return "counting"; }
  int cb_init(cc::CcVar& ccv) override {
    ++counts_->connections;
    return inner_.cb_init(ccv);
  }
  void ack_received(cc::CcVar& ccv, cc::ccsignal_t type) override {
    ++counts_->acks;
    inner_.ack_received(ccv, type);
  }
  void cong_signal(cc::CcVar& ccv, cc::ccsignal_t type) override {
    ++counts_->signals;
    inner_.cong_signal(ccv, type);
  }
  void post_recovery(cc::CcVar& ccv) override { inner_.post_recovery(ccv); }
  void after_idle(cc::CcVar& ccv) override { inner_.after_idle(ccv); }

 private:
  std::shared_ptr<HookCounts> counts_;
  cc::NewReno inner_;
};

// Drops the matching packets whose sequence in the match is in [from, to).
class WindowDropFilter final : public PacketFilter {
 public:
  WindowDropFilter(Simulation& sim, std::string name, MatchRule match, std::uint64_t from, std::uint64_t to)
      : PacketFilter(sim, std::move(name), match), from_(from), to_(to) {}
  const char* type_name() const override { return "window"; }

 protected:
  bool decide_drop(const Packet&) override {
    const std::uint64_t k = seen_++;
    return k >= from_ && k < to_;
  }

 private:
  std::uint64_t from_, to_, seen_ = 0;
};

std::uint64_t parse_count(const std::string& text) {
  std::size_t used = 0;
  const unsigned long long v = std::stoull(text, &used);
  if (used != text.size()) throw std::invalid_argument("'" + text + "' is not a count");
  return v;
}

std::shared_ptr<ScenarioRegistry> registry_with_extensions(std::shared_ptr<HookCounts> counts) {
  auto r = std::make_shared<ScenarioRegistry>();
  r->cc.add("counting", [counts] { return std::make_unique<CountingNewReno>(counts); });
  r->filters.add("window", {"from", "to"}, [](Simulation& sim, const FilterArgs& a) -> PacketFilter& {
    return sim.add<WindowDropFilter>(a.name, a.match, parse_count(a.param("from", "0")), parse_count(a.param("to")));
  });
  return r;
}

std::string scenario(const std::string& cc, const std::string& filter) {
  return "name: ext\nduration: 200ms\n"
         "hosts:\n  a: { address: 10.0.0.1 }\n  b: { address: 10.0.0.2, os: linux }\n"
         "links:\n  a-b: { ends: [a, b], rate: 1Gbps, delay: 50us }\n"
         "filters:\n  drop: " + filter + "\n"
         "traffic:\n  t: { type: tcp, from: a, to: b, cc: " + cc + " }\n";
}

ScenarioError load_error(const std::string& yaml, std::shared_ptr<const ScenarioRegistry> r) {
  try {
    parse_scenario_text(yaml, "ext.yaml", {}, std::move(r));
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ScenarioError";
  return ScenarioError({}, "", "");
}

TEST(ScenarioRegistry, UserCcAndFilterRunFromYaml) {
  auto counts = std::make_shared<HookCounts>();
  const auto r = registry_with_extensions(counts);
  const ScenarioSpec spec = parse_scenario_text(
      scenario("counting", "{ host: b, type: window, params: { from: 1000, to: 1003 }, match: { protocol: tcp } }"),
      "ext.yaml", {}, r);
  ASSERT_EQ(spec.filters.size(), 1u);
  EXPECT_EQ(spec.filters[0].type, FilterType::custom);
  EXPECT_EQ(spec.filters[0].custom_type, "window");
  EXPECT_EQ(spec.filters[0].params.at("to"), "1003");
  EXPECT_EQ(spec.registry, r);
  const results::RunResult run = run_scenario(spec);
  ASSERT_EQ(run.error(), "");
  ASSERT_EQ(run.filters_size(), 1);
  EXPECT_EQ(run.filters(0).type(), "window");
  EXPECT_EQ(run.filters(0).dropped(), 3u);
  EXPECT_GT(run.flows(0).retransmits(), 0u);
  EXPECT_EQ(counts->connections, 1);
  EXPECT_GT(counts->acks, 100);
  EXPECT_GE(counts->signals, 1);
  // The same module under NewReno's name would give the same run: it is NewReno.
  const results::RunResult plain = run_scenario(parse_scenario_text(
      scenario("newreno", "{ host: b, type: window, params: { from: 1000, to: 1003 }, match: { protocol: tcp } }"),
      "ext.yaml", {}, r));
  EXPECT_EQ(plain.flows(0).bytes_received(), run.flows(0).bytes_received());
}

TEST(ScenarioRegistry, RegistriesAreSeparate) {
  const auto r = registry_with_extensions(std::make_shared<HookCounts>());
  const std::string yaml = scenario("counting", "{ host: b, type: nth, every: 100 }");
  EXPECT_NO_THROW(parse_scenario_text(yaml, "ext.yaml", {}, r));
  // Without the registry (or with another one) the name is unknown, at its line.
  const ScenarioError e = load_error(yaml, nullptr);
  EXPECT_EQ(e.loc.line, 11);
  EXPECT_EQ(e.field, "traffic.t.cc");
  EXPECT_EQ(e.message, "expected one of newreno, cubic, cubic_d46046, reno, bic, got 'counting'");
  const ScenarioError other = load_error(yaml, std::make_shared<ScenarioRegistry>());
  EXPECT_EQ(other.field, "traffic.t.cc");
}

TEST(ScenarioRegistry, UnknownNamesListTheRegistrysOwn) {
  const auto r = registry_with_extensions(std::make_shared<HookCounts>());
  ScenarioError e = load_error(scenario("countin", "{ host: b, type: nth, every: 100 }"), r);
  EXPECT_EQ(e.loc.file, "ext.yaml");
  EXPECT_EQ(e.loc.line, 11);
  EXPECT_EQ(e.message,
            "expected one of newreno, cubic, cubic_d46046, counting, reno, bic, got 'countin'; did you mean 'counting'?");
  e = load_error(scenario("newreno", "{ host: b, type: windows }"), r);
  EXPECT_EQ(e.loc.line, 9);
  EXPECT_EQ(e.field, "filters.drop.type");
  EXPECT_NE(e.message.find("nth, random, window"), std::string::npos) << e.message;
  // A Linux sender has Linux's modules, whatever the registry holds.
  std::string linux_sender = scenario("counting", "{ host: b, type: nth, every: 100 }");
  linux_sender.replace(linux_sender.find("a: { address: 10.0.0.1 }"), 24, "a: { address: 10.0.0.1, os: linux }");
  e = load_error(linux_sender, r);
  EXPECT_NE(e.message.find("not a congestion control of the sender 'a' (os: linux)"), std::string::npos) << e.message;
}

TEST(ScenarioRegistry, FilterParamsAreChecked) {
  const auto r = registry_with_extensions(std::make_shared<HookCounts>());
  ScenarioError e = load_error(scenario("newreno", "{ host: b, type: window, params: { form: 1 } }"), r);
  EXPECT_EQ(e.field, "filters.drop.params.form");
  EXPECT_EQ(e.loc.line, 9);
  EXPECT_NE(e.message.find("unknown key 'form'"), std::string::npos) << e.message;
  e = load_error(scenario("newreno", "{ host: b, type: nth, every: 3, params: { to: 1 } }"), r);
  EXPECT_EQ(e.field, "filters.drop.params");
  EXPECT_NE(e.message.find("only to filters of a registered type"), std::string::npos) << e.message;
  e = load_error(scenario("newreno", "{ host: b, type: window, every: 3 }"), r);
  EXPECT_EQ(e.field, "filters.drop.every");
  // A value the factory rejects is reported at the filter when the scenario is built.
  const ScenarioSpec bad = parse_scenario_text(scenario("newreno", "{ host: b, type: window, params: { to: x1 } }"),
                                               "ext.yaml", {}, r);
  try {
    run_scenario(bad);
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& err) {
    EXPECT_EQ(err.loc.line, 9);
    EXPECT_EQ(err.field, "filters.drop");
    EXPECT_NE(err.message.find("filter type 'window'"), std::string::npos) << err.message;
  }
}

TEST(ScenarioRegistry, SweepsReachFilterParams) {
  const auto r = registry_with_extensions(std::make_shared<HookCounts>());
  const std::string yaml = scenario("newreno", "{ host: b, type: window, params: { from: 10, to: 12 } }") +
                           "sweep:\n  filters.drop.params.to: [11, 13]\n";
  const ScenarioSpec spec = parse_scenario_text(yaml, "ext.yaml", {}, r);
  ASSERT_EQ(expand_sweep(spec).size(), 2u);
  const ScenarioSpec cell = parse_scenario_text(yaml, "ext.yaml", expand_sweep(spec)[1], r);
  EXPECT_EQ(cell.filters[0].params.at("to"), "13");
  const ScenarioError e = load_error(scenario("newreno", "{ host: b, type: window, params: { to: 2 } }") +
                                         "sweep:\n  filters.drop.params.too: [1]\n",
                                     r);
  EXPECT_EQ(e.field, "sweep.filters.drop.params.too");
}

TEST(CcRegistryObject, AddsChecksAndMakes) {
  cc::CcRegistry r;
  EXPECT_EQ(r.names(), (std::vector<std::string>{"newreno", "cubic", "cubic_d46046"}));
  r.add<cc::NewReno>("my_cc");
  EXPECT_TRUE(r.contains("my_cc"));
  EXPECT_STREQ(r.make("my_cc")->name(), "newreno");
  EXPECT_NE(r.make("my_cc").get(), r.make("my_cc").get());
  EXPECT_THROW(r.add<cc::NewReno>("my_cc"), std::invalid_argument);
  EXPECT_THROW(r.add<cc::NewReno>("my cc"), std::invalid_argument);
  EXPECT_THROW(r.add("empty", cc::CcFactory{}), std::invalid_argument);
  EXPECT_THROW(r.make("bbr"), std::invalid_argument);
  EXPECT_FALSE(cc::CcRegistry().contains("my_cc"));  // registries do not share modules
}

TEST(FilterRegistryObject, KeepsNetsimsOwnTypes) {
  FilterRegistry r;
  const FilterFactory none = [](Simulation&, const FilterArgs&) -> PacketFilter& {
    throw std::invalid_argument("unused");
  };
  EXPECT_THROW(r.add("nth", {}, none), std::invalid_argument);
  EXPECT_THROW(r.add("random", {}, none), std::invalid_argument);
  r.add("mine", {"k"}, none);
  EXPECT_THROW(r.add("mine", {}, none), std::invalid_argument);
  EXPECT_EQ(r.types(), std::vector<std::string>{"mine"});
  EXPECT_EQ(r.params("mine"), std::vector<std::string>{"k"});
  EXPECT_THROW(r.params("other"), std::invalid_argument);
}

}  // namespace
}  // namespace netsim
