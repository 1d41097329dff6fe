// The receiving side of an event: a component that the queue calls back.
#pragma once

#include <cstdint>

namespace netsim {

// Events are small values (time, sequence, handler, tag); the handler decides
// from the 64-bit tag what the event means (a timer id, a packet pointer, ...).
// This keeps events allocation-free, unlike a queue of std::function.
class EventHandler {
 public:
  virtual void handle_event(std::uint64_t tag) = 0;

 protected:
  ~EventHandler() = default;
};

}  // namespace netsim
