// FreeBSD `netstat -I IFACE -d` (usr.bin/netstat/if.c, intpr): one
// interface's counters, a header and one line per address family,
//   Name    Mtu Network       Address              Ipkts Ierrs Idrop    Opkts Oerrs  Coll  Drop
//   re0    1500 <Link#1>      7c:83:34:b9:1a:2e  1234567     0     0  2345678     0     0   120
//   re0       - 192.168.50.0/ 192.168.50.37        45678     -     -    56789     -     -     -
// The <Link#N> line holds the interface's counters; Drop (present with -d)
// is ifi_oqdrops, the frames its output queue dropped (if_handoff counts a
// frame that finds if_snd full). The counters count since boot, so a run is
// the difference of two snapshots: the file holds the output of `netstat -I
// IFACE -d` before and after each run, one after the other, and each pair
// is one run with no rate:
//   Drop (after - before) -> sender_tx_drops (the data sender's host: in a
//   bhyve testbed the box that carries the sending guest).
// With -b the header has Ibytes and Obytes too; -n, -W and -h change only
// widths and names (with -h a count like "1.2M" is an error: not exact).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError naming the file and line of a header without a Drop
// column, a snapshot without its <Link#N> line or with several interfaces'
// lines, a count that does not parse, the two snapshots of a pair naming
// different interfaces or a Drop counter that went down between them, and
// a last snapshot without its pair.
std::vector<MeasuredRun> parse_netstat_if(std::string_view text, const std::string& file);

// The header ("Name Mtu Network Address Ipkts ...") or a <Link#N> line.
bool looks_like_netstat_if_line(std::string_view text);

}  // namespace netsim::measure
