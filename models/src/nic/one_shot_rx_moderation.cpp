// re(4)-style one-shot receive interrupt moderation; see one_shot_rx_moderation.h.
#include "netsim/nic/one_shot_rx_moderation.h"

#include <algorithm>
#include <stdexcept>

namespace netsim {

OneShotRxModeration::OneShotRxModeration(Simulation& sim, std::string name, SimTime interval)
    : Component(sim, std::move(name)), interval_(interval), timer_(this, 0) {
  if (interval_ <= 0) throw std::invalid_argument("RX moderation " + this->name() + ": the timer must be > 0");
}

OneShotRxModeration::~OneShotRxModeration() {
  while (Packet* p = ring_.pop()) sim().packets().release(p);
}

void OneShotRxModeration::attach(Channel& channel) {
  next_ = channel.receiver();
  next_port_ = channel.receiver_port();
  if (next_ == nullptr) throw std::logic_error("RX moderation " + name() + ": the channel has no receiver to interpose on");
  channel.set_receiver(this, next_port_);
}

void OneShotRxModeration::receive(Packet* p, int) {
  ++counters_.frames;
  if (masked_) {
    ring_.push(p);
    return;
  }
  // RX interrupt: re_rxeof takes the frame, then RX interrupts are masked and
  // the one-shot timer started.
  ++counters_.rx_interrupts;
  masked_ = true;
  sim().arm_in(timer_, interval_);
  next_->receive(p, next_port_);
}

void OneShotRxModeration::handle_event(std::uint64_t) {
  // Timer interrupt: take the whole ring, unmask RX interrupts, no re-arm.
  ++counters_.timer_interrupts;
  const std::uint64_t batch = ring_.packets();
  counters_.timer_frames += batch;
  counters_.max_timer_batch = std::max(counters_.max_timer_batch, batch);
  masked_ = false;
  while (Packet* p = ring_.pop()) next_->receive(p, next_port_);
}

}  // namespace netsim
