// Watching a channel's queue: told after every change of its occupancy.
//
// Queue-occupancy traces (netsim run --trace-queue) and a switch's 802.3x
// buffer accounting are observers; a channel without one pays a single
// branch per packet.
#pragma once

#include <cstdint>

namespace netsim {

class Channel;
struct Packet;

enum class QueueEvent : std::uint8_t {
  enqueue,  // a packet joined the queue (or went straight into service)
  dequeue,  // a packet's last bit left: it no longer occupies the buffer
  drop,     // tail drop: the packet found the buffer full
};

class QueueObserver {
 public:
  // `ch` already reflects the change (occupancy, counters); `p` is the packet
  // that joined, left or was dropped (valid during the call only).
  virtual void on_queue_change(const Channel& ch, QueueEvent event, const Packet& p) = 0;

 protected:
  ~QueueObserver() = default;
};

}  // namespace netsim
