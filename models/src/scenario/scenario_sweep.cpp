// Sweeps: checking every value up front, and expanding the axes into runs.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "netsim/scenario/scenario_loader.h"
#include "override_apply.h"
#include "scenario_templates.h"
#include "scenario_validator.h"
#include "yaml_reader.h"

namespace netsim {

namespace scenario_internal {

void check_sweep_values(const YAML::Node& root, const ScenarioSpec& spec, const Reader& reader) {
  if (spec.sweep.empty()) return;
  const auto sweep = reader.find(Field{root, YAML::Node(), ""}, "sweep");
  if (!sweep || !sweep->value.IsMap()) return;
  // spec.sweep was filled from this map in order, so entries and axes line up.
  std::size_t axis_index = 0;
  for (auto it = sweep->value.begin(); it != sweep->value.end() && axis_index < spec.sweep.size(); ++it, ++axis_index) {
    const SweepAxis& axis = spec.sweep[axis_index];
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      // Each value alone, on top of the file and the command line, exactly as a run would apply it.
      YAML::Node trial = YAML::Clone(root);
      OverrideOrigins trial_origins;
      const Reader trial_reader(reader.file(), trial_origins);
      std::string shown;
      for (std::size_t j = 0; j < axis.paths.size(); ++j) shown += (j > 0 ? ", " : "") + axis.values[i][j];
      try {
        for (std::size_t j = 0; j < axis.paths.size(); ++j) {
          apply_override(trial, Override{axis.paths[j], axis.values[i][j]}, trial_origins);
        }
        validate_scenario(expand_templates(trial, trial_reader), trial_reader, false, spec.registry);
      } catch (const ScenarioError& e) {
        std::string msg = "value '" + shown + "' for '" + axis.key + "' would make the scenario invalid: ";
        if (!e.field.empty() && e.field != axis.key) msg += "field '" + e.field + "': ";
        msg += e.message;
        reader.fail(Field{it->second[i], YAML::Node(), "sweep." + axis.key}, std::move(msg));
      }
    }
  }
}

}  // namespace scenario_internal

std::vector<std::vector<Override>> expand_sweep(const ScenarioSpec& spec) {
  std::vector<std::vector<Override>> cells(1);
  for (const auto& axis : spec.sweep) {
    // A key set on the command line is pinned: the command line wins over the
    // sweep (for a linked axis, over the whole axis).
    const bool pinned = std::any_of(spec.overrides.begin(), spec.overrides.end(), [&axis](const Override& o) {
      return std::find(axis.paths.begin(), axis.paths.end(), o.key) != axis.paths.end();
    });
    if (pinned) continue;
    std::vector<std::vector<Override>> next;
    next.reserve(cells.size() * axis.values.size());
    // Existing cells outermost, so the first axis varies slowest.
    for (const auto& cell : cells) {
      for (const auto& value : axis.values) {
        next.push_back(cell);
        for (std::size_t j = 0; j < axis.paths.size(); ++j) next.back().push_back(Override{axis.paths[j], value[j]});
      }
    }
    cells = std::move(next);
  }
  // `seeds: N`: every cell N times, with consecutive seeds, unless the seed
  // is swept or pinned already.
  const bool seed_fixed =
      std::any_of(spec.overrides.begin(), spec.overrides.end(), [](const Override& o) { return o.key == "seed"; }) ||
      std::any_of(spec.sweep.begin(), spec.sweep.end(), [](const SweepAxis& a) {
        return std::find(a.paths.begin(), a.paths.end(), "seed") != a.paths.end();
      });
  if (spec.seeds > 1 && !seed_fixed) {
    std::vector<std::vector<Override>> next;
    next.reserve(cells.size() * static_cast<std::size_t>(spec.seeds));
    for (const auto& cell : cells) {
      for (int i = 0; i < spec.seeds; ++i) {
        next.push_back(cell);
        next.back().push_back(Override{"seed", std::to_string(spec.seed + static_cast<std::uint64_t>(i))});
      }
    }
    cells = std::move(next);
  }
  return cells;
}

}  // namespace netsim
