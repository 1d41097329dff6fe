#include "file_text.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace netsim {

std::string read_file_text(const std::string& path, std::string& text) {
  // An ifstream opens a directory without complaint and then reads nothing.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "it is a directory";
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return errno != 0 ? std::generic_category().message(errno) : "cannot open it";
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return "read error";
  text = buf.str();
  return "";
}

}  // namespace netsim
