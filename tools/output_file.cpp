#include "output_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <system_error>

namespace netsim::cli {

std::string cannot_create(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "it is a directory";
  const bool existed = std::filesystem::exists(path, ec);
  errno = 0;
  {
    // Append mode: an existing file keeps its content until the real write.
    std::ofstream probe(path, std::ios::binary | std::ios::app);
    if (!probe) return errno != 0 ? std::strerror(errno) : "cannot open it for writing";
  }
  if (!existed) std::filesystem::remove(path, ec);
  return "";
}

std::string cannot_write_atomically(const std::filesystem::path& target) {
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec)) return "it is a directory";
  return cannot_create(target.string() + ".tmp");
}

bool write_or_rescue(const std::filesystem::path& target, const std::string& what,
                     const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path tmp = target.string() + ".tmp";
  std::string why;
  {
    errno = 0;
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      why = "cannot create " + tmp.string() + ": " + (errno != 0 ? std::strerror(errno) : "unknown error");
    } else {
      write(f);
      f.flush();
      if (!f) why = "error while writing " + tmp.string() + (errno != 0 ? std::string(": ") + std::strerror(errno) : "");
    }
  }
  if (why.empty()) {
    std::error_code ec;
    std::filesystem::rename(tmp, target, ec);
    if (!ec) return true;
    why = "cannot rename " + tmp.string() + " to " + target.string() + ": " + ec.message();
  }
  std::error_code ec;
  std::filesystem::remove(tmp, ec);
  std::cerr << "netsim: " << why << "; the " << what << " follow" << (what.ends_with('s') ? "" : "s")
            << " on standard output instead\n";
  write(std::cout);
  std::cout.flush();
  return false;
}

}  // namespace netsim::cli
