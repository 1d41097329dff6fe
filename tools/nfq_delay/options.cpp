#include "options.h"

#include <charconv>
#include <limits>

namespace netsim::nfq {

namespace {

// Whole decimal number in [lo, hi]; no sign, no suffix, no trailing junk.
bool parse_int(const std::string& text, std::int64_t lo, std::int64_t hi, std::int64_t& out) {
  if (text.empty()) return false;
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  if (value < lo || value > hi) return false;
  out = value;
  return true;
}

}  // namespace

const char* usage_text() {
  return "usage: netsim-nfq-delay --queue N --delay-us D [--batch K] [--spin-us S] [--rt-priority P]\n"
         "                        [--maxlen L] [--rcvbuf BYTES] [--no-fail-open] [--stats-file PATH]\n"
         "Holds every packet of NFQUEUE N for D microseconds, then accepts it (FIFO).\n"
         "SIGINT/SIGTERM: accept everything held, write stats, exit 0.\n"
         "Exit codes: 0 stopped by signal, 1 runtime error, 2 bad flags, 3 cannot bind the queue (needs root).\n";
}

std::optional<Options> parse_options(const std::vector<std::string>& args, std::string& error, bool& help) {
  Options opt;
  bool have_queue = false, have_delay = false;
  help = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> inline_value;
    if (auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    auto value = [&](std::string& out) {
      if (inline_value) { out = *inline_value; return true; }
      if (i + 1 >= args.size()) { error = "flag " + flag + " needs a value"; return false; }
      out = args[++i];
      return true;
    };
    auto number = [&](std::int64_t lo, std::int64_t hi, std::int64_t& out) {
      std::string text;
      if (!value(text)) return false;
      if (!parse_int(text, lo, hi, out)) {
        error = "flag " + flag + ": '" + text + "' is not a whole number in [" + std::to_string(lo) + ", " +
                std::to_string(hi) + "]";
        return false;
      }
      return true;
    };
    std::int64_t n = 0;
    if (flag == "--help" || flag == "-h") {
      help = true;
      return std::nullopt;
    } else if (flag == "--queue") {
      if (!number(0, 65535, n)) return std::nullopt;
      opt.queue = static_cast<std::uint16_t>(n);
      have_queue = true;
    } else if (flag == "--delay-us") {
      if (!number(0, 10'000'000, n)) return std::nullopt;
      opt.delay_us = n;
      have_delay = true;
    } else if (flag == "--batch") {
      if (!number(1, 65536, n)) return std::nullopt;
      opt.batch = static_cast<std::uint32_t>(n);
    } else if (flag == "--spin-us") {
      if (!number(0, 1000, n)) return std::nullopt;
      opt.spin_us = n;
    } else if (flag == "--rt-priority") {
      if (!number(0, 99, n)) return std::nullopt;
      opt.rt_priority = static_cast<int>(n);
    } else if (flag == "--maxlen") {
      if (!number(1, 1 << 20, n)) return std::nullopt;
      opt.maxlen = static_cast<std::uint32_t>(n);
    } else if (flag == "--rcvbuf") {
      if (!number(4096, std::numeric_limits<std::int32_t>::max(), n)) return std::nullopt;
      opt.rcvbuf_bytes = static_cast<std::uint32_t>(n);
    } else if (flag == "--no-fail-open") {
      if (inline_value) { error = "flag --no-fail-open takes no value"; return std::nullopt; }
      opt.fail_open = false;
    } else if (flag == "--stats-file") {
      if (!value(opt.stats_file)) return std::nullopt;
      if (opt.stats_file.empty()) { error = "flag --stats-file needs a non-empty path"; return std::nullopt; }
    } else {
      error = "unknown flag " + flag;
      return std::nullopt;
    }
  }
  if (!have_queue) { error = "missing required flag --queue"; return std::nullopt; }
  if (!have_delay) { error = "missing required flag --delay-us"; return std::nullopt; }
  return opt;
}

}  // namespace netsim::nfq
