// Deterministic random streams.
//
// Each component draws from its own stream, seeded from the scenario seed and
// the component's name, so adding or removing a component leaves every other
// component's draws unchanged. Only integer operations and a fixed 53-bit
// conversion are used: results are identical on every platform, which the
// standard library's distributions do not guarantee.
#pragma once

#include <cstdint>

#include "netsim/sim/int128.h"
#include "netsim/sim/time.h"
#include <string_view>

namespace netsim {

// 64-bit FNV-1a: stable across platforms and releases (std::hash is neither).
constexpr std::uint64_t stable_hash(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// xoshiro256** (Blackman and Vigna, 2018).
class Rng {
 public:
  Rng(std::uint64_t seed, std::string_view stream_name) {
    std::uint64_t sm = seed ^ stable_hash(stream_name);
    for (auto& w : s_) w = splitmix64(sm);
  }

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n > 0, without modulo bias (Lemire 2019).
  std::uint64_t uniform_below(std::uint64_t n) {
    UInt128 m = static_cast<UInt128>(next_u64()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<UInt128>(next_u64()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  bool bernoulli(double p) { return uniform01() < p; }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// A latency uniform in [0, max] picoseconds (max >= 0), both ends included.
inline SimTime uniform_up_to(Rng& rng, SimTime max) {
  return static_cast<SimTime>(rng.uniform_below(static_cast<std::uint64_t>(max) + 1));
}

// An exponential variate of mean 1, by von Neumann's comparison method (1951;
// Knuth, TAOCP vol. 2, 3.4.1): draw x and continue with uniforms while each is
// smaller than the last; an odd length of that descending run accepts x
// (probability e^-x), an even one adds 1 to the integer part and starts over.
// Only uniforms and comparisons, no logarithm: bit-identical on every
// platform (std::log's last bit is not). On average e / (1 - 1/e) = 4.3
// uniforms per variate (e per try, 1 / (1 - 1/e) tries).
inline double exponential1(Rng& rng) {
  double whole = 0.0;
  for (;;) {
    const double x = rng.uniform01();
    double last = x;
    bool odd = true;
    for (;;) {
      const double u = rng.uniform01();
      if (!(u < last)) break;
      last = u;
      odd = !odd;
    }
    if (odd) return whole + x;
    whole += 1.0;
  }
}

// A latency exponential with the given mean (>= 0) in picoseconds, truncated
// to the picosecond.
inline SimTime exponential_latency(Rng& rng, SimTime mean) {
  return static_cast<SimTime>(exponential1(rng) * static_cast<double>(mean));
}

}  // namespace netsim
