// IEEE 802.3x in a Channel: PAUSE frames received (receive_pause) and sent
// (send_pause), kept out of channel.cpp so that its per-packet path stays
// as small as before (the event queue's push inlines there).
#include <stdexcept>

#include "netsim/net/channel.h"

namespace netsim {

void Channel::receive_pause(SimTime duration) {
  flow_control_ = true;
  ++counters_.pause_frames;
  paused_until_ = sim_.now() + duration;
  if (duration > 0) {
    sim_.arm_at(pause_timer_, paused_until_);
    return;
  }
  if (pause_timer_.pending()) sim_.cancel(pause_timer_);
  start_if_idle();
}

void Channel::send_pause(SimTime duration, Channel& target) {
  if (pause_sent_ + pause_waiting_ == kPauseRing) {
    throw std::logic_error("channel " + from_ + "->" + to_ + ": too many PAUSE frames in flight");
  }
  pause_ring_[(pause_head_ + pause_sent_ + pause_waiting_) % kPauseRing] = PauseFrame{duration, &target};
  ++pause_waiting_;
  flow_control_ = true;
  start_if_idle();
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

// The 802.3x part of start_next, out of line so the hot path stays small:
// true when no data frame may start now (a PAUSE frame went on the wire, or
// this direction is paused); also books the time a waiting frame was held.
bool Channel::held_by_flow_control() {
  if (pause_waiting_ > 0) {
    start_pause_frame();
    return true;
  }
  if (paused_until_ > sim_.now()) {
    // The frame waits for the pause to end (pause_timer_ restarts us).
    if (pause_wait_since_ < 0 && !queue_.empty()) pause_wait_since_ = sim_.now();
    return true;
  }
  if (pause_wait_since_ >= 0 && !queue_.empty()) {
    counters_.paused_time += sim_.now() - pause_wait_since_;
    pause_wait_since_ = -1;
  }
  return false;
}

// The events of 802.3x, out of line: a PAUSE frame this end sent left the
// wire or reached the far end, or a pause received here ran out.
void Channel::flow_control_event(std::uint64_t tag) {
  if (tag == kTransmitDone) {  // our PAUSE frame's last bit left
    pause_in_service_ = false;
    --pause_waiting_;
    ++pause_sent_;
    ++counters_.pause_frames_sent;
    sim_.schedule_in(config_.delay, this, kPauseArrives);
    if (lpi_ != nullptr) lpi_->end_frame(lpi_dir_, sim_.now());
    start_next();
  } else if (tag == kPauseEnd) {
    start_if_idle();
  } else {  // kPauseArrives
    const PauseFrame f = pause_ring_[pause_head_];
    pause_head_ = (pause_head_ + 1) % kPauseRing;
    --pause_sent_;
    f.target->receive_pause(f.duration);
  }
}

}  // namespace netsim
