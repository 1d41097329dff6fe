// One sample of a TCP sender's state, taken after every ACK it processes,
// after every retransmission timeout and after every persist timeout (a
// zero-window probe): what SIFTR or `ss -ti` would show.
// Consumers (trace files, tests) receive it through a callback; a sender with
// no callback pays one branch per ACK.
#pragma once

#include <cstdint>
#include <functional>

#include "netsim/sim/time.h"

namespace netsim::tcp {

struct TcpTraceSample {
  enum class Event : std::uint8_t { ack, rto, persist };
  SimTime time = 0;
  Event event = Event::ack;
  std::uint32_t cwnd = 0;          // snd_cwnd, bytes
  std::uint32_t ssthresh = 0;      // snd_ssthresh, bytes
  std::uint32_t snd_wnd = 0;       // peer's window, bytes
  std::uint64_t snd_una = 0;       // bytes from the first data byte (no wrap)
  std::uint64_t snd_max = 0;
  int pipe = 0;                    // RFC 6675 pipe, bytes
  int sacked_bytes = 0;            // scoreboard's SACKed bytes
  std::uint32_t srtt_us = 0;       // tcpi_rtt
  std::uint32_t rttvar_us = 0;     // tcpi_rttvar
  std::uint32_t rto_us = 0;        // t_rxtcur in microseconds
  bool in_recovery = false;        // IN_RECOVERY(t_flags)
  std::uint64_t retransmits = 0;   // segments, cumulative
  std::uint64_t recoveries = 0;    // cumulative
  std::uint64_t rtos = 0;          // cumulative
};

using TcpTraceSink = std::function<void(const TcpTraceSample&)>;

}  // namespace netsim::tcp
