// One direction of a link: a transmit queue, a serializer and a wire.
//
// A packet handed to send() waits in the FIFO, is serialized at `rate`
// (IP bytes plus per-frame framing overhead), then arrives at the far end
// after the propagation delay. Store-and-forward: the far end sees the packet
// only when its last bit has arrived.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netsim/net/low_power_idle.h"
#include "netsim/net/packet_receiver.h"
#include "netsim/net/queue_observer.h"
#include "netsim/sim/data_rate.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/packet_queue.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/timer.h"

namespace netsim {

struct ChannelConfig {
  DataRate rate = DataRate::gbps(1);
  SimTime delay = 0;
  std::uint32_t mtu = 1500;           // largest IP datagram accepted
  std::uint32_t framing_bytes = 38;   // Ethernet header+FCS+preamble+inter-frame gap
  // Limits on occupancy: queued packets plus the one being serialized,
  // as a switch's packet buffer holds a frame until its last bit has left.
  std::optional<std::uint64_t> limit_packets;
  std::optional<std::uint64_t> limit_bytes;
};

// Told when a packet leaves the queue for the wire (a sender that keeps the
// interface busy, like `nuttcp -u` at full rate, refills on this).
class ChannelListener {
 public:
  virtual void on_transmit_start() = 0;

 protected:
  ~ChannelListener() = default;
};

struct ChannelCounters {
  std::uint64_t packets_sent = 0;  // completed serializations
  std::uint64_t bytes_sent = 0;    // IP bytes
  std::uint64_t packets_dropped = 0;  // queue full (tail drop)
  std::uint64_t bytes_dropped = 0;
  std::uint64_t mtu_drops = 0;        // larger than the MTU
  SimTime busy_time = 0;
  std::uint64_t max_queue_packets = 0;  // occupancy high-water marks
  std::uint64_t max_queue_bytes = 0;
  // IEEE 802.3x flow control: PAUSE frames the far end sent this direction's
  // transmitter (XON included), and the time a waiting frame was held by one;
  // PAUSE frames this direction carried (not in packets_sent; their wire
  // time is in busy_time).
  std::uint64_t pause_frames = 0;
  SimTime paused_time = 0;
  std::uint64_t pause_frames_sent = 0;
};

class Channel final : public EventHandler {
 public:
  Channel(Simulation& sim, std::string from, std::string to, const ChannelConfig& config, PacketReceiver* receiver,
          int receiver_port);
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Queues `p` for transmission; takes ownership. Returns false (and releases
  // the packet) on tail drop or MTU violation.
  bool send(Packet* p);

  void add_listener(ChannelListener* l) { listeners_.push_back(l); }
  // Energy-Efficient Ethernet: frames of this channel are direction `dir` of
  // `lpi` (owned by the link), and wait for it to wake when it sleeps.
  void set_low_power_idle(LowPowerIdle* lpi, int dir) {
    lpi_ = lpi;
    lpi_dir_ = dir;
  }
  // This direction's wake-ups and waits; null without Energy-Efficient Ethernet.
  const LowPowerIdleCounters* low_power_idle_counters() const { return lpi_ ? &lpi_->counters(lpi_dir_) : nullptr; }
  // Told after every enqueue, dequeue and tail drop, in the order added
  // (not owned; each must outlive the channel's traffic).
  void add_observer(QueueObserver* o) { observers_.push_back(o); }
  // Interposes a stage (a NIC's receive path, say) between the wire and the
  // node: packets then go to `r` instead of the node the link was built with.
  void set_receiver(PacketReceiver* r, int port) {
    receiver_ = r;
    receiver_port_ = port;
  }
  PacketReceiver* receiver() const { return receiver_; }
  int receiver_port() const { return receiver_port_; }
  const ChannelConfig& config() const { return config_; }
  void set_limits(std::optional<std::uint64_t> packets, std::optional<std::uint64_t> bytes) {
    config_.limit_packets = packets;
    config_.limit_bytes = bytes;
  }
  const ChannelCounters& counters() const { return counters_; }
  // Occupancy as the limits see it (queued plus in service).
  std::uint64_t occupancy_packets() const { return queue_.packets() + (in_service_ != nullptr ? 1 : 0); }
  std::uint64_t occupancy_bytes() const { return queue_.bytes() + (in_service_ != nullptr ? in_service_->ip_bytes() : 0); }
  std::uint64_t queued_packets() const { return queue_.packets(); }
  // IP bytes of the packets held (queued or in service) for which pred(p) holds.
  template <typename Pred>
  std::uint64_t occupancy_bytes_if(Pred pred) const {
    std::uint64_t bytes = (in_service_ != nullptr && pred(*in_service_)) ? in_service_->ip_bytes() : 0;
    for (const Packet* p = queue_.front(); p != nullptr; p = p->next) {
      if (pred(*p)) bytes += p->ip_bytes();
    }
    return bytes;
  }
  // The highest occupancy since the previous call (or the start), for
  // per-interval queue reports; the next window starts at the current occupancy.
  struct OccupancyPeak {
    std::uint64_t packets = 0;
    std::uint64_t bytes = 0;
  };
  OccupancyPeak take_peak() {
    const OccupancyPeak p = peak_;
    peak_ = OccupancyPeak{occupancy_packets(), occupancy_bytes()};
    return p;
  }
  bool busy() const { return in_service_ != nullptr || pause_in_service_; }
  // IEEE 802.3x (Annex 31B): a PAUSE frame from the far end reaches this
  // direction's transmitter. The frame in service finishes; no other starts
  // for `duration` from now (pause_time x 512 bit times). A later PAUSE
  // replaces the timer, and duration 0 (XON) lifts it at once.
  void receive_pause(SimTime duration);
  // This end's MAC Control sends a PAUSE frame: 84 byte times on this
  // direction's wire (a 64-byte frame, preamble and gap), after the frame in
  // service but ahead of the queued ones, also while this direction is
  // itself paused; `target` (the far end's transmitter toward us) gets
  // receive_pause(duration) when it arrives. Frames queued here wait for it.
  void send_pause(SimTime duration, Channel& target);
  bool paused() const { return paused_until_ > sim_.now(); }
  // Serialization time spent up to `now` (busy_time counts a frame's whole
  // serialization when it starts; a wake-up wait before it is not busy time).
  SimTime busy_time_so_far(SimTime now) const {
    if (!busy() || tx_end_ <= now) return counters_.busy_time;
    const SimTime frame = in_service_ != nullptr ? serialization_time(*in_service_) : pause_frame_time();
    return counters_.busy_time - std::min(tx_end_ - now, frame);
  }
  const std::string& from() const { return from_; }
  const std::string& to() const { return to_; }

  void handle_event(std::uint64_t tag) override;

  // Event tags: 0 ends a serialization, 1 ends a PAUSE, 2 brings a PAUSE
  // frame this end sent to the far end; any other value is the address of a
  // packet arriving at the far end (at least 8-byte aligned: never 1 or 2).
  static constexpr std::uint64_t kTransmitDone = 0;
  static constexpr std::uint64_t kPauseEnd = 1;
  static constexpr std::uint64_t kPauseArrives = 2;

 private:
  void start_next();
  void start_if_idle() {
    if (!busy()) start_next();
  }
  void start_pause_frame();
  [[gnu::noinline]] bool held_by_flow_control();
  [[gnu::noinline]] void flow_control_event(std::uint64_t tag);
  static constexpr std::int64_t kPauseFrameBytes = 84;  // 64-byte MAC control frame + preamble + gap
  SimTime pause_frame_time() const { return config_.rate.transmit_time(kPauseFrameBytes); }
  SimTime serialization_time(const Packet& p) const {
    return config_.rate.transmit_time(p.ip_bytes() + config_.framing_bytes);
  }

  Simulation& sim_;
  std::string from_;
  std::string to_;
  ChannelConfig config_;
  PacketReceiver* receiver_;
  int receiver_port_;
  PacketQueue queue_;
  Packet* in_service_ = nullptr;
  SimTime tx_end_ = 0;  // last bit of the frame in service (after a wake-up wait, if any)
  std::vector<ChannelListener*> listeners_;
  LowPowerIdle* lpi_ = nullptr;
  int lpi_dir_ = 0;
  void notify(QueueEvent event, const Packet& p) {
    for (QueueObserver* o : observers_) o->on_queue_change(*this, event, p);
  }

  std::vector<QueueObserver*> observers_;
  ChannelCounters counters_;
  OccupancyPeak peak_;
  bool flow_control_ = false;     // a PAUSE was ever received or sent here: check the 802.3x state
  SimTime paused_until_ = 0;      // no frame starts before this (802.3x)
  SimTime pause_wait_since_ = -1; // a frame has waited since then for the pause to end; -1: none
  Timer pause_timer_;
  // PAUSE frames this end sends: waiting for the wire, then on it, then
  // propagating, in order (one wire, one delay), in a fixed ring.
  struct PauseFrame {
    SimTime duration = 0;
    Channel* target = nullptr;
  };
  static constexpr std::size_t kPauseRing = 64;
  std::array<PauseFrame, kPauseRing> pause_ring_{};
  std::size_t pause_head_ = 0;     // oldest frame still propagating or waiting
  std::size_t pause_sent_ = 0;     // frames that left the wire, not yet arrived
  std::size_t pause_waiting_ = 0;  // frames not yet on the wire
  bool pause_in_service_ = false;
};

}  // namespace netsim
