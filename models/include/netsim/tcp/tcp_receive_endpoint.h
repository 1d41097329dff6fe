// What an application model (iperf3 and iperf2 servers, an iperf3 -R
// client, a bulk flow's driver) and the reports see of a receiving TCP
// endpoint, whichever stack implements it: a bound port whose connections
// (ConnId) are accepted (passive open) or opened from it (connect), the
// callbacks the application waits on, the few bytes it writes (iperf
// control messages) and the per-connection counters. LinuxTcpReceiver and
// FreeBsdTcpReceiver implement it; the applications are written against it.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "netsim/sim/packet.h"

namespace netsim::tcp {

// A receiving connection's counters, the same for every OS. A field a
// stack does not have stays 0: FreeBSD has no quickack mode, no SACK
// compression and no out-of-window ACK rate limit (quickack_acks,
// compressed_acks, oow_acks_skipped), and counts the queue entries it
// could not take as ofo_drops.
struct TcpReceiverStats {
  std::uint64_t packets_received = 0;    // data packets (a GRO/LRO aggregate counts once)
  std::uint64_t segments_received = 0;   // wire segments in them (Packet::segments)
  std::uint64_t bytes_received = 0;      // payload bytes, duplicates included
  std::uint64_t bytes_delivered = 0;     // in-order bytes handed to the application
  std::uint64_t acks_sent = 0;           // pure ACKs (SYN-ACKs not counted; FreeBSD: window updates included)
  std::uint64_t sack_acks_sent = 0;      // ACKs carrying at least one SACK block (D-SACK included)
  std::uint64_t dsack_acks_sent = 0;     // ACKs carrying a D-SACK block
  std::uint64_t delayed_acks = 0;        // ACKs sent by the delayed-ACK timer
  std::uint64_t quickack_acks = 0;       // Linux: ACKs sent because of quickack mode
  std::uint64_t compressed_acks = 0;     // Linux: ACKs withheld by SACK compression
  std::uint64_t ofo_packets = 0;         // packets queued out of order
  std::uint64_t ofo_segments = 0;        // their wire segments (tcpi_rcv_ooopack)
  std::uint64_t ofo_drops = 0;           // out-of-order data dropped: queue full
  std::uint64_t duplicate_packets = 0;   // entirely old data (D-SACK material)
  std::uint64_t data_segments_sent = 0;  // our own data, retransmissions included
  std::uint64_t data_bytes_sent = 0;
  std::uint64_t retransmits = 0;         // segments we resent
  std::uint64_t syn_acks_sent = 0;
  std::uint64_t syns_sent = 0;           // active open: SYNs, retransmissions included
  std::uint64_t oow_acks_skipped = 0;    // Linux: tcp_oow_rate_limited (pure ACK / SYN out of window)
};

// Sums counters (an endpoint's total over its connections).
inline TcpReceiverStats& operator+=(TcpReceiverStats& a, const TcpReceiverStats& b) {
  a.packets_received += b.packets_received;
  a.segments_received += b.segments_received;
  a.bytes_received += b.bytes_received;
  a.bytes_delivered += b.bytes_delivered;
  a.acks_sent += b.acks_sent;
  a.sack_acks_sent += b.sack_acks_sent;
  a.dsack_acks_sent += b.dsack_acks_sent;
  a.delayed_acks += b.delayed_acks;
  a.quickack_acks += b.quickack_acks;
  a.compressed_acks += b.compressed_acks;
  a.ofo_packets += b.ofo_packets;
  a.ofo_segments += b.ofo_segments;
  a.ofo_drops += b.ofo_drops;
  a.duplicate_packets += b.duplicate_packets;
  a.data_segments_sent += b.data_segments_sent;
  a.data_bytes_sent += b.data_bytes_sent;
  a.retransmits += b.retransmits;
  a.syn_acks_sent += b.syn_acks_sent;
  a.syns_sent += b.syns_sent;
  a.oow_acks_skipped += b.oow_acks_skipped;
  return a;
}

class TcpReceiveEndpoint {
 public:
  using ConnId = int;

  // Callbacks (all optional). on_accept: the handshake completed (accept()
  // returns). on_data: `bytes` more in-order bytes were read by the app.
  // on_peer_fin: the peer closed its side. on_transmit: every packet we send,
  // just before host.send. on_connected: an active open completed.
  void set_on_accept(std::function<void(ConnId)> f) { on_accept_ = std::move(f); }
  void set_on_data(std::function<void(ConnId, std::uint64_t)> f) { on_data_ = std::move(f); }
  void set_on_peer_fin(std::function<void(ConnId)> f) { on_peer_fin_ = std::move(f); }
  void set_on_transmit(std::function<void(ConnId, const Packet&)> f) { on_transmit_ = std::move(f); }
  void set_on_connected(std::function<void(ConnId)> f) { on_connected_ = std::move(f); }

  // Active open from the bound port to (peer, peer_port): sends the SYN now.
  // Returns the connection, or -1 when none can be opened.
  virtual ConnId connect(NodeId peer, std::uint16_t peer_port) = 0;
  // The application writes `bytes` on an established connection (small
  // control messages). Returns false if the connection cannot send.
  virtual bool send(ConnId c, std::uint64_t bytes) = 0;
  // The application closes the connection (see each stack for what it sends).
  virtual void close(ConnId c) = 0;

  // The connection of (peer, peer_port), or -1.
  virtual ConnId find(NodeId peer, std::uint16_t peer_port) const = 0;
  virtual int max_connections() const = 0;
  virtual NodeId peer(ConnId c) const = 0;
  virtual std::uint16_t peer_port(ConnId c) const = 0;
  virtual TcpReceiverStats stats(ConnId c) const = 0;
  // Sums over every connection this endpoint ever had.
  virtual TcpReceiverStats total_stats() const = 0;
  // The connection's smoothed RTT in microseconds (tcpi_rtt).
  virtual std::uint32_t srtt_us(ConnId c) const = 0;
  // What getsockopt(TCP_MAXSEG) returns once established.
  virtual std::uint32_t mss_cache(ConnId c) const = 0;
  virtual std::uint16_t port() const = 0;

 protected:
  ~TcpReceiveEndpoint() = default;

  std::function<void(ConnId)> on_accept_;
  std::function<void(ConnId, std::uint64_t)> on_data_;
  std::function<void(ConnId)> on_peer_fin_;
  std::function<void(ConnId, const Packet&)> on_transmit_;
  std::function<void(ConnId)> on_connected_;
};

}  // namespace netsim::tcp
