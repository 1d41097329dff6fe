#include "scenario_templates.h"

#include <array>
#include <cctype>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

namespace netsim::scenario_internal {
namespace {

constexpr std::array<std::string_view, 6> kTemplateSections{"hosts", "switches", "hubs", "links", "filters", "traffic"};
constexpr std::int64_t kMaxRepeat = 1'000'000;

// Recursive descent over one {EXPR}: expr = term {(+|-) term}, term =
// factor {(*|/|%) factor}, factor = integer | name | ( expr ) | - factor.
class Expression {
 public:
  Expression(std::string_view text, const std::map<std::string, std::int64_t>& vars) : s_(text), vars_(vars) {}

  std::int64_t evaluate() {
    const std::int64_t v = expr();
    skip_space();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(s_.substr(pos_, 1)) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument("in {" + std::string(s_) + "}: " + why);
  }
  void skip_space() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool take(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::int64_t checked(bool overflowed, std::int64_t r) const {
    if (overflowed) fail("overflow");
    return r;
  }
  std::int64_t add(std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    const bool overflowed = __builtin_add_overflow(a, b, &r);  // before r is read
    return checked(overflowed, r);
  }
  std::int64_t sub(std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    const bool overflowed = __builtin_sub_overflow(a, b, &r);  // before r is read
    return checked(overflowed, r);
  }
  std::int64_t mul(std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    const bool overflowed = __builtin_mul_overflow(a, b, &r);  // before r is read
    return checked(overflowed, r);
  }
  std::int64_t expr() {
    std::int64_t v = term();
    for (;;) {
      if (take('+')) {
        v = add(v, term());
      } else if (take('-')) {
        v = sub(v, term());
      } else {
        return v;
      }
    }
  }
  std::int64_t term() {
    std::int64_t v = factor();
    for (;;) {
      if (take('*')) {
        v = mul(v, factor());
      } else if (take('/')) {
        const std::int64_t d = factor();
        if (d == 0) fail("division by zero");
        if (d == -1) {
          v = sub(0, v);
        } else {
          v /= d;
        }
      } else if (take('%')) {
        const std::int64_t d = factor();
        if (d == 0) fail("division by zero");
        v = d == -1 ? 0 : v % d;
      } else {
        return v;
      }
    }
  }
  std::int64_t factor() {
    skip_space();
    if (take('(')) {
      const std::int64_t v = expr();
      if (!take(')')) fail("missing ')'");
      return v;
    }
    if (take('-')) return sub(0, factor());
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      std::int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) v = add(mul(v, 10), s_[pos_++] - '0');
      return v;
    }
    if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      const std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string name(s_.substr(start, pos_ - start));
      const auto it = vars_.find(name);
      if (it == vars_.end()) fail("unknown name '" + name + "' (i, n and the template's vars are defined)");
      return it->second;
    }
    fail(pos_ < s_.size() ? "unexpected '" + std::string(s_.substr(pos_, 1)) + "'" : "expression ends early");
  }

  std::string_view s_;
  const std::map<std::string, std::int64_t>& vars_;
  std::size_t pos_ = 0;
};

struct Instance {
  const Reader& reader;
  const std::map<std::string, std::int64_t>& vars;
};

bool has_pattern(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar().find('{') != std::string::npos;
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (has_pattern(it->second)) return true;
    }
  } else if (node.IsSequence()) {
    for (std::size_t k = 0; k < node.size(); ++k) {
      if (has_pattern(node[k])) return true;
    }
  }
  return false;
}

// A scalar node holding `text` at `original`'s position: yaml-cpp cannot set
// a node's mark, so the scalar is parsed from as many newlines and spaces as
// put it there. Errors about an expanded value then name the template's line.
YAML::Node scalar_at(const YAML::Node& original, const std::string& text) {
  const YAML::Mark m = original.Mark();
  if (m.line < 0) return YAML::Node(text);
  std::string doc(static_cast<std::size_t>(m.line), '\n');
  doc.append(static_cast<std::size_t>(m.column), ' ');
  doc += '"';
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      doc += '\\';
      doc += c;
    } else if (c == '\n') {
      doc += "\\n";
    } else if (c == '\t') {
      doc += "\\t";
    } else {
      doc += c;
    }
  }
  doc += '"';
  return YAML::Load(doc);
}

// `node` with every {EXPR} under it replaced: unchanged parts are shared
// (they keep their positions), changed scalars are new nodes at the same
// place. Inside a new map or list every scalar is new (`fresh`): inserting a
// node of the parsed document into a new container would make yaml-cpp copy
// the document's whole node set into it, once per template entry.
YAML::Node substituted(const YAML::Node& node, const std::string& path, const Instance& in, bool fresh = false) {
  if (!has_pattern(node)) return fresh && node.IsScalar() ? scalar_at(node, node.Scalar()) : node;
  if (node.IsScalar()) {
    try {
      return scalar_at(node, substitute_pattern(node.Scalar(), in.vars));
    } catch (const std::invalid_argument& e) {
      in.reader.fail(Field{node, YAML::Node(), path}, e.what());
    }
  }
  if (node.IsMap()) {
    YAML::Node out(YAML::NodeType::Map);
    for (auto it = node.begin(); it != node.end(); ++it) {
      out.force_insert(scalar_at(it->first, it->first.Scalar()),
                       substituted(it->second, path + "." + it->first.Scalar(), in, true));
    }
    return out;
  }
  YAML::Node out(YAML::NodeType::Sequence);
  for (std::size_t k = 0; k < node.size(); ++k) {
    out.push_back(substituted(node[k], path + "[" + std::to_string(k) + "]", in, true));
  }
  return out;
}

std::int64_t integer_field(const Reader& reader, const YAML::Node& value, const YAML::Node& key, const std::string& path,
                           std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  std::size_t used = 0;
  const std::string text = value.IsScalar() ? value.Scalar() : std::string();
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size()) reader.fail(Field{value, key, path}, "expected an integer, got '" + text + "'");
  if (v < lo || v > hi) {
    reader.fail(Field{value, key, path},
                "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + std::to_string(v));
  }
  return v;
}

// The entry of `map` named `key` (its key and value nodes), found without
// operator[], which would insert into the parsed tree.
struct Entry {
  YAML::Node key;
  YAML::Node value;
};
std::optional<Entry> find_entry(const YAML::Node& map, std::string_view key) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return Entry{it->first, it->second};
  }
  return std::nullopt;
}

// Entries of one section with its templates expanded; false if it had none.
bool expand_section(const YAML::Node& section, const std::string& name, const Reader& reader, YAML::Node& out) {
  bool any = false;
  for (auto it = section.begin(); it != section.end(); ++it) {
    if (it->second.IsMap() && find_entry(it->second, "repeat")) any = true;
  }
  if (!any) return false;
  out = YAML::Node(YAML::NodeType::Map);
  std::set<std::string> names;
  for (auto it = section.begin(); it != section.end(); ++it) names.insert(it->first.Scalar());
  for (auto it = section.begin(); it != section.end(); ++it) {
    const std::string key = it->first.Scalar();
    const YAML::Node entry = it->second;  // a copy: the iterator yields a temporary
    if (!entry.IsMap() || !find_entry(entry, "repeat")) {
      out.force_insert(it->first, entry);
      continue;
    }
    const std::string path = name + "." + key;
    const Entry repeat = *find_entry(entry, "repeat");
    const std::optional<Entry> vars_entry = find_entry(entry, "vars");
    const std::int64_t n = integer_field(reader, repeat.value, repeat.key, path + ".repeat", 0, kMaxRepeat);
    std::map<std::string, std::int64_t> vars{{"n", n}};
    if (vars_entry) {
      const YAML::Node& vars_node = vars_entry->value;
      if (!vars_node.IsMap()) reader.fail(Field{vars_node, vars_entry->key, path + ".vars"}, "expected a map of integers");
      for (auto v = vars_node.begin(); v != vars_node.end(); ++v) {
        const std::string var = v->first.Scalar();
        if (var == "i" || var == "n") {
          reader.fail(Field{v->first, YAML::Node(), path + ".vars." + var}, "'" + var + "' is the template's own");
        }
        vars[var] = integer_field(reader, v->second, v->first, path + ".vars." + var,
                                  std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
      }
    }
    if (key.find('{') == std::string::npos) {
      reader.fail(Field{it->first, YAML::Node(), path},
                  "a template's name needs a pattern such as {i}, so that its " + std::to_string(n) +
                      " entries have names of their own");
    }
    for (std::int64_t i = 0; i < n; ++i) {
      vars["i"] = i;
      std::string inst_name;
      try {
        inst_name = substitute_pattern(key, vars);
      } catch (const std::invalid_argument& e) {
        reader.fail(Field{it->first, YAML::Node(), path}, e.what());
      }
      if (!names.insert(inst_name).second) {
        reader.fail(Field{it->first, YAML::Node(), path},
                    "entry " + std::to_string(i) + " is named '" + inst_name + "', which another entry already is");
      }
      // Into the section first, so that the entry shares the section's node
      // memory and taking the template's nodes into it copies nothing.
      YAML::Node inst(YAML::NodeType::Map);
      out.force_insert(scalar_at(it->first, inst_name), inst);
      for (auto f = entry.begin(); f != entry.end(); ++f) {
        const std::string field = f->first.Scalar();
        if (field == "repeat" || field == "vars") continue;
        inst.force_insert(f->first, substituted(f->second, name + "." + inst_name + "." + field, Instance{reader, vars}));
      }
    }
  }
  return true;
}

}  // namespace

std::string substitute_pattern(std::string_view text, const std::map<std::string, std::int64_t>& vars) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t open = text.find('{', pos);
    if (open == std::string_view::npos) {
      out.append(text.substr(pos));
      break;
    }
    const std::size_t close = text.find('}', open);
    if (close == std::string_view::npos) throw std::invalid_argument("'{' without '}' in '" + std::string(text) + "'");
    out.append(text.substr(pos, open - pos));
    out += std::to_string(Expression(text.substr(open + 1, close - open - 1), vars).evaluate());
    pos = close + 1;
  }
  return out;
}

YAML::Node expand_templates(const YAML::Node& root, const Reader& reader) {
  if (!root.IsMap()) return root;
  std::map<std::string, YAML::Node> expanded;
  for (std::string_view section : kTemplateSections) {
    const std::optional<Entry> s = find_entry(root, section);
    if (!s || !s->value.IsMap()) continue;
    YAML::Node e;
    if (expand_section(s->value, std::string(section), reader, e)) expanded.emplace(section, e);
  }
  if (expanded.empty()) return root;
  // A new top level (never assign into the parsed tree: yaml-cpp would
  // rewrite the node shared with it); the other sections are shared.
  YAML::Node out(YAML::NodeType::Map);
  for (auto it = root.begin(); it != root.end(); ++it) {
    const auto e = expanded.find(it->first.Scalar());
    out.force_insert(it->first, e != expanded.end() ? e->second : it->second);
  }
  return out;
}

}  // namespace netsim::scenario_internal
