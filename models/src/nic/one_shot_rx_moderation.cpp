// re(4)-style one-shot receive interrupt moderation; see one_shot_rx_moderation.h.
#include "netsim/nic/one_shot_rx_moderation.h"

#include <algorithm>
#include <stdexcept>

namespace netsim {

namespace {
constexpr std::uint64_t kTimerTag = 0;
constexpr std::uint64_t kHandlerTag = 1;
}  // namespace

OneShotRxModeration::OneShotRxModeration(Simulation& sim, std::string name, SimTime interval, SimTime handler_latency,
                                         SimTime handler_jitter)
    : Component(sim, std::move(name)),
      interval_(interval),
      handler_latency_(handler_latency),
      handler_jitter_(handler_jitter),
      rng_(sim.rng_stream("host-nic/" + this->name())),
      timer_(this, kTimerTag),
      handler_timer_(this, kHandlerTag) {
  if (interval_ <= 0) throw std::invalid_argument("RX moderation " + this->name() + ": the timer must be > 0");
  if (handler_latency_ < 0 || handler_jitter_ < 0) {
    throw std::invalid_argument("RX moderation " + this->name() + ": the handler latency and its jitter must be >= 0");
  }
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
    ring_.push(p);  // the common case under load: kept small, the interrupt apart
    return;
  }
  rx_interrupt(p);
}

void OneShotRxModeration::rx_interrupt(Packet* p) {
  // RX interrupt: re_rxeof takes the frame, then RX interrupts are masked and
  // the one-shot timer started.
  ++counters_.rx_interrupts;
  masked_ = true;
  if (delayed_handler()) {
    defer_handler(p);
    return;
  }
  sim().arm_in(timer_, interval_);
  ++counters_.irq_frames;
  next_->receive(p, next_port_);
}

void OneShotRxModeration::defer_handler(Packet* p) {
  // The handler runs later; until then the ring fills (the chip's IMR is
  // cleared on entry, so no second interrupt).
  ring_.push(p);
  timer_pending_ = false;
  sim().arm_in(handler_timer_, handler_delay());
}

void OneShotRxModeration::handle_event(std::uint64_t tag) {
  if (tag == kHandlerTag) {
    run_handler();
    return;
  }
  ++counters_.timer_interrupts;
  if (delayed_handler()) {
    timer_pending_ = true;
    sim().arm_in(handler_timer_, handler_delay());
    return;
  }
  timer_handler();
}

void OneShotRxModeration::timer_handler() {
  // Timer interrupt: take the whole ring, unmask RX interrupts, no re-arm.
  const std::uint64_t batch = ring_.packets();
  counters_.timer_frames += batch;
  counters_.max_timer_batch = std::max(counters_.max_timer_batch, batch);
  masked_ = false;
  hand_on_ring();
}

void OneShotRxModeration::hand_on_ring() {
  while (Packet* p = ring_.pop()) next_->receive(p, next_port_);
}

SimTime OneShotRxModeration::handler_delay() {
  if (handler_jitter_ == 0) return handler_latency_;
  return handler_latency_ + uniform_up_to(rng_, handler_jitter_);
}

void OneShotRxModeration::run_handler() {
  if (timer_pending_) {
    timer_handler();
    return;
  }
  // re_rxeof, then the one-shot timer is started from the handler.
  counters_.irq_frames += ring_.packets();
  sim().arm_in(timer_, interval_);
  hand_on_ring();
}

}  // namespace netsim
