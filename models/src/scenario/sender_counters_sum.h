// Adding one data connection's sender counters (iperf2's or iperf3's, which
// have the same fields) into a flow's TcpFlowCounters.
#pragma once

#include <cstdint>

#include "netsim/scenario/scenario_builder.h"

namespace netsim::scenario_internal {

template <typename SenderCounters>
void add_sender_counters(TcpFlowCounters& c, const SenderCounters& s, std::uint64_t& srtt_sum) {
  c.data_segments_sent += s.segments_sent;
  c.bytes_sent += s.bytes_sent;
  c.bytes_acked += s.bytes_acked;
  c.retransmits += s.retransmits;
  c.rto_count += s.rto_count;
  c.recovery_episodes += s.recovery_episodes;
  c.cwnd += s.cwnd;
  srtt_sum += s.srtt_us;
}

}  // namespace netsim::scenario_internal
