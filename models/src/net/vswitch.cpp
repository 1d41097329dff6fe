// ESXi vSwitch between VMXNET3 vNICs; see vswitch.h and docs/vmxnet3.md.
#include "netsim/net/vswitch.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace netsim {
namespace {

// The costs on a host `speed` times as fast (HostCpuCosts::speed).
HypervisorCosts at_speed(HypervisorCosts c) {
  if (!(c.speed > 0)) throw std::invalid_argument("the vSwitch CPU speed must be > 0");
  for (SimTime HypervisorCosts::*m : {&HypervisorCosts::frame, &HypervisorCosts::segment, &HypervisorCosts::copy_per_kib}) {
    c.*m = static_cast<SimTime>(std::llround(static_cast<double>(c.*m) / c.speed));
  }
  return c;
}

}  // namespace

VSwitch::VSwitch(Simulation& sim, std::string name, NodeId id, const HypervisorCosts& costs)
    : Node(sim, std::move(name), id, NodeKind::vswitch),
      costs_(at_speed(costs)),
      clock_(sim, 1000, 0),
      cpu_(clock_, HostCpuCosts{}),  // its costs are charged explicitly (run)
      timer_(this, 0) {}

VSwitch::~VSwitch() {
  while (Packet* p = waiting_.pop()) sim().packets().release(p);
}

void VSwitch::set_port_lro(int port, bool lro) {
  if (port < 0) return;
  if (static_cast<std::size_t>(port) >= lro_.size()) lro_.resize(static_cast<std::size_t>(port) + 1, false);
  lro_[static_cast<std::size_t>(port)] = lro;
}

bool VSwitch::port_lro(int port) const {
  return port >= 0 && static_cast<std::size_t>(port) < lro_.size() && lro_[static_cast<std::size_t>(port)];
}

void VSwitch::receive(Packet* p, int in_port) {
  const int out = next_port(p->dst);
  if (out < 0 || out == in_port) {
    ++counters_.unroutable;
    sim().packets().release(p);
    return;
  }
  ++counters_.frames;
  counters_.bytes += p->ip_bytes();
  const bool cut = p->segments > 1 && p->seg_payload > 0 && !port_lro(out);
  if (!costs_.any()) {
    forward(p, out);
    return;
  }
  const std::uint32_t made = cut ? (p->payload_bytes + p->seg_payload - 1u) / p->seg_payload : 0;
  const SimTime cost = costs_.frame + static_cast<SimTime>(made) * costs_.segment +
                       static_cast<SimTime>(p->ip_bytes()) * costs_.copy_per_kib / 1024;
  const SimTime done = cpu_.run(cost, CpuContext::system);
  if (done <= sim().now() && waiting_.empty()) {
    forward(p, out);
    return;
  }
  p->hop_time = done;
  p->hop_scratch = out;
  const bool was_empty = waiting_.empty();
  waiting_.push(p);
  if (was_empty) sim().arm_at(timer_, done);
}

// The hypervisor finished the frames at the head of the queue.
void VSwitch::handle_event(std::uint64_t) {
  while (Packet* p = waiting_.front()) {
    if (p->hop_time > sim().now()) {
      sim().arm_at(timer_, p->hop_time);
      return;
    }
    waiting_.pop();
    forward(p, p->hop_scratch);
  }
}

void VSwitch::forward(Packet* p, int out) {
  if (p->segments > 1 && p->seg_payload > 0) {
    if (!port_lro(out)) {
      segment(p, out);
      return;
    }
    ++counters_.tso_frames_whole;
  }
  port(out).send(p);
}

// Software TSO: MSS-sized segments, PSH (and FIN) only on the last, each
// with the frame's ACK, window and timestamps, as a NIC's TSO engine cuts them.
void VSwitch::segment(Packet* p, int out) {
  ++counters_.tso_frames_segmented;
  const std::uint32_t mss = p->seg_payload;
  const std::uint32_t total = p->payload_bytes;
  const std::uint8_t last_only = tcp_flags::kPush | tcp_flags::kFin;
  p->segments = 1;
  p->seg_payload = 0;
  for (std::uint32_t off = 0; off < total; off += mss) {
    const std::uint32_t len = std::min(mss, total - off);
    const bool last = off + len >= total;
    Packet* s = last ? p : sim().packets().clone(*p);
    s->tcp.seq = p->tcp.seq + off;
    s->payload_bytes = len;
    if (!last) s->tcp.flags = static_cast<std::uint8_t>(s->tcp.flags & ~last_only);
    ++counters_.segments_made;
    port(out).send(s);
  }
}

}  // namespace netsim
