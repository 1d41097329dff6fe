// The kernel's own counters for one NFQUEUE, read from
// /proc/net/netfilter/nfnetlink_queue of the calling process's network
// namespace. Columns: queue portid queue_total copy_mode copy_range
// queue_dropped user_dropped id_sequence 1.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace netsim::nfq {

struct KernelQueueStats {
  std::uint64_t queue_total = 0;    // packets the kernel holds for us right now
  std::uint64_t queue_dropped = 0;  // dropped because the queue was full (fail-open off)
  std::uint64_t user_dropped = 0;   // dropped because our socket buffer was full (fail-open off)
  std::uint64_t id_sequence = 0;    // last packet id handed out
};

inline std::optional<KernelQueueStats> read_kernel_queue_stats(std::uint16_t queue) {
  std::ifstream in("/proc/net/netfilter/nfnetlink_queue");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::uint64_t num = 0, portid = 0, copy_mode = 0, copy_range = 0;
    KernelQueueStats s;
    if (!(fields >> num >> portid >> s.queue_total >> copy_mode >> copy_range >> s.queue_dropped >> s.user_dropped >>
          s.id_sequence))
      continue;
    if (num == queue) return s;
  }
  return std::nullopt;
}

}  // namespace netsim::nfq
