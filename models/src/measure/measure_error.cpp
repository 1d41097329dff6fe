#include "netsim/measure/measure_error.h"

#include <utility>

namespace netsim::measure {
namespace {

std::string located(const std::string& file, int line, const std::string& message) {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  return out + ": error: " + message;
}

}  // namespace

MeasureError::MeasureError(std::string file_in, int line_in, std::string message_in)
    : std::runtime_error(located(file_in, line_in, message_in)),
      file(std::move(file_in)),
      line(line_in),
      message(std::move(message_in)) {}

}  // namespace netsim::measure
