#include "yaml_reader.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <system_error>

#include "netsim/sim/units.h"

#include "../common/element_name.h"

namespace netsim::scenario_internal {
namespace {

// A node's position is usable unless it is empty (its mark then points at the
// next token) or was made by an override or a clone (no mark at all).
bool has_position(const YAML::Node& node) { return !node.IsNull() && node.Mark().line >= 0; }

std::string range_text(std::int64_t lo, std::int64_t hi, std::string_view unit) {
  if (hi == std::numeric_limits<std::int64_t>::max()) return "at least " + std::to_string(lo) + std::string(unit);
  return "between " + std::to_string(lo) + " and " + std::to_string(hi) + std::string(unit);
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_shown) {
  // Text echoed in an error must print as text on any terminal: control
  // bytes and bytes outside printable ASCII become \xNN (a binary file
  // given as a scenario is one scalar).
  std::string out;
  std::size_t shown = 0;
  for (const char c : text) {
    if (shown == max_shown) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    }
    ++shown;
  }
  return out;
}

std::string quoted(std::string_view text) { return "'" + printable(text, 60) + "'"; }

// How a node that has the wrong type is described: "got a list".
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "an empty value";
    case YAML::NodeType::Scalar:
      return quoted(node.Scalar());
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

const std::string* OverrideOrigins::find(const YAML::Node& node) const {
  // Newest first: a key overridden twice shares its node with the later override.
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
    if (it->first.is(node)) return &it->second;
  }
  return nullptr;
}

const ProfileOrigins::Origin* ProfileOrigins::keep(Origin origin) {
  origins_.push_back(std::make_unique<Origin>(std::move(origin)));
  return origins_.back().get();
}

const ProfileOrigins::Origin* ProfileOrigins::find(const YAML::Node& node) const {
  for (const auto& [n, origin] : nodes_) {
    if (n.is(node)) return origin;
  }
  return nullptr;
}

std::string join_path(std::string_view parent, std::string_view child) {
  if (parent.empty()) return std::string(child);
  std::string out(parent);
  out += '.';
  out += child;
  return out;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    parts.emplace_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

std::string join_words(KeyList words) { return join_words(std::vector<std::string>(words.begin(), words.end())); }

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Levenshtein distance with two rolling rows.
  std::vector<std::size_t> prev(b.size() + 1);
  std::vector<std::size_t> cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  std::size_t best_distance = 3;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    // A distance as large as the word itself means nothing in common ("hz" vs "to").
    if (d < best_distance && d < word.size()) {
      best = &c;
      best_distance = d;
    }
  }
  return best == nullptr ? std::string() : "; did you mean '" + *best + "'?";
}

std::string suggestion(std::string_view word, KeyList candidates) {
  return suggestion(word, std::vector<std::string>(candidates.begin(), candidates.end()));
}

bool is_valid_name(std::string_view name) { return is_element_name(name); }

SourceLoc Reader::loc(const YAML::Node& node) const {
  const ProfileOrigins::Origin* from = profiles_ != nullptr ? profiles_->find(node) : nullptr;
  const std::string& file = from != nullptr ? from->file : file_;
  const YAML::Mark m = node.Mark();
  if (m.line < 0) return SourceLoc{file, 0, 0};
  return SourceLoc{file, m.line + 1, m.column + 1};
}

SourceLoc Reader::loc(const Field& f) const {
  if (has_position(f.value) || f.key.Mark().line < 0) return loc(f.value);
  return loc(f.key);
}

ScenarioError Reader::error(const Field& at, std::string message) const {
  const std::string* text = origins_.find(at.value);
  if (text == nullptr && !has_position(at.value)) text = origins_.find(at.key);
  if (text != nullptr)
    return ScenarioError(SourceLoc{std::string(kOverrideSource), 0, 0}, at.path, std::move(message), *text);
  if (profiles_ != nullptr) {
    const YAML::Node& where = has_position(at.value) || at.key.Mark().line < 0 ? at.value : at.key;
    if (const ProfileOrigins::Origin* from = profiles_->find(where)) message += " (from profile '" + from->profile + "')";
  }
  return ScenarioError(loc(at), at.path, std::move(message));
}

void Reader::fail_at(const SourceLoc& where, const std::string& field, std::string message) const {
  throw ScenarioError(where, field, std::move(message));
}

void Reader::expect_map(const Field& map, const std::string& expected) const {
  if (!map.value.IsMap() && !map.value.IsNull()) fail(map, "expected " + expected + ", got " + describe(map.value));
}

std::set<std::string> Reader::each_entry(const Field& map, const std::string& expected,
                                         const std::function<void(const std::string&, const Field&)>& check_key,
                                         const Visitor& fn) const {
  expect_map(map, expected);
  std::set<std::string> seen;
  if (!map.value.IsMap()) return seen;
  // yaml-cpp keeps every entry of a map with a repeated key (lookups find one
  // of them), so repeats are detected here rather than silently dropped.
  std::map<std::string, YAML::Node> first_key;
  for (auto it = map.value.begin(); it != map.value.end(); ++it) {
    const Field value{it->second, it->first, map.path};
    if (!it->first.IsScalar()) fail(key_field(value), "keys must be plain names, got " + describe(it->first));
    const std::string key = it->first.Scalar();
    const Field entry{it->second, it->first, join_path(map.path, key)};
    if (auto prev = first_key.find(key); prev != first_key.end()) {
      const SourceLoc first = loc(prev->second);
      fail(key_field(entry), "duplicate key " + quoted(key) + " (first defined at line " + std::to_string(first.line) +
                                 ", column " + std::to_string(first.column) + ")");
    }
    check_key(key, entry);
    first_key.emplace(key, it->first);
    seen.insert(key);
    fn(key, entry);
  }
  return seen;
}

std::set<std::string> Reader::visit_fields(const Field& map, KeyList accepted, const Visitor& fn) const {
  return each_entry(
      map, "a map with keys " + join_words(accepted),
      [&](const std::string& key, const Field& entry) {
        if (!contains(accepted, key)) {
          fail(key_field(entry),
               "unknown key " + quoted(key) + " (accepted keys: " + join_words(accepted) + ")" + suggestion(key, accepted));
        }
      },
      fn);
}

void Reader::visit_entries(const Field& map, std::string_view what, bool check_names, const Visitor& fn) const {
  each_entry(
      map, "a map of name -> " + std::string(what),
      [&](const std::string& key, const Field& entry) {
        if (check_names && !is_valid_name(key)) {
          fail(key_field(entry), "invalid name " + quoted(key) + ": names may contain only letters, digits, '-' and '_'");
        }
      },
      fn);
}

void Reader::missing(const Field& map, std::string_view key) const {
  fail(Field{map.value, map.key, join_path(map.path, key)}, "required field '" + std::string(key) + "' is missing");
}

void Reader::require(const Field& map, const std::set<std::string>& seen, KeyList required) const {
  for (auto key : required) {
    if (seen.count(std::string(key)) == 0) missing(map, key);
  }
}

std::optional<Field> Reader::find(const Field& map, std::string_view key) const {
  if (map.value.IsMap()) {
    for (auto it = map.value.begin(); it != map.value.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key)
        return Field{it->second, it->first, join_path(map.path, key)};
    }
  }
  return std::nullopt;
}

const std::string& Reader::scalar(const Field& f, std::string_view expected) const {
  if (!f.value.IsScalar()) fail(f, "expected " + std::string(expected) + ", got " + describe(f.value));
  return f.value.Scalar();
}

std::int64_t Reader::integer(const Field& f, std::int64_t lo, std::int64_t hi) const {
  const std::string& text = scalar(f, "an integer");
  std::string_view digits = text;
  if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range)
    fail(f, quoted(text) + " is out of range: must be " + range_text(lo, hi, ""));
  if (ec != std::errc() || end != digits.data() + digits.size()) fail(f, "expected an integer, got " + quoted(text));
  if (v < lo || v > hi) fail(f, "out of range: must be " + range_text(lo, hi, "") + ", got " + std::to_string(v));
  return v;
}

std::uint64_t Reader::unsigned_integer(const Field& f) const {
  const std::string& text = scalar(f, "a non-negative integer");
  std::string_view digits = text;
  if (digits.size() > 1 && digits[0] == '+') digits.remove_prefix(1);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range) fail(f, quoted(text) + " is out of range: must be at most 2^64-1");
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    fail(f, "expected a non-negative integer, got " + quoted(text));
  }
  return v;
}

double Reader::real(const Field& f, double lo, double hi) const {
  const std::string& text = scalar(f, "a number");
  std::string_view digits = text;
  if (digits.size() > 1 && digits[0] == '+') digits.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(v)) {
    fail(f, "expected a number, got " + quoted(text));
  }
  if (v < lo || v > hi) {
    // Print the bounds the way a person would write them (0 and 1, not 0.000000).
    auto fmt = [](double d) {
      std::string s = std::to_string(d);
      s.erase(s.find_last_not_of('0') + 1);
      if (s.back() == '.') s.pop_back();
      return s;
    };
    fail(f, "out of range: must be between " + fmt(lo) + " and " + fmt(hi) + ", got " + text);
  }
  return v;
}

SimTime Reader::duration(const Field& f) const {
  const auto parsed = parse_duration(scalar(f, "a duration such as 250us"));
  if (!parsed) fail(f, parsed.error);
  return *parsed.value;
}

DataRate Reader::rate(const Field& f) const {
  const auto parsed = parse_rate(scalar(f, "a rate such as 1Gbps"));
  if (!parsed) fail(f, parsed.error);
  return *parsed.value;
}

std::int64_t Reader::frequency(const Field& f) const {
  const std::string& text = scalar(f, "a frequency such as 3GHz");
  static constexpr std::array<std::pair<std::string_view, double>, 4> kUnits{
      {{"GHz", 1e9}, {"MHz", 1e6}, {"kHz", 1e3}, {"Hz", 1.0}}};
  for (const auto& [unit, scale] : kUnits) {
    if (text.size() <= unit.size() || text.compare(text.size() - unit.size(), unit.size(), unit) != 0) continue;
    const std::string number = text.substr(0, text.size() - unit.size());
    char* end = nullptr;
    const double v = std::strtod(number.c_str(), &end);
    if (end == number.c_str() || *end != '\0' || !(v > 0) || v * scale > 1e12) break;
    return static_cast<std::int64_t>(std::llround(v * scale));
  }
  fail(f, "expected a frequency above 0 and at most 1THz such as 3GHz or 2400MHz, got " + quoted(text));
}

std::int64_t Reader::size(const Field& f, std::int64_t lo, std::int64_t hi) const {
  const auto parsed = parse_size(scalar(f, "a size such as 1500B"));
  if (!parsed) fail(f, parsed.error);
  const std::int64_t v = *parsed.value;
  if (v < lo || v > hi) {
    fail(f, "out of range: must be " + range_text(lo, hi, " bytes") + ", got " + std::to_string(v) + " bytes");
  }
  return v;
}

std::string Reader::choice(const Field& f, KeyList options) const {
  const std::string& text = scalar(f, "one of " + join_words(options));
  if (!contains(options, text)) {
    fail(f, "expected one of " + join_words(options) + ", got " + quoted(text) + suggestion(text, options));
  }
  return text;
}

std::string not_a_boolean(std::string_view text) {
  return "expected true or false, got " + quoted(text) + suggestion(text, kBooleans);
}

bool Reader::boolean(const Field& f) const {
  const std::string& text = scalar(f, "true or false");
  if (text == "true") return true;
  if (text == "false") return false;
  fail(f, not_a_boolean(text));
}

}  // namespace netsim::scenario_internal
