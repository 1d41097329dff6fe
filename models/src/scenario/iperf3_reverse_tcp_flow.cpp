#include "netsim/scenario/iperf3_reverse_tcp_flow.h"

#include <utility>

#include "flow_counters_sum.h"

namespace netsim {

Iperf3ReverseTcpFlow::Iperf3ReverseTcpFlow(Simulation& sim, std::string name, app::Iperf3ReverseClient& client,
                                           app::Iperf3ReverseServer& server)
    : Component(sim, std::move(name)), client_(client), server_(server) {}

TcpFlowCounters Iperf3ReverseTcpFlow::counters() const {
  TcpFlowCounters c;
  std::uint64_t srtt_sum = 0;
  const int n = client_.stream_count();
  for (int i = 0; i < n; ++i) {
    scenario_internal::add_sender_counters(c, server_.counters(i), srtt_sum);
    // The receiving side is the client's Linux endpoint (one per stream),
    // so its ACK counters are the receiver's, as in the forward test.
    const app::Iperf3ReceiverCounters r = client_.counters(i);
    scenario_internal::add_receiver_counters(c, r.conn);
    c.bytes_delivered += r.bytes_read;
  }
  c.srtt_us = n > 0 ? static_cast<std::uint32_t>(srtt_sum / static_cast<std::uint64_t>(n)) : 0;
  return c;  // receive_span 0: the receiving client measured over the flow's window
}

void Iperf3ReverseTcpFlow::finish() {
  client_.finish();
  server_.finish();
}

}  // namespace netsim
