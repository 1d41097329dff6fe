// A UDP sender in the manner of `nuttcp -u`: constant bit rate, or as fast
// as the first hop accepts.
//
// Constant rate: datagram n leaves at start + floor(n * size * 8 / rate),
// computed from n each time so no rounding error accumulates. The rate counts
// UDP payload bits, as nuttcp's -R does.
// Full rate: the source keeps the outgoing interface's queue non-empty,
// refilling each time a frame starts serialization, so it sends back to back
// at the first hop's line rate (what nuttcp -u without -R achieves on an
// idle machine).
// Send buffer: at a constant rate above what the first hop carries, the
// datagrams this source has in its interface queue (queued or on the wire)
// may not reach `send_buffer` bytes, as a Linux UDP socket's sk_wmem_alloc
// may not reach SO_SNDBUF: the sender blocks, and sends the overdue
// datagrams as frames leave, so it runs at the hop's rate and nothing piles
// up. Counted in IP bytes (Linux charges each skb's truesize, about 1.5x for
// a full-size datagram). The source counts its own bytes only once the
// interface as a whole holds a send buffer's worth (it watches the queue from
// then on), so a source that its link keeps up with costs nothing per packet.
// CPU: on a host with a CPU model whose send costs are not all zero, each
// datagram is one sendto() on the application's core: the copy of its
// payload (copy_per_kib, system context), then the stack's and driver's
// per-packet work that Host::send charges (tx_packet + tx_segment). The next
// sendto starts when this one returns, so a CPU-bound sender runs at
// payload / (copy + tx_packet + tx_segment) and its process is ~100% busy
// (nuttcp -u's %TX, table T3's UDP rows). With a rate the datagram goes at
// its scheduled time or when the CPU is free, whichever is later; at full
// rate the CPU alone paces the source (the interface's queue is not kept
// filled: the send buffer still blocks it when frames pile up).
#pragma once

#include <cstdint>
#include <optional>

#include "netsim/host/host.h"
#include "netsim/net/queue_observer.h"
#include "netsim/sim/data_rate.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/timer.h"

namespace netsim {

struct UdpSourceConfig {
  NodeId dst = kNoNode;
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 5001;
  std::uint32_t payload_bytes = 1472;
  std::optional<DataRate> rate;  // nullopt: full rate
  SimTime start = 0;
  SimTime stop = kTimeNever;
  std::uint32_t flow_id = 0;
  // SO_SNDBUF in IP bytes; 0 = unlimited. Linux's net.core.wmem_default.
  std::uint64_t send_buffer = 212992;
};

class UdpSource final : public Component, public EventHandler, public ChannelListener, public QueueObserver {
 public:
  UdpSource(Simulation& sim, std::string name, Host& host, const UdpSourceConfig& config);

  void handle_event(std::uint64_t tag) override;
  void on_transmit_start() override;
  void on_queue_change(const Channel& ch, QueueEvent event, const Packet& p) override;

  std::uint64_t packets_sent() const { return sent_; }
  std::uint64_t bytes_sent() const { return sent_ * config_.payload_bytes; }
  const UdpSourceConfig& config() const { return config_; }
  Host& host() const { return host_; }
  // When the last datagram was handed to the host (for the sender's rate).
  SimTime last_send_time() const { return last_send_; }
  // IP bytes of this source's datagrams in its interface (queued or on the
  // wire), and how often a full send buffer made it wait.
  std::uint64_t buffered_bytes() const { return buffered_; }
  std::uint64_t send_blocks() const { return blocks_; }

 private:
  static constexpr std::uint64_t kFullRateDepth = 2;  // frames kept queued in full-rate mode
  bool active() const;
  // When the CPU-paced source may issue its next sendto (now if the CPU is idle).
  SimTime cpu_free() const;
  bool mine(const Packet& p) const;
  bool send_buffer_full();
  void send_one();
  void fill_interface();

  Host& host_;
  UdpSourceConfig config_;
  Channel* interface_ = nullptr;
  HostCpu* cpu_ = nullptr;  // set when sendto costs CPU time (see above)
  Timer timer_;
  std::uint64_t sent_ = 0;
  SimTime last_send_ = 0;
  std::uint64_t buffered_ = 0;
  std::uint64_t blocks_ = 0;
  bool blocked_ = false;
  bool watching_ = false;  // observing the interface, buffered_ is exact
};

}  // namespace netsim
