// The receive path of a Linux virtio-net guest NIC: interrupt, NAPI poll and
// GRO (generic receive offload), as a stage between the wire and a Host.
//
// Wiring: build the Link as usual, then interpose the NIC on the channel that
// delivers to the host:
//   GroReceiveNic& nic = sim.add<GroReceiveNic>("rx-nic", host, link.port_at_b(), cfg);
//   nic.attach(link.a_to_b());            // channel.set_receiver(&nic, port)
// Packets then go wire -> NIC ring -> (interrupt after irq_delay) -> NAPI poll
// with GRO -> host.receive(p, port).
//
// Behaviour modelled on Linux v5.15 (own code, no source text):
//   net/ipv4/tcp_offload.c tcp_gro_receive: flush rules, read in
//                          torvalds/linux @ 023af5a72ab161f2e661afb53e3b6a6901f6ba00
//                          (mainline; the rules modelled are those of 5.15)
//   net/core/skbuff.c      skb_gro_receive: p->len + len >= 65536 -> -E2BIG
//                          (the 5.x form, several copies checked)
//   net/core/dev.c         dev_gro_receive, napi_gro_complete, napi_gro_flush,
//                          napi_complete_done (gro_flush_timeout and
//                          napi_defer_hard_irqs; both 0: flush at the end of
//                          the poll; logic read in its 6.x form, unchanged
//                          since 5.10), napi_watchdog, napi_poll (budget
//                          exhausted: flush all if HZ < 1000, else only
//                          aggregates older than one jiffy; HZ is the
//                          host's tick clock), MAX_GRO_SKBS = 8
//   drivers/net/virtio_net.c virtnet_poll / virtqueue_napi_complete
//   (dev.c and virtio_net.c: v5.15 behaviour as documented, not re-read in
//   the index, which holds no 5.15 copy of them)
// See docs/linux-receiver.md.
//
// The same machinery serves the guest drivers of docs/vmxnet3.md: FreeBSD
// vmx(4) over iflib (budget 16 per pass, receive buffers, software tcp_lro
// flushed at every pass end: config tcp_lro, rx_head_buffer) and Linux
// vmxnet3 (LRO: device aggregates passed up as they are, gro off; else GRO).
//
// GRO rules for a TCP segment `skb` against the held packet `p` of the same
// flow (same addresses, ports, IP version):
//   merge only if: no CWR; the flag word (flags, header length and window) is
//   equal except FIN/PSH; the ACK number is equal; the options are equal
//   (timestamp values, SACK blocks); 0 < len <= mss of p (its first
//   segment's length); seq == p.seq + p.payload; the merged IP length stays
//   below 65536 bytes.
//   A segment that cannot merge flushes p; it is then held itself, unless it
//   has no payload or carries URG/PSH/RST/SYN/FIN, in which case it goes up
//   at once (after p). A merged segment that carries PSH (or FIN, or is
//   shorter than mss) flushes the aggregate at once.
//   Non-TCP packets and pure ACKs are never held.
//
// Filters: the NIC owns a filter list (add_filter) run at `filter_position`:
//   after_gro  - on what the NIC hands to the host (aggregates), as netfilter
//                INPUT sees GRO super-packets on Linux (the default);
//   before_gro - on every wire packet as it reaches the NIC, before the ring
//                and GRO (a "what if the rule counted wire segments" knob).
// Rules added to the NIC are not added to the host; the host's own ingress
// chain (host.add_filter) still runs on aggregates after the NIC. Put the
// iptables-like rule of a scenario on the NIC when a GRO NIC is present, never
// on both.
//
// No per-packet heap allocation: the ring and the delivery list are intrusive
// FIFOs through Packet::next, the held-aggregate table is a fixed array.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netsim/capture/packet_tap.h"
#include "netsim/filter/packet_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/channel.h"
#include "netsim/net/packet_receiver.h"
#include "netsim/net/pause_frame_sender.h"
#include "netsim/nic/tcp_lro.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/packet_queue.h"
#include "netsim/sim/rng.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/timer.h"

namespace netsim {

enum class GroFilterPosition { after_gro, before_gro };

// The distribution of irq_jitter's draw.
enum class JitterShape {
  uniform,      // [0, irq_jitter]: bounded, mean irq_jitter / 2
  exponential,  // the same mean, irq_jitter / 2, with an unbounded tail
};

struct GroReceiveNicConfig {
  // Time from the first packet after an idle period (interrupt raised) to the
  // start of the NAPI poll: interrupt injection into the VM, vCPU wake-up,
  // softirq scheduling. 10-30 us is typical for a KVM/bhyve guest.
  SimTime irq_delay = 20 * kPicosPerMicro;
  // Interrupt throttling (the ITR/EITR register of Intel NICs, FreeBSD's
  // hw.<drv>.max_interrupt_rate): an interrupt never follows the previous one
  // by less than this. Idle traffic (a ping) sees only irq_delay; a busy link
  // gets one interrupt per interval and so batches of interval x rate
  // packets. Linux igb's bulk class is 4000 interrupts/s (IGB_4K_ITR, 250 us).
  // 0: no throttling.
  SimTime irq_min_interval = 0;
  // Random extra interrupt latency, uniform in [0, irq_jitter] and drawn per
  // interrupt from the NIC's own stream (deterministic per seed): vCPU
  // scheduling and host-side batching in a VM. It also keeps a periodic
  // sender from phase-locking with a deterministic nth-drop counter.
  SimTime irq_jitter = 0;
  // Its shape: uniform (above), or exponential with the same mean, whose tail
  // now and then delays an interrupt far beyond irq_jitter (a vCPU preempted
  // on the host, say); the shape changes no mean, only how often such a
  // delay merges what a bounded one keeps apart.
  JitterShape irq_jitter_shape = JitterShape::uniform;
  // Waking a halted vCPU: a guest with nothing to do executes HLT and its
  // vCPU thread sleeps in the host (bhyve has no halt polling), so the first
  // interrupt after an idle spell also waits for the host to schedule the
  // thread and the core to leave its C-state. A receive path that finished a
  // poll less than idle_after ago counts as busy (the guest is still working:
  // the application, TCP output) and does not pay it. So an idle ping pays it
  // at both ends while a bulk transfer almost never does. 0: off.
  SimTime idle_wake_delay = 0;
  // Random extra wake-up time, uniform in [0, idle_wake_jitter] and drawn
  // (after the irq_jitter draw) only for an interrupt that pays
  // idle_wake_delay: how long a halted core takes to leave its C-state and
  // the host to run the vCPU thread varies with how deep it went. This is
  // where an idle ping's spread belongs; a loaded guest never pays it.
  SimTime idle_wake_jitter = 0;
  SimTime idle_after = kPicosPerMilli;
  // Poll processing time per wire packet (0: the poll takes no simulated
  // time). With a cost the poll takes packets one at a time, so packets that
  // arrive while it runs join the same poll (and its GRO aggregates) until
  // the ring is empty or the budget is spent. If the host has a CPU model
  // (Host::set_cpu), this time plus the host's rx_packet cost runs on that
  // CPU, and a poll started by an interrupt first pays its interrupt cost.
  SimTime per_packet_cost = 0;
  int budget = 64;                    // NAPI weight (virtio-net: 64)
  // Software interrupt coalescing (Linux /sys/class/net/<if>/gro_flush_timeout
  // and napi_defer_hard_irqs, net/core/dev.c napi_complete_done). After a poll
  // that found work, up to napi_defer_hard_irqs polls in a row leave the
  // device's interrupt masked and are instead re-run by a timer
  // gro_flush_timeout later; while that timeout is set, GRO keeps aggregates
  // started in the current jiffy across polls. A poll that finds nothing
  // flushes everything and unmasks. Both 0 (the Linux defaults): flush at
  // every poll end. Linux's r8169 sets 20 us and 1 (netdev_sw_irq_coalesce_default_on).
  SimTime gro_flush_timeout = 0;
  int napi_defer_hard_irqs = 0;
  bool gro = true;                    // ethtool -K gro on
  // FreeBSD tcp_lro's treatment of pure ACKs (a FreeBSD host's vtnet with
  // LRO, tcp_lro.c): within a batch, an in-order pure ACK whose ack number
  // advances is absorbed into the flow's held ACK, which keeps the latest
  // ack, window and timestamps and still counts as one segment. A duplicate
  // ACK (same ack and window), a SACK-bearing ACK or any other packet flushes
  // the held ACK first. Off: Linux GRO, which never holds pure ACKs.
  bool merge_acks = false;
  // FreeBSD software LRO instead of GRO (tcp_lro.h), as iflib runs it with
  // IFCAP_LRO (iflib_rxeof): each TCP/UDP packet of a pass goes to
  // tcp_lro_rx, what it refuses goes up at once, and tcp_lro_flush_all ends
  // every pass, also one that used the whole budget. `gro` and `merge_acks`
  // are then ignored.
  bool tcp_lro = false;
  TcpLroConfig lro;
  // Receive buffers (vmx(4): ring 0 head buffers, ring 1 body buffers of
  // MJUMPAGESIZE): a frame of L = IP length + 14 bytes takes
  // 1 + ceil((L - rx_head_buffer) / rx_body_buffer) buffers when longer than
  // the head buffer, each charged the host CPU's rx_fragment cost.
  // 0: one buffer per frame.
  std::uint32_t rx_head_buffer = 0;
  std::uint32_t rx_body_buffer = 4096;
  std::uint32_t gro_max_size = 65536; // GRO_MAX_SIZE (IP length limit of an aggregate)
  int max_held = 8;                   // MAX_GRO_SKBS: held aggregates per NAPI (<= 64)
  std::uint32_t ring_size = 1024;     // rx descriptors; 0 = unlimited
  // A physical NIC's on-chip receive packet buffer (FIFO) in front of the
  // descriptor ring, bytes of frames (IP length + 18 of Ethernet header and
  // FCS): frames wait there while every descriptor is in use and move to the
  // ring, oldest first, as the poll frees descriptors; a frame that does not
  // fit is dropped (counted as a ring drop, Linux's rx_missed_errors).
  // 0: no FIFO, a full ring drops at once (a virtio ring).
  std::uint64_t rx_fifo_bytes = 0;
  // IEEE 802.3x: send PAUSE frames to the link partner from the FIFO's fill
  // (pause_frame_sender.h). Needs rx_fifo_bytes and enable_flow_control().
  std::optional<FlowControlConfig> flow_control;
  GroFilterPosition filter_position = GroFilterPosition::after_gro;
};

struct GroNicCounters {
  std::uint64_t wire_packets = 0;       // arrived from the wire (addressed to the host)
  std::uint64_t wire_bytes = 0;         // their IP bytes
  std::uint64_t not_for_us = 0;         // passed straight to the host (it counts and drops them)
  std::uint64_t ring_drops = 0;         // ring full (and the FIFO, if any)
  std::uint64_t max_fifo_bytes = 0;     // the receive FIFO's high-water mark (rx_fifo_bytes)
  std::uint64_t filtered = 0;           // dropped by the NIC's filter list
  std::uint64_t delivered_packets = 0;  // handed to the host (aggregates count once)
  std::uint64_t aggregates = 0;         // delivered packets made of >= 2 wire segments
  std::uint64_t tcp_data_packets = 0;   // delivered TCP packets with payload
  std::uint64_t tcp_data_segments = 0;  // wire segments inside them
  std::uint64_t max_aggregate_segments = 0;
  std::uint64_t acks_merged = 0;        // pure ACKs absorbed into a held ACK (merge_acks, tcp_lro)
  std::uint64_t rx_fragments = 0;       // receive buffers the wire packets filled (rx_head_buffer)
  std::uint64_t interrupts = 0;
  std::uint64_t idle_wakeups = 0;       // interrupts that paid idle_wake_delay
  std::uint64_t polls = 0;
  std::uint64_t budget_exhausted = 0;   // polls that used the whole budget
  std::uint64_t timer_polls = 0;        // polls started by the gro_flush_timeout timer
};

class GroReceiveNic final : public Component, public PacketReceiver, public EventHandler {
 public:
  // Packets are handed to host.receive(p, host_port).
  GroReceiveNic(Simulation& sim, std::string name, Host& host, int host_port, const GroReceiveNicConfig& config);
  ~GroReceiveNic() override;

  // Makes `channel` deliver to this NIC instead of the host.
  void attach(Channel& channel) {
    channel.set_receiver(this, host_port_);
    attached_ = &channel;
  }
  // With config().flow_control: PAUSE frames go out on `to_partner` (the
  // host's transmit direction of the attached link) and pause the attached
  // channel. Call after attach().
  void enable_flow_control(Channel& to_partner);
  // The PAUSE frames sent; null without flow control.
  const PauseFrameSender* pause_sender() const { return pause_.get(); }
  std::uint64_t fifo_bytes() const { return fifo_bytes_; }

  void receive(Packet* p, int port) override;
  void handle_event(std::uint64_t tag) override;

  // Appends a rule to the NIC's own chain (run at config().filter_position). Not owned.
  void add_filter(PacketFilter* f) { filters_.push_back(f); }
  const std::vector<PacketFilter*>& filters() const { return filters_; }
  // Adds a tap that sees what the filter chain sees, just before it: the
  // aggregates handed to the host (after_gro) or the wire frames (before_gro).
  // Not owned. Without taps this costs one branch per packet.
  void add_tap(PacketTap* t) { taps_.add(t); }

  const GroReceiveNicConfig& config() const { return config_; }
  const GroNicCounters& counters() const { return counters_; }
  // Mean wire segments per delivered TCP data packet (1.0 without merging).
  double mean_aggregate_segments() const {
    return counters_.tcp_data_packets == 0
               ? 0.0
               : static_cast<double>(counters_.tcp_data_segments) / static_cast<double>(counters_.tcp_data_packets);
  }
  std::size_t ring_occupancy() const { return ring_.packets(); }
  // The tcp_lro table (config().tcp_lro), else null.
  const TcpLro* lro() const { return lro_ ? &*lro_ : nullptr; }
  // Receive buffers a frame of this IP length fills (rx_head_buffer, rx_body_buffer).
  std::uint32_t fragments(std::uint32_t ip_bytes) const;
  bool polling() const { return state_ != State::idle; }

 private:
  // deferred: the interrupt stays masked, the gro_flush_timeout timer will poll.
  enum class State { idle, irq_pending, polling, deferred };
  enum Tag : std::uint64_t { kPoll = 1, kPollStep = 2, kNapiTimer = 3 };
  static constexpr int kMaxHeldLimit = 64;

  struct Held {
    Packet* p = nullptr;
    std::uint32_t mss = 0;        // gso_size: payload of the first segment
    std::int64_t age_tick = 0;    // jiffy of the first segment
  };

  bool run_filters(const Packet& p);
  static std::uint64_t fifo_size(const Packet& p) { return p.ip_bytes() + 18u; }
  void refill_ring_from_fifo();
  void poll();
  void poll_step();
  bool step_waits_for_cpu(HostCpu& cpu, SimTime cost);
  void end_poll();
  void gro_receive(Packet* skb);
  bool lro_ack(Packet* skb, int held_index);  // merge_acks: true if `skb` was absorbed or is now held
  int find_flow(const Packet& skb) const;
  void hold(Packet* skb);
  void complete(int held_index);   // flush one held aggregate to the delivery list
  void deliver_normal(Packet* p);  // append to the delivery list
  void flush_held(bool only_old);
  void deliver_all();
  void lro_receive(Packet* p);
  void drain_lro();

  Host& host_;
  int host_port_;
  GroReceiveNicConfig config_;
  std::vector<PacketFilter*> filters_;
  PacketTaps taps_;
  PacketQueue ring_;
  PacketQueue fifo_;                   // rx_fifo_bytes: frames waiting for a descriptor
  std::uint64_t fifo_bytes_ = 0;
  Channel* attached_ = nullptr;
  std::unique_ptr<PauseFrameSender> pause_;
  PacketQueue out_;                    // completed packets of this poll, in order
  std::array<Held, kMaxHeldLimit> held_{};
  int held_count_ = 0;
  int taken_this_poll_ = 0;
  SimTime last_irq_ = 0;
  bool irq_seen_ = false;
  SimTime last_poll_end_ = 0;
  bool polled_ = false;
  State state_ = State::idle;
  Timer poll_timer_;
  Timer poll_step_timer_;
  Timer napi_timer_;        // gro_flush_timeout (napi->timer, napi_watchdog)
  int defer_count_ = 0;     // napi->defer_hard_irqs_count
  std::optional<TcpLro> lro_;
  Rng rng_;  // irq_jitter
  GroNicCounters counters_;
};

}  // namespace netsim
