// Writing a file so that readers (and a later process after a crash) see
// either the old content or the whole new content, never part of it.
#pragma once

#include <filesystem>
#include <string_view>

namespace netsim::sweep {

// Writes `bytes` to a uniquely named temporary in the target's directory
// (hidden: ".NAME.HOST.PID.TID.tmp"), fsyncs it, renames it over `target`
// and fsyncs the directory. rename() within one directory is atomic, so a
// kill at any moment leaves `target` absent or complete; the fsyncs make the
// same hold across a power loss. Unique temporaries let several processes
// (shards on different hosts sharing a directory) write at once.
// Throws std::runtime_error naming the path and the system error.
void write_file_atomically(const std::filesystem::path& target, std::string_view bytes);

}  // namespace netsim::sweep
