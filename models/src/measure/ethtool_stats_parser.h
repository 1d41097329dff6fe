// Linux `ethtool -S IFACE`: the driver's statistics since the interface came
// up, after the line "NIC statistics:", one "     name: value" per line.
// What is here is the PAUSE frames the NIC sent (IEEE 802.3x flow control,
// the receiver pushing back on its switch port), as the drivers name them:
//   tx_flow_control_xon, tx_flow_control_xoff   e1000e, igb, igc, ixgbe
//   tx_pause_frames                              bnxt_en and others
//   tx_pause_ctrl_phy                            mlx5
// summed over the names a snapshot has. A run is the difference of two
// snapshots taken before and after it and kept one after the other in one
// file; each pair is one run with no rate:
//   PAUSE frames sent (after - before) -> receiver_pause_frames (the data receiver's host).
// A driver that counts none of them (r8169, for one) gives an error, not 0.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError naming the file and line of a statistics line whose
// value is not a count, a snapshot without any transmitted-PAUSE counter or
// with a name twice, a sum that went down between the two snapshots of a
// pair, and a last snapshot without its pair.
std::vector<MeasuredRun> parse_ethtool_stats(std::string_view text, const std::string& file);

// The "NIC statistics:" line.
bool looks_like_ethtool_stats_line(std::string_view text);

}  // namespace netsim::measure
