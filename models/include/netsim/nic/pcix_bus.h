// A PCI-X bus segment between a NIC and host memory: one half-duplex
// server that both DMA directions (transmit reads, receive writes) share,
// first come, first served. See docs/ixgb.md.
//
// A DMA request of B bytes is cut into transactions of at most `burst`
// bytes (reads: the device's MMRBC, the PCI-X command register's maximum
// memory read byte count; writes: write_burst). Each transaction holds the
// bus for its data phases plus a fixed overhead:
//
//   cycles(B, burst) = sum over transactions t of (overhead + ceil(len_t / w))
//                    = n * overhead + sum ceil(len_t / w),   n = ceil(B / burst)
//   time(B) = cycles * 10^12 / f  ps (rounded to the nearest ps)
//
// with w = width_bits / 8 bytes per data phase and f the clock in Hz. The
// raw rate is f * width_bits (133 MHz x 64 bit = 8.512 Gbit/s).
//
// No allocation: the bus is a time cursor and counters.
#pragma once

#include <cstdint>

#include "netsim/sim/time.h"

namespace netsim {

struct PcixBusConfig {
  std::int64_t clock_hz = 133'000'000;  // 133 MHz (PCI-X 133)
  std::uint32_t width_bits = 64;
  // Reads (device fetching transmit data): the MMRBC field of the PCI-X
  // command register, 512 bytes after reset (PCI-X 1.0), 4096 at most.
  std::uint32_t mmrbc = 512;
  // Writes (device storing received frames): a Memory Write Block may run
  // to 4096 bytes (the PCI-X byte count limit); the chipset may cut it
  // shorter at an allowable disconnect boundary (128 bytes), not modelled.
  std::uint32_t write_burst = 4096;
  // Bus cycles of one transaction that move no data: address and attribute
  // phases, target response, turnaround, and for a split read the split
  // completion's own address, attribute and response phases.
  std::uint32_t transaction_overhead_cycles = 8;
};

enum class DmaDirection : int { read = 0, write = 1 };  // read: host -> NIC (tx); write: NIC -> host (rx)

struct PcixBusCounters {
  std::uint64_t requests[2] = {0, 0};      // DMA requests per direction
  std::uint64_t transactions[2] = {0, 0};  // PCI-X transactions per direction
  std::uint64_t bytes[2] = {0, 0};
  SimTime busy[2] = {0, 0};                // bus time booked per direction
  SimTime max_wait = 0;                    // longest a request waited for the bus
};

class PcixBus {
 public:
  // Throws std::invalid_argument on a zero clock, a width other than 32 or
  // 64, or a burst that is not a multiple of the width in [w, 4096].
  explicit PcixBus(const PcixBusConfig& config);

  const PcixBusConfig& config() const { return config_; }
  std::uint32_t burst(DmaDirection d) const { return d == DmaDirection::read ? config_.mmrbc : config_.write_burst; }
  // Transactions and cycles of a request of `bytes` (0 bytes: none).
  std::uint64_t transactions(std::uint64_t bytes, DmaDirection d) const;
  std::uint64_t cycles(std::uint64_t bytes, DmaDirection d) const;
  // Cycles until the transaction holding byte `upto` - 1 of a request of
  // `bytes` ends (upto in 1..bytes): when a prefix of the request is in.
  std::uint64_t cycles_through(std::uint64_t upto, std::uint64_t bytes, DmaDirection d) const;
  SimTime cycles_time(std::uint64_t cycles) const;
  SimTime transfer_time(std::uint64_t bytes, DmaDirection d) const { return cycles_time(cycles(bytes, d)); }

  // Books a request arriving at `now`: it starts when the bus is free (not
  // before now) and holds it for transfer_time. Returns its end.
  SimTime transfer(SimTime now, std::uint64_t bytes, DmaDirection d);
  // The end of the booked work (<= now when the bus is idle).
  SimTime busy_until() const { return free_at_; }
  const PcixBusCounters& counters() const { return counters_; }
  // Bus time booked in both directions over a span, percent.
  double utilization_pct(SimTime span) const;

 private:
  PcixBusConfig config_;
  std::uint32_t bytes_per_cycle_;
  SimTime free_at_ = 0;
  PcixBusCounters counters_;
};

}  // namespace netsim
