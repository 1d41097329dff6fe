#include "netsim/app/nuttcp_report.h"

#include <cstdint>

#include "printf_format.h"

namespace netsim::app {
namespace {

using printf_format::cat;
using printf_format::fixed;
using printf_format::right;

constexpr double kMiB = 1024.0 * 1024.0;

double megabytes(std::uint64_t bytes) { return static_cast<double>(bytes) / kMiB; }

// nuttcp's rate: bytes / seconds / 125000 (Mbps of 10^6 bits).
double mbps(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 125000.0 : 0.0;
}

// "%10.4f MB / %6.2f sec = %9.4f Mbps"
std::string rate_part(std::uint64_t bytes, double seconds) {
  return cat({right(fixed(megabytes(bytes), 4), 10), " MB / ", right(fixed(seconds, 2), 6), " sec = ",
              right(fixed(mbps(bytes, seconds), 4), 9), " Mbps"});
}

// "%d" of a signed count.
std::string signed_int(std::int64_t v) { return std::to_string(v); }

}  // namespace

std::string nuttcp_interval_line(const NuttcpReport& r, const NuttcpFigures& f) {
  std::string line = rate_part(f.bytes_received, f.seconds);
  if (r.udp) {
    // The receiver's approximate per-interval loss, from the sequence numbers.
    const std::uint64_t drops = f.packets_sent > f.packets_received ? f.packets_sent - f.packets_received : 0;
    const double loss = f.packets_sent > 0 ? 100.0 * static_cast<double>(drops) / static_cast<double>(f.packets_sent) : 0.0;
    line += cat({" ", right(drops, 5), " / ", right(f.packets_sent, 5), " ~drop/pkt ", right(fixed(loss, 2), 5),
                 " ~%loss"});
  } else if (r.version >= 6) {
    line += cat({" ", right(f.retransmits, 5), " retrans"});
  }
  return line;
}

std::string nuttcp_final_line(const NuttcpReport& r) {
  const NuttcpFigures& f = r.total;
  std::string line =
      cat({rate_part(f.bytes_received, f.seconds), " ", std::to_string(r.tx_cpu_pct), " %TX ", std::to_string(r.rx_cpu_pct), " %RX"});
  if (r.udp) {
    const double mb = megabytes(f.bytes_sent);
    const double srvr_mb = megabytes(f.bytes_received);
    const double len = r.buffer_len > 0 ? static_cast<double>(r.buffer_len) : 1.0;
    const auto drops = static_cast<std::int64_t>((mb - srvr_mb) * kMiB / len + 0.5);
    const auto packets = static_cast<std::uint64_t>(mb * kMiB / len + 0.5);
    const double fractloss = mb != 0.0 ? 1.0 - srvr_mb / mb : 0.0;
    line += cat({" ", signed_int(drops), " / ", std::to_string(packets), " drop/pkt ", fixed(fractloss * 100.0, 2), " %loss"});
  } else if (r.version >= 6) {
    line += cat({" ", std::to_string(f.retransmits), " retrans ", fixed(r.rtt_ms, 2), " msRTT"});
  }
  return line;
}

void write_nuttcp_text(std::ostream& out, const NuttcpReport& r) {
  for (const NuttcpFigures& f : r.intervals) out << nuttcp_interval_line(r, f) << '\n';
  if (!r.intervals.empty()) out << '\n';
  out << nuttcp_final_line(r) << '\n';
}

}  // namespace netsim::app
