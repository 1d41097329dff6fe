// An ESXi vSwitch with the VMs of one host on its ports: the VMXNET3
// backend that takes frames from a guest's transmit ring and puts them into
// another guest's receive ring, on the hypervisor's own serial CPU (the
// vNIC's vmkernel world), whose time is not the guests'.
//
// A frame that is a TSO frame (Packet::segments > 1, seg_payload = the MSS
// of the guest's descriptor) goes to a vNIC that negotiated LRO
// (UPT1_F_LRO: the guest driver has LRO on) whole, as one frame of up to 64
// KB; to any other vNIC it is cut into MTU-sized segments (software TSO in
// the backend). Not published by VMware: that the same-host path hands a
// TSO frame over unsegmented is a guess (docs/vmxnet3.md). Frames already
// of MTU size pass as they are; the backend does not aggregate separate
// frames (Net.Vmxnet3SwLRO is not modelled).
//
// Hypervisor CPU per frame taken from a transmit ring (costs in HypervisorCosts):
//   c = frame + segments_made * segment + copy_per_kib * bytes / 1024
// run first come, first served; a frame moves on when its work ends, in order.
// The receive ring, its drops and interrupt moderation are the receiving
// guest's NIC stage (GroReceiveNic in front of the host).
//
// No allocation per frame: waiting frames form an intrusive FIFO, segments
// come from the packet pool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netsim/host/host_cpu.h"
#include "netsim/net/hypervisor_costs.h"
#include "netsim/net/node.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/packet_queue.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/timer.h"

namespace netsim {

struct VSwitchCounters {
  std::uint64_t frames = 0;             // taken from transmit rings
  std::uint64_t bytes = 0;              // their IP bytes
  std::uint64_t tso_frames_whole = 0;   // TSO frames delivered whole (LRO vNIC)
  std::uint64_t tso_frames_segmented = 0;
  std::uint64_t segments_made = 0;      // MTU segments cut from them
  std::uint64_t unroutable = 0;
};

class VSwitch final : public Node, public EventHandler {
 public:
  VSwitch(Simulation& sim, std::string name, NodeId id, const HypervisorCosts& costs);
  ~VSwitch() override;

  // The vNIC behind `port` negotiated LRO (UPT1_F_LRO). Off by default.
  void set_port_lro(int port, bool lro);
  bool port_lro(int port) const;

  void receive(Packet* p, int in_port) override;
  void handle_event(std::uint64_t tag) override;

  const HypervisorCosts& costs() const { return costs_; }
  // The hypervisor's CPU; null when every cost is zero.
  const HostCpu* cpu() const { return costs_.any() ? &cpu_ : nullptr; }
  const VSwitchCounters& counters() const { return counters_; }

 private:
  void forward(Packet* p, int out);
  void segment(Packet* p, int out);

  HypervisorCosts costs_;
  TickClock clock_;  // no hardclock cost: only for HostCpu's accounting
  HostCpu cpu_;
  std::vector<bool> lro_;  // by port
  PacketQueue waiting_;    // frames whose work has not ended (hop_time), in order
  Timer timer_;
  VSwitchCounters counters_;
};

}  // namespace netsim
