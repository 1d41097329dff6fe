// `app: iperf2`: a tcp flow run by an iperf 2.1.8 client and server
// (models/app, docs/iperf2.md), seen by the runner as one flow. Its window is
// the client's report: from the header's send right after connect() returned
// to the end of the last stream's final line (when the server has read
// everything and closed). Its counters sum over the -P connections: sender
// counters from the client's TCP senders, each frozen when its stream's report
// ends; receiver counters from the server's reads (the 60-byte test header
// included, as iperf2 counts it), over the server's span (first accept to
// last end of file: receive_span).
#pragma once

#include "netsim/app/iperf2_client.h"
#include "netsim/app/iperf2_server.h"
#include "netsim/scenario/scenario_builder.h"

namespace netsim {

class Iperf2TcpFlow final : public Component, public TcpFlowApp {
 public:
  Iperf2TcpFlow(Simulation& sim, std::string name, app::Iperf2Client& client, app::Iperf2Server& server);

  TcpFlowCounters counters() const override;
  SimTime start() const override { return client_.start(); }
  SimTime end() const override { return client_.end(); }
  void finish() override;
  bool finished() const override { return client_.test_ended(); }

  const app::Iperf2Client& client() const { return client_; }
  const app::Iperf2Server& server() const { return server_; }

 private:
  app::Iperf2Client& client_;
  app::Iperf2Server& server_;
};

}  // namespace netsim
