// `app: nuttcp` (docs/nuttcp.md): the nuttcp client transmitting (`nuttcp -t`)
// to a nuttcp server, over TCP (`type: tcp`: -N connections, -w, -T, -i) or
// UDP (`type: udp`, nuttcp -u -R: one UdpSource and its UdpSink), seen by the
// runner as one flow. Each records what the nuttcp client prints: the -i
// interval figures (the receiver's bytes, the sender's retransmissions or
// the receiver's datagram accounting), the final figures and both
// processes' CPU time (netsim/app/nuttcp_cpu.h), per stream and summed.
//
// TCP test clock: it starts when every stream is connected (nuttcp opens its
// data connections before starting its timer), -T later the transmitter
// stops writing, and the test ends when the receiver has read everything
// written (the drain of the send buffers; nuttcp's receiver reads to end of
// file), checked every `drain_poll`.
// UDP: the source sends from the flow's start for -T (the source's stop);
// the receiver's figures are taken `udp_grace` after that (datagrams in
// flight arrive) and reported over -T.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netsim/app/nuttcp_cpu.h"
#include "netsim/app/udp_sink.h"
#include "netsim/app/udp_source.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/sim/event_handler.h"
#include "netsim/tcp/sender_report_fields.h"

namespace netsim {

namespace results {
class NuttcpResult;
}

struct NuttcpFlowConfig {
  SimTime start = 0;                      // connect (TCP) / first datagram (UDP)
  SimTime time = 10'000'000'000'000;      // -T
  SimTime interval = 0;                   // -i (0: none)
  SimTime run_end = 0;                    // the test is cut here (0: never)
  SimTime drain_poll = 100'000'000;       // 100 us
  SimTime udp_grace = 100'000'000'000;    // 100 ms
  NodeId sender_host = kNoNode;
  // What NuttcpResult records of the options.
  std::uint32_t buffer_len = 65536;       // -l
  std::uint64_t window = 0;               // -w (0: not given)
  double rate_mbps = 0;                   // -R (UDP)
  int version = 6;
};

// One -i line's figures (or the whole test's) of one stream.
struct NuttcpSample {
  SimTime start = 0;  // absolute simulated times
  SimTime end = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t retransmits = 0;
  std::uint64_t packets_sent = 0;      // UDP: the receiver's count of datagrams sent (sequence numbers)
  std::uint64_t packets_received = 0;  // UDP
};

class NuttcpTcpFlow final : public Component, public EventHandler, public TcpFlowApp {
 public:
  NuttcpTcpFlow(Simulation& sim, std::string name, const NuttcpFlowConfig& config,
                std::vector<tcp::TcpSendSocket*> streams, tcp::TcpReceiveEndpoint& receiver);
  // The transmitting and receiving hosts' CPU models (nullptr: none).
  void set_host_cpus(const HostCpu* tx, const HostCpu* rx);

  bool owns(tcp::TcpReceiveEndpoint::ConnId c) const;
  void on_delivered(tcp::TcpReceiveEndpoint::ConnId c, std::uint64_t bytes);
  void handle_event(std::uint64_t tag) override;

  TcpFlowCounters counters() const override;
  SimTime start() const override { return begun_ ? begin_ : config_.start; }
  SimTime end() const override { return ended_ ? end_ : sim().now(); }
  void finish() override;
  bool finished() const override { return ended_; }

  int stream_count() const { return static_cast<int>(streams_.size()); }
  const std::vector<NuttcpSample>& samples(int i) const { return at(i).samples; }
  const NuttcpSample& total(int i) const { return at(i).total; }
  void fill(results::NuttcpResult& out) const;

 private:
  enum Tag : std::uint64_t { kConnect = 1, kWriteEnd = 2, kSample = 3, kDrain = 4 };
  struct Stream {
    tcp::TcpSendSocket* tcp = nullptr;
    tcp::TcpReceiveEndpoint::ConnId conn = -1;
    std::uint64_t delivered = 0;
    std::uint64_t rexmit_at_begin = 0;
    std::uint64_t written_at_begin = 0;
    NuttcpSample last;  // cumulative at the previous sample
    std::vector<NuttcpSample> samples;
    NuttcpSample total;
    tcp::SenderReportCounters frozen_sender;   // at the test's end
    tcp::TcpReceiverStats frozen_receiver;
  };
  const Stream& at(int i) const { return streams_.at(static_cast<std::size_t>(i)); }
  void on_established();
  NuttcpSample cumulative(const Stream& s) const;
  tcp::SenderReportCounters live_sender(const Stream& s) const;
  bool drained() const;
  void end_test();

  NuttcpFlowConfig config_;
  std::vector<Stream> streams_;
  tcp::TcpReceiveEndpoint& receiver_;
  app::NuttcpCpuMeter tx_cpu_;
  app::NuttcpCpuMeter rx_cpu_;
  int established_ = 0;
  bool begun_ = false;
  bool writing_ = false;
  bool ended_ = false;
  SimTime begin_ = 0;
  SimTime end_ = 0;
  SimTime next_sample_ = 0;
};

class NuttcpUdpFlow final : public Component, public EventHandler {
 public:
  NuttcpUdpFlow(Simulation& sim, std::string name, const NuttcpFlowConfig& config, const UdpSource& source,
                const UdpSink& sink);
  void set_host_cpus(const HostCpu* tx, const HostCpu* rx);
  void handle_event(std::uint64_t tag) override;
  // The run ends: a test that has not ended ends now.
  void finish();
  bool finished() const { return ended_; }

  const std::vector<NuttcpSample>& samples() const { return samples_; }
  const NuttcpSample& total() const { return total_; }
  void fill(results::NuttcpResult& out) const;

 private:
  enum Tag : std::uint64_t { kBegin = 1, kSample = 2, kEnd = 3 };
  NuttcpSample cumulative() const;

  NuttcpFlowConfig config_;
  const UdpSource& source_;
  const UdpSink& sink_;
  app::NuttcpCpuMeter tx_cpu_;
  app::NuttcpCpuMeter rx_cpu_;
  NuttcpSample last_;
  std::vector<NuttcpSample> samples_;
  NuttcpSample total_;
  bool begun_ = false;
  bool ended_ = false;
  SimTime next_sample_ = 0;
};

}  // namespace netsim
