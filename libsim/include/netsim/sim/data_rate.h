// Bit rates and the serialization time they imply.
#pragma once

#include <cstdint>

#include "netsim/sim/int128.h"

#include "netsim/sim/time.h"

namespace netsim {

class DataRate {
 public:
  constexpr DataRate() = default;
  static constexpr DataRate bits_per_second(std::int64_t bps) { return DataRate(bps); }
  static constexpr DataRate kbps(std::int64_t v) { return DataRate(v * 1'000); }
  static constexpr DataRate mbps(std::int64_t v) { return DataRate(v * 1'000'000); }
  static constexpr DataRate gbps(std::int64_t v) { return DataRate(v * 1'000'000'000); }

  constexpr std::int64_t bps() const { return bps_; }
  constexpr double mbps_value() const { return static_cast<double>(bps_) / 1e6; }

  // Time to serialize `bytes` at this rate, rounded up to the next picosecond
  // so that a link never transmits faster than its nominal rate.
  constexpr SimTime transmit_time(std::int64_t bytes) const {
    // Every packet fits the 64-bit path (exact: bytes * 8e12 + bps stays
    // below 2^64); a 128-bit division is several times slower and this runs
    // once per packet per link.
    if (bytes >= 0 && bytes <= kMaxBytes64 && bps_ > 0) {
      const std::uint64_t num = static_cast<std::uint64_t>(bytes) * 8 * static_cast<std::uint64_t>(kPicosPerSecond);
      const auto bps = static_cast<std::uint64_t>(bps_);
      return static_cast<SimTime>((num + bps - 1) / bps);
    }
    const Int128 num = static_cast<Int128>(bytes) * 8 * kPicosPerSecond;
    return static_cast<SimTime>((num + bps_ - 1) / bps_);
  }

  friend constexpr bool operator==(DataRate, DataRate) = default;

 private:
  // 1 MB * 8e12 = 8e18 < 2^64 - 2^63 leaves room for any bps below 9e18.
  static constexpr std::int64_t kMaxBytes64 = 1'000'000;

  constexpr explicit DataRate(std::int64_t bps) : bps_(bps) {}
  std::int64_t bps_ = 0;
};

namespace literals {
constexpr DataRate operator""_Mbps(unsigned long long v) { return DataRate::mbps(static_cast<std::int64_t>(v)); }
constexpr DataRate operator""_Gbps(unsigned long long v) { return DataRate::gbps(static_cast<std::int64_t>(v)); }
}  // namespace literals

}  // namespace netsim
