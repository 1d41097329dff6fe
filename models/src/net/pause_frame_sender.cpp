// IEEE 802.3x PAUSE frames of a receiving station; see pause_frame_sender.h.
#include "netsim/net/pause_frame_sender.h"

#include <algorithm>
#include <stdexcept>

namespace netsim {

PauseFrameSender::PauseFrameSender(Simulation& sim, const FlowControlConfig& config, const Channel& to_partner,
                                   Channel& from_partner)
    : sim_(sim),
      config_(config),
      to_partner_(to_partner),
      from_partner_(from_partner),
      arrive_timer_(this, kArrive),
      refresh_timer_(this, kRefresh) {
  if (config_.low_water_bytes > config_.high_water_bytes) {
    throw std::invalid_argument("flow control: low water above high water");
  }
  if (config_.refresh < 0) throw std::invalid_argument("flow control: refresh must be >= 0");
}

void PauseFrameSender::fifo_changed(std::uint64_t bytes) {
  fifo_bytes_ = bytes;
  counters_.max_fifo_bytes = std::max(counters_.max_fifo_bytes, bytes);
  if (!xoff_ && bytes >= config_.high_water_bytes) {
    xoff_ = true;
    send(true);
    if (config_.refresh > 0) sim_.arm_in(refresh_timer_, config_.refresh);
  } else if (xoff_ && bytes <= config_.low_water_bytes) {
    xoff_ = false;
    if (refresh_timer_.pending()) sim_.cancel(refresh_timer_);
    if (config_.send_xon) send(false);
  }
}

void PauseFrameSender::send(bool xoff) {
  if (count_ == kInFlight) throw std::logic_error("flow control: too many PAUSE frames in flight");
  if (xoff) {
    ++counters_.xoff_frames;
  } else {
    ++counters_.xon_frames;
  }
  const SimTime frame = to_partner_.config().rate.transmit_time(kPauseFrameBytes);
  const SimTime departure = std::max(to_partner_.idle_at(), last_departure_) + frame;
  last_departure_ = departure;
  const SimTime arrival = departure + to_partner_.config().delay;
  in_flight_[(head_ + count_) % kInFlight] = InFlight{arrival, xoff};
  ++count_;
  if (count_ == 1) sim_.arm_at(arrive_timer_, arrival);
}

void PauseFrameSender::handle_event(std::uint64_t tag) {
  if (tag == kRefresh) {
    if (xoff_) {
      send(true);
      sim_.arm_in(refresh_timer_, config_.refresh);
    }
    return;
  }
  // Frames arrive in the order sent (one link, one delay).
  const InFlight f = in_flight_[head_];
  head_ = (head_ + 1) % kInFlight;
  --count_;
  from_partner_.receive_pause(f.xoff ? pause_duration() : 0);
  if (count_ > 0) sim_.arm_at(arrive_timer_, in_flight_[head_].arrival);
}

}  // namespace netsim
