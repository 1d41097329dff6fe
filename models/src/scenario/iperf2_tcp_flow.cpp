#include "netsim/scenario/iperf2_tcp_flow.h"

#include <algorithm>
#include <utility>

#include "flow_counters_sum.h"

namespace netsim {

Iperf2TcpFlow::Iperf2TcpFlow(Simulation& sim, std::string name, app::Iperf2Client& client, app::Iperf2Server& server)
    : Component(sim, std::move(name)), client_(client), server_(server) {}

TcpFlowCounters Iperf2TcpFlow::counters() const {
  TcpFlowCounters c;
  std::uint64_t srtt_sum = 0;
  SimTime first_accept = 0;
  SimTime last_read = 0;
  bool any = false;
  const int n = client_.stream_count();
  for (int i = 0; i < n; ++i) {
    scenario_internal::add_sender_counters(c, client_.counters(i), srtt_sum);
    scenario_internal::add_receiver_counters(c, server_.connection_stats(i));
    c.bytes_delivered += server_.reads(i).bytes;
    if (server_.accepted(i)) {
      const SimTime end = server_.closed(i) ? server_.close_time(i) : sim().now();
      first_accept = any ? std::min(first_accept, server_.accept_time(i)) : server_.accept_time(i);
      last_read = any ? std::max(last_read, end) : end;
      any = true;
    }
  }
  c.srtt_us = n > 0 ? static_cast<std::uint32_t>(srtt_sum / static_cast<std::uint64_t>(n)) : 0;
  c.receive_span = any ? last_read - first_accept : 0;
  return c;
}

void Iperf2TcpFlow::finish() {
  client_.finish();
  server_.finish();
}

}  // namespace netsim
