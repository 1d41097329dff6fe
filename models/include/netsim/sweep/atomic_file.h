// Writing a file so that readers (and a later process after a crash) see
// either the old content or the whole new content, never part of it.
#pragma once

#include <filesystem>
#include <string_view>

namespace netsim::sweep {

// Writes `bytes` to a uniquely named temporary in the target's directory
// (hidden: ".NAME.HOST.PID.TID.tmp"), fsyncs it, renames it over `target`
// and, with `sync_dir`, fsyncs the directory. rename() within one directory
// is atomic, so a kill at any moment leaves `target` absent or complete.
// The file's fsync before the rename makes the same hold across a power
// loss (no empty file under the final name); the directory's fsync makes the
// rename itself durable, and can be left to a later sync_directory() when
// many files are written (it costs milliseconds on a disk).
// Unique temporaries let several processes (shards on different hosts
// sharing a directory) write at once.
// Throws std::runtime_error naming the path and the system error.
void write_file_atomically(const std::filesystem::path& target, std::string_view bytes, bool sync_dir = true);

// fsync() of a directory: makes the renames done in it durable. Best effort
// (some file systems refuse it); returns false when it failed.
bool sync_directory(const std::filesystem::path& dir);

}  // namespace netsim::sweep
