// IEEE 802.3x PAUSE frames of a receiving station; see pause_frame_sender.h.
#include "netsim/net/pause_frame_sender.h"

#include <algorithm>
#include <stdexcept>

namespace netsim {

PauseFrameSender::PauseFrameSender(Simulation& sim, const FlowControlConfig& config, Channel& to_partner,
                                   Channel& from_partner)
    : sim_(sim), config_(config), to_partner_(to_partner), from_partner_(from_partner), refresh_timer_(this, 0) {
  if (config_.low_water_bytes > config_.high_water_bytes) {
    throw std::invalid_argument("flow control: low water above high water");
  }
  if (config_.refresh < 0) throw std::invalid_argument("flow control: refresh must be >= 0");
}

void PauseFrameSender::fill_changed(std::uint64_t bytes) {
  counters_.max_fill_bytes = std::max(counters_.max_fill_bytes, bytes);
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
  if (xoff) {
    ++counters_.xoff_frames;
  } else {
    ++counters_.xon_frames;
  }
  to_partner_.send_pause(xoff ? pause_duration() : 0, from_partner_);
}

// The refresh timer: XOFF again while the FIFO stays above low water.
void PauseFrameSender::handle_event(std::uint64_t) {
  if (!xoff_) return;
  send(true);
  sim_.arm_in(refresh_timer_, config_.refresh);
}

}  // namespace netsim
