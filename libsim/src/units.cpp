#include "netsim/sim/units.h"

#include "netsim/sim/int128.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <limits>

namespace netsim {
namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t scale;
};

// Splits "12.5Gbps" into the integer and fraction digits and the suffix, then
// scales exactly. Returns an error message, or empty on success.
std::string parse_scaled(std::string_view text, const Unit* units, std::size_t n_units, bool allow_bare,
                         std::int64_t bare_scale, std::int64_t& out) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    if (text[i] == '-') return "negative values are not allowed";
    ++i;
  }
  std::size_t int_start = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  std::string_view int_digits = text.substr(int_start, i - int_start);
  std::string_view frac_digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    std::size_t frac_start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    frac_digits = text.substr(frac_start, i - frac_start);
  }
  if (int_digits.empty() && frac_digits.empty()) return "expected a number";
  while (i < text.size() && text[i] == ' ') ++i;
  std::string_view suffix = text.substr(i);
  while (!suffix.empty() && std::isspace(static_cast<unsigned char>(suffix.back()))) suffix.remove_suffix(1);

  std::int64_t scale = 0;
  if (suffix.empty()) {
    if (!allow_bare) return "missing unit";
    scale = bare_scale;
  } else {
    for (std::size_t u = 0; u < n_units; ++u) {
      if (units[u].suffix == suffix) scale = units[u].scale;
    }
    if (scale == 0) {
      std::string msg = "unknown unit '" + std::string(suffix) + "' (expected one of:";
      for (std::size_t u = 0; u < n_units; ++u) msg += " " + std::string(units[u].suffix);
      return msg + ")";
    }
  }
  Int128 value = 0;
  const Int128 limit = std::numeric_limits<std::int64_t>::max();
  for (char c : int_digits) {
    value = value * 10 + (c - '0');
    if (value * scale > limit) return "value too large";
  }
  value *= scale;
  Int128 denom = 1;
  Int128 frac = 0;
  for (char c : frac_digits) {
    frac = frac * 10 + (c - '0');
    denom *= 10;
    if (denom > static_cast<Int128>(1) << 100) return "too many decimal digits";
  }
  Int128 frac_scaled = frac * scale;
  if (frac_scaled % denom != 0) return "value is finer than the smallest representable unit";
  value += frac_scaled / denom;
  if (value > limit) return "value too large";
  out = static_cast<std::int64_t>(value);
  return {};
}

}  // namespace

Parsed<SimTime> parse_duration(std::string_view text) {
  static constexpr std::array<Unit, 5> kUnits{{{"ps", 1},
                                               {"ns", kPicosPerNano},
                                               {"us", kPicosPerMicro},
                                               {"ms", kPicosPerMilli},
                                               {"s", kPicosPerSecond}}};
  std::int64_t v = 0;
  // A bare 0 is unambiguous; any other bare number needs a unit.
  std::string err = parse_scaled(text, kUnits.data(), kUnits.size(), false, 1, v);
  if (!err.empty() && (text == "0")) return {0, {}};
  if (!err.empty()) return {std::nullopt, "invalid duration '" + std::string(text) + "': " + err};
  return {v, {}};
}

Parsed<DataRate> parse_rate(std::string_view text) {
  static constexpr std::array<Unit, 5> kUnits{{{"bps", 1},
                                               {"Kbps", 1'000},
                                               {"Mbps", 1'000'000},
                                               {"Gbps", 1'000'000'000},
                                               {"Tbps", 1'000'000'000'000}}};
  std::int64_t v = 0;
  std::string err = parse_scaled(text, kUnits.data(), kUnits.size(), false, 1, v);
  if (err.empty() && v == 0) err = "rate must be greater than zero";
  if (!err.empty()) return {std::nullopt, "invalid rate '" + std::string(text) + "': " + err};
  return {DataRate::bits_per_second(v), {}};
}

Parsed<std::int64_t> parse_size(std::string_view text) {
  static constexpr std::array<Unit, 7> kUnits{{{"B", 1},
                                               {"KB", 1'000},
                                               {"MB", 1'000'000},
                                               {"GB", 1'000'000'000},
                                               {"KiB", 1024},
                                               {"MiB", 1024 * 1024},
                                               {"GiB", 1024LL * 1024 * 1024}}};
  std::int64_t v = 0;
  std::string err = parse_scaled(text, kUnits.data(), kUnits.size(), true, 1, v);
  if (!err.empty()) return {std::nullopt, "invalid size '" + std::string(text) + "': " + err};
  return {v, {}};
}

std::string format_duration(SimTime t) {
  struct Step {
    SimTime scale;
    const char* suffix;
  };
  static constexpr std::array<Step, 5> kSteps{{{kPicosPerSecond, "s"},
                                               {kPicosPerMilli, "ms"},
                                               {kPicosPerMicro, "us"},
                                               {kPicosPerNano, "ns"},
                                               {1, "ps"}}};
  for (const auto& s : kSteps) {
    if (t != 0 && t % s.scale == 0) return std::to_string(t / s.scale) + s.suffix;
  }
  return std::to_string(t) + "ps";
}

std::string format_rate(DataRate r) {
  struct Step {
    std::int64_t scale;
    const char* suffix;
  };
  static constexpr std::array<Step, 4> kSteps{
      {{1'000'000'000'000, "Tbps"}, {1'000'000'000, "Gbps"}, {1'000'000, "Mbps"}, {1'000, "Kbps"}}};
  for (const auto& s : kSteps) {
    if (r.bps() % s.scale == 0) return std::to_string(r.bps() / s.scale) + s.suffix;
  }
  return std::to_string(r.bps()) + "bps";
}

}  // namespace netsim
