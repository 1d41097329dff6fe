// --set overrides: parsing "key=value" and applying it to the YAML tree.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netsim/scenario/scenario_loader.h"
#include "override_apply.h"
#include "yaml_reader.h"

namespace netsim {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

[[noreturn]] void override_error(const std::string& field, std::string message, std::string text) {
  throw ScenarioError(SourceLoc{std::string(kOverrideSource), 0, 0}, field, std::move(message), std::move(text));
}

void check_key(const std::string& key, const std::string& text) {
  if (key.empty()) override_error(key, "empty key: expected KEY=VALUE, e.g. links.wan.delay=300us", text);
  for (const auto& part : scenario_internal::split_path(key)) {
    if (part.empty()) override_error(key, "empty path segment in '" + key + "'", text);
  }
}

}  // namespace

Override parse_override(std::string_view text) {
  const std::string whole(text);
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    override_error(std::string(trim(text)), "missing '=': expected KEY=VALUE, e.g. links.wan.delay=300us", whole);
  }
  Override o{std::string(trim(text.substr(0, eq))), std::string(trim(text.substr(eq + 1)))};
  check_key(o.key, whole);
  return o;
}

std::string format_override(const Override& o) { return o.key + "=" + o.value; }

namespace scenario_internal {

namespace {

// A value written as a YAML flow map or sequence (`{protocol: tcp, src_port:
// 5201}`, `[100, 50]`) replaces the whole field; anything else is one scalar.
YAML::Node override_value(const Override& o, const std::string& text) {
  const std::string_view v = trim(o.value);
  if (v.empty() || (v.front() != '{' && v.front() != '[')) return YAML::Node(o.value);
  try {
    return YAML::Load(std::string(v));
  } catch (const YAML::Exception& e) {
    override_error(o.key, "the value is not valid YAML: " + e.msg, text);
  }
}

// Every node of an override's value is reported as coming from the override.
void add_origins(const YAML::Node& node, const std::string& text, OverrideOrigins& origins) {
  origins.add(node, text);
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      origins.add(it->first, text);
      add_origins(it->second, text, origins);
    }
  } else if (node.IsSequence()) {
    for (const YAML::Node& child : node) add_origins(child, text, origins);
  }
}

}  // namespace

void apply_override(YAML::Node& root, const Override& o, OverrideOrigins& origins) {
  const std::string text = format_override(o);
  check_key(o.key, text);
  const std::vector<std::string> parts = split_path(o.key);

  // reset(), not operator=, moves the cursor: assignment would edit the tree.
  YAML::Node cur;
  cur.reset(root);
  std::string walked;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!cur.IsMap()) {
      override_error(o.key, "'" + walked + "' is not a map, so it has no field '" + parts[i] + "'", text);
    }
    std::optional<YAML::Node> next;
    std::vector<std::string> keys;
    for (auto it = cur.begin(); it != cur.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      keys.push_back(it->first.Scalar());
      if (!next && it->first.Scalar() == parts[i]) next.emplace(it->second);
    }
    const std::string path = join_path(walked, parts[i]);
    if (!next) {
      std::string msg = "'" + path + "' does not exist";
      if (!walked.empty()) msg += " ('" + walked + "' has: " + join_words(keys) + ")";
      msg += suggestion(parts[i], keys);
      msg += "; an override can add only the last key of a path";
      override_error(o.key, std::move(msg), text);
    }
    cur.reset(*next);
    walked = path;
  }

  const std::string& leaf = parts.back();
  // An empty value ("sw1:") becomes a map, so `--set switches.sw1.buffer=1MB` works on it.
  if (!cur.IsMap() && !cur.IsNull()) {
    override_error(o.key, "'" + walked + "' is not a map, so it has no field '" + leaf + "'", text);
  }
  YAML::Node value = override_value(o, text);
  if (cur.IsMap()) {
    for (auto it = cur.begin(); it != cur.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == leaf) {
        // Deliberately assignment: rebinds the entry's value node in the tree.
        YAML::Node slot = it->second;
        slot = value;
        add_origins(value, text, origins);
        return;
      }
    }
  }
  YAML::Node key(leaf);
  cur.force_insert(key, value);
  origins.add(key, text);
  add_origins(value, text, origins);
}

}  // namespace scenario_internal
}  // namespace netsim

namespace netsim {

std::vector<std::string> split_linked_key(std::string_view key) {
  std::vector<std::string> paths;
  std::size_t start = 0;
  while (true) {
    const std::size_t plus = key.find('+', start);
    std::string_view path = key.substr(start, plus == std::string_view::npos ? std::string_view::npos : plus - start);
    const auto first = path.find_first_not_of(' ');
    const auto last = path.find_last_not_of(' ');
    paths.emplace_back(first == std::string_view::npos ? std::string_view{} : path.substr(first, last - first + 1));
    if (plus == std::string_view::npos) break;
    start = plus + 1;
  }
  return paths;
}

}  // namespace netsim
