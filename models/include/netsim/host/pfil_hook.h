// A packet-filter hook (FreeBSD pfil(9)) on a host's IP layer: a module that
// sees every packet the stack sends (ip_output) and receives (ip_input) and
// passes it on, doing its own work in the packet's CPU context. SIFTR is one
// (netsim/tcp/freebsd/siftr.h). Dropping filters are PacketFilters instead.
//
// Two calls, because the host charges a received packet's CPU work when it
// arrives and delivers it when that work ends: `cost` when the work is
// charged (the hook's share of it), `run` where the stack meets the hook (an
// outbound packet: at once; an inbound one: just before TCP input, so the
// hook sees the connection as the packets ahead of it left it).
#pragma once

#include <cstdint>

#include "netsim/sim/packet.h"
#include "netsim/sim/time.h"

namespace netsim {

enum class PfilDir : std::uint8_t { in, out };

class PfilHook {
 public:
  // CPU time the hook's work on `p` takes (0 without a CPU model).
  virtual SimTime cost(const Packet& p, PfilDir dir) = 0;
  // The hook's work on `p`; the packet is only valid for the call.
  virtual void run(const Packet& p, PfilDir dir) = 0;

 protected:
  ~PfilHook() = default;
};

}  // namespace netsim
