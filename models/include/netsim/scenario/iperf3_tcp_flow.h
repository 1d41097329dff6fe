// `app: iperf3`: a tcp flow run by an iperf3 client and server (models/app),
// seen by the runner as one flow. Its window is the client's test window
// ([TEST_START read, + time)); its counters sum over the data connections
// (the control connection is not counted): sender counters from the
// client's TCP senders, frozen when the client's timer ends the test;
// receiver counters from the server's reads, frozen when the server reads
// TEST_END, over the server's own window (receive_span).
#pragma once

#include "netsim/app/iperf3_client.h"
#include "netsim/app/iperf3_server.h"
#include "netsim/scenario/scenario_builder.h"

namespace netsim {

class Iperf3TcpFlow final : public Component, public TcpFlowApp {
 public:
  Iperf3TcpFlow(Simulation& sim, std::string name, app::Iperf3Client& client, app::Iperf3Server& server);

  TcpFlowCounters counters() const override;
  SimTime start() const override { return client_.start(); }
  SimTime end() const override { return client_.end(); }
  void finish() override;
  bool finished() const override { return client_.test_ended(); }

  const app::Iperf3Client& client() const { return client_; }
  const app::Iperf3Server& server() const { return server_; }

 private:
  app::Iperf3Client& client_;
  app::Iperf3Server& server_;
};

}  // namespace netsim
