// The server of an iperf3 3.17.1 TCP test in reverse mode (the client ran
// `iperf3 -c HOST -R`) on the FreeBSD sender host: the server's protocol
// (Iperf3ServerProtocol) on passive FreeBSD senders that a
// FreeBsdTcpListener on the server port hands the client's connections; the
// data connections write -l blocks from TEST_RUNNING until TEST_END is read
// (what is buffered then is still sent).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "netsim/app/iperf3_sending_streams.h"
#include "netsim/app/iperf3_server_protocol.h"
#include "netsim/tcp/tcp_send_socket.h"

namespace netsim::app {

class Iperf3ReverseServer final : public Iperf3ServerProtocol<Iperf3SendingStreams> {
 public:
  // `control` and `senders` are passive senders reserved for the client's
  // control and data connections (stream order); `congestion` is the name
  // the server reports for its streams' congestion control.
  Iperf3ReverseServer(Simulation& sim, std::string name, Iperf3ControlChannel& channel, std::uint64_t blksize,
                      std::string congestion, tcp::TcpSendSocket& control,
                      std::vector<tcp::TcpSendSocket*> senders)
      : Iperf3ServerProtocol(sim, std::move(name), channel,
                             Iperf3SendingStreams(std::move(senders), blksize, std::move(congestion),
                                                  /*cookie_written=*/false)),
        control_(control) {
    control_.set_on_data([this](std::uint64_t bytes) { control_bytes(bytes); });
    for (std::size_t i = 0; i < static_cast<std::size_t>(stream_count()); ++i) {
      // The stream's cookie is all the client writes on it.
      streams().sender(i).set_on_data([this, i](std::uint64_t bytes) { read_stream_cookie(i, bytes); });
    }
  }

  const tcp::TcpSendSocket& control() const { return control_; }
  const tcp::TcpSendSocket& stream(int i) const { return data_streams().sender(static_cast<std::size_t>(i)); }
  // Live until the test ends, frozen after.
  Iperf3SenderCounters counters(int i) const { return data_streams().counters(i); }

 private:
  void write_control(std::uint64_t bytes) override { iperf3_write_whole(control_, bytes); }

  tcp::TcpSendSocket& control_;
};

}  // namespace netsim::app
