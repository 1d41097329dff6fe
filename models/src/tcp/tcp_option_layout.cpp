#include "netsim/tcp/tcp_option_layout.h"

namespace netsim::tcp {

std::string TcpOptionLayout::describe() const {
  std::string s;
  for (std::uint8_t i = 0; i < count; ++i) {
    if (i > 0) s += ',';
    switch (kinds[i]) {
      case TcpOptionKind::eol: s += "eol"; break;
      case TcpOptionKind::nop: s += "nop"; break;
      case TcpOptionKind::mss: s += "mss"; break;
      case TcpOptionKind::wscale: s += "wscale"; break;
      case TcpOptionKind::sack_permitted: s += "sackOK"; break;
      case TcpOptionKind::timestamp: s += "TS"; break;
    }
  }
  return s;
}

TcpOptionLayout freebsd_syn_option_layout(const TcpSegmentInfo& th) {
  TcpOptionLayout l;
  // tcp_addoptions walks the option bits in a fixed order and pads each
  // option to the alignment it wants with NOPs.
  if (th.mss != 0) l.add(TcpOptionKind::mss, 4);
  if (th.wscale != 0xff) {
    while (l.bytes == 0 || l.bytes % 2 != 1) l.add(TcpOptionKind::nop, 1);
    l.add(TcpOptionKind::wscale, 3);
  }
  if (th.sack_permitted) {
    while (l.bytes % 2 != 0) l.add(TcpOptionKind::nop, 1);
    l.add(TcpOptionKind::sack_permitted, 2);
  }
  if (th.ts_present) {
    while (l.bytes == 0 || l.bytes % 4 != 2) l.add(TcpOptionKind::nop, 1);
    l.add(TcpOptionKind::timestamp, 10);
  }
  // The option block ends on a 32-bit boundary (EOL padding).
  while (l.bytes % 4 != 0) l.add(TcpOptionKind::eol, 1);
  return l;
}

TcpOptionLayout linux_syn_option_layout(const TcpSegmentInfo& th) {
  TcpOptionLayout l;
  if (th.mss != 0) l.add(TcpOptionKind::mss, 4);
  if (th.ts_present) {
    // With SACK-permitted the two share one 12-byte block, else two NOPs lead.
    if (th.sack_permitted) {
      l.add(TcpOptionKind::sack_permitted, 2);
    } else {
      l.add(TcpOptionKind::nop, 1);
      l.add(TcpOptionKind::nop, 1);
    }
    l.add(TcpOptionKind::timestamp, 10);
  }
  if (th.sack_permitted && !th.ts_present) {
    l.add(TcpOptionKind::nop, 1);
    l.add(TcpOptionKind::nop, 1);
    l.add(TcpOptionKind::sack_permitted, 2);
  }
  if (th.wscale != 0xff) {
    l.add(TcpOptionKind::nop, 1);
    l.add(TcpOptionKind::wscale, 3);
  }
  return l;
}

}  // namespace netsim::tcp
