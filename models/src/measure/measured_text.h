// The whole content of a measured-data or mapping file.
#pragma once

#include <string>

#include "../common/file_text.h"
#include "netsim/measure/measure_error.h"

namespace netsim::measure {

// Throws MeasureError (the file, line 0) with the reason it cannot be read.
inline std::string read_measured_text(const std::string& path) {
  std::string text;
  if (const std::string why = read_file_text(path, text); !why.empty()) {
    throw MeasureError(path, 0, "cannot read the file: " + why);
  }
  return text;
}

}  // namespace netsim::measure
