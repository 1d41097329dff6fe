// Typed, located reading of a YAML tree: every accessor either returns a valid
// value or throws a ScenarioError that points at the offending node.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_spec.h"
#include "netsim/sim/data_rate.h"
#include "netsim/sim/time.h"
#include "scenario_schema.h"

namespace netsim::scenario_internal {

// Nodes that command-line overrides put into the tree, with the override text.
// yaml-cpp nodes have no identity hash, so this is a short list compared with
// Node::is(); there are only ever a handful of overrides.
class OverrideOrigins {
 public:
  void add(const YAML::Node& node, std::string text) { nodes_.emplace_back(node, std::move(text)); }
  // The override that created `node`, or nullptr if it came from the file.
  const std::string* find(const YAML::Node& node) const;

 private:
  std::vector<std::pair<YAML::Node, std::string>> nodes_;
};

// Nodes that profiles (scenario_profiles.h) copied into the tree, with the
// file they were written in and the profile's name, so that a problem inside
// a profile is reported at its own file and line. A short list compared with
// Node::is(), like OverrideOrigins: profiles hold a few dozen nodes.
class ProfileOrigins {
 public:
  struct Origin {
    std::string file;
    std::string profile;
  };
  void add(const YAML::Node& node, const Origin* origin) { nodes_.emplace_back(node, origin); }
  // Keeps an origin alive for as long as this registry; returns it for add().
  const Origin* keep(Origin origin);
  const Origin* find(const YAML::Node& node) const;

 private:
  std::vector<std::pair<YAML::Node, const Origin*>> nodes_;
  std::vector<std::unique_ptr<Origin>> origins_;
};

// A value in the tree, the key it is written under and its dotted path. The
// key gives the location of values that have no useful position of their own
// (an empty value's mark points at the next token).
//
// Never assign a Field (or a YAML::Node): yaml-cpp's Node::operator= rebinds
// the node *inside the tree* to the right-hand side, silently editing the
// document. Copy-construct instead (optional::emplace, not =).
struct Field {
  YAML::Node value;
  YAML::Node key;  // undefined for the root and for list elements
  std::string path;

  Field& operator=(const Field&) = delete;
};

// The key itself as a field: errors about names point at the name.
inline Field key_field(const Field& f) { return Field{f.key, f.key, f.path}; }

// Text as an error message shows it: bytes outside printable ASCII as \xNN,
// cut with "..." after max_shown characters.
std::string printable(std::string_view text, std::size_t max_shown = std::string_view::npos);
// A scalar as the error messages show it: in quotes, printable, at most 60
// characters.
std::string quoted(std::string_view text);
// "expected true or false, got 'x'" with a suggestion: the one message for a bad boolean.
std::string not_a_boolean(std::string_view text);
// "a list", "a map", "an empty value" or the quoted scalar: for "expected X, got Y".
std::string describe(const YAML::Node& node);
std::string join_path(std::string_view parent, std::string_view child);
std::vector<std::string> split_path(std::string_view path);
std::string join_words(const std::vector<std::string>& words);
std::string join_words(KeyList words);
std::size_t edit_distance(std::string_view a, std::string_view b);
// "; did you mean 'x'?" for the closest candidate within edit distance 2, else "".
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates);
std::string suggestion(std::string_view word, KeyList candidates);
// Node names become path segments, so they must not contain '.'.
bool is_valid_name(std::string_view name);

class Reader {
 public:
  using Visitor = std::function<void(const std::string& key, const Field& value)>;

  Reader(std::string file, const OverrideOrigins& origins, const ProfileOrigins* profiles = nullptr)
      : file_(std::move(file)), origins_(origins), profiles_(profiles) {}

  const std::string& file() const { return file_; }

  SourceLoc loc(const YAML::Node& node) const;  // from the node's mark alone
  // Where a field is: its value, or its key when the value has no position.
  SourceLoc loc(const Field& f) const;
  ScenarioError error(const Field& at, std::string message) const;
  [[noreturn]] void fail(const Field& at, std::string message) const { throw error(at, std::move(message)); }
  [[noreturn]] void fail_at(const SourceLoc& loc, const std::string& field, std::string message) const;

  // Visits a map with a fixed set of keys in file order. Each key is checked
  // (scalar, accepted, not repeated) just before its value is visited, so the
  // first problem in file order is the one reported. An empty value counts as
  // an empty map. Returns the keys seen.
  std::set<std::string> visit_fields(const Field& map, KeyList accepted, const Visitor& fn) const;
  // Visits a map of user-chosen names (hosts, links, sweep keys ...); `what`
  // describes an entry in messages. With check_names, names must match [A-Za-z0-9_-]+.
  void visit_entries(const Field& map, std::string_view what, bool check_names, const Visitor& fn) const;
  void expect_map(const Field& map, const std::string& expected) const;
  [[noreturn]] void missing(const Field& map, std::string_view key) const;  // reported at the map
  // Reports the first of `required` missing from `seen`, at the map.
  void require(const Field& map, const std::set<std::string>& seen, KeyList required) const;
  // The value of `key` in `map` (first occurrence), if present.
  std::optional<Field> find(const Field& map, std::string_view key) const;

  const std::string& scalar(const Field& f, std::string_view expected) const;
  std::string string(const Field& f) const { return scalar(f, "a string"); }
  std::int64_t integer(const Field& f, std::int64_t lo, std::int64_t hi) const;
  std::uint64_t unsigned_integer(const Field& f) const;
  double real(const Field& f, double lo, double hi) const;
  SimTime duration(const Field& f) const;
  DataRate rate(const Field& f) const;
  // A clock frequency such as 3GHz, 2400MHz (Hz, kHz, MHz, GHz), in Hz, > 0.
  std::int64_t frequency(const Field& f) const;
  std::int64_t size(const Field& f, std::int64_t lo, std::int64_t hi) const;
  std::string choice(const Field& f, KeyList options) const;
  // Exactly `true` or `false` (YAML 1.1 spellings such as yes/on are rejected).
  bool boolean(const Field& f) const;

 private:
  std::set<std::string> each_entry(const Field& map, const std::string& expected,
                                   const std::function<void(const std::string&, const Field&)>& check_key,
                                   const Visitor& fn) const;

  std::string file_;
  const OverrideOrigins& origins_;
  const ProfileOrigins* profiles_;
};

}  // namespace netsim::scenario_internal
