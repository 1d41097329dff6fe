// Where SIFTR's lines go: a file written through one fixed buffer (the ALQ's
// role: records are appended and written out in large blocks), so that a
// run logging ~800 MB streams it without allocating per record.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace netsim::tcp {

class SiftrLogFile {
 public:
  // Opens (truncates) `path`; throws std::runtime_error naming it if it cannot.
  explicit SiftrLogFile(std::string path, std::size_t buffer_bytes = 1 << 20);
  ~SiftrLogFile();
  SiftrLogFile(const SiftrLogFile&) = delete;
  SiftrLogFile& operator=(const SiftrLogFile&) = delete;

  void append(std::string_view text);
  // Writes what is buffered and closes the file; throws on a write error
  // (a full disk), naming the file. Idempotent.
  void close();
  const std::string& path() const { return path_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  void flush();
  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
  std::uint64_t bytes_ = 0;
  bool failed_ = false;
};

}  // namespace netsim::tcp
