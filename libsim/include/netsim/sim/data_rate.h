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
    const Int128 num = static_cast<Int128>(bytes) * 8 * kPicosPerSecond;
    return static_cast<SimTime>((num + bps_ - 1) / bps_);
  }

  friend constexpr bool operator==(DataRate, DataRate) = default;

 private:
  constexpr explicit DataRate(std::int64_t bps) : bps_(bps) {}
  std::int64_t bps_ = 0;
};

namespace literals {
constexpr DataRate operator""_Mbps(unsigned long long v) { return DataRate::mbps(static_cast<std::int64_t>(v)); }
constexpr DataRate operator""_Gbps(unsigned long long v) { return DataRate::gbps(static_cast<std::int64_t>(v)); }
}  // namespace literals

}  // namespace netsim
