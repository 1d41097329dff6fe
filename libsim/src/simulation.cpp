#include "netsim/sim/simulation.h"

namespace netsim {

void Simulation::run_until(SimTime end) {
  stop_requested_ = false;
  while (!queue_.empty() && queue_.next_time() <= end) {
    QueuedEvent ev = queue_.pop();
    now_ = ev.time;
    ++events_processed_;
    ev.handler->handle_event(ev.tag);
    if (stop_requested_) return;
  }
  if (end != kTimeNever && now_ < end) now_ = end;
}

Component* Simulation::find(std::string_view name) const {
  for (const auto& c : components_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

}  // namespace netsim
