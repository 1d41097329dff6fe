// One simulation: clock, event queue, random streams, packet pool, components.
//
// There is no global state: any number of Simulation objects may run at once,
// one per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "netsim/sim/event_queue.h"
#include "netsim/sim/packet_pool.h"
#include "netsim/sim/rng.h"
#include "netsim/sim/time.h"

namespace netsim {

class Simulation;

// Base of everything the simulation owns and that has a name (hosts, links, ...).
class Component {
 public:
  Component(Simulation& sim, std::string name) : sim_(sim), name_(std::move(name)) {}
  virtual ~Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  const std::string& name() const { return name_; }
  Simulation& sim() const { return sim_; }

 private:
  Simulation& sim_;
  std::string name_;
};

class Simulation {
 public:
  explicit Simulation(std::uint64_t seed) : seed_(seed) { queue_.reserve(1024); }
  // Components go in reverse order of creation: a component may use the ones
  // made before it (an endpoint its host's clock) until it is gone. The
  // queue is dropped first, without touching its timers: a component gone
  // with a timer still armed must not be written into when a later
  // destructor cancels its own timer (the heap would move entries and write
  // their indices), and timers owned outside may already be gone too.
  ~Simulation() {
    queue_.abandon();
    while (!components_.empty()) components_.pop_back();
  }
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  SimTime now() const { return now_; }
  std::uint64_t seed() const { return seed_; }
  std::uint64_t events_processed() const { return events_processed_; }

  void schedule_at(SimTime t, EventHandler* h, std::uint64_t tag = 0) { queue_.schedule(t, h, tag); }
  void schedule_in(SimTime dt, EventHandler* h, std::uint64_t tag = 0) { queue_.schedule(now_ + dt, h, tag); }
  void arm_at(Timer& timer, SimTime t) { queue_.arm(timer, t); }
  void arm_in(Timer& timer, SimTime dt) { queue_.arm(timer, now_ + dt); }
  void cancel(Timer& timer) { queue_.cancel(timer); }

  // Runs events with time <= end, then leaves the clock at `end` (unless stopped).
  void run_until(SimTime end);
  // Runs until the queue is empty or stop() is called.
  void run() { run_until(kTimeNever); }
  // Makes the current run_until() return after the event being handled.
  void stop() { stop_requested_ = true; }

  // A fresh stream for `name`; same seed and name give the same draws.
  Rng rng_stream(std::string_view name) const { return Rng(seed_, name); }

  PacketPool& packets() { return pool_; }
  EventQueue& queue() { return queue_; }

  // Constructs a component owned by the simulation; returns a stable reference.
  template <typename T, typename... Args>
  T& add(Args&&... args) {
    auto owned = std::make_unique<T>(*this, std::forward<Args>(args)...);
    T& ref = *owned;
    components_.push_back(std::move(owned));
    return ref;
  }
  const std::vector<std::unique_ptr<Component>>& components() const { return components_; }
  Component* find(std::string_view name) const;

 private:
  std::uint64_t seed_;
  SimTime now_ = 0;
  std::uint64_t events_processed_ = 0;
  bool stop_requested_ = false;
  EventQueue queue_;
  PacketPool pool_;
  // Declared last: components may release packets to the pool when destroyed.
  std::vector<std::unique_ptr<Component>> components_;
};

}  // namespace netsim
