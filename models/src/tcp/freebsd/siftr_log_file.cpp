#include "netsim/tcp/freebsd/siftr_log_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace netsim::tcp {

SiftrLogFile::SiftrLogFile(std::string path, std::size_t buffer_bytes)
    : path_(std::move(path)), buffer_(buffer_bytes > 0 ? buffer_bytes : 1) {
  file_ = std::fopen(path_.c_str(), "wb");
  if (file_ == nullptr) {
    throw std::runtime_error(path_ + ": cannot open the SIFTR log for writing: " + std::strerror(errno));
  }
}

SiftrLogFile::~SiftrLogFile() {
  if (file_ != nullptr) {
    flush();
    std::fclose(file_);
  }
}

void SiftrLogFile::append(std::string_view text) {
  bytes_ += text.size();
  if (file_ == nullptr) return;
  while (!text.empty()) {
    const std::size_t n = std::min(text.size(), buffer_.size() - used_);
    std::memcpy(buffer_.data() + used_, text.data(), n);
    used_ += n;
    text.remove_prefix(n);
    if (used_ == buffer_.size()) flush();
  }
}

void SiftrLogFile::flush() {
  if (used_ > 0 && std::fwrite(buffer_.data(), 1, used_, file_) != used_) failed_ = true;
  used_ = 0;
}

void SiftrLogFile::close() {
  if (file_ == nullptr) return;
  flush();
  if (std::fclose(file_) != 0) failed_ = true;
  file_ = nullptr;
  if (failed_) throw std::runtime_error(path_ + ": writing the SIFTR log failed (disk full?)");
}

}  // namespace netsim::tcp
