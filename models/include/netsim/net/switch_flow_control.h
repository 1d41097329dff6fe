// IEEE 802.3x at a switch: PAUSE frames out of an input port whose frames
// fill too much of the switch's buffers, so the station behind that port
// holds its frames (in its own interface queue, with its own tail drop)
// instead of the switch dropping them at the congested output.
//
// Ingress accounting, as shared-buffer switch chips do it: B_i = the IP bytes
// that came in through port i and are still in the switch (queued at any
// output port, or on its wire). One PauseFrameSender per port applies the
// thresholds to B_i (pause_frame_sender.h):
//   B_i rises to >= high_water -> XOFF out of port i;
//   B_i falls to <= low_water  -> XON (if send_xon); refresh as configured.
// The PAUSE goes out on the switch's own channel of port i and pauses the
// partner's channel toward the switch. Frames a full output port drops are
// never counted. A switch that pauses every input when one output fills
// (head-of-line blocking) is not modelled.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netsim/net/channel.h"
#include "netsim/net/pause_frame_sender.h"
#include "netsim/net/queue_observer.h"
#include "netsim/net/switch.h"
#include "netsim/sim/simulation.h"

namespace netsim {

class SwitchFlowControl final : public Component, public QueueObserver {
 public:
  // `from_partner[i]`: the channel that delivers to `sw`'s port i (the one
  // PAUSE frames out of port i stop). Watches every output port of `sw`.
  SwitchFlowControl(Simulation& sim, std::string name, Switch& sw, const FlowControlConfig& config,
                    const std::vector<Channel*>& from_partner);

  void on_queue_change(const Channel& ch, QueueEvent event, const Packet& p) override;

  // Bytes that came in through `port` and are still buffered.
  std::uint64_t buffered(int port) const { return buffered_.at(static_cast<std::size_t>(port)); }
  const PauseFrameSender& sender(int port) const { return *senders_.at(static_cast<std::size_t>(port)); }

 private:
  std::vector<std::uint64_t> buffered_;
  std::vector<std::unique_ptr<PauseFrameSender>> senders_;
};

}  // namespace netsim
