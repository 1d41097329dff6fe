// The byte layout of the options of a SYN or SYN-ACK as each modelled stack
// writes it. Packets carry option values, not bytes; the layout gives the
// order (what a capture shows) and the option length, hence the header length.
//
// Ported behaviour (own code, no source text) from
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814:
//     sys/netinet/tcp_output.c  tcp_addoptions (option order, NOP alignment, EOL padding)
//   Aarqw12/kernel_common-5.15 @ 4afeb46fd1d7fca23ffe3822504795b20619dac9 (Linux 5.15):
//     net/ipv4/tcp_output.c  tcp_options_write, tcp_syn_options, tcp_synack_options
//     (SACK-permitted shares the timestamp's word)
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "netsim/sim/packet.h"

namespace netsim::tcp {

// Option kinds (RFC 793, 2018, 7323).
enum class TcpOptionKind : std::uint8_t { eol = 0, nop = 1, mss = 2, wscale = 3, sack_permitted = 4, timestamp = 8 };

struct TcpOptionLayout {
  std::array<TcpOptionKind, 40> kinds{};  // in wire order, padding included
  std::uint8_t count = 0;
  std::uint8_t bytes = 0;                 // a multiple of 4

  void add(TcpOptionKind kind, std::uint8_t length) {
    kinds[count++] = kind;
    bytes = static_cast<std::uint8_t>(bytes + length);
  }
  // "mss,nop,wscale,sackOK,TS" (tcpdump's names), for tests and traces.
  std::string describe() const;
};

// FreeBSD tcp_addoptions for a SYN or SYN-ACK: MSS; NOP, window scale;
// SACK-permitted on an even offset; timestamps at offset 2 mod 4; EOL to a
// 32-bit boundary.
TcpOptionLayout freebsd_syn_option_layout(const TcpSegmentInfo& th);
// Linux tcp_options_write for a SYN or SYN-ACK: MSS; SACK-permitted and
// timestamps together (or NOP, NOP, timestamps); NOP, NOP, SACK-permitted
// when there are no timestamps; NOP, window scale.
TcpOptionLayout linux_syn_option_layout(const TcpSegmentInfo& th);

}  // namespace netsim::tcp
