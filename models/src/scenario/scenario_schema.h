// The keys a scenario file accepts, in one place: the validator uses them to
// reject unknown keys, and the sweep checker to decide which paths name a field.
#pragma once

#include <array>
#include <span>
#include <string_view>

namespace netsim::scenario_internal {

using KeyList = std::span<const std::string_view>;

inline constexpr std::array<std::string_view, 21> kTopKeys{
    "name",    "description", "seed",     "seeds",    "duration", "interval",  "max_packets", "hosts",     "switches",
    "hubs",    "links",       "filters",  "traffic",  "sweep",    "measured",  "profiles",    "include",   "calibrate",
    "calibration", "capture", "vswitches"};
// Top-level fields that hold a single scalar, and so can be overridden or swept.
inline constexpr std::array<std::string_view, 7> kTopScalarKeys{"name",     "description", "seed",       "seeds",
                                                                "duration", "interval",    "max_packets"};

inline constexpr std::array<std::string_view, 17> kHostKeys{"address",   "nic",       "hz",     "clock_ppm",
                                                            "tx_buffer", "tx_buffer_packets", "cpu", "profile",
                                                            "vm_host_alloweddeviation", "netem", "os", "siftr",
                                                            "tx_backlog", "kernel", "tso_win_divisor",
                                                            "tso_defer_bound", "tso_cwnd_limited"};
// host.kernel: the Linux kernel a host's TCP sender behaves as (the 2.6
// sender, netsim/tcp/linux26); absent: the modern Linux sender.
inline constexpr std::array<std::string_view, 3> kLinuxKernels{"2.6.12", "2.6.13", "2.6.14"};
inline constexpr std::array<std::string_view, 12> kSiftrKeys{"version", "port_filter", "ppl",       "flowid",
                                                             "inet6",   "queue_limit", "sysver",    "enable_at",
                                                             "disable_at", "wall_clock", "log",     "costs"};
inline constexpr std::array<std::string_view, 3> kSiftrVersions{"off", "1.2.4", "1.3.0"};
inline constexpr std::array<std::string_view, 2> kSiftrFlowIds{"none", "nic"};
inline constexpr std::array<std::string_view, 9> kSiftrCostKeys{"hook",  "hook_record",       "toeplitz_per_bit",
                                                                "flow_setup", "key_hash_per_byte", "record",
                                                                "conversion", "log_byte",          "wakeup"};
inline constexpr std::array<std::string_view, 2> kHostOsNames{"freebsd", "linux"};
inline constexpr std::array<std::string_view, 2> kNetemKeys{"delay", "limit"};
// The costs first (in HostCpuCosts' order), then the core's clock and speed,
// then the layout (HostCpuLayout: cores, irq_core, app_core).
inline constexpr std::array<std::string_view, 15> kCpuKeys{
    "tick",        "interrupt",    "rx_packet", "tcp_input", "tx_packet", "tx_segment", "copy_per_kib",
    "rx_fragment", "rx_aggregate", "ack_input", "frequency", "speed",      "cores",     "irq_core",
    "app_core"};
inline constexpr std::array<std::string_view, 35> kNicKeys{
    "gro",         "merge_acks", "irq_delay",       "irq_jitter", "irq_jitter_shape", "irq_min_interval", "idle_wake_delay",
    "idle_wake_jitter", "idle_after", "budget", "per_packet_cost", "ring_size",  "filter_position",
    "host_int_rx_mod", "host_int_latency", "host_int_jitter", "gro_flush_timeout", "napi_defer_hard_irqs",
    "rx_fifo", "flow_control", "driver", "lro", "lro_entries", "lro_length_lim", "lro_ackcnt_lim",
    "rx_head_buffer", "rx_body_buffer", "tso", "tx_descriptors", "rx_descriptors", "rx_int_delay",
    "tx_int_delay", "tx_int_delay_enable", "tx_queue_len", "bus"};
// The keys only driver: ixgb takes (docs/ixgb.md).
inline constexpr std::array<std::string_view, 8> kIxgbNicKeys{"tso", "tx_descriptors", "rx_descriptors", "rx_int_delay",
                                                              "tx_int_delay", "tx_int_delay_enable", "tx_queue_len", "bus"};
// nic.bus of an ixgb NIC (netsim/nic/pcix_bus.h).
inline constexpr std::array<std::string_view, 6> kNicBusKeys{"type", "mhz", "width_bits", "mmrbc", "write_burst",
                                                             "transaction_overhead_cycles"};
inline constexpr std::array<std::string_view, 1> kNicBusTypes{"pcix"};
// nic.driver: virtio (virtio-net/NAPI/GRO, the default), vmx (FreeBSD vmx(4)
// over iflib), vmxnet3 (Linux vmxnet3), ixgb (Intel 82597EX, Linux ixgb).
inline constexpr std::array<std::string_view, 4> kNicDrivers{"virtio", "vmx", "vmxnet3", "ixgb"};
inline constexpr std::array<std::string_view, 1> kVSwitchKeys{"cpu"};
inline constexpr std::array<std::string_view, 4> kVSwitchCpuKeys{"frame", "segment", "copy_per_kib", "speed"};
inline constexpr std::array<std::string_view, 5> kFlowControlKeys{"high_water", "low_water", "pause_quanta",
                                                                  "send_xon", "refresh"};
inline constexpr std::array<std::string_view, 5> kSwitchKeys{"buffer", "buffer_packets", "clock_ppm", "profile",
                                                             "flow_control"};
inline constexpr std::array<std::string_view, 3> kHubKeys{"rate", "buffer", "profile"};
inline constexpr std::array<std::string_view, 8> kLinkKeys{"ends",  "rate",  "delay",   "mtu",
                                                            "framing", "queue", "profile", "eee"};
inline constexpr std::array<std::string_view, 2> kQueueKeys{"packets", "bytes"};
inline constexpr std::array<std::string_view, 3> kEeeKeys{"wake", "lpi_after", "symmetric"};
inline constexpr std::array<std::string_view, 8> kFilterKeys{"host",   "hook",        "type",  "every",
                                                             "packet", "probability", "match", "params"};
inline constexpr std::array<std::string_view, 3> kMatchKeys{"protocol", "src_port", "dst_port"};
inline constexpr std::array<std::string_view, 17> kUdpFlowKeys{"type",   "from",     "to",   "src_port", "dst_port",
                                                               "size",   "rate",     "start", "stop",    "send_buffer",
                                                               "app",    "length",   "time", "interval", "window",
                                                               "version", "enabled"};
inline constexpr std::array<std::string_view, 2> kUdpApps{"udp", "nuttcp"};
// The keys only `app: nuttcp` flows take (-w, -i, the output layout, -N).
inline constexpr std::array<std::string_view, 4> kNuttcpKeys{"window", "interval", "version", "streams"};
inline constexpr std::array<std::string_view, 22> kTcpFlowKeys{"type", "from", "to",  "dst_port", "cc",   "start", "stop",
                                                               "sack", "lrd",  "tso", "app",      "time", "length",
                                                               "parallel", "start_jitter", "reverse",
                                                               "hostcache_ssthresh", "window", "interval", "version",
                                                               "streams", "enabled"};
inline constexpr std::array<std::string_view, 4> kTcpApps{"bulk", "iperf3", "iperf2", "nuttcp"};
inline constexpr std::array<std::string_view, 10> kPingFlowKeys{"type",  "from",  "to",   "count", "interval",
                                                                "size",  "start", "stop", "output", "enabled"};
inline constexpr std::array<std::string_view, 2> kPingOutputs{"freebsd", "linux"};
// Every key of any flow type: what a sweep key may name (the type-specific
// check happens when the value is tried on the scenario).
inline constexpr std::array<std::string_view, 27> kAnyFlowKeys{
    "type", "from", "to", "src_port", "dst_port", "size", "rate", "cc", "sack", "lrd", "tso", "start", "stop",
    "app",  "time", "length", "parallel", "start_jitter", "reverse", "count", "interval", "output",
    "hostcache_ssthresh", "window", "version", "streams", "enabled"};

inline constexpr std::array<std::string_view, 4> kCaptureKeys{"snaplen", "dir", "hosts", "links"};
// In HostCapturePoint order.
inline constexpr std::array<std::string_view, 5> kHostCapturePointNames{"wire_in", "ingress", "accepted", "egress",
                                                                        "wire_out"};
inline constexpr std::array<std::string_view, 2> kFilterHooks{"ingress", "egress"};
inline constexpr std::array<std::string_view, 2> kFilterTypes{"nth", "random"};
inline constexpr std::array<std::string_view, 4> kProtocols{"tcp", "udp", "icmp", "icmpv6"};
inline constexpr std::array<std::string_view, 3> kTrafficTypes{"udp", "tcp", "ping"};
// A Linux sender's congestion controls. A FreeBSD sender's are its
// scenario's cc::CcRegistry (netsim's own modules, then the user's); which
// ones a flow's sender has is checked once the hosts are known.
inline constexpr std::array<std::string_view, 2> kLinuxCcNames{"reno", "cubic"};
inline constexpr std::array<std::string_view, 2> kNicFilterPositions{"after_gro", "before_gro"};
inline constexpr std::array<std::string_view, 2> kIrqJitterShapes{"uniform", "exponential"};
inline constexpr std::array<std::string_view, 2> kBooleans{"true", "false"};

// A field of an element that is itself a map of scalars (hosts.nic,
// hosts.cpu, links.queue, filters.match).
struct SubMapSchema {
  std::string_view key;
  KeyList keys;
};
inline constexpr std::array<SubMapSchema, 4> kHostSubMaps{
    {{"nic", kNicKeys}, {"cpu", kCpuKeys}, {"netem", kNetemKeys}, {"siftr", kSiftrKeys}}};
inline constexpr std::array<SubMapSchema, 2> kLinkSubMaps{{{"queue", kQueueKeys}, {"eee", kEeeKeys}}};
inline constexpr std::array<SubMapSchema, 1> kFilterSubMaps{{{"match", kMatchKeys}}};
inline constexpr std::array<SubMapSchema, 1> kVSwitchSubMaps{{{"cpu", kVSwitchCpuKeys}}};

// A top-level map of named elements (hosts, links, ...). Some fields of an
// element are maps (`sub_maps`), at most one is a list (`list_key`:
// links.ends); neither can be set as a scalar.
struct SectionSchema {
  std::string_view name;
  std::string_view element;  // "host", "link", ... for messages
  KeyList keys;
  std::span<const SubMapSchema> sub_maps;
  std::string_view list_key;

  const SubMapSchema* sub_map(std::string_view key) const {
    for (const auto& m : sub_maps) {
      if (m.key == key) return &m;
    }
    return nullptr;
  }
};

inline constexpr std::array<SectionSchema, 7> kSections{{
    {"hosts", "host", kHostKeys, kHostSubMaps, {}},
    {"switches", "switch", kSwitchKeys, {}, {}},
    {"hubs", "hub", kHubKeys, {}, {}},
    {"vswitches", "vswitch", kVSwitchKeys, kVSwitchSubMaps, {}},
    {"links", "link", kLinkKeys, kLinkSubMaps, "ends"},
    {"filters", "filter", kFilterKeys, kFilterSubMaps, {}},
    {"traffic", "flow", kAnyFlowKeys, {}, {}},
}};

inline const SectionSchema* find_section(std::string_view name) {
  for (const auto& s : kSections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

inline bool contains(KeyList keys, std::string_view key) {
  for (auto k : keys) {
    if (k == key) return true;
  }
  return false;
}

}  // namespace netsim::scenario_internal
