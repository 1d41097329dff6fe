#include "scenario_profiles.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "../common/file_text.h"

#include "netsim/scenario/scenario_loader.h"
#include "scenario_schema.h"
#include "yaml_document.h"

namespace netsim::scenario_internal {
namespace {

// Sections whose elements may name profiles.
constexpr std::array<std::string_view, 4> kProfileSections{"hosts", "switches", "hubs", "links"};
// What an included file may hold.
constexpr std::array<std::string_view, 3> kIncludedKeys{"include", "profiles", "description"};
// Includes deeper than this are surely a mistake (a cycle is caught earlier).
constexpr std::size_t kMaxIncludeDepth = 16;

struct Profile {
  std::string name;
  std::string file;
  std::shared_ptr<const std::string> text;  // the file's text: each use parses its own copy
  SourceLoc loc;                             // of the name
};

class Library {
 public:
  explicit Library(ProfileOrigins& origins) : origins_(origins) {}

  // Reads `include` and `profiles` of one document, includes first.
  void read(const YAML::Node& root, const std::string& file, std::shared_ptr<const std::string> text,
            std::vector<std::string>& stack);
  void merge_into_elements(YAML::Node& root, const Reader& r);

  std::vector<std::string> files;  // included, in first-read order

 private:
  void include(const Field& entry, const std::string& from, const Reader& r, std::vector<std::string>& stack);
  void define(const std::string& name, const Field& f, const std::string& file,
              const std::shared_ptr<const std::string>& text, const Reader& r);
  void merge_profile(YAML::Node element, const Field& ref, const Reader& r);
  // A fresh copy of the profile's block (its own nodes, with their marks):
  // sharing nodes between elements would let an override of one change all.
  YAML::Node instantiate(const Profile& p) const;
  void record(const YAML::Node& node, const ProfileOrigins::Origin* origin);

  ProfileOrigins& origins_;
  std::map<std::string, Profile> profiles_;
  std::vector<std::string> loaded_;  // canonical paths already read (diamonds read once)
};

std::string canonical(const std::string& path) {
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

// The entries of a scalar-or-list value, as fields.
std::vector<Field> names_of(const Field& f, const Reader& r, const std::string& expected) {
  std::vector<Field> out;
  if (f.value.IsSequence()) {
    for (std::size_t i = 0; i < f.value.size(); ++i) {
      Field e{f.value[i], YAML::Node(), f.path + "[" + std::to_string(i) + "]"};
      r.scalar(e, expected);
      out.push_back(Field{e.value, e.key, e.path});
    }
    if (out.empty()) r.fail(f, "the list is empty: give at least one " + expected);
    return out;
  }
  r.scalar(f, expected + " or a list of them");
  out.push_back(Field{f.value, f.key, f.path});
  return out;
}

void Library::read(const YAML::Node& root, const std::string& file, std::shared_ptr<const std::string> text,
                   std::vector<std::string>& stack) {
  OverrideOrigins none;
  const Reader r(file, none);
  const Field top{root, YAML::Node(), ""};
  const bool main = stack.size() == 1;
  if (!main) {
    if (!root.IsMap()) r.fail(top, "an included file must be a map with profiles (and include), got " + describe(root));
    r.visit_fields(top, kIncludedKeys, [](const std::string&, const Field&) {});
  }
  if (const auto inc = r.find(top, "include")) {
    for (const Field& entry : names_of(*inc, r, "a file name")) include(entry, file, r, stack);
  }
  if (const auto defs = r.find(top, "profiles")) {
    r.visit_entries(*defs, "profile", true,
                    [&](const std::string& name, const Field& f) { define(name, f, file, text, r); });
  }
}

void Library::include(const Field& entry, const std::string& from, const Reader& r, std::vector<std::string>& stack) {
  const std::string& name = entry.value.Scalar();
  if (name.empty()) r.fail(entry, "empty file name");
  const std::filesystem::path rel(name);
  const std::string path = rel.is_absolute() ? name : (std::filesystem::path(from).parent_path() / rel).string();
  const std::string id = canonical(path);
  if (std::find(stack.begin(), stack.end(), id) != stack.end()) {
    std::string chain;
    const auto first = std::find(stack.begin(), stack.end(), id);
    for (auto it = first; it != stack.end(); ++it) chain += std::filesystem::path(*it).filename().string() + " -> ";
    r.fail(entry, "include cycle: " + chain + std::filesystem::path(id).filename().string());
  }
  if (std::find(loaded_.begin(), loaded_.end(), id) != loaded_.end()) return;
  if (stack.size() > kMaxIncludeDepth) r.fail(entry, "includes nested more than " + std::to_string(kMaxIncludeDepth) + " deep");
  std::string content;
  if (const std::string why = read_file_text(path, content); !why.empty()) {
    r.fail(entry, "cannot read included file '" + path + "': " + why);
  }
  auto text = std::make_shared<const std::string>(std::move(content));
  const YAML::Node doc = parse_yaml_document(*text, path);
  loaded_.push_back(id);
  files.push_back(path);
  stack.push_back(id);
  read(doc, path, std::move(text), stack);
  stack.pop_back();
}

void Library::define(const std::string& name, const Field& f, const std::string& file,
                     const std::shared_ptr<const std::string>& text, const Reader& r) {
  r.expect_map(f, "a map of element keys (a partial host, switch, hub or link)");
  if (const auto nested = r.find(f, "profile")) r.fail(key_field(*nested), "a profile cannot use other profiles");
  const SourceLoc at = r.loc(f.key);
  const auto [it, inserted] = profiles_.emplace(name, Profile{name, file, text, at});
  if (!inserted) {
    r.fail(key_field(f), "profile '" + name + "' is already defined at " + it->second.loc.file + ":" +
                             std::to_string(it->second.loc.line));
  }
}

YAML::Node Library::instantiate(const Profile& p) const {
  const YAML::Node doc = YAML::Load(*p.text);
  const YAML::Node defs = doc["profiles"];
  for (auto it = defs.begin(); it != defs.end(); ++it) {
    if (it->first.Scalar() == p.name) return it->second;
  }
  return YAML::Node(YAML::NodeType::Map);  // not reached: the name was read from this text
}

void Library::record(const YAML::Node& node, const ProfileOrigins::Origin* origin) {
  origins_.add(node, origin);
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      record(it->first, origin);
      record(it->second, origin);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) record(node[i], origin);
  }
}

// Adds what `dst` lacks from `src`; maps present in both merge recursively.
void merge_maps(YAML::Node dst, const YAML::Node& src) {
  for (auto s = src.begin(); s != src.end(); ++s) {
    std::optional<YAML::Node> mine;
    for (auto d = dst.begin(); d != dst.end(); ++d) {
      if (d->first.IsScalar() && d->first.Scalar() == s->first.Scalar()) {
        mine.emplace(d->second);
        break;
      }
    }
    if (!mine) {
      dst.force_insert(s->first, s->second);
    } else if (mine->IsMap() && s->second.IsMap()) {
      merge_maps(*mine, s->second);
    } else if (mine->IsNull() && s->second.IsMap()) {
      // `nic:` with nothing after it means an empty map: take the profile's.
      YAML::Node slot = *mine;
      slot = s->second;  // deliberately assignment: rebinds the value in the element
    }
  }
}

void Library::merge_profile(YAML::Node element, const Field& ref, const Reader& r) {
  const std::string& name = ref.value.Scalar();
  const auto it = profiles_.find(name);
  if (it == profiles_.end()) {
    std::vector<std::string> known;
    for (const auto& [n, p] : profiles_) known.push_back(n);
    r.fail(ref, "unknown profile " + scenario_internal::quoted(name) + " (" + (known.empty() ? std::string("no profiles are defined") :
                                                       "known profiles: " + join_words(known)) +
                    ")" + suggestion(name, known));
  }
  const YAML::Node block = instantiate(it->second);
  record(block, origins_.keep(ProfileOrigins::Origin{it->second.file, name}));
  merge_maps(element, block);
}

void Library::merge_into_elements(YAML::Node& root, const Reader& r) {
  const Field top{root, YAML::Node(), ""};
  for (std::string_view section : kProfileSections) {
    const auto sec = r.find(top, section);
    if (!sec || !sec->value.IsMap()) continue;  // the validator reports a section of the wrong type
    for (auto it = sec->value.begin(); it != sec->value.end(); ++it) {
      if (!it->first.IsScalar() || !it->second.IsMap()) continue;
      const Field element{it->second, it->first, join_path(sec->path, it->first.Scalar())};
      const auto ref = r.find(element, "profile");
      if (!ref) continue;
      const std::vector<Field> names = names_of(*ref, r, "a profile name");
      // Merging only adds missing keys, so the last profile goes first to win over earlier ones.
      for (auto n = names.rbegin(); n != names.rend(); ++n) merge_profile(it->second, *n, r);
    }
  }
}

}  // namespace

std::vector<std::string> apply_profiles(YAML::Node& root, std::string_view text, const std::string& file,
                                        ProfileOrigins& origins) {
  if (!root.IsMap()) return {};
  const YAML::Node& croot = root;
  if (!croot["include"] && !croot["profiles"]) {
    bool uses = false;  // `profile:` without any profiles is reported below, at the reference
    for (std::string_view section : kProfileSections) {
      const YAML::Node sec = croot[std::string(section)];
      if (!sec || !sec.IsMap()) continue;
      for (auto it = sec.begin(); it != sec.end(); ++it) {
        const YAML::Node element = it->second;  // const: operator[] must not add the key
        uses = uses || (element.IsMap() && element["profile"]);
      }
    }
    if (!uses) return {};
  }
  Library lib(origins);
  std::vector<std::string> stack{canonical(file)};
  lib.read(root, file, std::make_shared<const std::string>(text), stack);
  OverrideOrigins none;
  lib.merge_into_elements(root, Reader(file, none, &origins));
  return lib.files;
}

void check_not_profile_override(const Override& o) {
  const std::vector<std::string> parts = split_path(o.key);
  const bool element_profile = parts.size() == 3 && parts[2] == "profile" &&
                               std::find(kProfileSections.begin(), kProfileSections.end(), parts[0]) !=
                                   kProfileSections.end();
  if (!element_profile && parts[0] != "profiles" && parts[0] != "include") return;
  throw ScenarioError(SourceLoc{std::string(kOverrideSource), 0, 0}, o.key,
                      "profiles are merged into the elements before overrides apply, so '" + o.key +
                          "' cannot be overridden; set the element's field itself (e.g. hosts.NAME.nic.irq_delay)",
                      format_override(o));
}

}  // namespace netsim::scenario_internal
