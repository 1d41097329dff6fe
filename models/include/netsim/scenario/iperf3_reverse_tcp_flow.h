// `app: iperf3` with `reverse: true` (iperf3 -R): a tcp flow whose data
// sender is the iperf3 server (FreeBSD, on the flow's `from`) and whose data
// receiver is the iperf3 client (Linux, on `to`), seen by the runner as one
// flow with the same definitions as the forward case. Its window is the
// client's test window ([TEST_START read, + time)); its counters sum over the
// data connections: sender counters from the server's TCP senders, frozen
// when the server reads TEST_END; receiver counters from the client's reads
// over its own window, which is the flow's window.
#pragma once

#include "netsim/app/iperf3_reverse_client.h"
#include "netsim/app/iperf3_reverse_server.h"
#include "netsim/scenario/scenario_builder.h"

namespace netsim {

class Iperf3ReverseTcpFlow final : public Component, public TcpFlowApp {
 public:
  Iperf3ReverseTcpFlow(Simulation& sim, std::string name, app::Iperf3ReverseClient& client,
                       app::Iperf3ReverseServer& server);

  TcpFlowCounters counters() const override;
  SimTime start() const override { return client_.start(); }
  SimTime end() const override { return client_.end(); }
  void finish() override;
  bool finished() const override { return client_.test_ended(); }

 private:
  app::Iperf3ReverseClient& client_;
  app::Iperf3ReverseServer& server_;
};

}  // namespace netsim
