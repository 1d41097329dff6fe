// A problem with measured data: a file that cannot be read, a line of a
// measurement report that does not parse, a bad mapping entry.
#pragma once

#include <stdexcept>
#include <string>

namespace netsim::measure {

// what() is "FILE:LINE: error: MESSAGE", or "FILE: error: MESSAGE" when the
// problem concerns the whole file (line 0: unreadable, no run found, ...).
class MeasureError : public std::runtime_error {
 public:
  MeasureError(std::string file, int line, std::string message);

  std::string file;
  int line;             // 1-based; 0 = the whole file
  std::string message;  // without the location prefix
};

}  // namespace netsim::measure
