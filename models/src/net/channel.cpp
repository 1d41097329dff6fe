#include "netsim/net/channel.h"

#include <utility>

namespace netsim {

Channel::Channel(Simulation& sim, std::string from, std::string to, const ChannelConfig& config,
                 PacketReceiver* receiver, int receiver_port)
    : sim_(sim), from_(std::move(from)), to_(std::move(to)), config_(config), receiver_(receiver),
      receiver_port_(receiver_port),
      pause_timer_(this, kPauseEnd) {}

bool Channel::send(Packet* p) {
  const std::uint32_t size = p->ip_bytes();
  // A TSO frame on a vNIC is segmented by the hypervisor: the MTU bounds its segments.
  const std::uint32_t mtu_size = p->seg_payload == 0 ? size : size - p->payload_bytes + p->seg_payload;
  if (mtu_size > config_.mtu) {
    ++counters_.mtu_drops;
    sim_.packets().release(p);
    return false;
  }
  if ((config_.limit_packets && occupancy_packets() + 1 > *config_.limit_packets) ||
      (config_.limit_bytes && occupancy_bytes() + size > *config_.limit_bytes)) {
    ++counters_.packets_dropped;
    counters_.bytes_dropped += size;
    if (!observers_.empty()) [[unlikely]] notify(QueueEvent::drop, *p);
    sim_.packets().release(p);
    return false;
  }
  queue_.push(p);
  start_if_idle();
  const std::uint64_t packets = occupancy_packets();
  const std::uint64_t bytes = occupancy_bytes();
  if (packets > counters_.max_queue_packets) counters_.max_queue_packets = packets;
  if (bytes > counters_.max_queue_bytes) counters_.max_queue_bytes = bytes;
  if (packets > peak_.packets) peak_.packets = packets;
  if (bytes > peak_.bytes) peak_.bytes = bytes;
  if (!observers_.empty()) [[unlikely]] notify(QueueEvent::enqueue, *p);
  return true;
}

void Channel::start_next() {
  if (flow_control_ && held_by_flow_control()) [[unlikely]] return;
  in_service_ = queue_.pop();
  if (in_service_ == nullptr) return;
  const SimTime tx = serialization_time(*in_service_);
  counters_.busy_time += tx;
  SimTime until_done = tx;
  if (lpi_ != nullptr) [[unlikely]] until_done += lpi_->begin_frame(lpi_dir_, sim_.now());
  tx_end_ = sim_.now() + until_done;
  sim_.schedule_in(until_done, this, kTransmitDone);
  for (ChannelListener* l : listeners_) l->on_transmit_start();
}

void Channel::handle_event(std::uint64_t tag) {
  if (tag > kPauseArrives) [[likely]] {
    receiver_->receive(reinterpret_cast<Packet*>(tag), receiver_port_);
    return;
  }
  if (tag != kTransmitDone || pause_in_service_) [[unlikely]] {
    flow_control_event(tag);
    return;
  }
  Packet* p = in_service_;
  ++counters_.packets_sent;
  counters_.bytes_sent += p->ip_bytes();
  sim_.schedule_in(config_.delay, this, reinterpret_cast<std::uint64_t>(p));
  in_service_ = nullptr;
  if (lpi_ != nullptr) [[unlikely]] lpi_->end_frame(lpi_dir_, sim_.now());
  start_next();
  if (!observers_.empty()) [[unlikely]] notify(QueueEvent::dequeue, *p);
}

}  // namespace netsim
