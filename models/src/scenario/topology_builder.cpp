#include "netsim/scenario/topology_builder.h"

#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <set>
#include <string_view>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/sim/units.h"

namespace netsim {
namespace {

// The sections in the order the file lists them (the order a hand-written
// scenario usually has, so node ids come out the same).
constexpr std::array<std::string_view, 7> kSectionOrder{"hosts", "switches", "hubs", "vswitches", "links", "filters",
                                                       "traffic"};
// What the sections' elements are called in messages.
constexpr std::array<std::string_view, 7> kElementNames{"host", "switch", "hub", "vswitch", "link", "filter", "flow"};

SourceLoc loc_of(const std::source_location& where) {
  return SourceLoc{where.file_name(), static_cast<int>(where.line()), static_cast<int>(where.column())};
}

std::string element_name(std::string_view section) {
  for (std::size_t i = 0; i < kSectionOrder.size(); ++i) {
    if (kSectionOrder[i] == section) return std::string(kElementNames[i]);
  }
  return "element";
}

std::vector<std::string> split_dots(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  while (true) {
    const std::size_t dot = key.find('.', from);
    parts.push_back(key.substr(from, dot - from));
    if (dot == std::string::npos) return parts;
    from = dot + 1;
  }
}

}  // namespace

ScalarText::ScalarText(DataRate r) : text_(format_rate(r)) {}

ScalarText::ScalarText(double v) {
  std::array<char, 32> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  text_.assign(buf.data(), ec == std::errc() ? end : buf.data());
}

TopologyBuilder::TopologyBuilder(std::string name, std::source_location where)
    : name_(std::move(name)), made_at_(where) {}

TopologyBuilder& TopologyBuilder::set_top(const std::string& key, std::string value, std::source_location where) {
  if (key == "name") {
    name_ = std::move(value);
    return *this;
  }
  // A later call for the same field wins, as a later --set does.
  for (Entry& e : entries_) {
    if (e.section.empty() && e.name == key) {
      e.fields = {{key, std::move(value)}};
      e.where = where;
      return *this;
    }
  }
  entries_.push_back(Entry{"", key, {{key, std::move(value)}}, {}, where});
  return *this;
}

TopologyBuilder& TopologyBuilder::duration(SimTime d, std::source_location where) {
  return set_top("duration", format_duration(d), where);
}
TopologyBuilder& TopologyBuilder::seed(std::uint64_t s, std::source_location where) {
  return set_top("seed", std::to_string(s), where);
}
TopologyBuilder& TopologyBuilder::interval(SimTime i, std::source_location where) {
  return set_top("interval", format_duration(i), where);
}
TopologyBuilder& TopologyBuilder::set(const std::string& key, const ScalarText& value, std::source_location where) {
  return set_top(key, value.text(), where);
}

TopologyBuilder& TopologyBuilder::add_entry(std::string section, const std::string& name,
                                            std::vector<std::pair<std::string, std::string>> fields,
                                            const Fields& more, std::source_location where) {
  const std::string path = section + "." + name;
  for (const Entry& e : entries_) {
    if (e.section == section && e.name == name) {
      const SourceLoc first = loc_of(e.where);
      throw ScenarioError(loc_of(where), path,
                          "a " + element_name(section) + " named '" + name + "' was already added (at " + first.file +
                              ":" + std::to_string(first.line) + ")");
    }
  }
  for (const auto& [key, value] : more) fields.emplace_back(key, value.text());
  std::set<std::string> seen;
  for (const auto& f : fields) {
    if (!seen.insert(f.first).second) throw ScenarioError(loc_of(where), path + "." + f.first, "given twice");
  }
  entries_.push_back(Entry{std::move(section), name, std::move(fields), {}, where});
  return *this;
}

TopologyBuilder& TopologyBuilder::add_host(const std::string& name, const std::string& address, const Fields& fields,
                                           std::source_location where) {
  return add_entry("hosts", name, {{"address", address}}, fields, where);
}

TopologyBuilder& TopologyBuilder::add_switch(const std::string& name, const Fields& fields, std::source_location where) {
  return add_entry("switches", name, {}, fields, where);
}

TopologyBuilder& TopologyBuilder::add_hub(const std::string& name, const Fields& fields, std::source_location where) {
  return add_entry("hubs", name, {}, fields, where);
}

TopologyBuilder& TopologyBuilder::add_vswitch(const std::string& name, const Fields& fields, std::source_location where) {
  return add_entry("vswitches", name, {}, fields, where);
}

TopologyBuilder& TopologyBuilder::add_link(const std::string& name, const std::string& end_a, const std::string& end_b,
                                           DataRate rate, const Fields& fields, std::source_location where) {
  add_entry("links", name, {{"rate", format_rate(rate)}}, fields, where);
  entries_.back().ends = {end_a, end_b};
  return *this;
}

TopologyBuilder& TopologyBuilder::add_filter(const std::string& name, const std::string& host, const std::string& type,
                                             const Fields& fields, std::source_location where) {
  return add_entry("filters", name, {{"host", host}, {"type", type}}, fields, where);
}

TopologyBuilder& TopologyBuilder::add_flow(const std::string& name, const std::string& type, const std::string& from,
                                           const std::string& to, const Fields& fields, std::source_location where) {
  return add_entry("traffic", name, {{"type", type}, {"from", from}, {"to", to}}, fields, where);
}

std::string TopologyBuilder::yaml() const {
  YAML::Node root(YAML::NodeType::Map);
  root["name"] = name_;
  for (const Entry& e : entries_) {
    if (e.section.empty()) root[e.name] = e.fields.front().second;
  }
  for (const std::string_view section : kSectionOrder) {
    for (const Entry& e : entries_) {
      if (e.section != section) continue;
      YAML::Node element(YAML::NodeType::Map);
      if (!e.ends.empty()) {
        YAML::Node ends(YAML::NodeType::Sequence);
        for (const std::string& end : e.ends) ends.push_back(end);
        ends.SetStyle(YAML::EmitterStyle::Flow);
        element["ends"] = ends;
      }
      for (const auto& [key, value] : e.fields) {
        // "nic.gro": the field gro of the sub-map nic, made on first use.
        const std::vector<std::string> parts = split_dots(key);
        YAML::Node at = element;
        for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
          YAML::Node next = at[parts[i]];
          if (next.IsScalar()) {
            throw ScenarioError(loc_of(e.where), e.section + "." + e.name + "." + key,
                                "'" + parts[i] + "' is given as a value, so it has no field '" + parts[i + 1] + "'");
          }
          if (!next.IsDefined() || next.IsNull()) {
            at[parts[i]] = YAML::Node(YAML::NodeType::Map);
            next = at[parts[i]];
          }
          at.reset(next);  // step down without assigning: Node::operator= would rebind the tree's node
        }
        at[parts.back()] = value;
      }
      root[std::string(section)][e.name] = element;
    }
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

const std::source_location& TopologyBuilder::origin(const std::string& field_path) const {
  const std::vector<std::string> parts = split_dots(field_path);
  for (const Entry& e : entries_) {
    if (e.section.empty() ? e.name == parts[0] : parts.size() > 1 && e.section == parts[0] && e.name == parts[1]) {
      return e.where;
    }
  }
  return made_at_;  // the scenario as a whole, or a field no call set (a missing duration)
}

ScenarioSpec TopologyBuilder::build(std::shared_ptr<const ScenarioRegistry> registry) const {
  const std::string text = yaml();
  ScenarioSpec spec;
  try {
    spec = parse_scenario_text(text, made_at_.file_name(), {}, std::move(registry));
  } catch (const ScenarioError& e) {
    throw ScenarioError(loc_of(origin(e.field)), e.field, e.message);
  }
  // Build-time errors (ScenarioError at an element's loc) name the call too.
  const auto relocate = [this](auto& elements, const std::string& section) {
    for (auto& el : elements) el.loc = loc_of(origin(section + "." + el.name));
  };
  relocate(spec.hosts, "hosts");
  relocate(spec.switches, "switches");
  relocate(spec.hubs, "hubs");
  relocate(spec.vswitches, "vswitches");
  relocate(spec.links, "links");
  relocate(spec.filters, "filters");
  relocate(spec.udp_flows, "traffic");
  relocate(spec.tcp_flows, "traffic");
  relocate(spec.ping_flows, "traffic");
  return spec;
}

}  // namespace netsim
