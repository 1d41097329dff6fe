// FreeBSD TCP timer constants, in ticks of the host's kern.hz.
//
// Follows sys/netinet/tcp_timer.h and tcp_timer.c, freebsd/freebsd-src main
// (tcp_timer.h @ f30bcb15894c03d8afb60c8a4e0ca6b0b029f737 as mirrored in
// kenrap/freebsd-src; tcp_timer.c @ 2d614aa2 in fel1x-developer/freebsd-src),
// see shared/design/freebsd-tcp.md 3.1. The sysctls rexmit_min, rexmit_slop
// and delacktime are set in milliseconds and stored in ticks; FreeBSD converts
// with (ms * hz) / 1000 and keeps at least one tick for rexmit_min.
#pragma once

#include <array>
#include <cstdint>

namespace netsim::tcp {

inline constexpr int TCP_MAXRXTSHIFT = 12;
// tcp_backoff[]: the RTO multiplier after n timeouts.
inline constexpr std::array<int, TCP_MAXRXTSHIFT + 1> kTcpBackoff{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 512, 512, 512};
inline constexpr int kTcpTotBackoff = 2559;  // tcp_totbackoff: the sum of tcp_backoff[]
inline constexpr int TCP_RTT_SHIFT = 5;     // t_srtt: ticks << 5
inline constexpr int TCP_RTTVAR_SHIFT = 4;  // t_rttvar: ticks << 4
inline constexpr int TCP_DELTA_SHIFT = 2;

struct TcpTimerParams {
  int hz = 1000;
  int rexmit_min = 30;      // TCPTV_MIN = hz/33: 30 ms
  int rexmit_slop = 200;    // TCPTV_CPU_VAR = hz/5: 200 ms
  int rexmit_initial = 1000;  // TCPTV_RTOBASE = hz: 1 s
  int rexmtmax = 64000;     // TCPTV_REXMTMAX = 64 * hz
  int delack = 40;          // TCPTV_DELACK = hz/25: 40 ms
  int persmin = 5000;       // TCPTV_PERSMIN = 5 * hz
  int persmax = 60000;      // TCPTV_PERSMAX = 60 * hz
  int maxpersistidle = 7200000;  // tcp_maxpersistidle = TCPTV_KEEP_IDLE = 120 * 60 * hz

  // The FreeBSD defaults for a given kern.hz, all in ticks.
  static constexpr TcpTimerParams for_hz(int hz) {
    TcpTimerParams p;
    p.hz = hz;
    p.rexmit_min = hz / 33 > 0 ? hz / 33 : 1;
    p.rexmit_slop = hz / 5;
    p.rexmit_initial = hz;
    p.rexmtmax = 64 * hz;
    p.delack = hz / 25 > 0 ? hz / 25 : 1;
    p.persmin = 5 * hz;
    p.persmax = 60 * hz;
    p.maxpersistidle = 120 * 60 * hz;
    return p;
  }
  // Ticks for a value in milliseconds, as the sysctl handlers convert.
  static constexpr int ms_to_ticks(int ms, int hz) { return static_cast<int>((static_cast<std::int64_t>(ms) * hz) / 1000); }
  // Microseconds per tick (FreeBSD's `tick`).
  constexpr int tick_usecs() const { return 1000000 / hz; }
};

// TCPT_RANGESET: value plus slop, raised to the minimum, capped at the maximum.
constexpr int tcpt_rangeset(int value, int tvmin, int tvmax, int slop) {
  int tv = value + slop;
  if (tv < tvmin) {
    tv = tvmin;
  } else if (tv > tvmax) {
    tv = tvmax;
  }
  return tv;
}

}  // namespace netsim::tcp
