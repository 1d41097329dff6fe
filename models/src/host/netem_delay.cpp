#include "netsim/host/netem_delay.h"

#include <algorithm>

#include "netsim/host/host.h"

namespace netsim {

NetemDelay::NetemDelay(Host& host, SimTime delay, std::uint32_t limit)
    : host_(host), delay_(delay), limit_(limit), timer_(this, 0) {}

NetemDelay::~NetemDelay() {
  while (Packet* p = queue_.pop()) host_.sim().packets().release(p);
}

void NetemDelay::enqueue(Packet* p) {
  if (queue_.packets() >= limit_) {
    ++dropped_;
    host_.sim().packets().release(p);
    return;
  }
  p->hop_time = host_.sim().now() + delay_;
  const bool was_empty = queue_.empty();
  queue_.push(p);
  max_queued_ = std::max<std::uint64_t>(max_queued_, queue_.packets());
  if (was_empty) arm_for_head();
}

void NetemDelay::arm_for_head() {
  // The watchdog is set when the head changes, for the head's time.
  if (const Packet* head = queue_.front()) host_.sim().arm_at(timer_, host_.clock().fire_time(head->hop_time));
}

void NetemDelay::handle_event(std::uint64_t) {
  // Everything due by now leaves; then the watchdog waits for the next.
  while (const Packet* head = queue_.front()) {
    if (head->hop_time > host_.sim().now()) break;
    ++packets_;
    host_.emit(queue_.pop());
  }
  arm_for_head();
}

}  // namespace netsim
