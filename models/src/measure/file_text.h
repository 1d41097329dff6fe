// The whole content of a file, for the measurement and mapping readers.
#pragma once

#include <string>

namespace netsim::measure {

// Throws MeasureError (path, line 0) if the file cannot be opened or read.
std::string read_file_text(const std::string& path);

}  // namespace netsim::measure
