// PCI-X bus occupancy; see pcix_bus.h and docs/ixgb.md.
#include "netsim/nic/pcix_bus.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "netsim/sim/int128.h"

namespace netsim {

PcixBus::PcixBus(const PcixBusConfig& config) : config_(config), bytes_per_cycle_(config.width_bits / 8) {
  if (config_.clock_hz <= 0) throw std::invalid_argument("PCI-X bus: the clock must be > 0 Hz");
  if (config_.width_bits != 32 && config_.width_bits != 64) {
    throw std::invalid_argument("PCI-X bus: width_bits must be 32 or 64, got " + std::to_string(config_.width_bits));
  }
  for (const std::uint32_t b : {config_.mmrbc, config_.write_burst}) {
    if (b < bytes_per_cycle_ || b > 4096 || b % bytes_per_cycle_ != 0) {
      throw std::invalid_argument("PCI-X bus: a burst must be a multiple of the bus width in [width, 4096] bytes, got " +
                                  std::to_string(b));
    }
  }
}

std::uint64_t PcixBus::transactions(std::uint64_t bytes, DmaDirection d) const {
  const std::uint64_t b = burst(d);
  return (bytes + b - 1) / b;
}

std::uint64_t PcixBus::cycles_through(std::uint64_t upto, std::uint64_t bytes, DmaDirection d) const {
  if (bytes == 0 || upto == 0) return 0;
  upto = std::min(upto, bytes);
  const std::uint64_t b = burst(d);
  const std::uint64_t full_cycles = config_.transaction_overhead_cycles + b / bytes_per_cycle_;
  const std::uint64_t last = (upto - 1) / b;  // index of the transaction holding byte upto - 1
  const std::uint64_t before = last * full_cycles;
  const std::uint64_t len = std::min(b, bytes - last * b);
  return before + config_.transaction_overhead_cycles + (len + bytes_per_cycle_ - 1) / bytes_per_cycle_;
}

std::uint64_t PcixBus::cycles(std::uint64_t bytes, DmaDirection d) const { return cycles_through(bytes, bytes, d); }

SimTime PcixBus::cycles_time(std::uint64_t cycles) const {
  const auto hz = static_cast<Int128>(config_.clock_hz);
  return static_cast<SimTime>((static_cast<Int128>(cycles) * kPicosPerSecond + hz / 2) / hz);
}

SimTime PcixBus::transfer(SimTime now, std::uint64_t bytes, DmaDirection d) {
  const int i = static_cast<int>(d);
  const SimTime start = std::max(now, free_at_);
  const SimTime t = transfer_time(bytes, d);
  counters_.max_wait = std::max(counters_.max_wait, start - now);
  ++counters_.requests[i];
  counters_.transactions[i] += transactions(bytes, d);
  counters_.bytes[i] += bytes;
  counters_.busy[i] += t;
  free_at_ = start + t;
  return free_at_;
}

double PcixBus::utilization_pct(SimTime span) const {
  return span > 0 ? 100.0 * static_cast<double>(counters_.busy[0] + counters_.busy[1]) / static_cast<double>(span) : 0.0;
}

}  // namespace netsim
