// 802.3x PAUSE from a switch's ingress accounting; see switch_flow_control.h.
#include "netsim/net/switch_flow_control.h"

#include <stdexcept>

namespace netsim {

SwitchFlowControl::SwitchFlowControl(Simulation& sim, std::string name, Switch& sw, const FlowControlConfig& config,
                                     const std::vector<Channel*>& from_partner)
    : Component(sim, std::move(name)), buffered_(static_cast<std::size_t>(sw.port_count()), 0) {
  if (from_partner.size() != buffered_.size()) {
    throw std::invalid_argument("switch flow control " + this->name() + ": one incoming channel per port needed");
  }
  for (int i = 0; i < sw.port_count(); ++i) {
    senders_.push_back(
        std::make_unique<PauseFrameSender>(sim, config, sw.port(i), *from_partner[static_cast<std::size_t>(i)]));
    sw.port(i).add_observer(this);
  }
}

void SwitchFlowControl::on_queue_change(const Channel&, QueueEvent event, const Packet& p) {
  if (event == QueueEvent::drop) return;  // never admitted
  // Switch::receive leaves the input port in hop_scratch until the frame has left.
  const auto in = static_cast<std::size_t>(p.hop_scratch);
  if (event == QueueEvent::enqueue) {
    buffered_[in] += p.ip_bytes();
  } else {
    buffered_[in] -= p.ip_bytes();
  }
  senders_[in]->fill_changed(buffered_[in]);
}

}  // namespace netsim
