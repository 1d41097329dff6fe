// Intel PRO/10GbE (82597EX) with the Linux 2.6.12-2.6.14 ixgb driver, in a
// PCI-X slot: the transmit descriptor ring, TSO and the DMA of both
// directions over one shared bus (pcix_bus.h). The receive ring, the
// RxIntDelay (RDTR) interrupt and the driver's pass over the ring are the
// GroReceiveNic this stage feeds (gro off, budget unlimited: the non-NAPI
// ixgb_intr / ixgb_clean_rx_irq). See docs/ixgb.md.
//
// Transmit: Host::emit hands each packet to this NIC (Host::set_tx_stage).
// A packet takes d = 2 + ceil(payload / tx_page_bytes) descriptors (a
// context descriptor, the linear header and one per page fragment); while
// the ring lacks them it waits in the qdisc in front (txqueuelen, tail
// drop). In ring order the NIC reads each frame over the bus: a TSO frame
// (segments > 1, seg_payload = MSS) is fetched segment by segment, the
// header with the first (14 + IP + TCP header bytes, then only payload),
// and each wire segment goes to the link as soon as its bytes are in, so
// the wire runs at line rate when the bus keeps ahead of it. The bus serves
// one request (a transmit segment or a received frame) at a time; with both
// directions waiting it alternates between them. A frame's
// descriptors return to the ring when the transmit interrupt, TxIntDelay
// after the frame's last DMA (IDE), has run on the host CPU.
//
// Receive: a frame for the host takes one receive descriptor; it is dropped
// (rx_ring_drops, the 82597's missed packets) when descriptors in DMA plus
// frames waiting in the ring fill rx_descriptors. Else it is written to
// host memory over the bus (IP bytes + 14: the CRC is stripped, SECRC) and
// then enters the receive ring, where the first frame after an idle ring
// starts RDTR and the frames until the driver's pass share its interrupt.
//
// No per-packet heap allocation: intrusive FIFOs through Packet::next, wire
// segments cloned from the packet pool.
#pragma once

#include <cstdint>
#include <string>

#include "netsim/host/host.h"
#include "netsim/net/channel.h"
#include "netsim/net/packet_receiver.h"
#include "netsim/nic/gro_receive_nic.h"
#include "netsim/nic/pcix_bus.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/packet_queue.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/timer.h"

namespace netsim {

// One unit of the 82597's interrupt delay registers (RDTR, TIDV): 0.8192 us
// (ixgb_param.c: "in units of 0.8192 microseconds").
inline constexpr SimTime kIxgbDelayUnit = 819'200;

struct IxgbNicConfig {
  bool tso = true;                          // NETIF_F_TSO (ixgb_probe)
  std::uint32_t tx_descriptors = 256;       // TxDescriptors, DEFAULT_TXD
  SimTime tx_int_delay = 32 * kIxgbDelayUnit;  // TxIntDelay, DEFAULT_TIDV = 32 units = 26.2144 us
  bool tx_int_delay_enable = true;          // IntDelayEnable (IXGB_TX_DESC_CMD_IDE), default 1
  std::uint32_t tx_queue_len = 1000;        // the qdisc in front (ether_setup's txqueuelen)
  std::uint32_t tx_page_bytes = 4096;       // data per fragment descriptor (a page)
  std::uint32_t rx_descriptors = 1024;      // RxDescriptors, DEFAULT_RXD
  PcixBusConfig bus;
};

struct IxgbCounters {
  std::uint64_t tx_packets = 0;         // handed over by the host
  std::uint64_t tx_tso_frames = 0;      // of them TSO frames (segments > 1)
  std::uint64_t tx_wire_segments = 0;   // put on the wire
  std::uint64_t tx_queued = 0;          // waited in the qdisc for descriptors
  std::uint64_t tx_queue_drops = 0;     // qdisc full
  std::uint64_t max_tx_queue = 0;       // qdisc high-water mark (packets)
  std::uint64_t tx_interrupts = 0;
  std::uint64_t rx_frames = 0;          // written to host memory
  std::uint64_t rx_ring_drops = 0;      // no free receive descriptor
};

class IxgbNic final : public Component, public PacketReceiver, public EventHandler {
 public:
  // `rx` is the receive ring and driver pass of the same interface (made with
  // gro off); `to_wire` the host's transmit channel of the link.
  IxgbNic(Simulation& sim, std::string name, Host& host, int host_port, GroReceiveNic& rx, Channel& to_wire,
          const IxgbNicConfig& config);
  ~IxgbNic() override;

  // Makes `from_wire` deliver to this NIC and the host send through it.
  void attach(Channel& from_wire);

  // From the wire (the receive direction).
  void receive(Packet* p, int port) override;
  void handle_event(std::uint64_t tag) override;

  const IxgbNicConfig& config() const { return config_; }
  const IxgbCounters& counters() const { return counters_; }
  const PcixBus& bus() const { return bus_; }
  GroReceiveNic& rx() { return rx_; }
  std::uint32_t tx_free_descriptors() const { return tx_free_; }
  // Descriptors a packet takes on the transmit ring.
  std::uint32_t tx_descriptors_for(const Packet& p) const {
    return 2 + (p.payload_bytes + config_.tx_page_bytes - 1) / config_.tx_page_bytes;
  }

 private:
  enum Tag : std::uint64_t { kBus = 1, kTxIrq = 2, kTxClean = 3 };
  // The host's side: Host::emit hands packets here.
  struct TxPort final : PacketReceiver {
    explicit TxPort(IxgbNic& n) : nic(n) {}
    void receive(Packet* p, int) override { nic.transmit(p); }
    IxgbNic& nic;
  };

  void transmit(Packet* p);
  void to_ring(Packet* p);
  void next_frame();         // the frame at the ring's head becomes the one fetched
  std::uint64_t segment_bytes() const;  // what the next read of cur_ moves
  void kick();               // starts the next DMA if the bus is free
  void segment_fetched();    // a read ended: on the wire with its segment
  void frame_done();
  void tx_clean();

  Host& host_;
  int host_port_;
  GroReceiveNic& rx_;
  Channel& to_wire_;
  IxgbNicConfig config_;
  PcixBus bus_;
  TxPort tx_port_;
  PacketQueue qdisc_;        // waiting for descriptors
  PacketQueue tx_ring_;      // in the ring, not yet fetched
  Packet* cur_ = nullptr;    // the frame being fetched (taken off tx_ring_)
  bool tx_ready_ = false;    // cur_'s next segment waits for the bus
  std::uint32_t tx_free_;
  std::uint32_t tx_done_ = 0;     // descriptors of fetched frames, not yet cleaned
  std::uint32_t tx_cleaning_ = 0; // descriptors the running interrupt frees
  std::uint32_t off_ = 0;         // payload offset of the segment in DMA
  PacketQueue rx_dma_;            // frames waiting to be written to host memory, in order
  Packet* rx_cur_ = nullptr;      // the frame being written
  bool bus_busy_ = false;
  DmaDirection bus_dir_ = DmaDirection::read;  // of the transfer under way
  DmaDirection last_dir_ = DmaDirection::write;
  Timer bus_timer_;
  Timer tx_irq_timer_;
  Timer tx_clean_timer_;
  IxgbCounters counters_;
};

}  // namespace netsim
