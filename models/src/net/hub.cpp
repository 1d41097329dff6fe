#include "netsim/net/hub.h"

namespace netsim {

Hub::Hub(Simulation& sim, std::string name, NodeId id, const ChannelConfig& medium)
    : Node(sim, name, id, NodeKind::hub), medium_(medium), rng_(sim.rng_stream("hub/" + name)) {}

void Hub::receive(Packet* p, int in_port) {
  if (waiting_.size() < static_cast<std::size_t>(port_count())) {
    // Ports are all attached before the first frame; sizing here keeps the
    // per-frame path allocation-free afterwards.
    waiting_.resize(static_cast<std::size_t>(port_count()));
    contenders_.reserve(static_cast<std::size_t>(port_count()));
  }
  PacketQueue& q = waiting_[static_cast<std::size_t>(in_port)];
  const std::uint32_t size = p->ip_bytes();
  if ((medium_.limit_packets && q.packets() + 1 > *medium_.limit_packets) ||
      (medium_.limit_bytes && q.bytes() + size > *medium_.limit_bytes)) {
    ++counters_.packets_dropped;
    counters_.bytes_dropped += size;
    sim().packets().release(p);
    return;
  }
  p->hop_scratch = in_port;
  q.push(p);
  if (q.packets() > counters_.max_queue_packets) counters_.max_queue_packets = q.packets();
  if (q.bytes() > counters_.max_queue_bytes) counters_.max_queue_bytes = q.bytes();
  if (in_service_ == nullptr) start_next();
}

void Hub::start_next() {
  contenders_.clear();
  for (std::size_t i = 0; i < waiting_.size(); ++i) {
    if (!waiting_[i].empty()) contenders_.push_back(static_cast<int>(i));
  }
  if (contenders_.empty()) return;
  // One draw only when there is contention, so an uncontended hub consumes no randomness.
  const std::size_t pick = contenders_.size() == 1 ? 0 : rng_.uniform_below(contenders_.size());
  in_service_ = waiting_[static_cast<std::size_t>(contenders_[pick])].pop();
  const SimTime tx = medium_.rate.transmit_time(in_service_->ip_bytes() + medium_.framing_bytes);
  counters_.busy_time += tx;
  sim().schedule_in(tx, this, 0);
}

void Hub::handle_event(std::uint64_t) {
  Packet* original = in_service_;
  in_service_ = nullptr;
  ++counters_.packets_sent;
  counters_.bytes_sent += original->ip_bytes();
  const int in_port = original->hop_scratch;
  // Every other port gets a copy; the original goes to the last one.
  int last = -1;
  for (int i = 0; i < port_count(); ++i) {
    if (i != in_port) last = i;
  }
  for (int i = 0; i < port_count(); ++i) {
    if (i == in_port) continue;
    Packet* out = (i == last) ? original : sim().packets().clone(*original);
    ++repeated_;
    port(i).send(out);
  }
  if (last < 0) sim().packets().release(original);
  start_next();
}

}  // namespace netsim
