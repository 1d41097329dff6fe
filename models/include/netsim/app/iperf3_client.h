// The client of an iperf3 3.17.1 TCP test (`iperf3 -c HOST -C CC`) on the
// FreeBSD sender host: the client's protocol (Iperf3ClientProtocol) over
// FreeBSD senders that open the control and data connections and write -l
// blocks on the data connections.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "netsim/app/iperf3_client_protocol.h"
#include "netsim/app/iperf3_sending_streams.h"
#include "netsim/tcp/tcp_send_socket.h"

namespace netsim::app {

class Iperf3Client final : public Iperf3ClientProtocol<Iperf3SendingStreams> {
 public:
  // `control` and every element of `senders` (at least one) are unconnected
  // senders to the server's port; the client drives them. config.congestion
  // is -C: the parameters carry it and the results name it (without it the
  // streams run FreeBSD's default, newreno).
  Iperf3Client(Simulation& sim, std::string name, const Iperf3ClientConfig& config, tcp::TcpSendSocket& control,
               std::vector<tcp::TcpSendSocket*> senders)
      : Iperf3ClientProtocol(sim, std::move(name), config,
                             Iperf3SendingStreams(std::move(senders), config.blksize,
                                                  config.congestion.empty() ? "newreno" : config.congestion,
                                                  /*cookie_written=*/true),
                             /*reverse=*/false),
        control_(control) {
    control_.set_on_established([this] { control_connected(); });
    control_.set_on_data([this](std::uint64_t bytes) { control_bytes(bytes); });
    for (std::size_t i = 0; i < static_cast<std::size_t>(stream_count()); ++i) {
      streams().sender(i).set_on_established([this, i] { stream_connected(i); });
    }
  }

  const tcp::TcpSendSocket& control() const { return control_; }
  const tcp::TcpSendSocket& stream(int i) const { return data_streams().sender(static_cast<std::size_t>(i)); }
  // Live until the window closes, frozen after.
  Iperf3SenderCounters counters(int i) const { return data_streams().counters(i); }

 private:
  void connect_control() override { control_.connect(); }
  void connect_stream(std::size_t i) override { streams().sender(i).connect(); }
  void write_control(std::uint64_t bytes) override { iperf3_write_whole(control_, bytes); }
  void write_stream_cookie(std::size_t i) override { iperf3_write_whole(streams().sender(i), kIperf3CookieBytes); }

  tcp::TcpSendSocket& control_;
};

}  // namespace netsim::app
