// printf-style string helpers shared by the iperf2 and iperf3 text reports
// (iperf2_report.cpp, iperf3_report.cpp). Internal to the app models.
//
// Numbers are formatted without the C locale's help: std::to_chars is
// specified "as if by printf in the C locale", whatever the global locale is.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <system_error>

namespace netsim::app::printf_format {

// "%.<precision>f" ("inf" if it does not fit the buffer).
inline std::string fixed(double v, int precision) {
  char buf[512];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, precision);
  if (r.ec != std::errc()) return "inf";
  return std::string(buf, r.ptr);
}

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

}  // namespace netsim::app::printf_format
