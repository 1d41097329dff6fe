#include "netsim/app/ping_report.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "netsim/app/ping_client.h"

namespace netsim::app {
namespace {

std::string printf_text(const char* format, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// iputils keeps times in whole microseconds (truncated) and prints them
// with fewer decimals the longer they are.
long whole_us(std::int64_t ps) { return static_cast<long>(ps / kPicosPerMicro); }

std::string iputils_time(long us) {
  if (us >= 100000 - 50) return printf_text("%ld", (us + 500) / 1000);
  if (us >= 10000 - 5) return printf_text("%ld.%01ld", (us + 50) / 1000, ((us + 50) % 1000) / 100);
  if (us >= 1000) return printf_text("%ld.%02ld", (us + 5) / 1000, ((us + 5) % 1000) / 10);
  return printf_text("%ld.%03ld", us / 1000, us % 1000);
}

std::string iputils_ms3(long us) { return printf_text("%ld.%03ld", us / 1000, us % 1000); }

}  // namespace

void write_ping_text(std::ostream& out, const results::PingResult& ping) {
  const bool linux_layout = ping.output() == "linux";
  const std::string& to = ping.to_address();
  const bool ipv6 = to.find(':') != std::string::npos;  // ping6's layout
  const std::uint32_t icmp_bytes = ping.data_bytes() + kIcmpHeaderBytes;
  std::vector<PingReply> replies;
  for (const auto& r : ping.replies()) replies.push_back({r.icmp_seq(), r.time_ps(), 0});
  const PingStats st = ping_stats(ping.transmitted(), replies);
  const double loss =
      st.transmitted > 0 ? 100.0 * static_cast<double>(st.transmitted - std::min(st.transmitted, st.received)) /
                               static_cast<double>(st.transmitted)
                         : 0.0;
  if (linux_layout) {
    if (ipv6) {
      out << "PING " << to << "(" << to << ") " << ping.data_bytes() << " data bytes\n";
    } else {
      out << "PING " << to << " (" << to << ") " << ping.data_bytes() << "(" << icmp_bytes + 20 << ") bytes of data.\n";
    }
    for (const PingReply& r : replies) {
      out << icmp_bytes << " bytes from " << to << ": icmp_seq=" << r.seq + 1 << " ttl=64 time="
          << iputils_time(whole_us(r.rtt)) << " ms\n";
    }
    out << "\n--- " << to << " ping statistics ---\n"
        << st.transmitted << " packets transmitted, " << st.received << " received, " << printf_text("%g", loss)
        << "% packet loss, time " << ping.elapsed_ps() / kPicosPerMilli << "ms\n";
    if (st.received > 0) {
      // iputils' summary: the same sums in whole microseconds, printed truncated.
      long lo = whole_us(replies.front().rtt);
      long hi = lo;
      double sum = 0;
      double sum_sq = 0;
      for (const PingReply& r : replies) {
        const long us = whole_us(r.rtt);
        lo = std::min(lo, us);
        hi = std::max(hi, us);
        sum += static_cast<double>(us);
        sum_sq += static_cast<double>(us) * static_cast<double>(us);
      }
      const double n = static_cast<double>(replies.size());
      const double avg = sum / n;
      const double mdev = std::sqrt(std::max(0.0, sum_sq / n - avg * avg));
      out << "rtt min/avg/max/mdev = " << iputils_ms3(lo) << "/" << iputils_ms3(static_cast<long>(avg)) << "/"
          << iputils_ms3(hi) << "/" << iputils_ms3(static_cast<long>(mdev)) << " ms\n";
    }
    return;
  }
  if (ipv6) {
    out << "PING(" << icmp_bytes + 40 << "=40+8+" << ping.data_bytes() << " bytes) " << ping.from_address() << " --> "
        << to << "\n";
  } else {
    out << "PING " << to << " (" << to << "): " << ping.data_bytes() << " data bytes\n";
  }
  for (const PingReply& r : replies) {
    out << icmp_bytes << " bytes from " << to << (ipv6 ? ", icmp_seq=" : ": icmp_seq=") << r.seq
        << (ipv6 ? " hlim=64 time=" : " ttl=64 time=")
        << printf_text("%.3f", static_cast<double>(r.rtt) / static_cast<double>(kPicosPerMilli)) << " ms\n";
  }
  out << "\n--- " << to << " ping statistics ---\n"
      << st.transmitted << " packets transmitted, " << st.received << " packets received, "
      << printf_text("%.1f", loss) << "% packet loss\n";
  if (st.received > 0) {
    out << "round-trip min/avg/max/stddev = "
        << printf_text("%.3f/%.3f/%.3f/%.3f", *st.min_ms, *st.avg_ms, *st.max_ms, *st.stddev_ms) << " ms\n";
  }
}

}  // namespace netsim::app
