// printf-style string helpers shared by the iperf2 and iperf3 text reports
// (iperf2_report.cpp, iperf3_report.cpp). Internal to the app models.
//
// Numbers are formatted without the C locale's help (format_fixed: std::to_chars is
// specified "as if by printf in the C locale"), whatever the global locale is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "netsim/results/result_writers.h"

namespace netsim::app::printf_format {

// "%.<precision>f".
inline std::string fixed(double v, int precision) { return format_fixed(v, precision); }

// Concatenation (instead of chains of operator+).
inline std::string cat(std::initializer_list<std::string_view> parts) {
  std::size_t n = 0;
  for (auto p : parts) n += p.size();
  std::string s;
  s.reserve(n);
  for (auto p : parts) s.append(p);
  return s;
}

// "%*s": right-aligned in `width` columns.
inline std::string right(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

// "%*llu": an unsigned number right-aligned in `width` columns.
inline std::string right(std::uint64_t n, std::size_t width) { return right(std::to_string(n), width); }

// "%-*s": left-aligned in `width` columns.
inline std::string left(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

// A Unix time as a UTC civil date (H. Hinnant's days-from-civil inverse),
// without the C library's locale and time zone.
struct CivilTime {
  std::int64_t year, month, day;       // month 1..12
  std::int64_t hour, minute, second;
  std::int64_t weekday;                // 0 = Sunday
};

inline CivilTime civil_time(std::int64_t unix_seconds) {
  std::int64_t days = unix_seconds / 86400;
  std::int64_t secs = unix_seconds % 86400;
  if (secs < 0) {
    secs += 86400;
    --days;
  }
  CivilTime c{};
  c.weekday = ((days % 7) + 11) % 7;  // 1970-01-01 was a Thursday
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  c.day = doy - (153 * mp + 2) / 5 + 1;
  c.month = mp < 10 ? mp + 3 : mp - 9;
  c.year = yoe + era * 400 + (c.month <= 2 ? 1 : 0);
  c.hour = secs / 3600;
  c.minute = secs / 60 % 60;
  c.second = secs % 60;
  return c;
}

// "%02d" of a non-negative number.
inline std::string two_digits(std::int64_t n) {
  std::string s = std::to_string(n);
  if (s.size() < 2) s.insert(s.begin(), '0');
  return s;
}

}  // namespace netsim::app::printf_format
