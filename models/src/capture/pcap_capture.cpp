#include "netsim/capture/pcap_capture.h"

#include <algorithm>
#include <cstring>

#include "netsim/net/channel.h"

namespace netsim {

PcapCapture::PcapCapture(const Simulation& sim, std::string point, const std::string& path, std::uint32_t snaplen,
                         const WireAddressBook& book, bool at_far_end)
    : sim_(sim),
      point_(std::move(point)),
      file_(path, snaplen),
      book_(book),
      at_far_end_(at_far_end),
      frame_(new std::uint8_t[std::max<std::size_t>(snaplen, kMaxWireHeaderBytes)]()) {}

void PcapCapture::on_packet(const Packet& p, SimTime at) {
  // The previous frame's headers may reach into this one's payload: zero them.
  std::memset(frame_.get(), 0, dirty_);
  const std::size_t headers = encode_wire_headers(p, book_, frame_.get());
  dirty_ = headers;
  const std::uint64_t length = headers + std::uint64_t{p.payload_bytes};
  const auto len32 = static_cast<std::uint32_t>(std::min<std::uint64_t>(length, UINT32_MAX));
  file_.write(at, frame_.get(), len32, len32);
}

void PcapCapture::on_queue_change(const Channel& ch, QueueEvent event, const Packet& p) {
  // dequeue: the frame's last bit has left, as the link counters count it.
  if (event != QueueEvent::dequeue) return;
  on_packet(p, sim_.now() + (at_far_end_ ? ch.config().delay : 0));
}

}  // namespace netsim
