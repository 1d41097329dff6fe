#include "netsim/tcp/freebsd/freebsd_tcp_receiver.h"

#include <stdexcept>
#include <utility>

namespace netsim::tcp {

FreeBsdTcpReceiver::FreeBsdTcpReceiver(Simulation& sim, std::string name, Host& host,
                                       const FreeBsdTcpReceiverConfig& config)
    : Component(sim, std::move(name)), config_(config) {
  if (config_.max_connections < 1) throw std::invalid_argument("freebsd receiver " + this->name() + ": no connections");
  host.bind(IpProtocol::tcp, config_.port, this);
  conns_.reserve(static_cast<std::size_t>(config_.max_connections));
  active_open_.assign(static_cast<std::size_t>(config_.max_connections), false);
  for (int i = 0; i < config_.max_connections; ++i) {
    auto c = std::make_unique<FreeBsdTcpSender>(sim, this->name() + "/" + std::to_string(i), host, config_.port,
                                                config_.tcp, FreeBsdTcpSender::passive);
    c->set_on_established([this, i] {
      if (active_open_[static_cast<std::size_t>(i)]) {
        if (on_connected_) on_connected_(i);
      } else if (on_accept_) {
        on_accept_(i);
      }
    });
    c->set_on_data([this, i](std::uint64_t bytes) {
      if (on_data_) on_data_(i, bytes);
    });
    c->set_on_peer_fin([this, i] {
      if (on_peer_fin_) on_peer_fin_(i);
    });
    c->set_on_transmit([this, i](const Packet& p) {
      if (on_transmit_) on_transmit_(i, p);
    });
    conns_.push_back(std::move(c));
  }
  by_peer_.reserve(config_.max_connections);
}

bool FreeBsdTcpReceiver::in_use(ConnId c) const { return conn(c).state() != FreeBsdTcpSender::State::listen; }

TcpReceiveEndpoint::ConnId FreeBsdTcpReceiver::free_slot() const {
  for (int i = 0; i < max_connections(); ++i) {
    if (!in_use(i)) return i;
  }
  return -1;
}

bool FreeBsdTcpReceiver::holds(ConnId c, NodeId peer, std::uint16_t peer_port) const {
  return in_use(c) && conn(c).peer() == peer && conn(c).peer_port() == peer_port;
}

TcpReceiveEndpoint::ConnId FreeBsdTcpReceiver::find(NodeId peer, std::uint16_t peer_port) const {
  return by_peer_.find(peer, peer_port, max_connections(), [&](ConnId i) { return holds(i, peer, peer_port); });
}

void FreeBsdTcpReceiver::add_peer(ConnId c) {
  if (!in_use(c)) return;  // the SYN did not open it
  const NodeId peer = conn(c).peer();
  const std::uint16_t port = conn(c).peer_port();
  by_peer_.add(peer, port, c, max_connections(), [&](ConnId i) { return holds(i, peer, port); });
}

void FreeBsdTcpReceiver::deliver(Packet* p) {
  // The inpcb lookup by (peer address, peer port); a SYN for none goes to
  // the listening socket, which takes a free slot for it.
  ConnId c = find(p->src, p->src_port);
  bool opens = false;
  if (c < 0) {
    const std::uint8_t f = p->tcp.flags;
    if ((f & (tcp_flags::kSyn | tcp_flags::kAck | tcp_flags::kRst)) == tcp_flags::kSyn) {
      c = free_slot();
      opens = c >= 0;
      if (c < 0) ++refused_;
    } else {
      ++no_conn_;
    }
  }
  if (c < 0) {
    sim().packets().release(p);
    return;
  }
  conn(c).deliver(p);
  if (opens) add_peer(c);
}

TcpReceiveEndpoint::ConnId FreeBsdTcpReceiver::connect(NodeId peer, std::uint16_t peer_port) {
  const ConnId c = free_slot();
  if (c < 0) return -1;
  active_open_[static_cast<std::size_t>(c)] = true;
  conn(c).open_to(peer, peer_port);
  add_peer(c);
  return c;
}

bool FreeBsdTcpReceiver::send(ConnId c, std::uint64_t bytes) {
  FreeBsdTcpSender& t = conn(c);
  if (!t.established()) return false;
  return t.write(bytes) == bytes;
}

void FreeBsdTcpReceiver::close(ConnId) {}

TcpReceiverStats FreeBsdTcpReceiver::stats(ConnId c) const {
  const FreeBsdTcpSender& t = conn(c);
  const FreeBsdTcpStats& s = t.stats();
  const TcpSocketInfo info = t.info();
  TcpReceiverStats r;
  r.packets_received = s.data_packets_received;
  r.segments_received = s.data_segments_received;
  r.bytes_received = s.data_bytes_received;
  r.bytes_delivered = t.bytes_received();
  r.acks_sent = s.pure_acks_sent;
  r.sack_acks_sent = s.sack_acks_sent;
  r.dsack_acks_sent = s.dsack_acks_sent;
  r.delayed_acks = s.delayed_acks;
  r.ofo_packets = s.ooo_packets;
  r.ofo_segments = s.ooo_segments;
  r.ofo_drops = s.reass_drops;
  r.duplicate_packets = s.duplicate_packets;
  r.data_segments_sent = info.data_segments_sent;
  r.data_bytes_sent = info.bytes_sent;
  r.retransmits = s.retransmitted_segments;
  r.syn_acks_sent = s.syn_acks_sent;
  r.syns_sent = active_open_[static_cast<std::size_t>(c)] ? 1 + s.syn_retransmits : 0;
  return r;
}

TcpReceiverStats FreeBsdTcpReceiver::total_stats() const {
  TcpReceiverStats sum;
  for (int i = 0; i < max_connections(); ++i) {
    sum += stats(i);
  }
  return sum;
}

}  // namespace netsim::tcp
