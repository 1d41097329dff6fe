// A parsed and validated scenario: plain data, no simulation objects yet.
//
// The loader (scenario_loader.h) turns YAML into a ScenarioSpec, checking
// every field; the builder (scenario_builder.h) turns a spec into components
// of a Simulation. Every element remembers where it was written, so that
// errors found later (at build time) can still name file, line and column.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netsim/host/host_cpu.h"
#include "netsim/net/low_power_idle.h"
#include "netsim/net/hypervisor_costs.h"
#include "netsim/nic/pcix_bus.h"
#include "netsim/nic/tcp_lro.h"
#include "netsim/sim/data_rate.h"
#include "netsim/sim/packet.h"
#include "netsim/sim/packet_pool.h"
#include "netsim/sim/time.h"
#include "netsim/tcp/freebsd/siftr_config.h"

namespace netsim {

struct ScenarioRegistry;  // netsim/scenario/scenario_registry.h

// Where a value came from: a YAML file position, or a command-line override.
struct SourceLoc {
  std::string file;  // the scenario file, or "--set" for a command-line override
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
};

enum class NicFilterPosition { after_gro, before_gro };
enum class NicJitterShape { uniform, exponential };

// IEEE 802.3x flow control of a receive NIC (netsim/net/pause_frame_sender.h):
// PAUSE frames to the link partner from the receive FIFO's fill. Defaults:
// Linux igb on an i210/i211 (34 KB packet buffer).
struct FlowControlSpec {
  std::int64_t high_water = 24064;  // bytes in the FIFO that send XOFF
  std::int64_t low_water = 24048;   // bytes at or below which XON is sent
  int pause_quanta = 0xFFFF;        // XOFF pause_time, in 512 bit times
  bool send_xon = true;
  SimTime refresh = 0;              // XOFF re-sent this often while above low water; 0 = never
};

// A Linux virtio-net/NAPI receive NIC with GRO (netsim/nic/gro_receive_nic.h),
// interposed on every link channel that delivers to the host.
// nic.driver: which guest driver's receive path (docs/vmxnet3.md), or ixgb:
// a physical Intel 82597EX with Linux 2.6.12's driver behind a PCI-X bus,
// transmit path included (netsim/nic/ixgb_nic.h, docs/ixgb.md).
enum class NicDriver { virtio, vmx, vmxnet3, ixgb };

// driver: ixgb. Defaults: drivers/net/ixgb/ixgb_param.c and ixgb_main.c of
// Linux 2.6.12-2.6.14 (docs/ixgb.md).
struct IxgbSpec {
  bool tso = true;                      // NETIF_F_TSO
  std::uint32_t tx_descriptors = 256;   // TxDescriptors (DEFAULT_TXD)
  std::uint32_t rx_descriptors = 1024;  // RxDescriptors (DEFAULT_RXD)
  std::int64_t rx_int_delay = 72;       // RxIntDelay, RDTR units of 0.8192 us (DEFAULT_RDTR)
  std::int64_t tx_int_delay = 32;       // TxIntDelay, TIDV units of 0.8192 us (DEFAULT_TIDV)
  bool tx_int_delay_enable = true;      // IntDelayEnable
  std::uint32_t tx_queue_len = 1000;    // the qdisc in front (txqueuelen)
  PcixBusConfig bus;                    // nic.bus
};

struct NicSpec {
  NicDriver driver = NicDriver::virtio;
  // vmx: IFCAP_LRO (software tcp_lro, and UPT1_F_LRO to the vSwitch), off by
  // default; vmxnet3: NETIF_F_LRO (device aggregates, no GRO), on by
  // default. The validator resolves the default; virtio: unused.
  bool lro = false;
  TcpLroConfig lro_config;           // vmx with lro: tcp_lro's table and limits
  // vmx: receive buffer sizes (GroReceiveNicConfig); head 0 = from the MTU
  // (MCLBYTES 2048 when the frame fits, else MJUMPAGESIZE), body MJUMPAGESIZE.
  std::uint32_t rx_head_buffer = 0;
  std::uint32_t rx_body_buffer = 4096;
  bool gro = true;
  SimTime irq_delay = 20'000'000;  // 20 us
  int budget = 64;                 // NAPI weight
  SimTime per_packet_cost = 0;     // poll time per wire packet
  SimTime irq_min_interval = 0;    // interrupt throttling; 0 = none
  SimTime irq_jitter = 0;          // uniform extra interrupt latency
  NicJitterShape irq_jitter_shape = NicJitterShape::uniform;  // exponential: the same mean, a tail
  SimTime idle_wake_delay = 0;     // waking a halted vCPU after idle_after without a poll
  SimTime idle_wake_jitter = 0;    // uniform extra on such a wake-up
  SimTime idle_after = 1'000'000'000;  // 1 ms
  bool merge_acks = false;         // FreeBSD tcp_lro: absorb advancing pure ACKs
  std::uint32_t ring_size = 1024;  // rx descriptors; 0 = unlimited
  std::int64_t rx_fifo = 0;        // on-chip receive packet buffer in front of the ring, bytes; 0 = none
  std::optional<FlowControlSpec> flow_control;  // 802.3x PAUSE from the FIFO's fill (needs rx_fifo)
  NicFilterPosition filter_position = NicFilterPosition::after_gro;
  // The physical NIC under a VM: re(4)-style one-shot RX moderation timer
  // (dev.re.N.int_rx_mod) in front of this receive path; 0 = none.
  SimTime host_int_rx_mod = 0;
  SimTime host_int_latency = 0;  // interrupt to re_rxeof on the host (MSI, ithread)
  SimTime host_int_jitter = 0;   // uniform extra on that latency
  // Linux software interrupt coalescing (sysfs gro_flush_timeout, napi_defer_hard_irqs).
  SimTime gro_flush_timeout = 0;
  int napi_defer_hard_irqs = 0;
  IxgbSpec ixgb;  // driver: ixgb
};

// SIFTR on a FreeBSD host (netsim/tcp/freebsd/siftr.h): the module loaded
// and enabled with these settings.
struct SiftrSpec {
  tcp::SiftrConfig config;
  std::string log;  // siftr.log to write (relative to the working directory); empty: only with --siftr
  SourceLoc loc;
};

struct HostSpec {
  std::string name;
  SourceLoc loc;
  std::string address;  // textual IPv4 or IPv6 address
  IpVersion ip_version = IpVersion::v4;
  int hz = 1000;        // kern.hz of the host's tick clock
  // The host's TCP stack: "freebsd" (FreeBsdTcpSender sending,
  // FreeBsdTcpReceiver receiving) or "linux" (tcp::lnx::LinuxTcpSender,
  // LinuxTcpReceiver). Not set (os_set false): FreeBSD's sender and the
  // Linux receiver, what every host was before the FreeBSD receiver existed
  // (receiver_os() tells which receiver a host runs).
  std::string os = "freebsd";
  bool os_set = false;
  const std::string& receiver_os() const {
    static const std::string kLinux = "linux";
    return os_set ? os : kLinux;
  }
  // os: linux hosts: the kernel their TCP sender behaves as ("2.6.12",
  // "2.6.13", "2.6.14": tcp::lnx26::Linux26TcpSender; empty: the modern
  // sender), with that sender's knobs (-1 / false: the version's own).
  std::string kernel;
  int tso_win_divisor = -1;
  bool tso_defer_bound = false;
  bool tso_cwnd_limited = false;
  std::optional<NicSpec> nic;  // receive NIC; nullopt = packets go straight to the host
  double clock_ppm = 0;        // transmit clock tolerance: offset drawn per run in [-ppm, +ppm]
  // For a VM: the host's kern.timecounter.alloweddeviation (percent), which
  // makes the guest's kernel timers fire late (TickClock::set_late_shift);
  // nullopt: exact timers (a physical host, or the VM host's sysctl at 0).
  std::optional<int> vm_host_alloweddeviation;
  // tc qdisc ... netem delay D limit N on the host's interfaces (0: none).
  SimTime netem_delay = 0;
  std::int64_t netem_limit = 1000;
  // Transmit queue limits of every interface of the host (unlimited when
  // unset): tail drop, counted as the link direction's drops. For a VM this
  // is the host machine's NIC queue, whose drops the guest's TCP never sees.
  std::optional<std::int64_t> tx_buffer_bytes;
  std::optional<std::int64_t> tx_buffer_packets;
  // Packets the CPU's transmit work may queue (Host::set_tx_backlog_limit); 0: none.
  std::uint32_t tx_backlog = 0;
  // CPU time per event (netsim/host/host_cpu.h); unset or all zero: no CPU model.
  HostCpuCosts cpu;
  HostCpuLayout cpu_layout;  // cpu.cores, cpu.irq_core, cpu.app_core
  std::optional<SiftrSpec> siftr;  // `siftr:` with a version other than off
};

struct SwitchSpec {
  std::string name;
  SourceLoc loc;
  std::int64_t buffer_bytes = 0;                 // per output port
  std::optional<std::int64_t> buffer_packets;    // optional second limit
  double clock_ppm = 0;                          // one clock for all ports, as clock_ppm of a host
  // 802.3x from ingress accounting: PAUSE out of a port whose frames fill
  // high_water bytes of the buffers (netsim/net/switch_flow_control.h).
  std::optional<FlowControlSpec> flow_control;
};

// An ESXi vSwitch joining the VMs of one host (netsim/net/vswitch.h).
struct VSwitchSpec {
  std::string name;
  SourceLoc loc;
  HypervisorCosts cpu;  // the hypervisor's own CPU; all zero: no time taken
};

struct HubSpec {
  std::string name;
  SourceLoc loc;
  DataRate rate = DataRate::gbps(1);  // capacity of the shared medium
  std::int64_t buffer_bytes = 0;      // frames waiting for the medium
};

struct LinkSpec {
  std::string name;
  SourceLoc loc;
  std::string end_a;  // host, switch or hub name
  std::string end_b;
  DataRate rate = DataRate::gbps(1);
  SimTime delay = 0;                  // one-way propagation delay
  std::int64_t mtu = 1500;            // largest IP datagram, bytes
  std::int64_t framing_bytes = 38;    // per-frame wire overhead (Ethernet: 14+4+8+12)
  std::optional<std::int64_t> queue_packets;  // per-direction transmit queue limits
  std::optional<std::int64_t> queue_bytes;
  // Energy-Efficient Ethernet (IEEE 802.3az low power idle) on both ends.
  std::optional<LowPowerIdleConfig> eee;
};

struct MatchSpec {
  std::optional<IpProtocol> protocol;
  std::optional<std::uint16_t> src_port;
  std::optional<std::uint16_t> dst_port;
};

enum class FilterHook { ingress, egress };
// custom: a type from the scenario's FilterRegistry (netsim/filter/filter_registry.h).
enum class FilterType { nth, random, custom };

struct FilterSpec {
  std::string name;
  SourceLoc loc;
  std::string host;
  FilterHook hook = FilterHook::ingress;
  FilterType type = FilterType::nth;
  std::int64_t every = 0;       // nth: --every N (N >= 1); 0: `every: none`, no rule
  std::int64_t packet = 0;      // nth: --packet P (0 <= P < N)
  double probability = 0.0;     // random: drop probability in [0, 1]
  std::string custom_type;      // custom: the registered type's name
  std::map<std::string, std::string> params;  // custom: its `params:` block, scalar text by key
  MatchSpec match;
};

// nuttcp's options other than those a flow already has (docs/nuttcp.md).
struct NuttcpSpec {
  SimTime time = 10'000'000'000'000;  // -T: 10 s (DEFAULT_TIMEOUT)
  SimTime interval = 0;               // -i: 0 = no interval reports
  std::uint64_t window = 0;           // -w: bytes; 0 = not given (autotuned buffers)
  int version = 6;                    // --format nuttcp layout: 5 (5.x) or 6 (6.x and 7.x)
};

struct UdpFlowSpec {
  std::string name;
  SourceLoc loc;
  int order = 0;                  // position among all flows of the traffic section
  // false: validated, then left out of the run (a sweep's linked axis turns
  // flows on and off, e.g. T3's TCP and UDP rows of one table).
  bool enabled = true;
  std::string from;
  std::string to;
  std::uint16_t src_port = 0;     // 0: chosen by the builder (ephemeral)
  std::uint16_t dst_port = 5001;
  std::int64_t payload_bytes = 1472;  // datagram payload
  std::optional<DataRate> rate;       // payload bit rate; nullopt = as fast as the path allows
  SimTime start = 0;
  std::optional<SimTime> stop;        // nullopt: until the end of the run
  std::int64_t send_buffer = 212992;  // SO_SNDBUF in IP bytes (UdpSourceConfig); 0 = unlimited
  // `app: nuttcp`: nuttcp -u (docs/nuttcp.md). payload_bytes is -l (default:
  // the largest power of 2 not above the path's TCP MSS), rate -R (default
  // 1 Mbps), `time` -T and the flow stops at start + time.
  std::string app = "udp";
  NuttcpSpec nuttcp;
};

// An iperf3-like bulk TCP transfer: a FreeBSD sender with unlimited data to a
// Linux receiver listening on (to, dst_port).
struct TcpFlowSpec {
  std::string name;
  SourceLoc loc;
  int order = 0;                  // position among all flows of the traffic section
  // false: validated, then left out of the run (a sweep's linked axis turns
  // flows on and off, e.g. T3's TCP and UDP rows of one table).
  bool enabled = true;
  std::string from;
  std::string to;
  std::uint16_t dst_port = 5201;
  std::string cc = "newreno";     // newreno | cubic | cubic_d46046
  SimTime start = 0;              // connect (SYN) time
  std::optional<SimTime> stop;    // end of measurement; nullopt: until the end of the run
  bool sack = true;
  bool lrd = true;
  bool tso = true;
  // bulk: one connection, measured over [start, stop). iperf3: iperf3's
  // control protocol (models/app, docs/iperf3.md): a control connection
  // first (its SYN is what a receiver's nth rule sees first), the parameter
  // exchange, `parallel` data connections, and `time` measured from the
  // client's reading of TEST_START, as iperf3 -t does. iperf2: iperf 2.1.8
  // (docs/iperf2.md): `parallel` connections to dst_port (default 5001 for
  // this app), each starting with the 60-byte test header, and `time`
  // measured from the connect.
  std::string app = "bulk";
  SimTime time = 10'000'000'000'000;  // iperf3/iperf2 -t: 10 s
  std::uint64_t length = 131072;      // iperf3/iperf2 -l: bytes per write (TCP default 128 KB)
  int parallel = 1;                   // iperf3/iperf2 -P: data connections (1..128)
  // The flow starts at start + a uniform draw in [0, start_jitter] from the
  // flow's own random stream ("flow/<name>"): different per seed.
  SimTime start_jitter = 0;
  // iperf3 -R: `from` still sends the data and `to` receives it, but the
  // iperf3 client runs on `to` (Linux, active opens) and the server on
  // `from` (FreeBSD, listening on dst_port), as `iperf3 -c <from> -R` on
  // `to` does (docs/iperf3.md). iperf3 flows only.
  bool reverse = false;
  // The FreeBSD sender's host-cache entry for the receiver: the ssthresh an
  // earlier connection to it left (tcp_hostcache's rmx_ssthresh, bytes; FreeBSD
  // keeps it an hour), which cc_conn_init starts from; 0: no entry.
  std::uint32_t hostcache_ssthresh = 0;
  // app: nuttcp (docs/nuttcp.md): `parallel` is -N, `length` -l (default
  // 64 KiB for this app), nuttcp.time -T.
  NuttcpSpec nuttcp;
};

// `ping -c COUNT -i INTERVAL -s SIZE TO` run on `from` (models/app/ping_client.h):
// ICMP echo requests answered by `to`'s kernel. `output` picks whose ping(8)
// layout --format ping prints: FreeBSD's (icmp_seq from 0) or Linux
// iputils' (from 1).
struct PingFlowSpec {
  std::string name;
  SourceLoc loc;
  int order = 0;                  // position among all flows of the traffic section
  // false: validated, then left out of the run (a sweep's linked axis turns
  // flows on and off, e.g. T3's TCP and UDP rows of one table).
  bool enabled = true;
  std::string from;
  std::string to;
  std::uint64_t count = 0;        // 0: until stop (or the end of the run)
  SimTime interval = 1'000'000'000'000;  // 1 s
  std::int64_t data_bytes = 56;   // ICMP data (ping -s), 8 .. 65507; FreeBSD's ping6 default is 8
  SimTime start = 0;
  std::optional<SimTime> stop;    // no request from then on; nullopt: the end of the run
  std::string output = "freebsd"; // freebsd | linux
};

// Packet captures (netsim/capture/): which points write a pcap file. The
// points are chosen here; where the files go is the run's decision
// (`dir`, or `netsim run --pcap DIR`, which wins).
enum class HostCapturePoint : std::uint8_t {
  wire_in,   // frames off the wire, before the receive NIC (one file for all the host's links)
  ingress,   // what the IP stack receives, before the ingress filters: after GRO, as tcpdump on the host
  accepted,  // what passes the ingress filters: what TCP and UDP see
  egress,    // what the stack sends, before the egress filters
  wire_out,  // frames as their last bit leaves the host's interfaces
};
inline constexpr int kHostCapturePoints = 5;

struct HostCaptureSpec {
  std::string host;
  std::vector<HostCapturePoint> points;  // in file order, no duplicates
  SourceLoc loc;
};

// One direction of a link: the frames `from` transmits on it, timestamped
// when their last bit leaves (a mirror of that port).
struct LinkCaptureSpec {
  std::string link;
  std::string from;
  SourceLoc loc;
};

struct CaptureSpec {
  // Bytes kept per frame. The simulated payload is zeros, so the default keeps
  // the largest header stack (Ethernet + IPv6 + TCP with 40 bytes of options,
  // 114 bytes) and no payload; 262144 (tcpdump's -s 0) keeps whole frames.
  std::uint32_t snaplen = 128;
  std::string dir;                 // empty: only with --pcap
  std::vector<HostCaptureSpec> hosts;
  std::vector<LinkCaptureSpec> links;
  bool empty() const { return hosts.empty() && links.empty(); }
};

// One sweep axis. Usually one field (`links.wan.delay: [10us, 100us]`); a
// linked axis sets several fields together, written "PATH + PATH + ...": each
// value is either one scalar for all of them or a list with one scalar per
// field (`traffic.s1.cc + traffic.s2.cc: [[cubic, newreno], [newreno, cubic]]`).
struct SweepAxis {
  std::string key;                               // as written, e.g. "links.wan.delay" or "a.x + b.y"
  std::vector<std::string> paths;                // the --set style paths it sets (>= 1)
  std::vector<std::vector<std::string>> values;  // per run value: one scalar text per path
  SourceLoc loc;
};

// A command-line or sweep override: dotted path and scalar text.
struct Override {
  std::string key;
  std::string value;
};

struct ScenarioSpec {
  std::string file;
  std::vector<std::string> includes;  // files read through `include:` (first-read order), then the `calibration:` profile
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  // Runs per sweep cell: seeds seed, seed+1, ..., seed+seeds-1 (an implicit
  // last, fastest-varying sweep axis; ignored when `seed` is itself swept or
  // set on the command line).
  int seeds = 1;
  SimTime duration = 0;
  SimTime interval = 0;  // interval-report period; 0 = no interval samples
  // Packets that may exist at once; beyond it the run stops with an error
  // (PacketPool::set_limit): a queue without a limit is growing.
  std::uint64_t max_packets = PacketPool::kDefaultLimit;
  std::vector<HostSpec> hosts;
  std::vector<SwitchSpec> switches;
  std::vector<HubSpec> hubs;
  std::vector<VSwitchSpec> vswitches;  // after hubs in node id order
  std::vector<LinkSpec> links;
  std::vector<FilterSpec> filters;
  std::vector<UdpFlowSpec> udp_flows;
  std::vector<TcpFlowSpec> tcp_flows;
  std::vector<PingFlowSpec> ping_flows;
  std::optional<CaptureSpec> capture;  // a `capture:` block
  std::vector<SweepAxis> sweep;
  std::vector<Override> overrides;  // what was applied on top of the file
  // Wall seconds parse_scenario_text took (parsing, profiles, validation):
  // reported as the run's load_time_s; machine-dependent, never an input.
  double load_time_s = 0;
  YAML::Node measured;              // free-form reference numbers, kept for reports
  YAML::Node calibrate;             // free parameters and fit settings (netsim/calibrate/calibration_spec.h)
  // The congestion controls and filter types the spec was validated against,
  // which the builder makes; nullptr: netsim's own (default_scenario_registry()).
  std::shared_ptr<const ScenarioRegistry> registry;
};

}  // namespace netsim
