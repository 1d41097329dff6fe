// Linux /proc/net/dev (net/core/net-procfs.c, dev_seq_show): every
// interface's counters since boot, after a two-line header,
//   Inter-|   Receive                                                |  Transmit
//    face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
//     eno1: 9876543210 6543210    0   12    0     0          0         0 123456789 2345678    0    0    0     0       0          0
// The Receive drop column is rx_dropped + rx_missed_errors: frames the
// stack dropped and frames the NIC missed for want of a free receive
// descriptor (igb and e1000e count the latter as rx_missed_errors; what a
// driver counts there is the driver's choice). A run is the difference of
// two snapshots of one interface, taken before and after it and kept one
// after the other in one file (`grep -E '^ *(Inter|face|eno1:)'
// /proc/net/dev` keeps the header and that interface); each pair is one run
// with no rate:
//   Receive drop (after - before) -> receiver_rx_drops (the data receiver's host).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError naming the file and line of an interface line that
// does not have its 16 counts, a snapshot without an interface line or with
// a second interface's, the two snapshots of a pair naming different
// interfaces or a drop count that went down between them, and a last
// snapshot without its pair.
std::vector<MeasuredRun> parse_proc_net_dev(std::string_view text, const std::string& file);

// The header's lines, or an interface line ("NAME:" and numbers).
bool looks_like_proc_net_dev_line(std::string_view text);

}  // namespace netsim::measure
