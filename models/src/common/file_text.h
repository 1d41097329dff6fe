// The whole content of a user's file (scenario, include, profile, measured
// data, sweep file), with the reason it could not be read for the caller's
// error message.
#pragma once

#include <string>

namespace netsim {

// Reads `path` into `text`. Returns "" on success, else why not: "it is a
// directory", the system's reason ("No such file or directory",
// "Permission denied", ...) or "read error".
std::string read_file_text(const std::string& path, std::string& text);

}  // namespace netsim
