// Parsing of human-written quantities: "250us", "1Gbps", "128KB".
//
// Parsing is exact: decimal fractions are handled in integer arithmetic, and a
// value that does not land on a whole unit of the internal representation
// (picoseconds, bits/s, bytes) is rejected rather than rounded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "netsim/sim/data_rate.h"
#include "netsim/sim/time.h"

namespace netsim {

// Result of a parse: a value, or a message saying what is wrong.
template <typename T>
struct Parsed {
  std::optional<T> value;
  std::string error;
  explicit operator bool() const { return value.has_value(); }
};

// Durations: ps, ns, us, ms, s (also "0" alone). Non-negative.
Parsed<SimTime> parse_duration(std::string_view text);
// Bit rates: bps, Kbps, Mbps, Gbps, Tbps (SI, powers of 1000). Strictly positive.
Parsed<DataRate> parse_rate(std::string_view text);
// Sizes: B, KB, MB, GB (SI: 1000) and KiB, MiB, GiB (1024). A bare integer is bytes.
Parsed<std::int64_t> parse_size(std::string_view text);

std::string format_duration(SimTime t);
std::string format_rate(DataRate r);

}  // namespace netsim
