// Entry templates: an entry of hosts, switches, hubs, links, filters or
// traffic with a `repeat: N` key stands for N entries, i = 0 .. N-1. In its
// name and in every scalar under it, `{EXPR}` is replaced by the value of an
// integer expression over i, n (= N) and the entry's `vars:` (integers set
// in the template, so --set can change them): + - * / % and parentheses,
// / and % as in C (truncating). An expanded entry takes the template's
// place in file order, so the entries' order (node ids, flow ids) is the
// order of i. Errors name the template's line and field.
//
//   traffic:
//     bulk-{i}:
//       repeat: 1000
//       vars: { spread_us: 100000 }
//       type: tcp
//       from: "h{i % 32}"
//       to: sink
//       start: "{i * spread_us / n}us"
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "yaml_reader.h"

namespace netsim::scenario_internal {

// The root with every template expanded (the root itself when it has none).
YAML::Node expand_templates(const YAML::Node& root, const Reader& reader);

// `text` with every {EXPR} replaced; throws std::invalid_argument with the
// reason for a malformed or undefined expression.
std::string substitute_pattern(std::string_view text, const std::map<std::string, std::int64_t>& vars);

}  // namespace netsim::scenario_internal
