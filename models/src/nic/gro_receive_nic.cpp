// Linux virtio-net receive path with NAPI and GRO; see gro_receive_nic.h and
// docs/linux-receiver.md for the rules and their Linux v5.15 sources.
#include "netsim/nic/gro_receive_nic.h"

#include <algorithm>
#include <stdexcept>

namespace netsim {
namespace {

constexpr std::uint8_t kFlushFlags =
    tcp_flags::kPush | tcp_flags::kRst | tcp_flags::kSyn | tcp_flags::kFin;  // URG is not modelled

bool same_options(const TcpSegmentInfo& a, const TcpSegmentInfo& b) {
  if (a.ts_present != b.ts_present) return false;
  if (a.ts_present && (a.ts_val != b.ts_val || a.ts_ecr != b.ts_ecr)) return false;
  if (a.sack_block_count != b.sack_block_count) return false;
  for (std::uint8_t i = 0; i < a.sack_block_count; ++i) {
    if (a.sack_blocks[i].start != b.sack_blocks[i].start || a.sack_blocks[i].end != b.sack_blocks[i].end) return false;
  }
  return true;
}

bool same_flow(const Packet& a, const Packet& b) {
  return a.src == b.src && a.dst == b.dst && a.src_port == b.src_port && a.dst_port == b.dst_port &&
         a.ip_version == b.ip_version && a.protocol == b.protocol;
}

}  // namespace

GroReceiveNic::GroReceiveNic(Simulation& sim, std::string name, Host& host, int host_port,
                             const GroReceiveNicConfig& config)
    : Component(sim, std::move(name)),
      host_(host),
      host_port_(host_port),
      config_(config),
      poll_timer_(this, kPoll),
      poll_step_timer_(this, kPollStep),
      napi_timer_(this, kNapiTimer),
      rng_(sim.rng_stream("nic/" + this->name())) {
  if (config_.budget < 1) throw std::invalid_argument("GRO NIC " + this->name() + ": budget must be >= 1");
  if (config_.max_held < 1 || config_.max_held > kMaxHeldLimit) {
    throw std::invalid_argument("GRO NIC " + this->name() + ": max_held must be in [1, 64]");
  }
  if (config_.irq_delay < 0 || config_.per_packet_cost < 0 || config_.irq_min_interval < 0 ||
      config_.irq_jitter < 0 || config_.idle_wake_delay < 0 || config_.idle_wake_jitter < 0 || config_.idle_after < 0 ||
      config_.gro_flush_timeout < 0 || config_.napi_defer_hard_irqs < 0) {
    throw std::invalid_argument("GRO NIC " + this->name() + ": delays must be >= 0");
  }
  if (config_.rx_head_buffer > 0 && config_.rx_body_buffer == 0) {
    throw std::invalid_argument("GRO NIC " + this->name() + ": rx_body_buffer must be >= 1");
  }
  if (config_.tcp_lro) lro_.emplace(sim.packets(), config_.lro);
  if (config_.flow_control && config_.rx_fifo_bytes == 0) {
    throw std::invalid_argument("GRO NIC " + this->name() + ": flow control needs a receive FIFO (rx_fifo_bytes)");
  }
}

void GroReceiveNic::enable_flow_control(Channel& to_partner) {
  if (!config_.flow_control) return;
  if (attached_ == nullptr) throw std::logic_error("GRO NIC " + name() + ": enable_flow_control before attach");
  pause_ = std::make_unique<PauseFrameSender>(sim(), *config_.flow_control, to_partner, *attached_);
}

// Frames the FIFO holds take the descriptors the poll has freed, oldest first
// (a FIFO is only used in front of a limited ring).
void GroReceiveNic::refill_ring_from_fifo() {
  bool moved = false;
  while (!fifo_.empty() && ring_.packets() < config_.ring_size) {
    Packet* p = fifo_.pop();
    fifo_bytes_ -= fifo_size(*p);
    ring_.push(p);
    moved = true;
  }
  if (moved && pause_) pause_->fill_changed(fifo_bytes_);
}

GroReceiveNic::~GroReceiveNic() {
  // Packets still in the NIC go back to the pool (the pool outlives components).
  PacketPool& pool = sim().packets();
  while (Packet* p = ring_.pop()) pool.release(p);
  while (Packet* p = fifo_.pop()) pool.release(p);
  while (Packet* p = out_.pop()) pool.release(p);
  for (int i = 0; i < held_count_; ++i) pool.release(held_[static_cast<std::size_t>(i)].p);
  held_count_ = 0;
  lro_.reset();  // its entries' packets go back to the pool
}

bool GroReceiveNic::run_filters(const Packet& p) {
  taps_.pass(p, sim().now());
  for (PacketFilter* f : filters_) {
    if (f->should_drop(p)) return true;
  }
  return false;
}

void GroReceiveNic::receive(Packet* p, int) {
  if (p->dst != host_.id()) {
    // A NIC's address filter: frames for other stations never reach the ring.
    ++counters_.not_for_us;
    host_.receive(p, host_port_);
    return;
  }
  ++counters_.wire_packets;
  counters_.wire_bytes += p->ip_bytes();
  if (config_.filter_position == GroFilterPosition::before_gro && run_filters(*p)) {
    ++counters_.filtered;
    sim().packets().release(p);
    return;
  }
  if (config_.ring_size != 0 && (ring_.packets() >= config_.ring_size || !fifo_.empty())) [[unlikely]] {
    // No free descriptor: the frame waits in the FIFO, if there is one and it fits.
    const std::uint64_t size = fifo_size(*p);
    if (fifo_bytes_ + size > config_.rx_fifo_bytes) {
      ++counters_.ring_drops;
      sim().packets().release(p);
      return;
    }
    fifo_.push(p);
    fifo_bytes_ += size;
    counters_.max_fifo_bytes = std::max(counters_.max_fifo_bytes, fifo_bytes_);
    if (pause_) pause_->fill_changed(fifo_bytes_);
    return;  // the ring is full, so NAPI is already scheduled
  }
  ring_.push(p);
  if (state_ == State::idle) {
    // Interrupts are enabled only while NAPI is idle.
    state_ = State::irq_pending;
    ++counters_.interrupts;
    SimTime at = sim().now() + config_.irq_delay;
    if (config_.irq_jitter > 0) {
      at += config_.irq_jitter_shape == JitterShape::exponential ? exponential_latency(rng_, config_.irq_jitter / 2)
                                                                  : uniform_up_to(rng_, config_.irq_jitter);
    }
    if (config_.idle_wake_delay > 0 && (!polled_ || sim().now() - last_poll_end_ >= config_.idle_after)) {
      at += config_.idle_wake_delay;
      if (config_.idle_wake_jitter > 0) at += uniform_up_to(rng_, config_.idle_wake_jitter);
      ++counters_.idle_wakeups;
    }
    if (irq_seen_ && config_.irq_min_interval > 0) at = std::max(at, last_irq_ + config_.irq_min_interval);
    last_irq_ = at;
    irq_seen_ = true;
    sim().arm_at(poll_timer_, at);
  }
}

void GroReceiveNic::handle_event(std::uint64_t tag) {
  if (tag == kPoll) {
    poll();
  } else if (tag == kNapiTimer) {
    // napi_watchdog: schedule NAPI unless it already is (an interrupt came first).
    if (state_ == State::idle || state_ == State::deferred) {
      ++counters_.timer_polls;
      poll();
    }
  } else {
    poll_step();
  }
}

// Charges `cost` of poll work to the host's CPU; true if the poll's next
// step must wait for it (poll_step runs when it ends).
bool GroReceiveNic::step_waits_for_cpu(HostCpu& cpu, SimTime cost) {
  const SimTime done = cpu.run(cost, CpuContext::interrupt);
  if (done <= sim().now()) return false;
  sim().arm_at(poll_step_timer_, done);
  return true;
}

void GroReceiveNic::poll() {
  const bool interrupted = state_ == State::irq_pending;  // not a re-poll from end_poll
  state_ = State::polling;
  ++counters_.polls;
  taken_this_poll_ = 0;
  if (HostCpu* cpu = host_.irq_cpu(); cpu != nullptr && interrupted && step_waits_for_cpu(*cpu, cpu->costs().interrupt)) {
    return;
  }
  poll_step();
}

// virtnet_receive: take used buffers one at a time until the budget is spent
// or the ring is empty. With a per-packet cost the poll advances in simulated
// time, so packets that arrive while it runs are taken by the same poll (and
// can join the aggregates it holds), as on Linux.
void GroReceiveNic::poll_step() {
  while (taken_this_poll_ < config_.budget && !ring_.empty()) {
    Packet* p = ring_.pop();
    ++taken_this_poll_;
    if (!fifo_.empty()) [[unlikely]] refill_ring_from_fifo();
    const std::uint32_t frags = fragments(p->ip_bytes());
    counters_.rx_fragments += frags;
    if (lro_) {
      lro_receive(p);
    } else if (config_.gro) {
      gro_receive(p);
    } else {
      deliver_normal(p);
    }
    if (HostCpu* cpu = host_.irq_cpu()) {
      // With a CPU model the poll's time is CPU time, shared with the host's
      // other work (transmits, TCP input).
      const HostCpuCosts& c = cpu->costs();
      if (step_waits_for_cpu(*cpu, config_.per_packet_cost + c.rx_packet + frags * c.rx_fragment)) return;
    } else if (config_.per_packet_cost > 0) {
      sim().arm_in(poll_step_timer_, config_.per_packet_cost);
      return;
    }
  }
  end_poll();
}

void GroReceiveNic::end_poll() {
  const bool exhausted = taken_this_poll_ >= config_.budget;
  if (exhausted) {
    // napi_poll with work == weight: napi_gro_flush(n, HZ >= 1000) and stay scheduled.
    ++counters_.budget_exhausted;
    flush_held(host_.clock().hz() >= 1000);
    if (lro_) lro_->flush_all();  // iflib_rxeof ends every pass with tcp_lro_flush_all
    drain_lro();
    deliver_all();
    sim().arm_in(poll_timer_, 0);
    return;
  }
  // napi_complete_done(n, work_done): with a timeout, keep this jiffy's
  // aggregates and poll again from the timer; without one, flush everything.
  SimTime timeout = 0;
  bool unmask = true;
  if (taken_this_poll_ > 0) {
    if (held_count_ > 0) timeout = config_.gro_flush_timeout;
    defer_count_ = config_.napi_defer_hard_irqs;
  }
  if (defer_count_ > 0) {
    --defer_count_;
    timeout = config_.gro_flush_timeout;
    if (timeout > 0) unmask = false;
  }
  flush_held(timeout > 0);
  if (lro_) lro_->flush_all();
  drain_lro();
  deliver_all();
  if (timeout > 0) sim().arm_in(napi_timer_, timeout);
  last_poll_end_ = sim().now();
  polled_ = true;
  if (!unmask) {
    state_ = State::deferred;
  } else if (!ring_.empty()) {
    // Packets arrived while the poll ran: poll again without an interrupt
    // (virtqueue_napi_complete re-schedules NAPI).
    sim().arm_in(poll_timer_, 0);
  } else {
    state_ = State::idle;
  }
}

bool GroReceiveNic::lro_ack(Packet* skb, int i) {
  const TcpSegmentInfo& th = skb->tcp;
  const bool pure_ack = skb->payload_bytes == 0 && th.flags == tcp_flags::kAck && th.sack_block_count == 0;
  if (!pure_ack) return false;
  if (i >= 0) {
    Packet* p = held_[static_cast<std::size_t>(i)].p;
    const TcpSegmentInfo& h = p->tcp;
    const bool held_is_ack = p->payload_bytes == 0 && h.sack_block_count == 0;
    const bool advances = static_cast<std::int32_t>(th.ack - h.ack) > 0;
    const bool ts_ok = th.ts_present == h.ts_present &&
                       (!th.ts_present || static_cast<std::int32_t>(th.ts_val - h.ts_val) >= 0);
    if (held_is_ack && advances && ts_ok && th.seq == h.seq) {
      p->tcp.ack = th.ack;
      p->tcp.window = th.window;
      p->tcp.ts_val = th.ts_val;
      p->tcp.ts_ecr = th.ts_ecr;
      ++counters_.acks_merged;
      sim().packets().release(skb);
      return true;
    }
    complete(i);
  }
  hold(skb);
  return true;
}

int GroReceiveNic::find_flow(const Packet& skb) const {
  for (int i = 0; i < held_count_; ++i) {
    if (same_flow(*held_[static_cast<std::size_t>(i)].p, skb)) return i;
  }
  return -1;
}

void GroReceiveNic::hold(Packet* skb) {
  if (held_count_ == config_.max_held) complete(0);  // gro_flush_oldest
  held_[static_cast<std::size_t>(held_count_)] = Held{skb, skb->payload_bytes, host_.clock().ticks()};
  ++held_count_;
}

void GroReceiveNic::complete(int held_index) {
  Packet* p = held_[static_cast<std::size_t>(held_index)].p;
  for (int i = held_index; i + 1 < held_count_; ++i) {
    held_[static_cast<std::size_t>(i)] = held_[static_cast<std::size_t>(i + 1)];
  }
  --held_count_;
  held_[static_cast<std::size_t>(held_count_)] = Held{};
  deliver_normal(p);
}

void GroReceiveNic::deliver_normal(Packet* p) {
  if (p->protocol == IpProtocol::tcp && p->payload_bytes > 0) {
    ++counters_.tcp_data_packets;
    counters_.tcp_data_segments += p->segments;
    if (p->segments > counters_.max_aggregate_segments) counters_.max_aggregate_segments = p->segments;
  }
  if (p->segments >= 2) ++counters_.aggregates;
  out_.push(p);
}

void GroReceiveNic::flush_held(bool only_old) {
  const std::int64_t now_tick = host_.clock().ticks();
  int i = 0;
  while (i < held_count_) {
    if (only_old && held_[static_cast<std::size_t>(i)].age_tick == now_tick) {
      ++i;
    } else {
      complete(i);  // oldest first; the array shifts down
    }
  }
}

void GroReceiveNic::deliver_all() {
  while (Packet* p = out_.pop()) {
    if (config_.filter_position == GroFilterPosition::after_gro && run_filters(*p)) {
      ++counters_.filtered;
      sim().packets().release(p);
      continue;
    }
    ++counters_.delivered_packets;
    host_.receive(p, host_port_);
  }
}

std::uint32_t GroReceiveNic::fragments(std::uint32_t ip_bytes) const {
  const std::uint32_t frame = ip_bytes + 14;  // the Ethernet header the device writes in front
  if (config_.rx_head_buffer == 0 || frame <= config_.rx_head_buffer) return 1;
  return 1 + (frame - config_.rx_head_buffer + config_.rx_body_buffer - 1) / config_.rx_body_buffer;
}

// iflib_rxeof with IFCAP_LRO: TCP and UDP (L4 checksum offloaded) go to
// tcp_lro_rx; what it refuses goes up after what it flushed ahead of it.
void GroReceiveNic::lro_receive(Packet* p) {
  const bool offered = p->protocol == IpProtocol::tcp || p->protocol == IpProtocol::udp;
  const bool taken = offered && lro_->rx(p);
  drain_lro();
  if (!taken) deliver_normal(p);
}

void GroReceiveNic::drain_lro() {
  if (!lro_) return;
  counters_.acks_merged = lro_->counters().acks_absorbed;
  while (Packet* p = lro_->output().pop()) deliver_normal(p);
}

void GroReceiveNic::gro_receive(Packet* skb) {
  if (skb->protocol != IpProtocol::tcp) {
    deliver_normal(skb);  // no UDP GRO without a tunnel or UDP_GRO socket
    return;
  }
  const std::uint32_t len = skb->payload_bytes;
  const int i = find_flow(*skb);
  if (config_.merge_acks && lro_ack(skb, i)) return;
  const bool cannot_hold = len == 0 || (skb->tcp.flags & kFlushFlags) != 0 || skb->segments > 1;
  if (i < 0) {
    if (cannot_hold) {
      deliver_normal(skb);
    } else {
      hold(skb);
    }
    return;
  }
  Held& h = held_[static_cast<std::size_t>(i)];
  Packet* p = h.p;
  const TcpSegmentInfo& th = skb->tcp;
  const TcpSegmentInfo& th2 = p->tcp;
  bool flush = false;
  // The flag word: flags, data offset and window must match, except FIN/PSH.
  flush |= ((th.flags ^ th2.flags) & ~(tcp_flags::kFin | tcp_flags::kPush)) != 0;
  flush |= th.window != th2.window;
  flush |= skb->l4_header_bytes != p->l4_header_bytes;
  flush |= th.ack != th2.ack;
  flush |= !same_options(th, th2);
  flush |= (len - 1u) >= h.mss;  // unsigned: a pure ACK (len 0) wraps and flushes
  flush |= th.seq != th2.seq + p->payload_bytes;
  flush |= skb->segments > 1;
  // skb_gro_receive: the IP length of the result must stay below GRO_MAX_SIZE.
  if (!flush && p->ip_bytes() + len >= config_.gro_max_size) flush = true;
  if (flush) {
    complete(i);
    if (cannot_hold) {
      deliver_normal(skb);
    } else {
      hold(skb);
    }
    return;
  }
  p->payload_bytes += len;
  p->segments = static_cast<std::uint16_t>(p->segments + 1);
  p->tcp.flags |= static_cast<std::uint8_t>(th.flags & (tcp_flags::kFin | tcp_flags::kPush));
  const bool final_flush = len < h.mss || (th.flags & kFlushFlags) != 0;
  sim().packets().release(skb);
  if (final_flush) complete(i);
}

}  // namespace netsim
