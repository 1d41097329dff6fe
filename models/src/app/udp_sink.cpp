#include "netsim/app/udp_sink.h"

namespace netsim {

UdpSink::UdpSink(Simulation& sim, std::string name, Host& host, std::uint16_t port, std::uint64_t receive_buffer)
    : Component(sim, std::move(name)), host_(host), port_(port), receive_buffer_(receive_buffer), read_done_(this, 0) {
  if (HostCpu* cpu = host.cpu(); cpu != nullptr && cpu->costs().copy_per_kib > 0) cpu_ = cpu;
  host.bind(IpProtocol::udp, port, this);
}

void UdpSink::start_read() {
  sim().arm_at(read_done_, cpu_->run_copy(unread_.front().payload_bytes));
}

void UdpSink::handle_event(std::uint64_t) {
  unread_bytes_ -= unread_.front().ip_bytes;
  unread_.pop_front();
  if (!unread_.empty()) start_read();
}

void UdpSink::deliver(Packet* p) {
  if (cpu_ != nullptr) {
    const std::uint32_t bytes = p->ip_bytes();
    if (!unread_.empty() && unread_bytes_ + bytes > receive_buffer_) {
      ++buffer_drops_;
      sim().packets().release(p);
      return;
    }
    unread_.push_back({bytes, p->payload_bytes});
    unread_bytes_ += bytes;
    if (unread_.size() == 1) start_read();
  }
  if (packets_ == 0) first_arrival_ = sim().now();
  last_arrival_ = sim().now();
  ++packets_;
  bytes_ += p->payload_bytes;
  if (p->app_seq + 1 > highest_seq_plus_one_) highest_seq_plus_one_ = p->app_seq + 1;
  sim().packets().release(p);
}

}  // namespace netsim
