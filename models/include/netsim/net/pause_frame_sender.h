// IEEE 802.3x flow control at a receiving station: the MAC sends PAUSE
// frames to its link partner when the NIC's receive FIFO fills (or, at a
// switch, the bytes that came in through a port: switch_flow_control.h), so
// the partner holds its frames instead of the receiver dropping them. The
// partner's side is Channel::receive_pause.
//
// Thresholds as Intel's e1000/igb MACs apply them (FCRTH, FCRTL with XONE,
// FCTTV). Linux igb as of 6.x (drivers/net/ethernet/intel/igb/igb_main.c
// igb_reset, read in torvalds/linux @ 6f23fc47) programs, for the i210/i211's
// 34 KB RX packet buffer (E1000_PBA_34K): high water = the buffer less one
// 1522-byte frame and one 9216-byte jumbo frame (MAX_JUMBO_FRAME_SIZE: room
// for what is in flight once the XOFF is sent) rounded down to 16 bytes =
// 24064, low water 16 bytes below, pause_time 0xFFFF, send_xon on:
//   FIFO occupancy rises to >= high_water -> XOFF: a PAUSE with pause_quanta;
//   while still above low_water, the XOFF is sent again every `refresh`;
//   occupancy falls to <= low_water -> XON (a PAUSE with 0), if send_xon.
// The frames go out through the station's own transmit channel
// (Channel::send_pause): 84 byte times on the wire after the frame in
// service, ahead of queued frames, then the link's delay. The partner pauses
// for pause_quanta x 512 bit times.
#pragma once

#include <cstdint>

#include "netsim/net/channel.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/timer.h"

namespace netsim {

struct FlowControlConfig {
  std::uint64_t high_water_bytes = 24064;  // igb, 34 KB RX packet buffer: (34816 - 1522 - 9216) & ~15
  std::uint64_t low_water_bytes = 24048;   // high water - 16
  std::uint16_t pause_quanta = 0xFFFF;     // igb: fc->pause_time; 65535 x 512 bit times = 33.55 ms at 1 Gbit/s
  bool send_xon = true;                    // igb: fc.send_xon = 1
  SimTime refresh = 0;                     // re-send XOFF this often while above low water (FCRTV); 0 = never
};

struct FlowControlCounters {
  std::uint64_t xoff_frames = 0;     // PAUSE frames with pause_quanta (refreshes included)
  std::uint64_t xon_frames = 0;      // PAUSE frames with 0
  std::uint64_t max_fill_bytes = 0;  // the watched level's high-water mark
};

class PauseFrameSender final : public EventHandler {
 public:
  // `to_partner`: this station's transmit direction, which carries the PAUSE
  // frames; `from_partner`: the partner's transmit direction, which they pause.
  PauseFrameSender(Simulation& sim, const FlowControlConfig& config, Channel& to_partner, Channel& from_partner);
  PauseFrameSender(const PauseFrameSender&) = delete;
  PauseFrameSender& operator=(const PauseFrameSender&) = delete;

  // The watched level (the receive FIFO's bytes) is now `bytes`.
  void fill_changed(std::uint64_t bytes);

  bool xoff() const { return xoff_; }
  const FlowControlConfig& config() const { return config_; }
  const FlowControlCounters& counters() const { return counters_; }
  // pause_quanta x 512 bit times at the partner's rate.
  SimTime pause_duration() const { return from_partner_.config().rate.transmit_time(config_.pause_quanta * 64LL); }

  void handle_event(std::uint64_t tag) override;

 private:
  void send(bool xoff);

  Simulation& sim_;
  FlowControlConfig config_;
  Channel& to_partner_;
  Channel& from_partner_;
  bool xoff_ = false;
  Timer refresh_timer_;
  FlowControlCounters counters_;
};

}  // namespace netsim
