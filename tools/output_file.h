// Files the CLI writes after a long computation (results, a calibration
// profile, traces): checked before the computation starts, written through a
// temporary and a rename, and never lost when the write fails at the end.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

namespace netsim::cli {

// Whether `path` can be created (or truncated) now: "" if so, else why not
// (the system's reason). Creates and removes the file when it did not exist,
// so every cause (missing directory, read-only file system, a name too long,
// a directory in the way) shows before hours of simulation, not after.
std::string cannot_create(const std::filesystem::path& path);

// The same for a target written through target + ".tmp".
std::string cannot_write_atomically(const std::filesystem::path& target);

// Writes `target` through target + ".tmp" and a rename, so that a reader
// never sees half a file. If that fails (a full disk, say), the content goes
// to standard output instead, with a note on stderr naming `what` and the
// reason, and the temporary is removed. Returns whether the file was written.
bool write_or_rescue(const std::filesystem::path& target, const std::string& what,
                     const std::function<void(std::ostream&)>& write);

}  // namespace netsim::cli
