// SHA-256 (FIPS 180-4), for run keys that stay the same across machines,
// compilers and netsim versions. Implemented here rather than taken from a
// crypto library so that the build needs nothing beyond the Debian packages
// netsim already uses; it is checked against the FIPS test vectors.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace netsim::sweep {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  // The 32-byte digest; the object must not be updated afterwards.
  std::array<std::uint8_t, 32> finish();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t used_ = 0;      // bytes in buf_
  std::uint64_t total_ = 0;   // message length in bytes
};

// Lower-case hex of SHA-256(data).
std::string sha256_hex(std::string_view data);

}  // namespace netsim::sweep
