#include "netsim/app/udp_source.h"

#include <algorithm>
#include <stdexcept>

#include "netsim/sim/int128.h"

namespace netsim {

UdpSource::UdpSource(Simulation& sim, std::string name, Host& host, const UdpSourceConfig& config)
    : Component(sim, std::move(name)), host_(host), config_(config), timer_(this, 0) {
  if (config_.src_port == 0) config_.src_port = host.ephemeral_port();
  interface_ = host.route(config_.dst);
  if (interface_ == nullptr) throw std::invalid_argument("udp source " + this->name() + ": no route to destination");
  if (HostCpu* cpu = host.cpu()) {
    const HostCpuCosts& c = cpu->costs();
    if (c.copy_per_kib > 0 || c.tx_packet > 0 || c.tx_segment > 0) cpu_ = cpu;
  }
  if (!config_.rate && cpu_ == nullptr) interface_->add_listener(this);
  sim.arm_at(timer_, config_.start);
}

bool UdpSource::active() const { return sim().now() >= config_.start && sim().now() < config_.stop; }

void UdpSource::send_one() {
  Packet* p = sim().packets().alloc();
  p->flow_id = config_.flow_id;
  p->dst = config_.dst;
  p->protocol = IpProtocol::udp;
  p->src_port = config_.src_port;
  p->dst_port = config_.dst_port;
  p->l4_header_bytes = kUdpHeaderBytes;
  p->payload_bytes = config_.payload_bytes;
  p->app_seq = sent_;
  p->created = sim().now();
  ++sent_;
  last_send_ = sim().now();
  if (cpu_ != nullptr) cpu_->run_copy(config_.payload_bytes);  // sendto's copy, before the stack's output work
  host_.send(p);
}

SimTime UdpSource::cpu_free() const { return std::max(sim().now(), cpu_->busy_until()); }

void UdpSource::handle_event(std::uint64_t) {
  if (!active()) return;
  if (!config_.rate && cpu_ == nullptr) {
    fill_interface();
    return;
  }
  if (cpu_ != nullptr && cpu_free() > sim().now()) {
    // Still inside the previous sendto (or the core is busy with other work).
    sim().arm_at(timer_, cpu_free());
    return;
  }
  if (send_buffer_full()) {
    // Blocked in sendto(): on_queue_change re-arms the timer when a frame leaves.
    blocked_ = true;
    ++blocks_;
    return;
  }
  send_one();
  SimTime next = sim().now();
  if (config_.rate) {
    const Int128 bits = static_cast<Int128>(sent_) * config_.payload_bytes * 8 * kPicosPerSecond;
    next = config_.start + static_cast<SimTime>(bits / config_.rate->bps());
  }
  // Behind schedule after a block: the next datagram goes at once (or when
  // this sendto returns).
  next = std::max(next, cpu_ != nullptr ? cpu_free() : sim().now());
  if (next < config_.stop) sim().arm_at(timer_, next);
}

bool UdpSource::mine(const Packet& p) const {
  return p.protocol == IpProtocol::udp && p.flow_id == config_.flow_id && p.src_port == config_.src_port;
}

bool UdpSource::send_buffer_full() {
  if (config_.send_buffer == 0) return false;
  if (!watching_) {
    // Our share is at most the whole interface's: below the buffer, no need to count.
    if (interface_->occupancy_bytes() < config_.send_buffer) return false;
    buffered_ = interface_->occupancy_bytes_if([this](const Packet& p) { return mine(p); });
    interface_->add_observer(this);
    watching_ = true;
  }
  return buffered_ >= config_.send_buffer;
}

void UdpSource::on_queue_change(const Channel&, QueueEvent event, const Packet& p) {
  // Only this socket's datagrams count; a tail-dropped one never joined.
  if (!mine(p)) return;
  if (event == QueueEvent::enqueue) {
    buffered_ += p.ip_bytes();
  } else if (event == QueueEvent::dequeue) {
    buffered_ -= p.ip_bytes();
    if (blocked_ && buffered_ < config_.send_buffer) {
      blocked_ = false;
      sim().arm_at(timer_, sim().now());
    }
  }
}

void UdpSource::fill_interface() {
  // Bounded, so an egress rule that drops everything cannot spin forever;
  // in that case retry after one frame time.
  for (int tries = 0; tries < 64 && interface_->queued_packets() < kFullRateDepth; ++tries) {
    if (!active()) return;
    send_one();
  }
  if (interface_->queued_packets() == 0 && !interface_->busy() && active()) {
    const ChannelConfig& c = interface_->config();
    sim().arm_in(timer_, c.rate.transmit_time(config_.payload_bytes + kUdpHeaderBytes + ip_header_bytes(host_.ip_version()) +
                                                        c.framing_bytes));
  }
}

void UdpSource::on_transmit_start() {
  if (active()) fill_interface();
}

}  // namespace netsim
