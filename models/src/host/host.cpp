#include "netsim/host/host.h"

#include <stdexcept>

namespace netsim {
namespace {
SimTime draw_host_phase(Simulation& sim, const std::string& name, int hz) {
  Rng rng = sim.rng_stream("host/" + name + "/tick-phase");
  return TickClock::draw_phase(rng, hz);
}
}  // namespace

Host::Host(Simulation& sim, std::string name, NodeId id, std::string address, IpVersion ip_version, int hz)
    : Node(sim, name, id, NodeKind::host),
      address_(std::move(address)),
      ip_version_(ip_version),
      clock_(sim, hz, draw_host_phase(sim, name, hz)) {}

Host::~Host() {
  // Packets still waiting for the CPU go back to the pool (it outlives components).
  for (auto& c : cores_) {
    while (Packet* p = c->queue.pop()) sim().packets().release(p);
  }
}

void Host::set_cpu(const HostCpuCosts& costs, const HostCpuLayout& layout) {
  if (layout.cores < 1 || layout.cores > 64 || layout.irq_core < 0 || layout.irq_core >= layout.cores ||
      layout.app_core < 0 || layout.app_core >= layout.cores) {
    throw std::invalid_argument("host " + name() + ": cpu layout needs 1..64 cores and irq_core, app_core below cores");
  }
  for (auto& c : cores_) {
    while (Packet* p = c->queue.pop()) sim().packets().release(p);
  }
  cores_.clear();
  app_core_ = irq_core_ = 0;
  if (!costs.any()) return;
  for (int i = 0; i < layout.cores; ++i) {
    cores_.push_back(std::make_unique<Core>(clock_, costs, this, static_cast<std::uint64_t>(i)));
  }
  app_core_ = layout.app_core;
  irq_core_ = layout.irq_core;
}

bool Host::waits_for_cpu(Packet* p, int core, SimTime cost, CpuContext ctx, Direction d) {
  Core& c = *cores_[static_cast<std::size_t>(core)];
  const SimTime done = c.cpu.run(cost, ctx);
  // Behind packets still waiting, even when its own work is done now: order is kept.
  if (done <= sim().now() && c.queue.empty()) return false;
  p->hop_time = done;
  p->hop_scratch = d;
  if (d == kOut) ++tx_backlog_;
  const bool was_empty = c.queue.empty();
  c.queue.push(p);
  if (was_empty) sim().arm_at(c.timer, done);
  return true;
}

// A core finished the work of the packets at the head of its queue.
void Host::handle_event(std::uint64_t tag) {
  Core& c = *cores_[static_cast<std::size_t>(tag)];
  while (Packet* p = c.queue.front()) {
    if (p->hop_time > sim().now()) {
      sim().arm_at(c.timer, p->hop_time);
      return;
    }
    c.queue.pop();
    if (p->hop_scratch == kOut) {
      --tx_backlog_;
      transmit(p);
    } else {
      deliver(p);
    }
  }
}

bool Host::filtered(const std::vector<PacketFilter*>& chain, const Packet& p) {
  for (PacketFilter* f : chain) {
    if (f->should_drop(p)) return true;
  }
  return false;
}

Channel* Host::route(NodeId dst) const {
  const int out = next_port(dst);
  return out < 0 ? nullptr : &port(out);
}

void Host::send(Packet* p, bool first_of_output) {
  p->src = id();
  p->ip_version = ip_version_;
  if (p->created == 0) p->created = sim().now();
  SimTime hook_cost = 0;
  if (!pfil_.empty() && first_of_output) [[unlikely]] {
    for (PfilHook* h : pfil_) {
      if (!cores_.empty()) hook_cost += h->cost(*p, PfilDir::out);
      h->run(*p, PfilDir::out);
    }
  }
  if (!cores_.empty()) {
    if (tx_backlog_limit_ > 0 && tx_backlog_ >= tx_backlog_limit_) {
      ++counters_.tx_backlog_drops;
      sim().packets().release(p);
      return;
    }
    const bool softirq = exec_context_ == ExecContext::softirq;
    const HostCpuCosts& c = cores_.front()->cpu.costs();
    if (waits_for_cpu(p, softirq ? irq_core_ : app_core_, (first_of_output ? c.tx_packet : 0) + c.tx_segment + hook_cost,
                      softirq ? CpuContext::interrupt : CpuContext::system, kOut)) {
      return;
    }
  }
  transmit(p);
}

void Host::set_netem(SimTime delay, std::uint32_t limit) {
  netem_ = delay > 0 ? std::make_unique<NetemDelay>(*this, delay, limit) : nullptr;
}

void Host::transmit(Packet* p) {
  tap(TapPoint::egress, *p);
  if (filtered(egress_, *p)) {
    ++counters_.filtered_egress;
    sim().packets().release(p);
    return;
  }
  if (netem_) {
    netem_->enqueue(p);
    return;
  }
  emit(p);
}

void Host::emit(Packet* p) {
  const int out = next_port(p->dst);
  if (out < 0) {
    ++counters_.unroutable;
    sim().packets().release(p);
    return;
  }
  ++counters_.packets_sent;
  if (!tx_stages_.empty()) [[unlikely]] {
    if (PacketReceiver* stage = tx_stages_[static_cast<std::size_t>(out)]) {
      stage->receive(p, out);
      return;
    }
  }
  port(out).send(p);
}

void Host::set_tx_stage(int port_index, PacketReceiver* stage) {
  if (port_index < 0 || port_index >= port_count()) {
    throw std::invalid_argument("host " + name() + ": no port " + std::to_string(port_index) + " for a transmit stage");
  }
  if (tx_stages_.empty()) tx_stages_.assign(static_cast<std::size_t>(port_count()), nullptr);
  tx_stages_[static_cast<std::size_t>(port_index)] = stage;
}

void Host::receive(Packet* p, int) {
  if (p->dst != id()) {
    ++counters_.not_for_us;
    sim().packets().release(p);
    return;
  }
  tap(TapPoint::ingress, *p);
  if (filtered(ingress_, *p)) {
    ++counters_.filtered_ingress;
    sim().packets().release(p);
    return;
  }
  tap(TapPoint::accepted, *p);
  if (!cores_.empty()) {
    SimTime hook_cost = 0;
    if (!pfil_.empty()) [[unlikely]] {
      for (PfilHook* h : pfil_) hook_cost += h->cost(*p, PfilDir::in);
    }
    const HostCpuCosts& c = cores_.front()->cpu.costs();
    SimTime cost = c.tcp_input + hook_cost;
    if (p->segments > 1) cost += c.rx_aggregate;
    if (p->protocol == IpProtocol::tcp && p->payload_bytes == 0 && !sockets_charge_ack_input_) cost += c.ack_input;
    if (waits_for_cpu(p, irq_core_, cost, CpuContext::interrupt, kIn)) return;
  }
  deliver(p);
}

void Host::deliver(Packet* p) {
  if (!pfil_.empty()) [[unlikely]] {
    for (PfilHook* h : pfil_) h->run(*p, PfilDir::in);
  }
  if (Endpoint* const* e = bindings_.find(binding_key(p->protocol, p->dst_port))) {
    ++counters_.packets_received;
    (*e)->deliver(p);
    return;
  }
  ++counters_.no_listener;
  sim().packets().release(p);
}

void Host::bind(IpProtocol protocol, std::uint16_t port, Endpoint* e) {
  if (bindings_.contains(binding_key(protocol, port))) {
    throw std::invalid_argument("host " + name() + ": port " + std::to_string(port) + " is already bound");
  }
  bindings_.set(binding_key(protocol, port), e);
  ports_taken_[port / 64] |= std::uint64_t{1} << (port % 64);
}

std::uint16_t Host::ephemeral_port() {
  for (int tries = 0; tries < 65536 - 49152; ++tries) {
    std::uint16_t candidate = next_ephemeral_;
    next_ephemeral_ = next_ephemeral_ == 65535 ? 49152 : static_cast<std::uint16_t>(next_ephemeral_ + 1);
    if ((ports_taken_[candidate / 64] >> (candidate % 64) & 1) == 0) return candidate;
  }
  throw std::invalid_argument("host " + name() + ": every ephemeral port (49152..65535) is taken");
}

void Host::add_filter(Hook hook, PacketFilter* f) { (hook == Hook::ingress ? ingress_ : egress_).push_back(f); }

}  // namespace netsim
