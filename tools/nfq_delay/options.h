// Command-line options of netsim-nfq-delay and their parser.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace netsim::nfq {

struct Options {
  std::uint16_t queue = 0;
  std::int64_t delay_us = 0;
  std::uint32_t batch = 256;           // most packets one batch verdict may cover; 1 = per-packet verdicts
  std::int64_t spin_us = 0;            // busy-poll the last spin_us before a due time (0 = never spin)
  int rt_priority = 0;                 // SCHED_FIFO priority (0 = normal scheduling)
  std::uint32_t maxlen = 65536;        // kernel queue length (packets held at once)
  std::uint32_t rcvbuf_bytes = 64u << 20;
  bool fail_open = true;               // kernel accepts (undelayed) instead of dropping when we overflow
  std::string stats_file;              // empty: stats go to stderr only
};

// Parses argv. On a bad command line returns nullopt and sets `error` to a
// message naming the flag; `help` is set when --help was given.
std::optional<Options> parse_options(const std::vector<std::string>& args, std::string& error, bool& help);

const char* usage_text();

}  // namespace netsim::nfq
