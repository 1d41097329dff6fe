// Adding one data connection's counters into a flow's TcpFlowCounters: the
// sender's (iperf2's or iperf3's, which have the same fields) and the Linux
// receiver's.
#pragma once

#include <cstdint>

#include "netsim/scenario/scenario_builder.h"
#include "netsim/tcp/tcp_receive_endpoint.h"

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

// The receiving Linux connection's counters. Bytes delivered are not here:
// each app counts its own reads.
inline void add_receiver_counters(TcpFlowCounters& c, const tcp::TcpReceiverStats& r) {
  c.segments_received += r.segments_received;
  c.receiver_delayed_acks += r.delayed_acks;
  c.receiver_quickack_acks += r.quickack_acks;
}

}  // namespace netsim::scenario_internal
