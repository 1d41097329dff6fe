// Fixed-memory histogram of non-negative durations in microseconds: 1 us bins
// up to a ceiling, then one overflow bin. Bounded memory however many packets
// pass, exact percentiles below the ceiling.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace netsim::nfq {

class LatencyHistogram {
 public:
  explicit LatencyHistogram(std::uint32_t ceiling_us = 100'000) : bins_(ceiling_us + 1, 0) {}

  void add_ns(std::int64_t ns) {
    std::int64_t us = std::max<std::int64_t>(ns, 0) / 1000;
    max_us_ = std::max(max_us_, us);
    ++count_;
    bins_[static_cast<std::size_t>(std::min<std::int64_t>(us, static_cast<std::int64_t>(bins_.size()) - 1))]++;
  }

  std::uint64_t count() const { return count_; }
  std::int64_t max_us() const { return max_us_; }

  // Smallest value v with at least q of the samples <= v (nearest rank);
  // the overflow bin reports the observed maximum.
  std::int64_t percentile_us(double q) const {
    if (count_ == 0) return 0;
    auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count_));
    if (rank < 1) rank = 1;
    if (rank > count_) rank = count_;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < bins_.size(); ++i) {
      seen += bins_[i];
      if (seen >= rank) return i + 1 == bins_.size() ? max_us_ : static_cast<std::int64_t>(i);
    }
    return max_us_;
  }

 private:
  std::vector<std::uint64_t> bins_;
  std::uint64_t count_ = 0;
  std::int64_t max_us_ = 0;
};

}  // namespace netsim::nfq
