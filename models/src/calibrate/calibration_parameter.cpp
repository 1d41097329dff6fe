#include "netsim/calibrate/calibration_parameter.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "netsim/results/result_writers.h"
#include "netsim/sim/units.h"

namespace netsim::calibrate {
namespace {

struct UnitScale {
  std::string_view unit;
  ParameterKind kind;
  std::int64_t scale;  // base units per unit
};

constexpr std::array<UnitScale, 17> kUnits{{
    {"ps", ParameterKind::duration, 1},
    {"ns", ParameterKind::duration, 1'000},
    {"us", ParameterKind::duration, 1'000'000},
    {"ms", ParameterKind::duration, 1'000'000'000},
    {"s", ParameterKind::duration, 1'000'000'000'000},
    {"bps", ParameterKind::rate, 1},
    {"Kbps", ParameterKind::rate, 1'000},
    {"Mbps", ParameterKind::rate, 1'000'000},
    {"Gbps", ParameterKind::rate, 1'000'000'000},
    {"Tbps", ParameterKind::rate, 1'000'000'000'000},
    {"B", ParameterKind::size, 1},
    {"KB", ParameterKind::size, 1'000},
    {"MB", ParameterKind::size, 1'000'000},
    {"GB", ParameterKind::size, 1'000'000'000},
    {"KiB", ParameterKind::size, 1'024},
    {"MiB", ParameterKind::size, 1'048'576},
    {"GiB", ParameterKind::size, 1'073'741'824},
}};

const UnitScale* find_unit(std::string_view unit) {
  for (const UnitScale& u : kUnits) {
    if (u.unit == unit) return &u;
  }
  return nullptr;
}

// Resolution of each kind, base units: fine enough that no fit notices it,
// coarse enough that a value prints short and parses back exactly (reals:
// see quantize()).
double resolution(ParameterKind k) {
  switch (k) {
    case ParameterKind::duration: return 1'000;  // 1 ns
    case ParameterKind::rate: return 1'000;      // 1 kbit/s
    case ParameterKind::size: return 1;
    case ParameterKind::integer: return 1;
    case ParameterKind::real: return 0;
  }
  return 0;
}

// v / scale as an exact decimal ("63.5"), or "" if scale is not a power of
// ten and v is not a whole multiple of it.
std::string exact_decimal(std::int64_t v, std::int64_t scale) {
  std::string out = std::to_string(v / scale);
  std::int64_t rem = v % scale;
  if (rem == 0) return out;
  int digits = 0;
  for (std::int64_t s = scale; s > 1; s /= 10) {
    if (s % 10 != 0) return "";
    ++digits;
  }
  std::string frac = std::to_string(rem);
  frac.insert(0, static_cast<std::size_t>(digits) - frac.size(), '0');
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return out + "." + frac;
}

}  // namespace

std::string_view kind_name(ParameterKind k) {
  switch (k) {
    case ParameterKind::duration: return "duration";
    case ParameterKind::rate: return "rate";
    case ParameterKind::size: return "size";
    case ParameterKind::integer: return "integer";
    case ParameterKind::real: return "number";
  }
  return "number";
}

ParsedQuantity parse_quantity(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0 && std::isalpha(static_cast<unsigned char>(text[end - 1]))) --end;
  std::string_view number = text.substr(0, end);
  while (!number.empty() && number.back() == ' ') number.remove_suffix(1);
  const std::string_view unit = text.substr(end);
  ParsedQuantity q;
  if (unit.empty()) {
    double v = 0;
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (number.empty() || ec != std::errc{} || p != number.data() + number.size() || !std::isfinite(v)) {
      throw std::invalid_argument("expected a number or a quantity with a unit (250us, 600Mbps, 64KB), got '" +
                                  std::string(text) + "'");
    }
    const bool integral = number.find_first_of(".eE") == std::string_view::npos;
    q.kind = integral ? ParameterKind::integer : ParameterKind::real;
    q.value = v;
    return q;
  }
  const UnitScale* u = find_unit(unit);
  if (u == nullptr) {
    throw std::invalid_argument("unknown unit '" + std::string(unit) + "' in '" + std::string(text) +
                                "' (durations ps..s, rates bps..Tbps, sizes B..GiB)");
  }
  q.kind = u->kind;
  q.unit = std::string(unit);
  switch (u->kind) {
    case ParameterKind::duration: {
      const auto d = parse_duration(text);
      if (!d) throw std::invalid_argument(d.error);
      q.value = static_cast<double>(*d.value);
      break;
    }
    case ParameterKind::rate: {
      const auto r = parse_rate(text);
      if (!r) throw std::invalid_argument(r.error);
      q.value = static_cast<double>(r.value->bps());
      break;
    }
    default: {
      const auto s = parse_size(text);
      if (!s) throw std::invalid_argument(s.error);
      q.value = static_cast<double>(*s.value);
      break;
    }
  }
  return q;
}

std::string_view bound_hit(const CalibrationParameter& p, double value) {
  const double tolerance = (p.max - p.min) * 1e-3;
  if (value <= p.min + tolerance) return "lower";
  if (value >= p.max - tolerance) return "upper";
  return "";
}

double quantize(const CalibrationParameter& p, double value) {
  double v = std::clamp(value, p.min, p.max);
  if (p.kind == ParameterKind::real) {
    // Nine significant digits, so that arithmetic noise (1 + u - 1 != u)
    // never makes a new point and the value prints short.
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return std::clamp(std::strtod(buf, nullptr), p.min, p.max);
  }
  const double res = resolution(p.kind);
  if (res > 0) {
    v = std::round(v / res) * res;
    // Rounding may step just outside a bound that is not on the grid.
    if (v < p.min) v += res;
    if (v > p.max) v -= res;
  }
  return v;
}

// The base unit a value of this kind is held in: "B", "bps", "ps"; "" for plain numbers.
const char* base_unit(ParameterKind kind) {
  return kind == ParameterKind::size       ? "B"
         : kind == ParameterKind::rate     ? "bps"
         : kind == ParameterKind::duration ? "ps"
                                           : "";
}

std::string format_value(const CalibrationParameter& p, double value) {
  const double v = quantize(p, value);
  if (p.kind == ParameterKind::real) return format_double_roundtrip(v);
  const auto whole = static_cast<std::int64_t>(std::llround(v));
  if (p.kind == ParameterKind::integer) return std::to_string(whole);
  const UnitScale* u = find_unit(p.unit);
  if (u != nullptr) {
    const std::string text = exact_decimal(whole, u->scale);
    if (!text.empty()) return text + p.unit;
  }
  // A binary size unit that does not divide the value: bytes.
  return std::to_string(whole) + base_unit(p.kind);
}

std::string format_amount(const CalibrationParameter& p, double amount) {
  char buf[48];
  const UnitScale* u = p.kind == ParameterKind::real || p.kind == ParameterKind::integer ? nullptr : find_unit(p.unit);
  if (u != nullptr) {
    std::snprintf(buf, sizeof buf, "%.4g%s", amount / static_cast<double>(u->scale), p.unit.c_str());
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.4g%s", amount, base_unit(p.kind));
  return buf;
}

}  // namespace netsim::calibrate
