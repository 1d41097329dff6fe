// One capture point writing one pcap file: a PacketTap for the points inside
// a host (ingress, accepted, egress) and a QueueObserver for the wire (the
// frames a channel finished transmitting; `at_far_end` shifts their
// timestamps by the channel's propagation delay, to when they arrive).
//
// The frame buffer is allocated once; a packet costs one header encoding and
// one buffered fwrite inside libpcap, no allocation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "netsim/capture/packet_tap.h"
#include "netsim/capture/pcap_file.h"
#include "netsim/capture/wire_frame.h"
#include "netsim/net/queue_observer.h"
#include "netsim/sim/simulation.h"

namespace netsim {

class PcapCapture final : public PacketTap, public QueueObserver {
 public:
  PcapCapture(const Simulation& sim, std::string point, const std::string& path, std::uint32_t snaplen,
              const WireAddressBook& book, bool at_far_end = false);

  void on_packet(const Packet& p, SimTime at) override;
  void on_queue_change(const Channel& ch, QueueEvent event, const Packet& p) override;

  // Name of the point ("receiver.ingress", "sender-router.sender"), for reports.
  const std::string& point() const { return point_; }
  PcapFile& file() { return file_; }
  const PcapFile& file() const { return file_; }

 private:
  const Simulation& sim_;
  std::string point_;
  PcapFile file_;
  const WireAddressBook& book_;
  bool at_far_end_;
  // max(snaplen, kMaxWireHeaderBytes) bytes: the headers, then zeros.
  std::unique_ptr<std::uint8_t[]> frame_;
  std::size_t dirty_ = 0;  // header bytes of the previous frame (zeroed again before the next)
};

}  // namespace netsim
