#include "cjson_print.h"

#include <cfloat>
#include <charconv>
#include <climits>
#include <cmath>
#include <system_error>

namespace netsim::app {
namespace {

// "%1.<precision>g" without the C locale's help.
std::string general(double v, int precision) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision);
  return std::string(buf, r.ptr);
}

}  // namespace

void cjson_print_number(std::string& out, double d) {
  if (std::isnan(d) || std::isinf(d)) {
    out += "null";
    return;
  }
  int as_int = 0;
  if (d >= static_cast<double>(INT_MAX)) {
    as_int = INT_MAX;
  } else if (d <= static_cast<double>(INT_MIN)) {
    as_int = INT_MIN;
  } else {
    as_int = static_cast<int>(d);
  }
  if (d == static_cast<double>(as_int)) {
    out += std::to_string(as_int);
    return;
  }
  std::string s = general(d, 15);
  double back = 0.0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), back);
  const double max_abs = std::fabs(back) > std::fabs(d) ? std::fabs(back) : std::fabs(d);
  if (r.ec != std::errc() || !(std::fabs(back - d) <= max_abs * DBL_EPSILON)) s = general(d, 17);
  out += s;
}

void cjson_print_string(std::string& out, const std::string& s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 32) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

}  // namespace netsim::app
