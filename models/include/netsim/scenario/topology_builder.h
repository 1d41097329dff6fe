// A scenario written in C++: hosts, switches, hubs, links, filters and flows
// added by calls instead of YAML. build() writes the scenario file these calls
// describe and loads it with parse_scenario_text, so a built spec has exactly
// the defaults and checks of a YAML-loaded one and goes through the same
// builder, router and runner. An error names the C++ call that added the
// offending element (file:line of the caller), with the same field path and
// message the YAML file would have got.
//
// Fields other than the required ones are given as in the file format
// (docs/scenario-format.md): key and scalar text, a dotted key for a field of
// a sub-map ("nic.gro", "match.dst_port", "queue.packets").
//
//   TopologyBuilder t("bulk");
//   t.duration(2_s);
//   t.add_host("a", "10.0.0.1", {{"hz", 1000}});
//   t.add_host("b", "10.0.0.2", {{"os", "linux"}});
//   t.add_link("a-b", "a", "b", 1_Gbps, {{"delay", "5us"}});
//   t.add_flow("bulk", "tcp", "a", "b", {{"cc", "newreno"}});
//   results::RunResult r = run_scenario(t.build());
#pragma once

#include <concepts>
#include <cstdint>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "netsim/scenario/scenario_spec.h"
#include "netsim/sim/data_rate.h"
#include "netsim/sim/time.h"

namespace netsim {

// A field's value as a scenario file writes it: "5us", "tcp", 1000, true,
// 1_Gbps. A duration is text ("5us") or format_duration(t): a bare number is
// not a duration, and the loader says so.
class ScalarText {
 public:
  ScalarText(std::string text) : text_(std::move(text)) {}  // NOLINT: implicit, as a literal in a field list
  ScalarText(const char* text) : text_(text) {}             // NOLINT
  ScalarText(bool b) : text_(b ? "true" : "false") {}        // NOLINT
  ScalarText(DataRate r);                                     // NOLINT: as format_rate writes it
  ScalarText(double v);                                       // NOLINT: shortest text that reads back as v
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  ScalarText(T v) : text_(std::to_string(v)) {}  // NOLINT

  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

class TopologyBuilder {
 public:
  // Key and value of the fields that a call does not take as arguments.
  using Fields = std::vector<std::pair<std::string, ScalarText>>;

  // `name` is the scenario's name; the C++ file that makes the builder is
  // the spec's file.
  explicit TopologyBuilder(std::string name, std::source_location where = std::source_location::current());

  // Top-level fields: duration is required (as in the file); seed 1, no
  // interval reports and netsim's packet limit unless set. set() takes any
  // other top-level scalar (description, seeds, max_packets).
  TopologyBuilder& duration(SimTime d, std::source_location where = std::source_location::current());
  TopologyBuilder& seed(std::uint64_t s, std::source_location where = std::source_location::current());
  TopologyBuilder& interval(SimTime i, std::source_location where = std::source_location::current());
  TopologyBuilder& set(const std::string& key, const ScalarText& value,
                       std::source_location where = std::source_location::current());

  TopologyBuilder& add_host(const std::string& name, const std::string& address, const Fields& fields = {},
                            std::source_location where = std::source_location::current());
  TopologyBuilder& add_switch(const std::string& name, const Fields& fields = {},
                              std::source_location where = std::source_location::current());
  TopologyBuilder& add_hub(const std::string& name, const Fields& fields = {},
                           std::source_location where = std::source_location::current());
  // An ESXi vSwitch (fields "cpu.frame", "cpu.segment", "cpu.copy_per_kib"); its links may
  // leave the rate out in YAML, here they give one.
  TopologyBuilder& add_vswitch(const std::string& name, const Fields& fields = {},
                               std::source_location where = std::source_location::current());
  TopologyBuilder& add_link(const std::string& name, const std::string& end_a, const std::string& end_b, DataRate rate,
                            const Fields& fields = {}, std::source_location where = std::source_location::current());
  // `type`: nth, random or a type of the registry given to build(); its
  // parameters as fields ("every", "probability", "params.KEY", "match.protocol").
  TopologyBuilder& add_filter(const std::string& name, const std::string& host, const std::string& type,
                              const Fields& fields = {}, std::source_location where = std::source_location::current());
  // `type`: tcp, udp or ping.
  TopologyBuilder& add_flow(const std::string& name, const std::string& type, const std::string& from,
                            const std::string& to, const Fields& fields = {},
                            std::source_location where = std::source_location::current());

  // The scenario file these calls describe: `netsim run` runs it as it is.
  std::string yaml() const;
  // The validated spec, as parse_scenario_text(yaml(), ..., registry) gives
  // it, with each element located at the call that added it. Throws
  // ScenarioError naming that call for anything the loader rejects.
  ScenarioSpec build(std::shared_ptr<const ScenarioRegistry> registry = nullptr) const;

 private:
  // One section entry ("hosts", "a") or top-level field ("duration"): the
  // fields in call order, and the call.
  struct Entry {
    std::string section;  // empty for a top-level field
    std::string name;
    std::vector<std::pair<std::string, std::string>> fields;
    std::vector<std::string> ends;  // a link's two ends (the one list-valued field)
    std::source_location where;
  };
  TopologyBuilder& add_entry(std::string section, const std::string& name,
                             std::vector<std::pair<std::string, std::string>> fields, const Fields& more,
                             std::source_location where);
  TopologyBuilder& set_top(const std::string& key, std::string value, std::source_location where);
  const std::source_location& origin(const std::string& field_path) const;

  std::string name_;
  std::source_location made_at_;
  std::vector<Entry> entries_;  // in call order
};

}  // namespace netsim
