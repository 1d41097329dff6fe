// The plan of a sweep: every run (cell x seed) with the overrides that make
// it, its fully resolved parameters and its stable run key; and the shard
// slices of that plan.
//
// A plan is computed from the scenario file alone, without running anything,
// so every process that computes it (a local sweep, each Slurm array task)
// gets the same runs in the same order with the same keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "netsim/scenario/scenario_spec.h"

namespace netsim::sweep {

// A conflict between sweep options that no single field is to blame for
// (e.g. --seeds with a `seed` axis). The CLI reports it as a usage error.
class SweepUsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One command-line axis: --axis KEY=V1,V2,...
struct AxisArg {
  std::string key;
  std::vector<std::string> values;
};

// Parses "hosts.sender.hz=100,1000" (key and values trimmed; values split at
// ','). Throws SweepUsageError on a missing '=', an empty key or an empty value.
AxisArg parse_axis(std::string_view text);

// The I-th of N deterministic slices: the runs whose plan index is I mod N.
// Round robin rather than contiguous blocks, so that slow cells (which sit
// next to each other in plan order) are spread over all shards.
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
  bool contains(std::size_t run_index) const { return run_index % count == index; }
};

// Parses "I/N" with 0 <= I < N. Throws SweepUsageError otherwise.
Shard parse_shard(std::string_view text);

// What to sweep: a scenario and how the command line widens or pins it.
struct SweepSpec {
  std::string scenario_file;
  std::vector<Override> sets;  // --set: pins a key in every run (and drops an axis of that key)
  std::vector<AxisArg> axes;   // --axis: extra axes, after the file's; replaces a file axis of the same key
  std::uint64_t seeds = 0;     // > 0: each cell with seeds S, S+1, ..., S+seeds-1 (S: the scenario's seed)
};

struct PlannedRun {
  std::size_t index = 0;             // position in the plan
  std::vector<Override> overrides;   // as applied to the file: cell values, then --set, then the seed
  std::vector<Override> params;      // resolved: one per key (the last applied wins), sorted by key, seed included
  std::string key;                   // run_key(scenario text, params)
};

struct SweepPlan {
  std::string scenario_file;
  std::string scenario_text;   // the file as read once: every run parses this text, and keys hash it
  // What run keys hash: scenario_text, followed by each included file's name
  // and text when the scenario has `include:` (a changed profile file then
  // changes the keys); exactly scenario_text without includes.
  std::string key_text;
  std::string scenario_name;
  std::vector<std::string> axis_keys;  // the swept keys in plan order (seed last with --seeds)
  std::vector<PlannedRun> runs;        // cartesian product, first axis slowest, seeds fastest
};

// Loads and checks the scenario with --set, checks each --axis value alone on
// top of it (a bad value is a ScenarioError naming the key and value), and
// expands the product. Throws ScenarioError or SweepUsageError.
SweepPlan make_sweep_plan(const SweepSpec& spec);

// The fully resolved parameters of a run: for each key the last applied
// value, sorted by key, with `seed` always present (the file's seed when no
// override sets it) and written in canonical decimal.
std::vector<Override> resolve_params(const std::vector<Override>& applied, std::uint64_t file_seed);

// The run key: the first 16 hex digits (64 bits) of SHA-256 over a versioned,
// length-prefixed encoding of the scenario text and the resolved parameters
// (see docs/sweeps.md). Equal inputs give equal keys on every machine.
std::string run_key(std::string_view scenario_text, const std::vector<Override>& params);

}  // namespace netsim::sweep
