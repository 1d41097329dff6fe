#include "netsim/scenario/iperf3_tcp_flow.h"

#include <utility>

#include "flow_counters_sum.h"

namespace netsim {

Iperf3TcpFlow::Iperf3TcpFlow(Simulation& sim, std::string name, app::Iperf3Client& client, app::Iperf3Server& server)
    : Component(sim, std::move(name)), client_(client), server_(server) {}

TcpFlowCounters Iperf3TcpFlow::counters() const {
  TcpFlowCounters c;
  std::uint64_t srtt_sum = 0;
  const int n = client_.stream_count();
  for (int i = 0; i < n; ++i) {
    scenario_internal::add_sender_counters(c, client_.counters(i), srtt_sum);
    const app::Iperf3ReceiverCounters r = server_.counters(i);
    scenario_internal::add_receiver_counters(c, r.conn);
    c.bytes_delivered += r.bytes_read;
  }
  c.srtt_us = n > 0 ? static_cast<std::uint32_t>(srtt_sum / static_cast<std::uint64_t>(n)) : 0;
  c.receive_span = server_.end() - server_.start();
  return c;
}

void Iperf3TcpFlow::finish() {
  client_.finish();
  server_.finish();
}

}  // namespace netsim
