// A free parameter of a calibration: one value that sets one or more scenario
// paths ("a.x + b.y" sets both, as a linked sweep axis does), with bounds.
//
// Values are held as doubles in the quantity's base unit (picoseconds, bit/s,
// bytes, or a plain number) and are rounded to a fixed resolution before they
// are used, so an evaluation is identified by the exact text it puts into the
// scenario, and the same parameter values always give the same run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/scenario/scenario_spec.h"

namespace netsim::calibrate {

enum class ParameterKind { duration, rate, size, integer, real };

struct CalibrationParameter {
  std::string key;                 // as written in `calibrate.parameters`
  std::vector<std::string> paths;  // the scenario paths it sets (>= 1)
  ParameterKind kind = ParameterKind::real;
  std::string unit;                // unit the bounds were written in ("us", "Mbps", "KB"; "" for numbers)
  double min = 0;                  // bounds and start, base units
  double max = 0;
  double start = 0;
  SourceLoc loc;
};

// A quantity as written ("250us", "600Mbps", "64KB", "3", "0.05"): its kind,
// the unit it was written in, and its value in base units. Throws
// std::invalid_argument with a message on anything else.
struct ParsedQuantity {
  ParameterKind kind = ParameterKind::real;
  std::string unit;
  double value = 0;
};
ParsedQuantity parse_quantity(std::string_view text);

// The value rounded to the parameter's resolution (1 ns, 1 kbit/s, 1 byte, 1
// for integers, nine significant digits for reals), clamped into [min, max].
double quantize(const CalibrationParameter& p, double value);

// Text a scenario accepts for the quantized value, exact, in the parameter's
// unit where that is exact ("63.5us", "612.25Mbps", "1500B", "3", "0.05").
std::string format_value(const CalibrationParameter& p, double value);

// An amount in the parameter's unit with four significant digits, not
// quantized nor clamped: a width or a standard error ("3.116us", "70.5KB").
std::string format_amount(const CalibrationParameter& p, double amount);

// "lower" or "upper" when a fitted value sits on that bound (within 0.1% of
// the range), "" otherwise. A fit that ends on a bound says the data pull the
// parameter outside the range: either the bound is not physical and may be
// widened, or the model lacks something and the parameter stands in for it.
std::string_view bound_hit(const CalibrationParameter& p, double value);

// "duration", "rate", ... for messages and profiles.
std::string_view kind_name(ParameterKind k);

}  // namespace netsim::calibrate
