// A FreeBSD receiving endpoint (iperf3 -s / iperf -s on a FreeBSD host): a
// listening socket on (tcp, port) whose connections are FreeBSD tcpcbs, each
// a FreeBsdTcpSender doing both directions as FreeBSD's one tcpcb does (the
// receive side: tcp_do_segment's text processing, tcp_reass, the SACK
// report, DELAY_ACK, the receive window and its autotuning; see
// freebsd_tcp_sender.h and docs/freebsd-receiver.md).
//
// FreeBSD creates the socket when the handshake completes (syncache_expand,
// sonewconn); here a pool of max_connections passive connections exists
// from the start so that nothing is allocated while the simulation runs. A
// SYN from a new (peer node, peer port) takes the first free one, which runs
// the syncache handshake; later packets are found by (peer, peer_port), as
// the inpcb lookup does. ConnId is the pool index. connect() opens a free
// one actively from the bound port (an iperf3 -R client).
//
// Not modelled: our own FIN (close() does nothing; no application model
// closes a connection yet), TIME_WAIT and reuse of a slot after a
// connection ends, RST.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/tcp/connection_table.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/tcp_receive_endpoint.h"

namespace netsim::tcp {

struct FreeBsdTcpReceiverConfig {
  std::uint16_t port = 5201;  // listening port
  int max_connections = 8;    // connection slots (preallocated)
  FreeBsdTcpConfig tcp;       // the host's TCP sysctls, for every connection
};

class FreeBsdTcpReceiver final : public Component, public Endpoint, public TcpReceiveEndpoint {
 public:
  // Binds (tcp, config.port) on `host`; throws std::invalid_argument if it is taken.
  FreeBsdTcpReceiver(Simulation& sim, std::string name, Host& host, const FreeBsdTcpReceiverConfig& config);

  ConnId connect(NodeId peer, std::uint16_t peer_port) override;
  // write(2) on the connection: true if all `bytes` fit in the send buffer.
  bool send(ConnId c, std::uint64_t bytes) override;
  // Does nothing: FreeBsdTcpSender sends no FIN (see above).
  void close(ConnId c) override;

  void deliver(Packet* p) override;

  ConnId find(NodeId peer, std::uint16_t peer_port) const override;
  int max_connections() const override { return static_cast<int>(conns_.size()); }
  NodeId peer(ConnId c) const override { return conn(c).peer(); }
  std::uint16_t peer_port(ConnId c) const override { return conn(c).peer_port(); }
  TcpReceiverStats stats(ConnId c) const override;
  TcpReceiverStats total_stats() const override;
  std::uint32_t srtt_us(ConnId c) const override { return conn(c).srtt_usecs(); }
  std::uint32_t mss_cache(ConnId c) const override { return conn(c).tcpcb().t_maxseg; }
  std::uint16_t port() const override { return config_.port; }

  // The connection itself: its tcpcb (rcv_nxt, sackblks, t_segq, ...), socket
  // buffers, timers and FreeBSD counters.
  const FreeBsdTcpSender& connection(ConnId c) const { return conn(c); }
  FreeBsdTcpSender& connection(ConnId c) { return conn(c); }
  std::uint64_t refused() const { return refused_; }        // SYNs with no free slot
  std::uint64_t no_connection() const { return no_conn_; }  // non-SYN segments for no connection
  const FreeBsdTcpReceiverConfig& config() const { return config_; }

 private:
  FreeBsdTcpSender& conn(ConnId c) { return *conns_.at(static_cast<std::size_t>(c)); }
  const FreeBsdTcpSender& conn(ConnId c) const { return *conns_.at(static_cast<std::size_t>(c)); }
  bool in_use(ConnId c) const;
  ConnId free_slot() const;
  // The connection table: slot `c` is in use with (peer, peer_port).
  bool holds(ConnId c, NodeId peer, std::uint16_t peer_port) const;
  void add_peer(ConnId c);

  FreeBsdTcpReceiverConfig config_;
  std::vector<std::unique_ptr<FreeBsdTcpSender>> conns_;
  ConnectionTable by_peer_;
  std::vector<bool> active_open_;  // per slot: opened by connect()
  std::uint64_t refused_ = 0;
  std::uint64_t no_conn_ = 0;
};

}  // namespace netsim::tcp
