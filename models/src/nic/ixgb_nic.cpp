// Intel 82597EX / Linux ixgb transmit path and bus DMA; see ixgb_nic.h and docs/ixgb.md.
#include "netsim/nic/ixgb_nic.h"

#include <algorithm>
#include <stdexcept>

namespace netsim {
namespace {

constexpr std::uint32_t kEthernetHeader = 14;  // what the NIC reads and writes besides the IP datagram (no CRC)

}  // namespace

IxgbNic::IxgbNic(Simulation& sim, std::string name, Host& host, int host_port, GroReceiveNic& rx, Channel& to_wire,
                 const IxgbNicConfig& config)
    : Component(sim, std::move(name)),
      host_(host),
      host_port_(host_port),
      rx_(rx),
      to_wire_(to_wire),
      config_(config),
      bus_(config.bus),
      tx_port_(*this),
      tx_free_(config.tx_descriptors),
      bus_timer_(this, kBus),
      tx_irq_timer_(this, kTxIrq),
      tx_clean_timer_(this, kTxClean) {
  if (config_.tx_page_bytes == 0) throw std::invalid_argument("ixgb NIC " + this->name() + ": tx_page_bytes must be >= 1");
  if (config_.rx_descriptors == 0) throw std::invalid_argument("ixgb NIC " + this->name() + ": rx_descriptors must be >= 1");
  if (config_.tx_int_delay < 0) throw std::invalid_argument("ixgb NIC " + this->name() + ": tx_int_delay must be >= 0");
  // The largest packet must fit the ring, or it would wait for ever.
  const std::uint32_t largest = 2 + (65535 + config_.tx_page_bytes - 1) / config_.tx_page_bytes;
  if (config_.tx_descriptors < largest) {
    throw std::invalid_argument("ixgb NIC " + this->name() + ": tx_descriptors must be >= " + std::to_string(largest) +
                                " (a 64 KB TSO frame's descriptors)");
  }
}

IxgbNic::~IxgbNic() {
  for (PacketQueue* q : {&qdisc_, &tx_ring_, &rx_dma_}) {
    while (Packet* p = q->pop()) sim().packets().release(p);
  }
  for (Packet* p : {cur_, rx_cur_}) {
    if (p != nullptr) sim().packets().release(p);
  }
}

void IxgbNic::attach(Channel& from_wire) {
  from_wire.set_receiver(this, host_port_);
  host_.set_tx_stage(host_port_, &tx_port_);
}

// ---- transmit ----

void IxgbNic::transmit(Packet* p) {
  ++counters_.tx_packets;
  if (qdisc_.empty() && tx_descriptors_for(*p) <= tx_free_) {
    to_ring(p);
    return;
  }
  // ixgb_xmit_frame found too few descriptors (netif_stop_queue): the qdisc holds it.
  if (qdisc_.packets() >= config_.tx_queue_len) {
    ++counters_.tx_queue_drops;
    sim().packets().release(p);
    return;
  }
  ++counters_.tx_queued;
  qdisc_.push(p);
  counters_.max_tx_queue = std::max<std::uint64_t>(counters_.max_tx_queue, qdisc_.packets());
}

void IxgbNic::to_ring(Packet* p) {
  const std::uint32_t d = tx_descriptors_for(*p);
  tx_free_ -= d;
  p->hop_scratch = static_cast<std::int32_t>(d);
  if (p->segments > 1 && p->seg_payload > 0) ++counters_.tx_tso_frames;
  tx_ring_.push(p);
  if (cur_ == nullptr) next_frame();
  kick();
}

void IxgbNic::next_frame() {
  cur_ = tx_ring_.pop();
  off_ = 0;
  tx_ready_ = cur_ != nullptr;
}

// The next wire segment of cur_: the first carries the Ethernet, IP and TCP
// headers, later ones only their payload (the NIC keeps the header from the
// context and rewrites it per segment).
std::uint64_t IxgbNic::segment_bytes() const {
  const std::uint32_t total = cur_->payload_bytes;
  if (!(cur_->segments > 1 && cur_->seg_payload > 0)) return cur_->ip_bytes() + kEthernetHeader;
  const std::uint32_t len = std::min<std::uint32_t>(cur_->seg_payload, total - off_);
  return off_ == 0 ? cur_->ip_bytes() - total + len + kEthernetHeader : len;
}

// The bus takes one request at a time: the next transmit read or the oldest
// received frame, alternating while both wait.
void IxgbNic::kick() {
  if (bus_busy_) return;
  const bool rx = !rx_dma_.empty();
  if (!tx_ready_ && !rx) return;
  const DmaDirection d = tx_ready_ && rx ? (last_dir_ == DmaDirection::read ? DmaDirection::write : DmaDirection::read)
                         : tx_ready_     ? DmaDirection::read
                                         : DmaDirection::write;
  std::uint64_t bytes = 0;
  if (d == DmaDirection::read) {
    tx_ready_ = false;
    bytes = segment_bytes();
  } else {
    rx_cur_ = rx_dma_.pop();
    bytes = rx_cur_->ip_bytes() + kEthernetHeader;  // the CRC stripped (SECRC)
  }
  bus_busy_ = true;
  bus_dir_ = d;
  last_dir_ = d;
  sim().arm_at(bus_timer_, bus_.transfer(sim().now(), bytes, d));
}

// The segment's bytes are in the NIC: it goes to the wire (the channel
// serializes it behind the segments before it).
void IxgbNic::segment_fetched() {
  Packet* p = cur_;
  const bool tso = p->segments > 1 && p->seg_payload > 0;
  if (!tso) {
    ++counters_.tx_wire_segments;
    to_wire_.send(p);
    frame_done();
    return;
  }
  const std::uint32_t mss = p->seg_payload;
  const std::uint32_t total = p->payload_bytes;
  const std::uint32_t len = std::min(mss, total - off_);
  const bool last = off_ + len >= total;
  Packet* s = last ? p : sim().packets().clone(*p);
  s->segments = 1;
  s->seg_payload = 0;
  s->tcp.seq = p->tcp.seq + off_;
  s->payload_bytes = len;
  if (!last) s->tcp.flags = static_cast<std::uint8_t>(s->tcp.flags & ~(tcp_flags::kPush | tcp_flags::kFin));
  off_ += len;
  ++counters_.tx_wire_segments;
  to_wire_.send(s);
  if (last) {
    frame_done();
  } else {
    tx_ready_ = true;
  }
}

// The frame's descriptors are written back (DD); the transmit interrupt
// comes TxIntDelay later (IDE) and the driver frees them (ixgb_clean_tx_irq).
void IxgbNic::frame_done() {
  const auto d = static_cast<std::uint32_t>(cur_->hop_scratch);
  cur_ = nullptr;
  tx_done_ += d;
  if (!tx_irq_timer_.pending() && !tx_clean_timer_.pending()) {
    sim().arm_in(tx_irq_timer_, config_.tx_int_delay_enable ? config_.tx_int_delay : 0);
  }
  next_frame();
}

void IxgbNic::tx_clean() {
  tx_free_ += tx_cleaning_;
  tx_cleaning_ = 0;
  // netif_wake_queue: the qdisc hands on what now fits, in order.
  while (Packet* p = qdisc_.front()) {
    if (tx_descriptors_for(*p) > tx_free_) break;
    qdisc_.pop();
    to_ring(p);
  }
  // Frames fetched while the interrupt ran raise the next one.
  if (tx_done_ > 0 && !tx_irq_timer_.pending()) {
    sim().arm_in(tx_irq_timer_, config_.tx_int_delay_enable ? config_.tx_int_delay : 0);
  }
}

// ---- receive ----

void IxgbNic::receive(Packet* p, int port) {
  if (p->dst != host_.id()) {
    rx_.receive(p, port);  // the NIC's address filter (counted there)
    return;
  }
  const std::size_t taken = rx_dma_.packets() + (rx_cur_ != nullptr ? 1 : 0) + rx_.ring_occupancy();
  if (taken >= config_.rx_descriptors) {
    ++counters_.rx_ring_drops;
    sim().packets().release(p);
    return;
  }
  rx_dma_.push(p);
  kick();
}

void IxgbNic::handle_event(std::uint64_t tag) {
  switch (tag) {
    case kBus:
      bus_busy_ = false;
      if (bus_dir_ == DmaDirection::read) {
        segment_fetched();
      } else {
        Packet* p = rx_cur_;
        rx_cur_ = nullptr;
        ++counters_.rx_frames;
        rx_.receive(p, host_port_);
      }
      kick();
      return;
    case kTxIrq: {
      // ixgb_intr -> ixgb_clean_tx_irq: the descriptors done so far, freed
      // when the handler has run on the host's CPU.
      ++counters_.tx_interrupts;
      tx_cleaning_ += tx_done_;
      tx_done_ = 0;
      SimTime done = sim().now();
      if (HostCpu* cpu = host_.irq_cpu()) done = cpu->run(cpu->costs().interrupt, CpuContext::interrupt);
      if (done > sim().now()) {
        sim().arm_at(tx_clean_timer_, done);
      } else {
        tx_clean();
      }
      return;
    }
    case kTxClean:
      tx_clean();
      return;
    default:
      return;
  }
}

}  // namespace netsim
