#include "netsim/sweep/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>

namespace netsim::sweep {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path, int err) {
  throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(err));
}

std::string unique_suffix() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "host");
  return std::string(host) + "." + std::to_string(getpid()) + "." +
         std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) % 1000000007u);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& target, std::string_view bytes, bool sync_dir) {
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  const std::filesystem::path tmp = dir / ("." + target.filename().string() + "." + unique_suffix() + ".tmp");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", tmp, errno);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("cannot write", tmp, err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot flush", tmp, err);
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot rename " + tmp.string() + " to", target, err);
  }
  if (sync_dir) sync_directory(dir);
}

bool sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

}  // namespace netsim::sweep
