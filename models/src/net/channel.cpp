#include "netsim/net/channel.h"

#include <stdexcept>
#include <utility>

namespace netsim {
namespace {
// Event tags: 0 ends a serialization, 1 ends a PAUSE, 2 brings a PAUSE frame
// this end sent to the far end; any other value is the address of a packet
// arriving at the far end (packets are at least 8-byte aligned, so never 1 or 2).
constexpr std::uint64_t kTransmitDone = 0;
constexpr std::uint64_t kPauseEnd = 1;
constexpr std::uint64_t kPauseArrives = 2;
}  // namespace

Channel::Channel(Simulation& sim, std::string from, std::string to, const ChannelConfig& config,
                 PacketReceiver* receiver, int receiver_port)
    : sim_(sim), from_(std::move(from)), to_(std::move(to)), config_(config), receiver_(receiver),
      receiver_port_(receiver_port),
      pause_timer_(this, kPauseEnd) {}

void Channel::receive_pause(SimTime duration) {
  ++counters_.pause_frames;
  paused_until_ = sim_.now() + duration;
  if (duration > 0) {
    sim_.arm_at(pause_timer_, paused_until_);
    return;
  }
  if (pause_timer_.pending()) sim_.cancel(pause_timer_);
  start_unless_paused();
}

void Channel::send_pause(SimTime duration, Channel& target) {
  if (pause_sent_ + pause_waiting_ == kPauseRing) throw std::logic_error("channel " + from_ + "->" + to_ + ": too many PAUSE frames in flight");
  pause_ring_[(pause_head_ + pause_sent_ + pause_waiting_) % kPauseRing] = PauseFrame{duration, &target};
  ++pause_waiting_;
  start_unless_paused();
}

// MAC Control goes first, and is not held by a PAUSE this end received.
void Channel::start_pause_frame() {
  pause_in_service_ = true;
  const SimTime tx = pause_frame_time();
  counters_.busy_time += tx;
  SimTime until_done = tx;
  if (lpi_ != nullptr) until_done += lpi_->begin_frame(lpi_dir_, sim_.now());
  tx_end_ = sim_.now() + until_done;
  sim_.schedule_in(until_done, this, kTransmitDone);
}

bool Channel::send(Packet* p) {
  const std::uint32_t size = p->ip_bytes();
  if (size > config_.mtu) {
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
  start_unless_paused();
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
  if (pause_waiting_ > 0) [[unlikely]] {
    start_pause_frame();
    return;
  }
  if (paused_until_ > sim_.now()) [[unlikely]] {
    // 802.3x: the frame waits for the pause to end (pause_timer_ restarts us).
    if (pause_wait_since_ < 0 && !queue_.empty()) pause_wait_since_ = sim_.now();
    return;
  }
  in_service_ = queue_.pop();
  if (in_service_ == nullptr) return;
  if (pause_wait_since_ >= 0) [[unlikely]] {
    counters_.paused_time += sim_.now() - pause_wait_since_;
    pause_wait_since_ = -1;
  }
  const SimTime tx = serialization_time(*in_service_);
  counters_.busy_time += tx;
  SimTime until_done = tx;
  if (lpi_ != nullptr) [[unlikely]] until_done += lpi_->begin_frame(lpi_dir_, sim_.now());
  tx_end_ = sim_.now() + until_done;
  sim_.schedule_in(until_done, this, kTransmitDone);
  for (ChannelListener* l : listeners_) l->on_transmit_start();
}

void Channel::handle_event(std::uint64_t tag) {
  if (tag == kPauseEnd) {
    start_unless_paused();
    return;
  }
  if (tag == kPauseArrives) {
    const PauseFrame f = pause_ring_[pause_head_];
    pause_head_ = (pause_head_ + 1) % kPauseRing;
    --pause_sent_;
    f.target->receive_pause(f.duration);
    return;
  }
  if (tag == kTransmitDone && pause_in_service_) [[unlikely]] {
    pause_in_service_ = false;
    --pause_waiting_;
    ++pause_sent_;
    ++counters_.pause_frames_sent;
    sim_.schedule_in(config_.delay, this, kPauseArrives);
    if (lpi_ != nullptr) lpi_->end_frame(lpi_dir_, sim_.now());
    start_next();
    return;
  }
  if (tag == kTransmitDone) {
    Packet* p = in_service_;
    ++counters_.packets_sent;
    counters_.bytes_sent += p->ip_bytes();
    sim_.schedule_in(config_.delay, this, reinterpret_cast<std::uint64_t>(p));
    in_service_ = nullptr;
    if (lpi_ != nullptr) [[unlikely]] lpi_->end_frame(lpi_dir_, sim_.now());
    start_next();
    if (!observers_.empty()) [[unlikely]] notify(QueueEvent::dequeue, *p);
    return;
  }
  receiver_->receive(reinterpret_cast<Packet*>(tag), receiver_port_);
}

}  // namespace netsim
