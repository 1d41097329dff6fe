#include "netsim/sweep/sweep_plan.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "../common/file_text.h"

#include "netsim/scenario/scenario_loader.h"
#include "netsim/sweep/sha256.h"

namespace netsim::sweep {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::string read_file(const std::string& path) {
  std::string text;
  if (const std::string why = read_file_text(path, text); !why.empty()) {
    throw ScenarioError(SourceLoc{path, 0, 0}, "", "cannot read file: " + why);
  }
  return text;
}

bool parse_u64(std::string_view text, std::uint64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

// Each --axis value alone on top of the file and --set, as a run would apply
// it, so that a typo is reported before any run starts (the file's own axes
// get the same check from the loader).
void check_axis(const std::string& text, const std::string& file, const std::vector<Override>& sets, const AxisArg& axis) {
  for (const std::string& v : axis.values) {
    std::vector<Override> trial = sets;
    trial.push_back(Override{axis.key, v});
    try {
      parse_scenario_text(text, file, trial);
    } catch (const ScenarioError& e) {
      std::string msg = "value '" + v + "' for '" + axis.key + "' would make the scenario invalid: ";
      if (!e.field.empty() && e.field != axis.key) msg += "field '" + e.field + "': ";
      msg += e.message;
      throw ScenarioError(SourceLoc{"--axis " + axis.key + "=" + v, 0, 0}, axis.key, std::move(msg));
    }
  }
}

}  // namespace

AxisArg parse_axis(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    throw SweepUsageError("--axis needs KEY=V1,V2,..., e.g. hosts.sender.hz=100,1000; got '" + std::string(text) + "'");
  }
  AxisArg axis{std::string(trim(text.substr(0, eq))), {}};
  if (axis.key.empty()) throw SweepUsageError("--axis '" + std::string(text) + "': empty key");
  std::string_view rest = text.substr(eq + 1);
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view v = trim(rest.substr(0, comma));
    if (v.empty()) throw SweepUsageError("--axis '" + std::string(text) + "': empty value");
    axis.values.emplace_back(v);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return axis;
}

Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  std::uint64_t i = 0;
  std::uint64_t n = 0;
  if (slash == std::string_view::npos || !parse_u64(text.substr(0, slash), i) || !parse_u64(text.substr(slash + 1), n) ||
      n == 0 || i >= n) {
    throw SweepUsageError("--shard needs I/N with 0 <= I < N (e.g. 0/4 ... 3/4), got '" + std::string(text) + "'");
  }
  return Shard{static_cast<std::size_t>(i), static_cast<std::size_t>(n)};
}

std::vector<Override> resolve_params(const std::vector<Override>& applied, std::uint64_t file_seed) {
  std::map<std::string, std::string> last;
  for (const Override& o : applied) last[o.key] = o.value;
  // Canonical decimal, so that seed=007 and seed=7 (the same run) share a key.
  std::uint64_t seed = file_seed;
  if (auto it = last.find("seed"); it == last.end() || parse_u64(it->second, seed)) last["seed"] = std::to_string(seed);
  std::vector<Override> params;
  for (auto& [k, v] : last) params.push_back(Override{k, v});
  return params;
}

std::string run_key(std::string_view scenario_text, const std::vector<Override>& params) {
  // Length prefixes make the encoding unambiguous whatever the texts contain.
  Sha256 h;
  auto field = [&h](std::string_view s) {
    h.update(std::to_string(s.size()));
    h.update(":");
    h.update(s);
    h.update("\n");
  };
  field("netsim-run-key-v1");
  field(scenario_text);
  for (const Override& p : params) {
    field(p.key);
    field(p.value);
  }
  std::string hex;
  static constexpr char kHex[] = "0123456789abcdef";
  const auto digest = h.finish();
  for (std::size_t i = 0; i < 8; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

SweepPlan make_sweep_plan(const SweepSpec& spec) {
  SweepPlan plan;
  plan.scenario_file = spec.scenario_file;
  plan.scenario_text = read_file(spec.scenario_file);
  ScenarioSpec base = parse_scenario_text(plan.scenario_text, spec.scenario_file, spec.sets);
  plan.scenario_name = base.name;
  plan.key_text = plan.scenario_text;
  for (const std::string& inc : base.includes) {
    const std::string inc_text = read_file(inc);
    plan.key_text += "\n#include " + std::to_string(inc.size()) + ":" + inc + " " + std::to_string(inc_text.size()) +
                     ":" + inc_text;
  }

  for (const AxisArg& axis : spec.axes) {
    check_axis(plan.scenario_text, spec.scenario_file, spec.sets, axis);
    // The command line wins: its axis replaces the file's axis of the same key.
    // (A linked file axis that sets the key goes as a whole.)
    std::erase_if(base.sweep, [&axis](const SweepAxis& a) {
      return a.key == axis.key || std::find(a.paths.begin(), a.paths.end(), axis.key) != a.paths.end();
    });
  }
  for (const AxisArg& axis : spec.axes) {
    if (std::count_if(spec.axes.begin(), spec.axes.end(), [&axis](const AxisArg& a) { return a.key == axis.key; }) > 1) {
      throw SweepUsageError("--axis " + axis.key + " is given twice; list all its values in one --axis");
    }
    SweepAxis a;
    a.key = axis.key;
    a.paths = {axis.key};
    for (const std::string& v : axis.values) a.values.push_back({v});
    a.loc = SourceLoc{"--axis", 0, 0};
    base.sweep.push_back(std::move(a));
  }
  const std::vector<std::vector<Override>> cells = expand_sweep(base);
  // expand_sweep drops axes pinned by --set; the keys of the first cell are the ones left.
  for (const Override& o : cells.front()) plan.axis_keys.push_back(o.key);
  if (spec.seeds > 0) {
    if (std::find(plan.axis_keys.begin(), plan.axis_keys.end(), "seed") != plan.axis_keys.end()) {
      throw SweepUsageError("--seeds " + std::to_string(spec.seeds) +
                            " and a 'seed' sweep axis both vary the seed; drop one of them");
    }
    plan.axis_keys.push_back("seed");
  }

  const std::uint64_t seed_count = spec.seeds > 0 ? spec.seeds : 1;
  plan.runs.reserve(cells.size() * seed_count);
  for (const auto& cell : cells) {
    for (std::uint64_t s = 0; s < seed_count; ++s) {
      PlannedRun run;
      run.index = plan.runs.size();
      run.overrides = cell;
      run.overrides.insert(run.overrides.end(), spec.sets.begin(), spec.sets.end());
      if (spec.seeds > 0) run.overrides.push_back(Override{"seed", std::to_string(base.seed + s)});
      run.params = resolve_params(run.overrides, base.seed);
      run.key = run_key(plan.key_text, run.params);
      plan.runs.push_back(std::move(run));
    }
  }
  return plan;
}

}  // namespace netsim::sweep
