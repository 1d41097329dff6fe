// Entry points: read the file, parse YAML, apply overrides, validate.
#include "netsim/scenario/scenario_loader.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "override_apply.h"
#include "scenario_validator.h"
#include "yaml_reader.h"

namespace netsim {
namespace {

using scenario_internal::Field;
using scenario_internal::OverrideOrigins;
using scenario_internal::Reader;

SourceLoc mark_loc(const std::string& file, const YAML::Mark& mark) {
  if (mark.line < 0) return SourceLoc{file, 0, 0};
  return SourceLoc{file, mark.line + 1, mark.column + 1};
}

YAML::Node parse_document(std::string_view text, const std::string& file) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {  // ParserException and friends carry the position
    throw ScenarioError(mark_loc(file, e.mark), "", "invalid YAML: " + e.msg);
  }
  // A second document would be ignored by a plain Load(): refuse it rather than drop it.
  for (std::size_t i = 1; i < docs.size(); ++i) {
    if (!docs[i].IsNull()) {
      throw ScenarioError(mark_loc(file, docs[i].Mark()), "",
                          "a scenario file holds one YAML document, but another one starts here");
    }
  }
  if (docs.empty() || docs[0].IsNull()) {
    throw ScenarioError(SourceLoc{file, 1, 1}, "",
                        "the scenario is empty: expected a map with at least name, duration, hosts, links and traffic");
  }
  return docs[0];
}

}  // namespace

ScenarioSpec parse_scenario_text(std::string_view yaml, const std::string& filename,
                                 const std::vector<Override>& overrides) {
  YAML::Node root = parse_document(yaml, filename);
  OverrideOrigins origins;
  const Reader reader(filename, origins);
  // Overrides walk maps, so the shape of the top level is checked before they are applied.
  scenario_internal::check_top_level(root, reader);
  for (const auto& o : overrides) scenario_internal::apply_override(root, o, origins);
  ScenarioSpec spec = scenario_internal::validate_scenario(root, reader, true);
  scenario_internal::check_sweep_values(root, spec, reader);
  spec.overrides = overrides;
  return spec;
}

ScenarioSpec load_scenario(const std::string& path, const std::vector<Override>& overrides) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ScenarioError(SourceLoc{path, 0, 0}, "", "cannot read scenario file '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw ScenarioError(SourceLoc{path, 0, 0}, "",
                        "cannot open scenario file '" + path + "': " + std::generic_category().message(err));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ScenarioError(SourceLoc{path, 0, 0}, "", "cannot read scenario file '" + path + "'");
  return parse_scenario_text(text.str(), path, overrides);
}

}  // namespace netsim
