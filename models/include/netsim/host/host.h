// An end host: interfaces, an address, a kern.hz tick clock, packet-filter
// hooks and a port table demultiplexing packets to endpoints.
//
// Packet path: endpoint -> send() -> egress filters -> [netem] -> interface channel;
// channel -> receive() -> [not for us: dropped] -> ingress filters -> endpoint.
// With a CPU model (set_cpu), send() and the delivery to an endpoint first
// charge their work (tx_packet/tx_segment, tcp_input) and the packet moves on
// when that work ends; packets keep their order through the CPU.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netsim/capture/packet_tap.h"
#include "netsim/filter/packet_filter.h"
#include "netsim/host/endpoint.h"
#include "netsim/host/host_cpu.h"
#include "netsim/host/netem_delay.h"
#include "netsim/host/pfil_hook.h"
#include "netsim/net/node.h"
#include "netsim/net/packet_receiver.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/key_table.h"
#include "netsim/sim/packet_queue.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/timer.h"

namespace netsim {

enum class Hook { ingress, egress };

// Where a PacketTap sees the host's packets: what the stack receives before
// the ingress filters (on a host with a receive NIC the NIC runs those
// filters, and the tap belongs on the NIC), what passes them, and what the
// stack sends before the egress filters.
enum class TapPoint : std::uint8_t { ingress, accepted, egress };
inline constexpr int kTapPoints = 3;

struct HostCounters {
  std::uint64_t packets_sent = 0;       // handed to an interface
  std::uint64_t packets_received = 0;   // delivered to an endpoint
  std::uint64_t filtered_egress = 0;
  std::uint64_t filtered_ingress = 0;
  std::uint64_t not_for_us = 0;         // e.g. frames a hub repeated to every port
  std::uint64_t no_listener = 0;        // no endpoint bound to the destination port
  std::uint64_t unroutable = 0;
  std::uint64_t tx_backlog_drops = 0;   // sent into a full transmit backlog (set_tx_backlog_limit)
};

class Host final : public Node, public EventHandler {
 public:
  Host(Simulation& sim, std::string name, NodeId id, std::string address, IpVersion ip_version, int hz);
  ~Host() override;

  const std::string& address() const { return address_; }
  IpVersion ip_version() const { return ip_version_; }
  TickClock& clock() { return clock_; }

  // Sends a packet from a local endpoint; fills in the source and IP version.
  // `first_of_output`: the packet starts what the stack hands to the driver
  // in one go (a TSO burst's later segments pass false), which the CPU model
  // charges tx_packet for; every packet is charged tx_segment.
  void send(Packet* p, bool first_of_output = true);
  void receive(Packet* p, int port) override;
  void handle_event(std::uint64_t tag) override;

  // Gives the host a CPU with these costs (before traffic starts), on
  // `layout.cores` cores with the same costs. Without one, or with all costs
  // zero, nothing takes CPU time. Throws std::invalid_argument for a layout
  // whose cores are out of range.
  void set_cpu(const HostCpuCosts& costs, const HostCpuLayout& layout = {});
  // The core the application runs on (its system calls are charged there).
  HostCpu* cpu() { return cores_.empty() ? nullptr : &cores_[app_core_]->cpu; }
  const HostCpu* cpu() const { return cores_.empty() ? nullptr : &cores_[app_core_]->cpu; }
  // The core that takes the NIC's interrupts and runs packet input.
  HostCpu* irq_cpu() { return cores_.empty() ? nullptr : &cores_[irq_core_]->cpu; }
  const HostCpu* irq_cpu() const { return cores_.empty() ? nullptr : &cores_[irq_core_]->cpu; }
  int core_count() const { return static_cast<int>(cores_.size()); }
  const HostCpu* core(int i) const { return &cores_.at(static_cast<std::size_t>(i))->cpu; }

  // The kernel context the caller is in, which decides where a sent
  // packet's transmit work runs and how it is accounted: `process` (a system
  // call of the application, or the socket backlog it processes on
  // release_sock) on the application's core as system time; `softirq`
  // (packet input and what it transmits) on the interrupt core as interrupt
  // time. Endpoints that model the split set it around their work with a
  // ContextScope; the default is process.
  enum class ExecContext : std::uint8_t { process, softirq };
  class ContextScope {
   public:
    ContextScope(Host& h, ExecContext c) : host_(h), saved_(h.exec_context_) { h.exec_context_ = c; }
    ~ContextScope() { host_.exec_context_ = saved_; }
    ContextScope(const ContextScope&) = delete;
    ContextScope& operator=(const ContextScope&) = delete;

   private:
    Host& host_;
    ExecContext saved_;
  };
  ExecContext exec_context() const { return exec_context_; }
  // The TCP endpoints charge a pure ACK's TCP work (cpu ack_input)
  // themselves, in the context their kernel runs it in (the Linux 2.6
  // sender: softirq, or the process's release_sock when the socket was
  // owned); packet input then charges only interrupt, rx_packet and
  // tcp_input. Off (the default): input charges ack_input too.
  void set_sockets_charge_ack_input(bool on) { sockets_charge_ack_input_ = on; }
  // The core that work in the current context runs on.
  HostCpu* context_cpu() { return exec_context_ == ExecContext::softirq ? irq_cpu() : cpu(); }
  // Where a CPU-bound host's sent packets wait for their transmit work.
  // 0 (the default): nowhere; the stack hands a packet to the driver only
  // when the CPU is free, so unsent data waits in the socket buffer. N > 0:
  // a driver queue of N packets in front of that work (a VM's vNIC ring and
  // the hypervisor's backend or tap queue, drained at the rate the per-packet
  // work allows): the stack hands packets on at once, they count as in
  // flight while they wait, and one that finds N waiting is dropped without
  // the stack being told (counted in tx_backlog_drops).
  void set_tx_backlog_limit(std::uint32_t packets) { tx_backlog_limit_ = packets; }
  std::uint32_t tx_backlog_limit() const { return tx_backlog_limit_; }
  // Whether the stack waits for the CPU before handing on each packet.
  bool output_waits_for_cpu() const { return !cores_.empty() && tx_backlog_limit_ == 0; }

  // The host's interface is a TSO-capable paravirtual vNIC (VMXNET3 on an
  // ESXi vSwitch): the TCP senders hand a TSO burst to it as one Packet
  // (segments = n, seg_payload = MSS) that the hypervisor segments, instead
  // of n wire segments, so the guest's CPU is charged per frame.
  void set_tso_frames(bool on) { tso_frames_ = on; }
  bool tso_frames() const { return tso_frames_; }

  // A netem qdisc on every interface (`tc qdisc add dev IF root netem delay
  // D limit N`): sent packets wait `delay` after the egress filters.
  void set_netem(SimTime delay, std::uint32_t limit);
  const NetemDelay* netem() const { return netem_.get(); }
  // Hands a packet past the filters and qdisc to its interface (the netem
  // stage's output): routed and queued on the channel, or counted unroutable.
  void emit(Packet* p);

  // Registers `e` for (protocol, port). Throws if the port is taken.
  void bind(IpProtocol protocol, std::uint16_t port, Endpoint* e);
  // A free port from the ephemeral range (49152..65535), as the kernel picks one.
  std::uint16_t ephemeral_port();
  // Appends a rule to a hook; rules run in the order added. Not owned.
  void add_filter(Hook hook, PacketFilter* f);
  const std::vector<PacketFilter*>& filters(Hook hook) const {
    return hook == Hook::ingress ? ingress_ : egress_;
  }
  // Adds a tap at `point` (not owned; it must outlive the traffic). Without
  // taps a point costs one branch.
  void add_tap(TapPoint point, PacketTap* t) { taps_[static_cast<int>(point)].add(t); }
  // Adds a pfil hook (not owned; it must outlive the traffic): it sees what
  // send() hands on (before the egress filters; a TSO burst once, at its
  // first segment) and what passes the ingress filters (before delivery),
  // and its CPU cost is charged with the packet's own work.
  void add_pfil_hook(PfilHook* h) { pfil_.push_back(h); }
  // The interface channel that packets to `dst` leave on (nullptr if none).
  Channel* route(NodeId dst) const;
  // A NIC with a transmit path of its own (descriptor ring, bus DMA, TSO;
  // netsim/nic/ixgb_nic.h) between the host and interface `port`: packets
  // routed to that port go to stage->receive(p, port) instead of the
  // channel. Not owned; null removes it. Without stages emit() costs one branch.
  void set_tx_stage(int port, PacketReceiver* stage);

  const HostCounters& counters() const { return counters_; }

 private:
  enum Direction : std::int32_t { kOut = 0, kIn = 1 };
  static bool filtered(const std::vector<PacketFilter*>& chain, const Packet& p);
  void tap(TapPoint point, const Packet& p) const { taps_[static_cast<int>(point)].pass(p, sim().now()); }
  void transmit(Packet* p);
  void deliver(Packet* p);
  // One core: its CPU and the packets whose work on it has not ended, in order.
  struct Core {
    Core(TickClock& clock, const HostCpuCosts& costs, EventHandler* h, std::uint64_t tag)
        : cpu(clock, costs), timer(h, tag) {}
    HostCpu cpu;
    PacketQueue queue;
    Timer timer;
  };
  // Charges `cost` to core `core` for `p`. True if `p` now waits for the CPU
  // (in that core's queue until its work ends, hop_time; handle_event moves
  // it on), false if it can move on now.
  bool waits_for_cpu(Packet* p, int core, SimTime cost, CpuContext ctx, Direction d);

  std::string address_;
  IpVersion ip_version_;
  TickClock clock_;
  // Endpoints by binding_key(protocol, port); ports taken by any protocol
  // (one bit each), which ephemeral_port() skips.
  KeyTable<Endpoint*> bindings_;
  std::vector<std::uint64_t> ports_taken_ = std::vector<std::uint64_t>(65536 / 64);
  std::vector<PacketFilter*> ingress_;
  std::vector<PacketFilter*> egress_;
  std::array<PacketTaps, kTapPoints> taps_;
  std::vector<PfilHook*> pfil_;
  std::uint16_t next_ephemeral_ = 49152;
  HostCounters counters_;
  std::vector<std::unique_ptr<Core>> cores_;
  int app_core_ = 0;
  int irq_core_ = 0;
  ExecContext exec_context_ = ExecContext::process;
  bool sockets_charge_ack_input_ = false;
  std::uint32_t tx_backlog_limit_ = 0;
  std::uint32_t tx_backlog_ = 0;  // sent packets waiting in the cores' queues
  std::unique_ptr<NetemDelay> netem_;
  bool tso_frames_ = false;
  std::vector<PacketReceiver*> tx_stages_;  // by port; empty: none
};

}  // namespace netsim
