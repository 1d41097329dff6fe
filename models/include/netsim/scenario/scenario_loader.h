// Loading scenario files: YAML text -> validated ScenarioSpec.
//
// The loader checks every field and reports the first problem it finds as a
// ScenarioError that names the file, line, column and dotted field path, in
// the style of a compiler diagnostic. Command-line overrides (--set key=value)
// are applied to the YAML tree before validation, so an override is checked
// exactly like a value written in the file. The format is described in
// docs/scenario-format.md.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "netsim/scenario/scenario_spec.h"

namespace netsim {

// SourceLoc::file of a problem caused by a command-line override.
inline constexpr std::string_view kOverrideSource = "--set";

// what() is "FILE:LINE:COLUMN: error: field 'a.b.c': MESSAGE", or for a bad
// override "--set a.b.c=VALUE: error: field 'a.b.c': MESSAGE". Problems that
// concern the whole document (unreadable file, YAML syntax, top level not a
// map) have no field and omit "field '...': "; a location without a line
// (file not found) omits ":LINE:COLUMN".
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(SourceLoc loc, std::string field, std::string message, std::string override_text = {});

  SourceLoc loc;              // file position, or file == "--set" for an override
  std::string field;          // full dotted path, e.g. "links.a-sw.delay"; empty for whole-document problems
  std::string message;        // what is wrong, without the location prefix
  std::string override_text;  // "key=value" of the offending override when loc.file == "--set"
};

// Parses "links.a-sw.delay=300us" (split at the first '='; key and value are trimmed).
// Throws ScenarioError (file "--set") on a missing '=', an empty key or an empty path segment.
Override parse_override(std::string_view text);

// The paths of a linked key "a.x + b.y" (a sweep axis, a calibrated
// parameter), trimmed, in order; an empty segment comes back as "".
std::vector<std::string> split_linked_key(std::string_view key);

// "key=value", the form parse_override accepts.
std::string format_override(const Override& o);

// Reads and validates a scenario file. `overrides` are applied in order to the
// YAML tree before validation (a later override of the same key wins) and are
// recorded in ScenarioSpec::overrides. `registry` adds congestion controls and
// filter types (netsim/scenario/scenario_registry.h) that the file may name;
// the spec keeps it. nullptr: netsim's own only.
ScenarioSpec load_scenario(const std::string& path, const std::vector<Override>& overrides = {},
                           std::shared_ptr<const ScenarioRegistry> registry = nullptr);

// As load_scenario, from text; `filename` is only used in locations and errors.
ScenarioSpec parse_scenario_text(std::string_view yaml, const std::string& filename,
                                 const std::vector<Override>& overrides = {},
                                 std::shared_ptr<const ScenarioRegistry> registry = nullptr);

// The runs of a sweep: the cartesian product of spec.sweep in file order (the
// first axis varies slowest), each cell a list of overrides. Without axes the
// result is one empty cell. An axis whose key is also in spec.overrides (the
// command line) is dropped: the command line wins and pins that axis to one
// value. Run each cell with load_scenario(path, cli_overrides + cell).
std::vector<std::vector<Override>> expand_sweep(const ScenarioSpec& spec);

}  // namespace netsim
