#include "netsim/measure/measure_error.h"

#include <utility>

namespace netsim::measure {
namespace {

std::string located(const std::string& file, int line, const std::string& message) {
  // Appended piece by piece: `":" + std::to_string(line)` trips GCC 12's
  // false -Wrestrict in optimised builds (GCC bug 105329).
  std::string out = file;
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
  }
  out += ": error: ";
  out += message;
  return out;
}

}  // namespace

MeasureError::MeasureError(std::string file_in, int line_in, std::string message_in)
    : std::runtime_error(located(file_in, line_in, message_in)),
      file(std::move(file_in)),
      line(line_in),
      message(std::move(message_in)) {}

}  // namespace netsim::measure
