#include "scenario_validator.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cmath>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "netsim/nic/ixgb_nic.h"
#include "netsim/scenario/scenario_registry.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/units.h"
#include "scenario_schema.h"

namespace netsim::scenario_internal {
namespace {

constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kDefaultSwitchBuffer = 128'000;  // 128KB
constexpr std::int64_t kDefaultHubBuffer = 64'000;      // 64KB
constexpr std::int64_t kMinMtu = 68;                    // RFC 791
constexpr std::int64_t kMinIpv6Mtu = 1280;              // RFC 8200
constexpr std::int64_t kMaxMtu = 65535;
constexpr std::int64_t kMaxUdpPayload = 65507;  // 65535 - 20 (IPv4) - 8 (UDP)
constexpr std::int64_t kMaxFraming = 65535;
constexpr std::int64_t kMaxNicBudget = 65536;
// Driver defaults (docs/vmxnet3.md): iflib's rx_budget sysctl (sys/net/iflib.c
// _task_fn_rx), FreeBSD's VMXNET3_DEF_RX_NDESC (if_vmxvar.h), Linux's
// VMXNET3_DEF_RX_RING_SIZE (drivers/net/vmxnet3/vmxnet3_int.h).
constexpr int kIflibRxBudget = 16;
constexpr std::uint32_t kVmxRxNdesc = 256;
constexpr std::uint32_t kLinuxVmxnet3RxRingSize = 1024;
constexpr std::int64_t kVnicRateGbps = 1000;  // a vNIC link without `rate`: 1 Tbit/s, no line rate to speak of
constexpr std::int64_t kMaxNapiDeferHardIrqs = 2147483647;  // S32_MAX, as sysfs accepts
constexpr std::int64_t kMaxSeeds = 100000;
// Interval reports per run: each holds every flow's and link's figures (about
// 1 KB), so a 1 ns interval over a second would take a terabyte.
constexpr std::int64_t kMaxIntervalReports = 1000000;
constexpr double kMaxClockPpm = 1000;  // 0.1%: ten times what IEEE 802.3 allows an Ethernet transmitter

constexpr std::array<std::string_view, 5> kRequiredTop{"name", "duration", "hosts", "links", "traffic"};
constexpr std::array<std::string_view, 1> kRequiredHost{"address"};
constexpr std::array<std::string_view, 1> kRequiredLink{"ends"};
constexpr std::array<std::string_view, 1> kRequiredRate{"rate"};  // unless an end is a vSwitch
constexpr std::array<std::string_view, 1> kRequiredFilter{"host"};
constexpr std::array<std::string_view, 2> kRequiredFlow{"from", "to"};
constexpr std::array<std::string_view, 1> kRequiredNetem{"delay"};

enum class NodeKind { host, switch_node, hub, vswitch };

// Names held in strings, as the Reader's key lists (views into `names`).
std::vector<std::string_view> names_view(const std::vector<std::string>& names) {
  return std::vector<std::string_view>(names.begin(), names.end());
}

std::string kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::host:
      return "host";
    case NodeKind::switch_node:
      return "switch";
    case NodeKind::hub:
      return "hub";
    case NodeKind::vswitch:
      return "vswitch";
  }
  return "node";
}

class Validator {
 public:
  Validator(const Reader& reader, bool with_sweep, std::shared_ptr<const ScenarioRegistry> registry)
      : r_(reader), with_sweep_(with_sweep), registry_(registry_or_default(registry)) {
    spec_.registry = std::move(registry);
    // What `cc:` and a filter's `type:` may say: netsim's names and the registry's.
    for (const std::string& n : registry_.cc.names()) cc_names_.push_back(n);
    for (const std::string_view n : kLinuxCcNames) {
      if (!registry_.cc.contains(n)) cc_names_.emplace_back(n);
    }
    if (!registry_.cc.contains("bic")) cc_names_.emplace_back("bic");  // the Linux 2.6 sender's (host.kernel)
    filter_types_.assign(kFilterTypes.begin(), kFilterTypes.end());
    for (const std::string& t : registry_.filters.types()) filter_types_.push_back(t);
  }
  ScenarioSpec run(const YAML::Node& root);

 private:
  struct NodeDecl {
    NodeKind kind;
    std::size_t index;  // into spec_.hosts, switches or hubs
    SourceLoc loc;
  };

  void parse_top(const std::string& key, const Field& f);
  void parse_host(const std::string& name, const Field& f);
  void parse_address(const Field& f, HostSpec& h);
  void parse_nic(const Field& f, HostSpec& h);
  void parse_cpu(const Field& f, HostSpec& h);
  void apply_driver_defaults(const std::map<std::string, Field>& given, NicSpec& nic);
  void apply_ixgb_defaults(const std::map<std::string, Field>& given, NicSpec& nic);
  void parse_switch(const std::string& name, const Field& f);
  void parse_hub(const std::string& name, const Field& f);
  void parse_vswitch(const std::string& name, const Field& f);
  bool is_vswitch(const std::string& name) const;
  void parse_link(const std::string& name, const Field& f);
  void parse_ends(const Field& f, LinkSpec& link, std::optional<Field>& end_a, std::optional<Field>& end_b);
  void parse_eee(const Field& f, LinkSpec& link);
  std::optional<FlowControlSpec> parse_flow_control(const Field& f, bool require_thresholds, std::optional<Field>& high);
  void parse_nic_flow_control(const Field& f, NicSpec& nic);
  void parse_nic_bus(const Field& f, NicSpec& nic);
  // A block that may also be `true` (all defaults) or `false` (off, also
  // after a profile turned it on): false for `false`, true otherwise.
  template <std::size_t N>
  bool switched_on(const Field& f, const std::array<std::string_view, N>& keys);
  void parse_filter(const std::string& name, const Field& f);
  // Returns the `protocol` field, if given (its family is checked once the host is known).
  std::optional<Field> parse_match(const Field& f, MatchSpec& m);
  void parse_flow(const std::string& name, const Field& f);
  void parse_udp_flow(const std::string& name, const Field& f);
  void parse_ping_flow(const std::string& name, const Field& f);
  void parse_tcp_flow(const std::string& name, const Field& f);
  // nuttcp's own keys (-w, -i, the output layout; -N is the caller's): true
  // if `key` is one; where each was written goes to `at`.
  bool read_nuttcp_key(const std::string& key, const Field& v, NuttcpSpec& n, std::map<std::string, Field>& at);
  // After a flow's keys: a nuttcp key on a flow of another app, or an -i
  // longer than -T, is an error at that key.
  void check_nuttcp_keys(const std::string& app, const NuttcpSpec& n, const std::map<std::string, Field>& at);
  // Where the keys every flow type shares were written, for later checks.
  struct SharedFlowFields {
    std::optional<Field> from, to, start, stop;
  };
  // Reads from, to, dst_port, start or stop into any flow spec; false for other keys.
  template <typename FlowSpec>
  FlowSpec new_flow(const std::string& name, const Field& f);
  template <typename FlowSpec>
  bool read_shared_flow_key(const std::string& key, const Field& v, FlowSpec& fl, SharedFlowFields& at);
  template <typename FlowSpec>
  void check_flow_ends(const Field& f, const std::set<std::string>& seen, const FlowSpec& fl,
                       const SharedFlowFields& at);
  void parse_sweep_axis(const std::string& key, const Field& f);
  void parse_capture(const Field& f);
  void parse_host_capture(const std::string& host, const Field& f, CaptureSpec& c);
  void parse_link_capture(const std::string& link, const Field& f);

  void declare_node(const std::string& name, const Field& f, NodeKind kind, std::size_t index);
  void resolve(const Field& ref, const std::string& name, bool host_only, std::string_view why_host) const;
  bool is_ipv6_host(const std::string& name) const;
  void parse_siftr(const Field& f, HostSpec& h);
  std::vector<std::string> element_names(std::string_view section) const;
  void check_sweep_key(const Field& key, const std::string& path);
  void check_connectivity() const;

  const Reader& r_;
  bool with_sweep_;
  const ScenarioRegistry& registry_;
  std::vector<std::string> cc_names_;      // every sender os's, in the order of the error messages
  std::vector<std::string> filter_types_;  // nth, random, then the registry's
  ScenarioSpec spec_;
  std::map<std::string, NodeDecl> nodes_;         // hosts, switches and hubs share one namespace
  std::map<std::string, std::string> addresses_;  // binary address -> host name
  std::vector<std::function<void()>> deferred_;   // pass 2, in file order
  int flow_order_ = 0;                            // flows of all types, in file order
  std::optional<Field> cpu_tick_;                 // the host being parsed's cpu.tick (file, profile or --set)
  std::optional<Field> kernel_field_;             // the host's kernel (or a 2.6 sender knob)
  std::optional<Field> cpu_irq_core_;             // ... its cpu.irq_core and cpu.app_core
  std::optional<Field> cpu_app_core_;
  std::optional<Field> siftr_field_;              // the host being parsed's siftr block
};

ScenarioSpec Validator::run(const YAML::Node& root) {
  spec_.file = r_.file();
  const Field top{root, YAML::Node(), ""};
  check_top_level(root, r_);
  const auto seen = r_.visit_fields(top, kTopKeys, [this](const std::string& k, const Field& f) { parse_top(k, f); });
  r_.require(top, seen, kRequiredTop);
  for (const auto& check : deferred_) check();
  check_connectivity();
  // Disabled flows were checked like the others; the run leaves them out.
  const auto disabled = [](const auto& fl) { return !fl.enabled; };
  std::erase_if(spec_.tcp_flows, disabled);
  std::erase_if(spec_.udp_flows, disabled);
  std::erase_if(spec_.ping_flows, disabled);
  return std::move(spec_);
}

void Validator::parse_top(const std::string& key, const Field& f) {
  if (key == "name") {
    spec_.name = r_.string(f);
    if (spec_.name.empty()) r_.fail(f, "must not be empty");
  } else if (key == "description") {
    if (!f.value.IsNull()) spec_.description = r_.string(f);
  } else if (key == "seed") {
    spec_.seed = r_.unsigned_integer(f);
  } else if (key == "seeds") {
    spec_.seeds = static_cast<int>(r_.integer(f, 1, kMaxSeeds));
  } else if (key == "duration") {
    spec_.duration = r_.duration(f);
    if (spec_.duration == 0) r_.fail(f, "must be greater than 0");
  } else if (key == "interval") {
    spec_.interval = r_.duration(f);
    deferred_.emplace_back([this, f] {
      if (spec_.interval > spec_.duration) {
        r_.fail(f, "interval (" + format_duration(spec_.interval) + ") must not exceed duration (" +
                       format_duration(spec_.duration) + ")");
      }
      if (spec_.interval > 0 && spec_.duration / spec_.interval > kMaxIntervalReports) {
        r_.fail(f, "interval (" + format_duration(spec_.interval) + ") over duration (" +
                       format_duration(spec_.duration) + ") gives more than " + std::to_string(kMaxIntervalReports) +
                       " interval reports; use a longer interval");
      }
    });
  } else if (key == "max_packets") {
    spec_.max_packets = static_cast<std::uint64_t>(r_.integer(f, 1024, std::int64_t{1} << 40));
  } else if (key == "hosts") {
    if (f.value.IsNull() || (f.value.IsMap() && f.value.size() == 0)) {
      r_.fail(f, "no hosts defined: a scenario needs at least two hosts connected by links");
    }
    r_.visit_entries(f, "host", true, [this](const std::string& n, const Field& v) { parse_host(n, v); });
  } else if (key == "switches") {
    r_.visit_entries(f, "switch", true, [this](const std::string& n, const Field& v) { parse_switch(n, v); });
  } else if (key == "hubs") {
    r_.visit_entries(f, "hub", true, [this](const std::string& n, const Field& v) { parse_hub(n, v); });
  } else if (key == "vswitches") {
    r_.visit_entries(f, "vswitch", true, [this](const std::string& n, const Field& v) { parse_vswitch(n, v); });
  } else if (key == "links") {
    r_.visit_entries(f, "link", true, [this](const std::string& n, const Field& v) { parse_link(n, v); });
  } else if (key == "filters") {
    r_.visit_entries(f, "filter", true, [this](const std::string& n, const Field& v) { parse_filter(n, v); });
  } else if (key == "traffic") {
    r_.visit_entries(f, "flow", true, [this](const std::string& n, const Field& v) { parse_flow(n, v); });
  } else if (key == "sweep") {
    if (with_sweep_) {
      // Sweep keys are dotted paths, so they are not checked as names.
      r_.visit_entries(f, "list of values", false,
                       [this](const std::string& k, const Field& v) { parse_sweep_axis(k, v); });
    }
  } else if (key == "capture") {
    parse_capture(f);
  } else if (key == "measured") {
    spec_.measured.reset(f.value);  // free-form; reset() because Node::operator= would edit the tree
  } else if (key == "calibrate") {
    spec_.calibrate.reset(f.value);  // checked by parse_calibration, against the measured block
  } else if (key == "calibration") {
    r_.string(f);  // read and applied by the loader before validation
  }
}

void Validator::declare_node(const std::string& name, const Field& f, NodeKind kind, std::size_t index) {
  const SourceLoc where = r_.loc(f.key);
  const auto [it, inserted] = nodes_.emplace(name, NodeDecl{kind, index, where});
  if (!inserted) {
    r_.fail(key_field(f), "name '" + name + "' is already used by the " + kind_name(it->second.kind) +
                              " defined at line " + std::to_string(it->second.loc.line) +
                              " (hosts, switches and hubs share one namespace)");
  }
}

void Validator::parse_host(const std::string& name, const Field& f) {
  declare_node(name, f, NodeKind::host, spec_.hosts.size());
  HostSpec h;
  h.name = name;
  h.loc = r_.loc(f.key);
  cpu_tick_.reset();
  cpu_irq_core_.reset();
  kernel_field_.reset();
  cpu_app_core_.reset();
  siftr_field_.reset();
  const auto seen = r_.visit_fields(f, kHostKeys, [&](const std::string& key, const Field& v) {
    if (key == "address") {
      parse_address(v, h);
    } else if (key == "hz") {
      h.hz = static_cast<int>(r_.integer(v, TickClock::kMinHz, TickClock::kMaxHz));
    } else if (key == "nic") {
      parse_nic(v, h);
    } else if (key == "clock_ppm") {
      h.clock_ppm = r_.real(v, 0, kMaxClockPpm);
    } else if (key == "os") {
      h.os = r_.choice(v, kHostOsNames);
      h.os_set = true;
    } else if (key == "kernel") {
      h.kernel = r_.choice(v, kLinuxKernels);
      kernel_field_.emplace(v);
    } else if (key == "tso_win_divisor") {
      h.tso_win_divisor = static_cast<int>(r_.integer(v, 0, 64));
      kernel_field_.emplace(v);
    } else if (key == "tso_defer_bound") {
      h.tso_defer_bound = r_.boolean(v);
      kernel_field_.emplace(v);
    } else if (key == "tso_cwnd_limited") {
      h.tso_cwnd_limited = r_.boolean(v);
      kernel_field_.emplace(v);
    } else if (key == "vm_host_alloweddeviation") {
      h.vm_host_alloweddeviation = static_cast<int>(r_.integer(v, 0, 100));
    } else if (key == "netem") {
      const auto netem_seen = r_.visit_fields(v, kNetemKeys, [&](const std::string& k, const Field& x) {
        if (k == "delay") {
          h.netem_delay = r_.duration(x);
        } else if (k == "limit") {
          h.netem_limit = r_.integer(x, 1, std::int64_t{1} << 31);
        }
      });
      r_.require(v, netem_seen, kRequiredNetem);
    } else if (key == "tx_buffer") {
      h.tx_buffer_bytes = r_.size(v, 1, kUnbounded);
    } else if (key == "tx_buffer_packets") {
      h.tx_buffer_packets = r_.integer(v, 1, kUnbounded);
    } else if (key == "tx_backlog") {
      h.tx_backlog = static_cast<std::uint32_t>(r_.integer(v, 1, std::int64_t{1} << 24));
    } else if (key == "cpu") {
      parse_cpu(v, h);
    } else if (key == "siftr") {
      siftr_field_.emplace(v);
      parse_siftr(v, h);
    }
  });
  if (kernel_field_ && (h.os != "linux" || h.kernel.empty())) {
    r_.fail(*kernel_field_, "kernel, tso_win_divisor, tso_defer_bound and tso_cwnd_limited are the Linux 2.6 sender's: "
                            "host '" + h.name + "' needs os: linux and a kernel (2.6.12, 2.6.13 or 2.6.14)");
  }
  if (h.siftr && h.os != "freebsd") {
    r_.fail(*siftr_field_, "SIFTR is a FreeBSD kernel module: host '" + h.name + "' has os: " + h.os);
  }
  if (h.siftr && h.cpu.any() && h.cpu.frequency_hz == 0) {
    r_.fail(*siftr_field_, "SIFTR's costs are CPU cycles: give host '" + h.name +
                               "' a cpu.frequency (such as 3GHz) to turn them into time");
  }
  for (const auto& [field, core] : {std::pair{&cpu_irq_core_, h.cpu_layout.irq_core},
                                    std::pair{&cpu_app_core_, h.cpu_layout.app_core}}) {
    if (*field && core >= h.cpu_layout.cores) {
      r_.fail(**field, "core " + std::to_string(core) + " does not exist: host '" + h.name + "' has cpu.cores " +
                           std::to_string(h.cpu_layout.cores) + " (cores count from 0)");
    }
  }
  if (h.cpu.tick > 0 && h.cpu.tick >= kPicosPerSecond / h.hz) {
    r_.fail(*cpu_tick_, "a hardclock cost of " + format_duration(h.cpu.tick) +
                            " is not shorter than the tick period at hz=" + std::to_string(h.hz) + " (" +
                            format_duration(kPicosPerSecond / h.hz) + "): the CPU would do nothing but hardclock");
  }
  r_.require(f, seen, kRequiredHost);
  spec_.hosts.push_back(std::move(h));
}

void Validator::parse_address(const Field& f, HostSpec& h) {
  const std::string& text = r_.scalar(f, "an IPv4 or IPv6 address");
  std::array<unsigned char, 16> bytes{};
  std::string binary;
  if (inet_pton(AF_INET, text.c_str(), bytes.data()) == 1) {
    h.ip_version = IpVersion::v4;
    binary.assign(bytes.begin(), bytes.begin() + 4);
  } else if (inet_pton(AF_INET6, text.c_str(), bytes.data()) == 1) {
    h.ip_version = IpVersion::v6;
    binary.assign(bytes.begin(), bytes.end());
  } else {
    r_.fail(f, quoted(text) + " is not an IPv4 address (like 10.0.0.1) or an IPv6 address (like fd00::1)");
  }
  // Compared in binary so that "fd00::1" and "fd00:0::1" are the same address.
  const auto [it, inserted] = addresses_.emplace(binary, h.name);
  if (!inserted) r_.fail(f, "address " + text + " is already used by host '" + it->second + "'");
  h.address = text;
}

void Validator::parse_nic(const Field& f, HostSpec& h) {
  NicSpec nic;
  std::optional<Field> handler_latency;  // host_int_latency or host_int_jitter, for the error below
  std::optional<Field> flow_control;     // checked against rx_fifo and host_int_rx_mod below
  std::optional<Field> rx_fifo;          // checked against ring_size below
  std::map<std::string, Field> given;    // for the driver's defaults and its keys
  r_.visit_fields(f, kNicKeys, [&](const std::string& key, const Field& v) {
    given.emplace(key, v);
    if (key == "driver") {
      const std::string d = r_.choice(v, kNicDrivers);
      nic.driver = d == "vmx"       ? NicDriver::vmx
                   : d == "vmxnet3" ? NicDriver::vmxnet3
                   : d == "ixgb"    ? NicDriver::ixgb
                                    : NicDriver::virtio;
    } else if (key == "lro") {
      nic.lro = r_.boolean(v);
    } else if (key == "lro_entries") {
      nic.lro_config.entries = static_cast<int>(r_.integer(v, 1, 1024));
    } else if (key == "lro_length_lim") {
      nic.lro_config.length_lim = static_cast<std::uint32_t>(r_.integer(v, 1, 65535));
    } else if (key == "lro_ackcnt_lim") {
      nic.lro_config.ackcnt_lim = static_cast<std::uint32_t>(r_.integer(v, 1, 65535));
    } else if (key == "rx_head_buffer") {
      nic.rx_head_buffer = static_cast<std::uint32_t>(r_.size(v, 0, 65536));
    } else if (key == "rx_body_buffer") {
      nic.rx_body_buffer = static_cast<std::uint32_t>(r_.size(v, 256, 65536));
    } else if (key == "gro") {
      nic.gro = r_.boolean(v);
    } else if (key == "irq_delay") {
      nic.irq_delay = r_.duration(v);
    } else if (key == "budget") {
      nic.budget = static_cast<int>(r_.integer(v, 1, kMaxNicBudget));
    } else if (key == "merge_acks") {
      nic.merge_acks = r_.boolean(v);
    } else if (key == "irq_jitter") {
      nic.irq_jitter = r_.duration(v);
    } else if (key == "irq_jitter_shape") {
      nic.irq_jitter_shape = r_.choice(v, kIrqJitterShapes) == "exponential" ? NicJitterShape::exponential
                                                                              : NicJitterShape::uniform;
    } else if (key == "irq_min_interval") {
      nic.irq_min_interval = r_.duration(v);
    } else if (key == "host_int_rx_mod") {
      nic.host_int_rx_mod = r_.duration(v);
    } else if (key == "host_int_latency") {
      nic.host_int_latency = r_.duration(v);
      if (nic.host_int_latency > 0) handler_latency.emplace(v);
    } else if (key == "host_int_jitter") {
      nic.host_int_jitter = r_.duration(v);
      if (nic.host_int_jitter > 0) handler_latency.emplace(v);
    } else if (key == "gro_flush_timeout") {
      nic.gro_flush_timeout = r_.duration(v);
    } else if (key == "napi_defer_hard_irqs") {
      nic.napi_defer_hard_irqs = static_cast<int>(r_.integer(v, 0, kMaxNapiDeferHardIrqs));
    } else if (key == "idle_wake_delay") {
      nic.idle_wake_delay = r_.duration(v);
    } else if (key == "idle_wake_jitter") {
      nic.idle_wake_jitter = r_.duration(v);
    } else if (key == "idle_after") {
      nic.idle_after = r_.duration(v);
    } else if (key == "per_packet_cost") {
      nic.per_packet_cost = r_.duration(v);
    } else if (key == "ring_size") {
      nic.ring_size = static_cast<std::uint32_t>(r_.integer(v, 0, 1 << 20));
    } else if (key == "rx_fifo") {
      nic.rx_fifo = r_.size(v, 0, kUnbounded);
      rx_fifo.emplace(v);
    } else if (key == "flow_control") {
      flow_control.emplace(v);
    } else if (key == "filter_position") {
      nic.filter_position = r_.choice(v, kNicFilterPositions) == "after_gro" ? NicFilterPosition::after_gro
                                                                             : NicFilterPosition::before_gro;
    } else if (key == "tso") {
      nic.ixgb.tso = r_.boolean(v);
    } else if (key == "tx_descriptors") {
      // ixgb_param.c: MIN_TXD 64, MAX_TXD 4096 (rounded up to a multiple of 8 by the driver)
      nic.ixgb.tx_descriptors = static_cast<std::uint32_t>(r_.integer(v, 64, 4096));
    } else if (key == "rx_descriptors") {
      nic.ixgb.rx_descriptors = static_cast<std::uint32_t>(r_.integer(v, 64, 4096));  // MIN_RXD, MAX_RXD
    } else if (key == "rx_int_delay") {
      nic.ixgb.rx_int_delay = r_.integer(v, 0, 0xFFFF);  // MIN_RDTR, MAX_RDTR
    } else if (key == "tx_int_delay") {
      nic.ixgb.tx_int_delay = r_.integer(v, 0, 0xFFFF);  // MIN_TIDV, MAX_TIDV
    } else if (key == "tx_int_delay_enable") {
      nic.ixgb.tx_int_delay_enable = r_.boolean(v);
    } else if (key == "tx_queue_len") {
      nic.ixgb.tx_queue_len = static_cast<std::uint32_t>(r_.integer(v, 0, 1 << 20));
    } else if (key == "bus") {
      parse_nic_bus(v, nic);
    }
  });
  // The handler latency belongs to the re(4) stage; without it there is nothing to delay.
  if (handler_latency && nic.host_int_rx_mod == 0) {
    r_.fail(*handler_latency, "needs host_int_rx_mod > 0: it delays the handler of that stage (the box NIC's one-shot moderation)");
  }
  if (rx_fifo && nic.rx_fifo > 0 && nic.ring_size == 0) {
    r_.fail(*rx_fifo, "needs a limited ring (ring_size > 0): frames wait in the FIFO only while every descriptor is in use");
  }
  apply_driver_defaults(given, nic);
  if (flow_control) parse_nic_flow_control(*flow_control, nic);  // after the loop: it is checked against rx_fifo
  if (nic.flow_control && nic.host_int_rx_mod > 0) {
    r_.fail(*flow_control, "cannot be combined with host_int_rx_mod: behind a box NIC this receive path is a VM's "
                           "virtio ring, which has no MAC to pause the wire (flow control belongs to a physical NIC)");
  }
  h.nic = nic;
}

// A driver's own defaults for what the nic block leaves out, and the keys
// that belong to another driver.
void Validator::apply_driver_defaults(const std::map<std::string, Field>& given, NicSpec& nic) {
  const auto has = [&given](const char* k) { return given.count(k) != 0; };
  constexpr std::array<const char*, 4> kLroKeys{"lro_entries", "lro_length_lim", "lro_ackcnt_lim", "lro"};
  constexpr std::array<const char*, 2> kBufferKeys{"rx_head_buffer", "rx_body_buffer"};
  if (nic.driver != NicDriver::vmx) {
    for (const char* k : kBufferKeys) {
      if (has(k)) r_.fail(given.at(k), "belongs to driver: vmx (FreeBSD vmx(4)'s receive buffers)");
    }
  }
  if (nic.driver != NicDriver::ixgb) {
    for (const std::string_view k : kIxgbNicKeys) {
      const std::string key(k);
      if (given.count(key) != 0) r_.fail(given.at(key), "belongs to driver: ixgb (the Intel 82597EX's rings and PCI-X bus)");
    }
  } else {
    apply_ixgb_defaults(given, nic);
    return;
  }
  if (nic.driver == NicDriver::virtio) {
    for (const char* k : kLroKeys) {
      if (has(k)) r_.fail(given.at(k), "belongs to driver: vmx or vmxnet3 (virtio's FreeBSD tcp_lro is merge_acks)");
    }
    return;
  }
  if (nic.driver == NicDriver::vmxnet3) {
    for (const char* k : {"lro_entries", "lro_length_lim", "lro_ackcnt_lim"}) {
      if (has(k)) r_.fail(given.at(k), "belongs to driver: vmx (Linux vmxnet3's LRO is the device's, no table)");
    }
  }
  if (has("merge_acks")) r_.fail(given.at("merge_acks"), "is virtio's; with driver: vmx, lro: true runs tcp_lro itself");
  if (nic.driver == NicDriver::vmx && has("gro")) {
    r_.fail(given.at("gro"), "FreeBSD has no GRO: vmx aggregates with tcp_lro (lro: true)");
  }
  // vmx: IFCAP_LRO is a capability, not enabled (vmxnet3_attach_pre); Linux
  // vmxnet3 puts NETIF_F_LRO in hw_features and features (vmxnet3_declare_features).
  if (!has("lro")) nic.lro = nic.driver == NicDriver::vmxnet3;
  if (nic.driver == NicDriver::vmx) {
    if (!has("budget")) nic.budget = kIflibRxBudget;
    if (!has("ring_size")) nic.ring_size = kVmxRxNdesc;
  } else if (!has("ring_size")) {
    nic.ring_size = kLinuxVmxnet3RxRingSize;
  }
}

// driver: ixgb: the receive ring is the driver's, its interrupt RDTR, its
// pass the non-NAPI ixgb_clean_rx_irq (no budget, no GRO, no LRO).
void Validator::apply_ixgb_defaults(const std::map<std::string, Field>& given, NicSpec& nic) {
  constexpr std::array<std::pair<const char*, const char*>, 9> kNotIxgb{{
      {"irq_delay", "is rx_int_delay with driver: ixgb (RDTR, in units of 0.8192 us)"},
      {"ring_size", "is rx_descriptors with driver: ixgb (RxDescriptors)"},
      {"gro", "does not exist in the ixgb of Linux 2.6.12-2.6.14 (no GRO: the stack sees every wire segment)"},
      {"lro", "does not exist in the ixgb of Linux 2.6.12-2.6.14 (no LRO: the stack sees every wire segment)"},
      {"lro_entries", "belongs to driver: vmx (tcp_lro)"},
      {"lro_length_lim", "belongs to driver: vmx (tcp_lro)"},
      {"lro_ackcnt_lim", "belongs to driver: vmx (tcp_lro)"},
      {"merge_acks", "is virtio's (FreeBSD tcp_lro's ACK merging), not ixgb's"},
      {"host_int_rx_mod", "belongs to a VM's receive path behind a box NIC; an ixgb NIC is the box's own"},
  }};
  for (const auto& [k, why] : kNotIxgb) {
    if (given.count(k) != 0) r_.fail(given.at(k), why);
  }
  nic.gro = false;
  nic.lro = false;
  if (given.count("budget") == 0) nic.budget = static_cast<int>(kMaxNicBudget);  // ixgb_intr cleans the whole ring
  nic.ring_size = nic.ixgb.rx_descriptors;
  nic.irq_delay = nic.ixgb.rx_int_delay * kIxgbDelayUnit;
}

void Validator::parse_nic_bus(const Field& f, NicSpec& nic) {
  PcixBusConfig& b = nic.ixgb.bus;
  r_.visit_fields(f, kNicBusKeys, [&](const std::string& key, const Field& v) {
    if (key == "type") {
      r_.choice(v, kNicBusTypes);
    } else if (key == "mhz") {
      b.clock_hz = std::llround(r_.real(v, 1, 1000) * 1e6);
    } else if (key == "width_bits") {
      const std::int64_t w = r_.integer(v, 32, 64);
      if (w != 32 && w != 64) r_.fail(v, "must be 32 or 64 (a PCI-X bus is 32 or 64 bits wide), got " + std::to_string(w));
      b.width_bits = static_cast<std::uint32_t>(w);
    } else if (key == "mmrbc") {
      const std::int64_t m = r_.size(v, 512, 4096);
      if (m != 512 && m != 1024 && m != 2048 && m != 4096) {
        r_.fail(v, "must be 512, 1024, 2048 or 4096 (the PCI-X command register's maximum memory read byte count), got " +
                       std::to_string(m));
      }
      b.mmrbc = static_cast<std::uint32_t>(m);
    } else if (key == "write_burst") {
      const std::int64_t m = r_.size(v, 8, 4096);
      if (m % 8 != 0) r_.fail(v, "must be a multiple of 8 bytes, got " + std::to_string(m));
      b.write_burst = static_cast<std::uint32_t>(m);
    } else if (key == "transaction_overhead_cycles") {
      b.transaction_overhead_cycles = static_cast<std::uint32_t>(r_.integer(v, 0, 1000));
    }
  });
  if (b.width_bits == 32 && b.write_burst % 4 != 0) r_.fail(f, "write_burst must be a multiple of the bus width");
}

template <std::size_t N>
bool Validator::switched_on(const Field& f, const std::array<std::string_view, N>& keys) {
  if (!f.value.IsScalar()) return true;
  const std::string text = f.value.Scalar();
  if (text != "true" && text != "false") {
    r_.fail(f, "expected a map with keys " + join_words(keys) + ", or true or false, got '" + text + "'");
  }
  return text == "true";
}

// A flow_control block; nullopt for `false`. With `require_thresholds` (a
// switch) it must give high_water and low_water itself.
std::optional<FlowControlSpec> Validator::parse_flow_control(const Field& f, bool require_thresholds,
                                                             std::optional<Field>& high) {
  FlowControlSpec fc;
  // `flow_control: true` is `{}` (igb's settings).
  if (!switched_on(f, kFlowControlKeys)) return std::nullopt;
  bool low = false;
  if (!f.value.IsScalar()) r_.visit_fields(f, kFlowControlKeys, [&](const std::string& key, const Field& v) {
    if (key == "high_water") {
      fc.high_water = r_.size(v, 1, kUnbounded);
      high.emplace(v);
    } else if (key == "low_water") {
      fc.low_water = r_.size(v, 0, kUnbounded);
      low = true;
    } else if (key == "pause_quanta") {
      fc.pause_quanta = static_cast<int>(r_.integer(v, 1, 0xFFFF));
    } else if (key == "send_xon") {
      fc.send_xon = r_.boolean(v);
    } else if (key == "refresh") {
      fc.refresh = r_.duration(v);
      if (fc.refresh < 0) r_.fail(v, "must not be negative");
    }
  });
  if (require_thresholds && !(high && low)) {
    r_.fail(f, "a switch needs high_water and low_water: its thresholds are its chip's, with no default (bytes "
               "that came in through one port and are still buffered)");
  }
  if (fc.low_water > fc.high_water) {
    r_.fail(f, "low_water " + std::to_string(fc.low_water) + " bytes is above high_water " +
                   std::to_string(fc.high_water) + " bytes");
  }
  return fc;
}

void Validator::parse_nic_flow_control(const Field& f, NicSpec& nic) {
  std::optional<Field> high;
  nic.flow_control = parse_flow_control(f, false, high);
  if (!nic.flow_control) return;
  if (nic.rx_fifo <= 0) {
    r_.fail(f, "needs rx_fifo > 0: PAUSE frames are sent from the fill of the NIC's receive FIFO");
  }
  if (nic.flow_control->high_water > nic.rx_fifo) {
    r_.fail(high ? *high : f, "high_water " + std::to_string(nic.flow_control->high_water) +
                                  " bytes is above rx_fifo (" + std::to_string(nic.rx_fifo) +
                                  " bytes): XOFF would never be sent");
  }
}

void Validator::parse_siftr(const Field& f, HostSpec& h) {
  SiftrSpec sp;
  sp.loc = r_.loc(f.key);
  bool off = false;
  // kSiftrCostKeys in the same order.
  static constexpr std::array<std::int64_t tcp::SiftrCosts::*, kSiftrCostKeys.size()> kCosts{
      &tcp::SiftrCosts::hook,       &tcp::SiftrCosts::hook_record,       &tcp::SiftrCosts::toeplitz_per_bit,
      &tcp::SiftrCosts::flow_setup, &tcp::SiftrCosts::key_hash_per_byte, &tcp::SiftrCosts::record,
      &tcp::SiftrCosts::conversion, &tcp::SiftrCosts::log_byte,          &tcp::SiftrCosts::wakeup};
  tcp::SiftrConfig& c = sp.config;
  r_.visit_fields(f, kSiftrKeys, [&](const std::string& key, const Field& v) {
    if (key == "version") {
      const std::string ver = r_.choice(v, kSiftrVersions);
      off = ver == "off";
      c.version = ver == "1.2.4" ? tcp::SiftrVersion::v1_2_4 : tcp::SiftrVersion::v1_3_0;
    } else if (key == "port_filter") {
      c.port_filter = static_cast<std::uint16_t>(r_.integer(v, 0, 65535));
    } else if (key == "ppl") {
      c.ppl = static_cast<std::uint32_t>(r_.integer(v, 1, 65535));
    } else if (key == "flowid") {
      c.flowid = r_.choice(v, kSiftrFlowIds) == "nic" ? tcp::SiftrFlowIdSource::nic : tcp::SiftrFlowIdSource::none;
    } else if (key == "inet6") {
      c.inet6 = r_.boolean(v);
    } else if (key == "queue_limit") {
      c.queue_limit = static_cast<std::uint32_t>(r_.integer(v, 0, std::int64_t{1} << 31));
    } else if (key == "sysver") {
      c.sysver = static_cast<std::uint32_t>(r_.integer(v, 0, std::int64_t{1} << 31));
    } else if (key == "enable_at") {
      c.enable_at = r_.duration(v);
    } else if (key == "disable_at") {
      c.disable_at = r_.duration(v);
    } else if (key == "wall_clock") {
      // realtime at simulated time 0, seconds since the epoch (microseconds kept)
      c.wall_clock_us = static_cast<std::int64_t>(std::llround(r_.real(v, 0, 4e9) * 1e6));
    } else if (key == "log") {
      sp.log = r_.string(v);
    } else if (key == "costs") {
      r_.visit_fields(v, kSiftrCostKeys, [&](const std::string& k, const Field& x) {
        const auto i = static_cast<std::size_t>(std::find(kSiftrCostKeys.begin(), kSiftrCostKeys.end(), k) -
                                                kSiftrCostKeys.begin());
        c.costs.*kCosts[i] = r_.integer(x, 0, std::int64_t{1} << 40);
      });
    }
  });
  if (c.disable_at && *c.disable_at <= c.enable_at) {
    r_.fail(f, "disable_at must be after enable_at");
  }
  if (!off) h.siftr = std::move(sp);
}

void Validator::parse_cpu(const Field& f, HostSpec& h) {
  // kCpuKeys in the same order: each key but the last five (frequency, speed, the layout) sets one cost.
  static constexpr std::array<SimTime HostCpuCosts::*, kCpuKeys.size() - 5> kCosts{
      &HostCpuCosts::tick,      &HostCpuCosts::interrupt,  &HostCpuCosts::rx_packet,   &HostCpuCosts::tcp_input,
      &HostCpuCosts::tx_packet, &HostCpuCosts::tx_segment, &HostCpuCosts::copy_per_kib, &HostCpuCosts::rx_fragment,
      &HostCpuCosts::rx_aggregate, &HostCpuCosts::ack_input};
  r_.visit_fields(f, kCpuKeys, [&](const std::string& key, const Field& v) {
    if (key == "frequency") {
      h.cpu.frequency_hz = r_.frequency(v);
      return;
    }
    if (key == "speed") {
      h.cpu.speed = r_.real(v, 0.01, 100);
      return;
    }
    if (key == "cores") {
      h.cpu_layout.cores = static_cast<int>(r_.integer(v, 1, 64));
      return;
    }
    if (key == "irq_core" || key == "app_core") {
      const int core = static_cast<int>(r_.integer(v, 0, 63));
      (key == "irq_core" ? h.cpu_layout.irq_core : h.cpu_layout.app_core) = core;
      (key == "irq_core" ? cpu_irq_core_ : cpu_app_core_).emplace(v);
      return;
    }
    const auto i = static_cast<std::size_t>(std::find(kCpuKeys.begin(), kCpuKeys.end(), key) - kCpuKeys.begin());
    h.cpu.*kCosts[i] = r_.duration(v);
    if (key == "tick") cpu_tick_.emplace(v);
  });
}

void Validator::parse_switch(const std::string& name, const Field& f) {
  declare_node(name, f, NodeKind::switch_node, spec_.switches.size());
  SwitchSpec s;
  s.name = name;
  s.loc = r_.loc(f.key);
  s.buffer_bytes = kDefaultSwitchBuffer;
  std::optional<Field> flow_control;
  r_.visit_fields(f, kSwitchKeys, [&](const std::string& key, const Field& v) {
    if (key == "buffer") {
      s.buffer_bytes = r_.size(v, 1, kUnbounded);
    } else if (key == "buffer_packets") {
      s.buffer_packets = r_.integer(v, 1, kUnbounded);
    } else if (key == "clock_ppm") {
      s.clock_ppm = r_.real(v, 0, kMaxClockPpm);
    } else if (key == "flow_control") {
      flow_control.emplace(v);
    }
  });
  if (flow_control) {  // after the loop: it is checked against the buffer
    std::optional<Field> high;
    s.flow_control = parse_flow_control(*flow_control, true, high);
    if (s.flow_control && s.flow_control->high_water > s.buffer_bytes) {
      r_.fail(*high, "high_water " + std::to_string(s.flow_control->high_water) + " bytes is above the buffer (" +
                         std::to_string(s.buffer_bytes) + " bytes per port): XOFF would never be sent");
    }
  }
  spec_.switches.push_back(std::move(s));
}

void Validator::parse_hub(const std::string& name, const Field& f) {
  declare_node(name, f, NodeKind::hub, spec_.hubs.size());
  HubSpec h;
  h.name = name;
  h.loc = r_.loc(f.key);
  h.buffer_bytes = kDefaultHubBuffer;
  r_.visit_fields(f, kHubKeys, [&](const std::string& key, const Field& v) {
    if (key == "rate") {
      h.rate = r_.rate(v);
    } else if (key == "buffer") {
      h.buffer_bytes = r_.size(v, 0, kUnbounded);  // 0: a frame that finds the medium busy is dropped
    }
  });
  spec_.hubs.push_back(std::move(h));
}

void Validator::parse_vswitch(const std::string& name, const Field& f) {
  declare_node(name, f, NodeKind::vswitch, spec_.vswitches.size());
  VSwitchSpec v;
  v.name = name;
  v.loc = r_.loc(f.key);
  r_.visit_fields(f, kVSwitchKeys, [&](const std::string&, const Field& cpu) {
    r_.visit_fields(cpu, kVSwitchCpuKeys, [&](const std::string& key, const Field& c) {
      if (key == "speed") {
        v.cpu.speed = r_.real(c, 0.01, 100);
        return;
      }
      const SimTime t = r_.duration(c);
      if (t < 0) r_.fail(c, "must not be negative");
      (key == "frame" ? v.cpu.frame : key == "segment" ? v.cpu.segment : v.cpu.copy_per_kib) = t;
    });
  });
  spec_.vswitches.push_back(std::move(v));
}

bool Validator::is_vswitch(const std::string& name) const {
  const auto it = nodes_.find(name);
  return it != nodes_.end() && it->second.kind == NodeKind::vswitch;
}

void Validator::parse_link(const std::string& name, const Field& f) {
  LinkSpec l;
  l.name = name;
  l.loc = r_.loc(f.key);
  std::optional<Field> end_a;
  std::optional<Field> end_b;
  std::optional<Field> mtu;
  std::optional<Field> eee;
  const auto seen = r_.visit_fields(f, kLinkKeys, [&](const std::string& key, const Field& v) {
    if (key == "ends") {
      parse_ends(v, l, end_a, end_b);
    } else if (key == "rate") {
      l.rate = r_.rate(v);
    } else if (key == "delay") {
      l.delay = r_.duration(v);
    } else if (key == "mtu") {
      l.mtu = r_.integer(v, kMinMtu, kMaxMtu);
      mtu.emplace(v);
    } else if (key == "framing") {
      l.framing_bytes = r_.size(v, 0, kMaxFraming);
    } else if (key == "queue") {
      r_.visit_fields(v, kQueueKeys, [&](const std::string& qkey, const Field& q) {
        if (qkey == "packets") {
          l.queue_packets = r_.integer(q, 1, kUnbounded);
        } else if (qkey == "bytes") {
          l.queue_bytes = r_.size(q, 1, kUnbounded);
        }
      });
    } else if (key == "eee") {
      eee.emplace(v);
    }
  });
  r_.require(f, seen, kRequiredLink);
  if (eee) parse_eee(*eee, l);  // after the loop: its defaults depend on the rate
  const std::size_t index = spec_.links.size();
  spec_.links.push_back(std::move(l));

  const bool rate_given = seen.count("rate") != 0;
  deferred_.emplace_back([this, index, a = *end_a, b = *end_b, mtu, f, rate_given, seen] {
    LinkSpec& link = spec_.links[index];
    resolve(a, link.end_a, false, {});
    resolve(b, link.end_b, false, {});
    const bool va = is_vswitch(link.end_a);
    const bool vb = is_vswitch(link.end_b);
    if (va || vb) {
      // A vNIC's port: the guest on one end, its host's vSwitch on the other.
      const Field& other = va ? b : a;
      const std::string& other_name = va ? link.end_b : link.end_a;
      if (nodes_.at(other_name).kind != NodeKind::host) {
        r_.fail(other, "a vswitch connects the VMs of one ESXi host: the other end must be a host, and '" + other_name +
                           "' is a " + kind_name(nodes_.at(other_name).kind));
      }
      // No line rate: the hypervisor's CPU and the guests' limit a vNIC.
      if (!rate_given) link.rate = DataRate::gbps(kVnicRateGbps);
    } else if (!rate_given) {
      r_.require(f, seen, kRequiredRate);
    }
    if (link.mtu < kMinIpv6Mtu && (is_ipv6_host(link.end_a) || is_ipv6_host(link.end_b))) {
      const std::string v6 = is_ipv6_host(link.end_a) ? link.end_a : link.end_b;
      r_.fail(mtu ? *mtu : Field{f.value, f.key, join_path(f.path, "mtu")},
              "must be at least 1280 on a link to IPv6 host '" + v6 + "' (RFC 8200), got " + std::to_string(link.mtu));
    }
  });
}

// Tw_sys_tx (min) of IEEE 802.3 Table 78-4 for the BASE-T PHY of each rate
// (the case where the wake follows a completed sleep); other rates must say.
std::optional<SimTime> standard_eee_wake(DataRate rate) {
  switch (rate.bps()) {
    case 100'000'000: return 20'500'000;        // 100BASE-TX: 20.5 us
    case 1'000'000'000: return 16'500'000;      // 1000BASE-T: 16.5 us
    case 2'500'000'000: return 17'920'000;      // 2.5GBASE-T: 17.92 us
    case 5'000'000'000: return 8'960'000;       // 5GBASE-T: 8.96 us
    case 10'000'000'000: return 4'480'000;      // 10GBASE-T: 4.48 us
    default: return std::nullopt;
  }
}

void Validator::parse_eee(const Field& f, LinkSpec& link) {
  LowPowerIdleConfig e;
  // 1000BASE-T's PHYs go quiet only when both ends signal sleep (802.3 78.1.3.3.1).
  e.symmetric = link.rate.bps() == 1'000'000'000;
  std::optional<SimTime> wake = standard_eee_wake(link.rate);
  // `eee: true` is `eee: {}`.
  if (!switched_on(f, kEeeKeys)) {
    link.eee.reset();
    return;
  }
  if (!f.value.IsScalar()) r_.visit_fields(f, kEeeKeys, [&](const std::string& key, const Field& v) {
    if (key == "wake") {
      wake = r_.duration(v);
      if (*wake <= 0) r_.fail(v, "must be positive (the time a sleeping link takes to carry a frame again)");
    } else if (key == "lpi_after") {
      e.lpi_after = r_.duration(v);
      if (e.lpi_after < 0) r_.fail(v, "must not be negative");
    } else if (key == "symmetric") {
      e.symmetric = r_.boolean(v);
    }
  });
  if (!wake) {
    r_.fail(f, "needs 'wake' (Tw_sys_tx): IEEE 802.3 Table 78-4 gives it only for BASE-T rates (100 Mbit/s, 1, 2.5, 5, "
               "10 Gbit/s), and this link runs at " + format_rate(link.rate));
  }
  e.wake = *wake;
  link.eee = e;
}

void Validator::parse_ends(const Field& f, LinkSpec& link, std::optional<Field>& end_a, std::optional<Field>& end_b) {
  if (!f.value.IsSequence())
    r_.fail(f, "expected a list of two node names such as [sender, sw1], got " + describe(f.value));
  if (f.value.size() != 2) {
    r_.fail(f, "expected exactly two node names, got " + std::to_string(f.value.size()));
  }
  end_a.emplace(Field{f.value[0], YAML::Node(), f.path});
  end_b.emplace(Field{f.value[1], YAML::Node(), f.path});
  link.end_a = r_.scalar(*end_a, "a node name");
  link.end_b = r_.scalar(*end_b, "a node name");
  if (link.end_a == link.end_b) r_.fail(*end_b, "a link needs two different ends, but both are '" + link.end_a + "'");
}

void Validator::parse_filter(const std::string& name, const Field& f) {
  FilterSpec fs;
  fs.name = name;
  fs.loc = r_.loc(f.key);
  // The type decides which other keys apply, so it is read first.
  r_.expect_map(f, "a map with keys " + join_words(kFilterKeys));
  const auto type = r_.find(f, "type");
  if (!type) r_.missing(f, "type");
  const std::string type_name = r_.choice(*type, names_view(filter_types_));
  fs.type = type_name == "nth" ? FilterType::nth : type_name == "random" ? FilterType::random : FilterType::custom;
  if (fs.type == FilterType::custom) fs.custom_type = type_name;

  std::optional<Field> host;
  std::optional<Field> packet;
  std::optional<Field> protocol;
  const auto only_for = [&](FilterType t, const Field& v, const std::string& key) {
    if (fs.type != t) {
      r_.fail(key_field(v), "'" + key + "' applies only to filters of type " +
                                (t == FilterType::nth ? "nth" : "random") + ", and this filter is of type " +
                                type_name);
    }
  };
  const auto seen = r_.visit_fields(f, kFilterKeys, [&](const std::string& key, const Field& v) {
    if (key == "host") {
      fs.host = r_.scalar(v, "a host name");
      host.emplace(v);
    } else if (key == "hook") {
      fs.hook = r_.choice(v, kFilterHooks) == "ingress" ? FilterHook::ingress : FilterHook::egress;
    } else if (key == "every") {
      only_for(FilterType::nth, v, key);
      // `none`: no rule at all (the "no drop" cell of a sweep over every).
      fs.every = v.value.IsScalar() && v.value.Scalar() == "none" ? 0 : r_.integer(v, 1, kUnbounded);
    } else if (key == "packet") {
      only_for(FilterType::nth, v, key);
      fs.packet = r_.integer(v, 0, kUnbounded);
      packet.emplace(v);
    } else if (key == "probability") {
      only_for(FilterType::random, v, key);
      fs.probability = r_.real(v, 0.0, 1.0);
    } else if (key == "match") {
      if (auto at = parse_match(v, fs.match)) protocol.emplace(*at);
    } else if (key == "params") {
      if (fs.type != FilterType::custom) {
        r_.fail(key_field(v), "'params' applies only to filters of a registered type, and this filter is of type " +
                                  type_name);
      }
      const std::vector<std::string>& keys = registry_.filters.params(fs.custom_type);
      r_.visit_fields(v, names_view(keys),
                      [&](const std::string& k, const Field& pv) { fs.params[k] = r_.string(pv); });
    }
  });
  r_.require(f, seen, kRequiredFilter);
  if (fs.type == FilterType::nth) {
    if (seen.count("every") == 0) r_.missing(f, "every");
    if (fs.every > 0 && fs.packet >= fs.every) {
      r_.fail(*packet, "must be less than every (" + std::to_string(fs.every) + "), got " + std::to_string(fs.packet));
    }
  } else if (fs.type == FilterType::random && seen.count("probability") == 0) {
    r_.missing(f, "probability");
  }
  spec_.filters.push_back(std::move(fs));

  deferred_.emplace_back([this, h = *host, host_name = spec_.filters.back().host, protocol,
                          p = spec_.filters.back().match.protocol] {
    resolve(h, host_name, true, "filters can only be attached to hosts");
    // Echoes travel as the host's family's ICMP: a rule for the other one
    // never matches (ip6tables warns "never matched protocol: icmp").
    const IpVersion v = is_ipv6_host(host_name) ? IpVersion::v6 : IpVersion::v4;
    if (protocol && (p == IpProtocol::icmp || p == IpProtocol::icmpv6) && p != icmp_protocol(v)) {
      r_.fail(*protocol, std::string(p == IpProtocol::icmp ? "icmp" : "icmpv6") + " never matches on " +
                             (v == IpVersion::v6 ? "IPv6" : "IPv4") + " host '" + host_name + "': its echoes are " +
                             (v == IpVersion::v6 ? "icmpv6" : "icmp"));
    }
  });
}

std::optional<Field> Validator::parse_match(const Field& f, MatchSpec& m) {
  std::optional<Field> port_at;
  std::optional<Field> protocol_at;
  std::string protocol;
  r_.visit_fields(f, kMatchKeys, [&](const std::string& key, const Field& v) {
    if (key == "protocol") {
      protocol = r_.choice(v, kProtocols);
      m.protocol = protocol == "tcp"      ? IpProtocol::tcp
                   : protocol == "udp"    ? IpProtocol::udp
                   : protocol == "icmpv6" ? IpProtocol::icmpv6
                                          : IpProtocol::icmp;
      protocol_at.emplace(v);
    } else if (key == "src_port") {
      m.src_port = static_cast<std::uint16_t>(r_.integer(v, 1, 65535));
      port_at.emplace(v);
    } else if (key == "dst_port") {
      m.dst_port = static_cast<std::uint16_t>(r_.integer(v, 1, 65535));
      port_at.emplace(v);
    }
  });
  // As iptables: --sport/--dport exist only for -p tcp and -p udp.
  if (port_at && (m.protocol == IpProtocol::icmp || m.protocol == IpProtocol::icmpv6)) {
    r_.fail(*port_at, protocol + " has no ports: match it by protocol alone");
  }
  return protocol_at;
}

void Validator::parse_flow(const std::string& name, const Field& f) {
  // Each traffic type has its own keys, so the type is read first.
  r_.expect_map(f, "a map with keys type, from, to, ... (see docs/scenario-format.md)");
  const auto type = r_.find(f, "type");
  if (!type) r_.missing(f, "type");
  const std::string& type_name = r_.scalar(*type, "a traffic type");
  if (!contains(kTrafficTypes, type_name)) {
    r_.fail(*type, "unsupported traffic type " + quoted(type_name) + " (supported: " + join_words(kTrafficTypes) + ")" +
                       suggestion(type_name, kTrafficTypes));
  }
  if (type_name == "tcp") {
    parse_tcp_flow(name, f);
  } else if (type_name == "ping") {
    parse_ping_flow(name, f);
  } else {
    parse_udp_flow(name, f);
  }
}

template <typename FlowSpec>
FlowSpec Validator::new_flow(const std::string& name, const Field& f) {
  FlowSpec fl;
  fl.name = name;
  fl.loc = r_.loc(f.key);
  fl.order = flow_order_++;  // flows of every type are reported in file order
  return fl;
}

template <typename FlowSpec>
bool Validator::read_shared_flow_key(const std::string& key, const Field& v, FlowSpec& fl, SharedFlowFields& at) {
  if (key == "from") {
    fl.from = r_.scalar(v, "a host name");
    at.from.emplace(v);
  } else if (key == "to") {
    fl.to = r_.scalar(v, "a host name");
    at.to.emplace(v);
  } else if (key == "dst_port") {
    if constexpr (requires { fl.dst_port; }) fl.dst_port = static_cast<std::uint16_t>(r_.integer(v, 1, 65535));
  } else if (key == "start") {
    fl.start = r_.duration(v);
    at.start.emplace(v);
  } else if (key == "stop") {
    fl.stop = r_.duration(v);
    at.stop.emplace(v);
  } else if (key == "enabled") {
    fl.enabled = r_.boolean(v);
  } else {
    return false;
  }
  return true;
}

// Checks shared by every flow type: both ends given and different, stop after
// start; then (deferred) both ends are hosts of one IP version and start lies
// within the run.
template <typename FlowSpec>
void Validator::check_flow_ends(const Field& f, const std::set<std::string>& seen, const FlowSpec& fl,
                                const SharedFlowFields& at) {
  r_.require(f, seen, kRequiredFlow);
  const std::string from = fl.from;
  const std::string to = fl.to;
  const SimTime start = fl.start;
  if (from == to) r_.fail(*at.to, "a flow needs two different hosts, but from and to are both '" + from + "'");
  if (fl.stop && *fl.stop <= start) {
    r_.fail(*at.stop,
            "stop (" + format_duration(*fl.stop) + ") must be after start (" + format_duration(start) + ")");
  }
  deferred_.emplace_back([this, from, to, start, from_f = *at.from, to_f = *at.to, start_f = at.start] {
    const std::string why = "traffic runs between hosts";
    resolve(from_f, from, true, why);
    resolve(to_f, to, true, why);
    if (start >= spec_.duration) {
      r_.fail(*start_f, "start (" + format_duration(start) + ") must be before the end of the run (duration " +
                            format_duration(spec_.duration) + ")");
    }
    if (is_ipv6_host(from) != is_ipv6_host(to)) {
      const auto version = [this](const std::string& h) { return is_ipv6_host(h) ? "IPv6" : "IPv4"; };
      r_.fail(to_f, "flow from " + std::string(version(from)) + " host '" + from + "' to " + version(to) +
                        " host '" + to + "': both ends must use the same IP version");
    }
  });
}

bool Validator::read_nuttcp_key(const std::string& key, const Field& v, NuttcpSpec& n,
                                std::map<std::string, Field>& at) {
  if (key == "window") {
    n.window = static_cast<std::uint64_t>(r_.size(v, 1, std::int64_t{1} << 30));
  } else if (key == "interval") {
    n.interval = r_.duration(v);
    if (n.interval <= 0) r_.fail(v, "interval (-i) must be greater than zero");
  } else if (key == "version") {
    n.version = static_cast<int>(r_.integer(v, 5, 6));
  } else if (key == "time" || key == "streams") {
    // Read by the caller (-T, -N); only where it was written is kept here.
  } else {
    return false;
  }
  at.emplace(key, v);
  return true;
}

void Validator::check_nuttcp_keys(const std::string& app, const NuttcpSpec& n, const std::map<std::string, Field>& at) {
  for (const auto& [key, v] : at) {
    const bool own = std::find(kNuttcpKeys.begin(), kNuttcpKeys.end(), key) != kNuttcpKeys.end();
    if (app != "nuttcp" && own) {
      r_.fail(v, key + " applies only to flows with app: nuttcp; this flow has app: " + app);
    }
  }
  const auto interval = at.find("interval");
  if (app == "nuttcp" && interval != at.end() && n.interval > n.time) {
    r_.fail(interval->second, "interval (-i, " + format_duration(n.interval) + ") must not be longer than time (-T, " +
                                  format_duration(n.time) + ")");
  }
}

void Validator::parse_udp_flow(const std::string& name, const Field& f) {
  auto fl = new_flow<UdpFlowSpec>(name, f);
  SharedFlowFields at;
  std::map<std::string, Field> nuttcp_at;
  std::optional<Field> size_at, length_at, time_at, send_buffer_at;
  const auto seen = r_.visit_fields(f, kUdpFlowKeys, [&](const std::string& key, const Field& v) {
    if (read_shared_flow_key(key, v, fl, at)) return;
    if (read_nuttcp_key(key, v, fl.nuttcp, nuttcp_at)) {
      if (key == "time") {
        fl.nuttcp.time = r_.duration(v);
        if (fl.nuttcp.time <= 0) r_.fail(v, "time (-T) must be greater than zero");
        time_at.emplace(v);
      }
      return;
    }
    if (key == "app") {
      fl.app = r_.choice(v, kUdpApps);
    } else if (key == "length") {
      fl.payload_bytes = r_.size(v, 1, kMaxUdpPayload);
      length_at.emplace(v);
    } else if (key == "src_port") {
      fl.src_port = static_cast<std::uint16_t>(r_.integer(v, 1, 65535));
    } else if (key == "size") {
      fl.payload_bytes = r_.size(v, 1, kMaxUdpPayload);
      size_at.emplace(v);
    } else if (key == "send_buffer") {
      fl.send_buffer = r_.size(v, 0, std::int64_t{1} << 40);
      send_buffer_at.emplace(v);
    } else if (key == "rate") {
      const std::string& text = r_.scalar(v, "a rate such as 500Mbps, or max");
      if (text == "max") {
        fl.rate.reset();
      } else {
        const auto parsed = parse_rate(text);
        if (!parsed) r_.fail(v, parsed.error + " (or 'max' for as fast as the path allows)");
        fl.rate = *parsed.value;
      }
    }
  });
  // nuttcp -u: -l is `length` (default: the largest power of 2 within the
  // path's TCP MSS, worked out by the builder: 0 here), -R `rate` (default
  // 1 Mbps, DEFAULT_UDP_RATE), -T `time` (the flow stops at start + time).
  check_nuttcp_keys(fl.app, fl.nuttcp, nuttcp_at);
  if (fl.app == "nuttcp") {
    if (size_at) r_.fail(*size_at, "an app: nuttcp flow takes its datagram size from length (-l), not size");
    if (send_buffer_at) r_.fail(*send_buffer_at, "an app: nuttcp flow sets its send buffer with window (-w), not send_buffer");
    if (at.stop) r_.fail(*at.stop, "an app: nuttcp flow runs for time (-T) from its start; stop does not apply");
    if (!length_at) fl.payload_bytes = 0;
    if (seen.count("rate") == 0) fl.rate = DataRate::mbps(1);
    fl.stop = fl.start + fl.nuttcp.time;
  } else {
    if (length_at) r_.fail(*length_at, "length (-l) applies only to flows with app: nuttcp; a udp flow's datagram is its size");
    if (time_at) r_.fail(*time_at, "time applies only to flows with app: nuttcp; a udp flow runs from start to stop");
  }
  check_flow_ends(f, seen, fl, at);
  spec_.udp_flows.push_back(std::move(fl));
}

void Validator::parse_ping_flow(const std::string& name, const Field& f) {
  auto fl = new_flow<PingFlowSpec>(name, f);
  SharedFlowFields at;
  const auto seen = r_.visit_fields(f, kPingFlowKeys, [&](const std::string& key, const Field& v) {
    if (read_shared_flow_key(key, v, fl, at)) return;
    if (key == "count") {
      fl.count = static_cast<std::uint64_t>(r_.integer(v, 1, std::int64_t{1} << 40));
    } else if (key == "interval") {
      fl.interval = r_.duration(v);
      if (fl.interval <= 0) r_.fail(v, "interval must be greater than zero");
    } else if (key == "size") {
      // ping -s: at least the 8 bytes of ping's timestamp, at most what fits
      // an IPv4 datagram after the IP and ICMP headers.
      fl.data_bytes = r_.size(v, 8, 65507);
    } else if (key == "output") {
      fl.output = r_.choice(v, kPingOutputs);
    }
  });
  check_flow_ends(f, seen, fl, at);
  spec_.ping_flows.push_back(std::move(fl));
  if (seen.count("size") == 0) {
    // FreeBSD's ping6 (ping -6) sends only its 8-byte timestamp by default
    // (DEFDATALEN = sizeof(struct tv32)); iputils sends 56 over either family.
    deferred_.emplace_back([this, i = spec_.ping_flows.size() - 1] {
      PingFlowSpec& ping = spec_.ping_flows[i];
      if (ping.output == "freebsd" && is_ipv6_host(ping.from)) ping.data_bytes = 8;
    });
  }
}

void Validator::parse_tcp_flow(const std::string& name, const Field& f) {
  auto fl = new_flow<TcpFlowSpec>(name, f);
  SharedFlowFields at;
  std::optional<Field> parallel_at;
  std::optional<Field> start_jitter_at;
  std::optional<Field> reverse_at;
  std::optional<Field> cc_at;
  std::map<std::string, Field> nuttcp_at;
  const auto seen = r_.visit_fields(f, kTcpFlowKeys, [&](const std::string& key, const Field& v) {
    if (read_shared_flow_key(key, v, fl, at)) return;
    if (key != "time" && read_nuttcp_key(key, v, fl.nuttcp, nuttcp_at)) {
      if (key == "streams") fl.parallel = static_cast<int>(r_.integer(v, 1, 128));  // -N
      return;
    }
    if (key == "cc") {
      fl.cc = r_.choice(v, names_view(cc_names_));
      cc_at.emplace(v);
    } else if (key == "sack") {
      fl.sack = r_.boolean(v);
    } else if (key == "lrd") {
      fl.lrd = r_.boolean(v);
    } else if (key == "tso") {
      fl.tso = r_.boolean(v);
    } else if (key == "app") {
      fl.app = r_.choice(v, kTcpApps);
    } else if (key == "time") {
      fl.time = r_.duration(v);
      if (fl.time <= 0) r_.fail(v, "time must be greater than zero");
    } else if (key == "length") {
      fl.length = static_cast<std::uint64_t>(r_.size(v, 1, std::int64_t{1} << 30));
    } else if (key == "parallel") {
      fl.parallel = static_cast<int>(r_.integer(v, 1, 128));
      parallel_at.emplace(v);
    } else if (key == "start_jitter") {
      fl.start_jitter = r_.duration(v);
      start_jitter_at.emplace(v);
    } else if (key == "reverse") {
      fl.reverse = r_.boolean(v);
      reverse_at.emplace(v);
    } else if (key == "hostcache_ssthresh") {
      fl.hostcache_ssthresh = static_cast<std::uint32_t>(r_.size(v, 0, std::int64_t{1} << 30));
    }
  });
  // -P is an iperf3/iperf2 option: a bulk flow is one connection.
  if (parallel_at && fl.app == "nuttcp") {
    r_.fail(*parallel_at, "an app: nuttcp flow sets its data connections with streams (-N), not parallel");
  } else if (parallel_at && fl.app != "iperf3" && fl.app != "iperf2") {
    r_.fail(*parallel_at, "parallel (-P) applies only to flows with app: iperf3 or iperf2; this flow has app: " + fl.app);
  }
  // -R is an iperf3 option (iperf2's -R means something else and is not modelled).
  if (reverse_at && fl.app != "iperf3") {
    r_.fail(*reverse_at, "reverse (-R) applies only to flows with app: iperf3; this flow has app: " + fl.app);
  }
  // iperf2's default port (iperf3's is the tcp flows' default, 5201).
  if (fl.app == "iperf2" && seen.count("dst_port") == 0) fl.dst_port = 5001;
  // nuttcp: -T is `time`, -N `streams`, -l `length` (64 KiB, nuttcp's TCP
  // buflen), data port 5101 (6.2.8 and later; 5001 before).
  if (fl.app == "nuttcp") {
    fl.nuttcp.time = fl.time;
    if (seen.count("length") == 0) fl.length = 65536;
    if (seen.count("dst_port") == 0) fl.dst_port = 5101;
    if (at.stop) r_.fail(*at.stop, "an app: nuttcp flow runs for time (-T) from its connect; stop does not apply");
  }
  check_nuttcp_keys(fl.app, fl.nuttcp, nuttcp_at);
  check_flow_ends(f, seen, fl, at);
  // The sender's os decides which modules exist (and the default: Linux's
  // net.ipv4.tcp_congestion_control is cubic). Pass 2: hosts are known then.
  deferred_.emplace_back([this, index = spec_.tcp_flows.size(), cc_at] {
    TcpFlowSpec& flow = spec_.tcp_flows[index];
    const auto host = nodes_.find(flow.from);
    if (host == nodes_.end() || host->second.kind != NodeKind::host) return;
    const std::string& os = spec_.hosts[host->second.index].os;
    // A 2.6 kernel (host.kernel) has BIC (its default) and Reno.
    const bool linux26 = os == "linux" && !spec_.hosts[host->second.index].kernel.empty();
    if (os == "linux" && !cc_at) flow.cc = linux26 ? "bic" : "cubic";
    // A FreeBSD sender has the registry's modules (netsim's own and the user's).
    const std::vector<std::string> has =
        linux26         ? std::vector<std::string>{"bic", "reno"}
        : os == "linux" ? std::vector<std::string>(kLinuxCcNames.begin(), kLinuxCcNames.end())
                        : registry_.cc.names();
    if (std::find(has.begin(), has.end(), flow.cc) == has.end() && cc_at) {
      r_.fail(*cc_at, "cc '" + flow.cc + "' is not a congestion control of the sender '" + flow.from + "' (os: " + os +
                          "); it has " + join_words(has));
    }
  });
  if (start_jitter_at && fl.start_jitter > 0) {
    deferred_.emplace_back([this, latest = fl.start + fl.start_jitter, jitter_f = *start_jitter_at] {
      if (latest >= spec_.duration) {
        r_.fail(jitter_f, "start + start_jitter (" + format_duration(latest) +
                              ") must be before the end of the run (duration " + format_duration(spec_.duration) + ")");
      }
    });
  }
  spec_.tcp_flows.push_back(std::move(fl));
}

void Validator::parse_sweep_axis(const std::string& key, const Field& f) {
  SweepAxis axis;
  axis.key = key;
  axis.loc = r_.loc(f.key);
  // "a.x + b.y": a linked axis.
  for (std::string& path : split_linked_key(key)) {
    if (path.empty()) r_.fail(key_field(f), "empty path in the linked sweep key '" + key + "'");
    if (std::find(axis.paths.begin(), axis.paths.end(), path) != axis.paths.end()) {
      r_.fail(key_field(f), "'" + path + "' appears twice in the sweep key '" + key + "'");
    }
    axis.paths.push_back(std::move(path));
  }
  if (!f.value.IsSequence()) r_.fail(f, "expected a list of values such as [10us, 100us], got " + describe(f.value));
  if (f.value.size() == 0) r_.fail(f, "the list of values is empty: give at least one value");
  for (std::size_t i = 0; i < f.value.size(); ++i) {
    const Field v{f.value[i], YAML::Node(), f.path};
    std::vector<std::string> texts;
    if (f.value[i].IsSequence() && axis.paths.size() > 1) {
      if (f.value[i].size() != axis.paths.size()) {
        r_.fail(v, "expected " + std::to_string(axis.paths.size()) + " values (one per field of '" + key + "'), got " +
                       std::to_string(f.value[i].size()));
      }
      for (std::size_t j = 0; j < f.value[i].size(); ++j) {
        texts.push_back(r_.scalar(Field{f.value[i][j], YAML::Node(), f.path}, "a single value"));
      }
    } else {
      const std::string text = r_.scalar(v, axis.paths.size() > 1 ? "a single value or a list with one value per field"
                                                                   : "a single value");
      texts.assign(axis.paths.size(), text);
    }
    axis.values.push_back(std::move(texts));
  }
  for (const std::string& path : axis.paths) {
    deferred_.emplace_back([this, k = key_field(f), path] { check_sweep_key(k, path); });
  }
  spec_.sweep.push_back(std::move(axis));
}

void Validator::parse_capture(const Field& f) {
  CaptureSpec c;
  r_.expect_map(f, "a map with keys " + join_words(kCaptureKeys));
  r_.visit_fields(f, kCaptureKeys, [&](const std::string& key, const Field& v) {
    if (key == "snaplen") {
      // pcap's own bounds: a frame's headers fit in 64 bytes only without options, and
      // libpcap refuses more than its MAXIMUM_SNAPLEN.
      c.snaplen = static_cast<std::uint32_t>(r_.integer(v, 64, 262144));
    } else if (key == "dir") {
      c.dir = r_.string(v);
      if (c.dir.empty()) r_.fail(v, "must not be empty (leave it out to write only with --pcap DIR)");
    } else if (key == "hosts") {
      r_.visit_entries(v, "host", false, [&](const std::string& n, const Field& e) { parse_host_capture(n, e, c); });
    } else if (key == "links") {
      r_.visit_entries(v, "link", false, [&](const std::string& n, const Field& e) { parse_link_capture(n, e); });
    }
  });
  spec_.capture = std::move(c);
}

// `host: all`, or a list of points (wire_in, ingress, accepted, egress, wire_out).
void Validator::parse_host_capture(const std::string& host, const Field& f, CaptureSpec& c) {
  HostCaptureSpec h;
  h.host = host;
  h.loc = r_.loc(f.key);
  const std::string expected = "'all' or a list of points: " + join_words(kHostCapturePointNames);
  if (f.value.IsScalar()) {
    if (f.value.Scalar() != "all") r_.fail(f, "expected " + expected + ", got " + describe(f.value));
    for (int i = 0; i < kHostCapturePoints; ++i) h.points.push_back(static_cast<HostCapturePoint>(i));
  } else {
    if (!f.value.IsSequence() || f.value.size() == 0) r_.fail(f, "expected " + expected + ", got " + describe(f.value));
    for (std::size_t i = 0; i < f.value.size(); ++i) {
      const Field v{f.value[i], YAML::Node(), f.path};
      const std::string name = r_.choice(v, kHostCapturePointNames);
      const auto at = std::find(kHostCapturePointNames.begin(), kHostCapturePointNames.end(), name);
      const auto point = static_cast<HostCapturePoint>(at - kHostCapturePointNames.begin());
      if (std::find(h.points.begin(), h.points.end(), point) != h.points.end()) {
        r_.fail(v, "'" + name + "' is listed twice");
      }
      h.points.push_back(point);
    }
  }
  c.hosts.push_back(std::move(h));
  deferred_.emplace_back([this, k = key_field(f), host] {
    resolve(k, host, true, "host capture points are on hosts (capture a switch port under capture.links)");
  });
}

// `link: both`, one end's name, or a list of end names: the directions whose
// frames are captured, named by the end that transmits them.
void Validator::parse_link_capture(const std::string& link, const Field& f) {
  std::vector<Field> ends;
  if (f.value.IsSequence() && f.value.size() > 0) {
    for (std::size_t i = 0; i < f.value.size(); ++i) ends.push_back(Field{f.value[i], YAML::Node(), f.path});
  } else if (f.value.IsScalar()) {
    ends.push_back(Field{f.value, f.key, f.path});
  } else {
    r_.fail(f, "expected 'both', the name of the end whose frames to capture, or a list of end names, got " +
                   describe(f.value));
  }
  std::vector<std::pair<std::string, SourceLoc>> from;
  for (const Field& e : ends) from.emplace_back(r_.scalar(e, "an end's name or 'both'"), r_.loc(e));
  // The links are known only in pass 2, when the block is already in spec_.
  deferred_.emplace_back([this, k = key_field(f), link, from] {
    CaptureSpec& c = *spec_.capture;
    const LinkSpec* l = nullptr;
    for (const auto& s : spec_.links) {
      if (s.name == link) l = &s;
    }
    if (l == nullptr) {
      const std::vector<std::string> names = element_names("links");
      r_.fail(k, "unknown link '" + link + "' (links: " + join_words(names) + ")" + suggestion(link, names));
    }
    for (const auto& [end, loc] : from) {
      if (end == "both") {
        if (from.size() > 1) r_.fail_at(loc, k.path, "'both' stands alone: give it or a list of end names");
        c.links.push_back({link, l->end_a, loc});
        c.links.push_back({link, l->end_b, loc});
        continue;
      }
      if (end != l->end_a && end != l->end_b) {
        r_.fail_at(loc, k.path, "'" + end + "' is not an end of link '" + link + "' (its ends: " + l->end_a + ", " +
                                    l->end_b + "; or 'both')");
      }
      for (const auto& done : c.links) {
        if (done.link == link && done.from == end) r_.fail_at(loc, k.path, "'" + end + "' is listed twice");
      }
      c.links.push_back({link, end, loc});
    }
  });
}

void Validator::resolve(const Field& ref, const std::string& name, bool host_only, std::string_view why_host) const {
  const auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    std::vector<std::string> known;
    for (const auto& h : spec_.hosts) known.push_back(h.name);
    if (!host_only) {
      for (const auto& s : spec_.switches) known.push_back(s.name);
      for (const auto& h : spec_.hubs) known.push_back(h.name);
      for (const auto& v : spec_.vswitches) known.push_back(v.name);
    }
    const std::string what = host_only ? "host" : "node";
    r_.fail(ref, "unknown " + what + " " + quoted(name) + " (known " + what + "s: " + join_words(known) + ")" +
                     suggestion(name, known));
  }
  if (host_only && it->second.kind != NodeKind::host) {
    r_.fail(ref, "'" + name + "' is a " + kind_name(it->second.kind) + ", but " + std::string(why_host));
  }
}

bool Validator::is_ipv6_host(const std::string& name) const {
  const auto it = nodes_.find(name);
  return it != nodes_.end() && it->second.kind == NodeKind::host &&
         spec_.hosts[it->second.index].ip_version == IpVersion::v6;
}

std::vector<std::string> Validator::element_names(std::string_view section) const {
  std::vector<std::string> names;
  const auto add = [&names](const auto& elements) {
    for (const auto& e : elements) names.push_back(e.name);
  };
  if (section == "hosts") add(spec_.hosts);
  if (section == "switches") add(spec_.switches);
  if (section == "hubs") add(spec_.hubs);
  if (section == "vswitches") add(spec_.vswitches);
  if (section == "links") add(spec_.links);
  if (section == "filters") add(spec_.filters);
  if (section == "traffic") {
    add(spec_.udp_flows);
    add(spec_.tcp_flows);
    add(spec_.ping_flows);
  }
  return names;
}

// A sweep key must name one scalar field that the scenario has or could have
// (a default), on an element that exists: exactly what an override can set.
void Validator::check_sweep_key(const Field& key, const std::string& path) {
  const std::vector<std::string> parts = split_path(path);
  for (const auto& p : parts) {
    if (p.empty()) r_.fail(key, "empty path segment in '" + path + "'");
  }
  const SectionSchema* section = find_section(parts[0]);
  if (!section) {
    if (!contains(kTopScalarKeys, parts[0])) {
      std::vector<std::string> candidates(kTopScalarKeys.begin(), kTopScalarKeys.end());
      for (const auto& s : kSections) candidates.emplace_back(s.name);
      r_.fail(key, "'" + parts[0] +
                       "' is not a field that can be swept (top-level fields: " + join_words(kTopScalarKeys) +
                       "; element fields: <section>.<name>.<field>)" + suggestion(parts[0], candidates));
    }
    if (parts.size() > 1) r_.fail(key, "'" + parts[0] + "' is a single value and has no field '" + parts[1] + "'");
    return;
  }
  if (parts.size() == 1) {
    r_.fail(key, "'" + path + "' is a whole section; sweep one field of one " + std::string(section->element) +
                     ", e.g. '" + path + ".<name>." + std::string(section->keys.back()) + "'");
  }
  const std::vector<std::string> names = element_names(section->name);
  // A template's name (`repeat:`, scenario_templates.h): its entries exist
  // once expanded, and trying each value on the scenario checks the path.
  const bool template_name = parts[1].find('{') != std::string::npos;
  bool found = template_name;
  for (const auto& n : names) found = found || n == parts[1];
  if (template_name && parts.size() >= 3 &&
      ((parts[2] == "repeat" && parts.size() == 3) || (parts[2] == "vars" && parts.size() == 4))) {
    return;
  }
  if (!found) {
    r_.fail(key, "no " + std::string(section->element) + " named '" + parts[1] + "' (" + std::string(section->name) +
                     ": " + join_words(names) + ")" + suggestion(parts[1], names));
  }
  const std::string element = parts[0] + "." + parts[1];
  if (parts.size() == 2) {
    r_.fail(key, "'" + path + "' is a whole " + std::string(section->element) +
                     "; sweep one of its fields: " + join_words(section->keys));
  }
  const std::string& field = parts[2];
  if (!contains(section->keys, field)) {
    r_.fail(key, "unknown " + std::string(section->element) + " field '" + field +
                     "' (fields: " + join_words(section->keys) + ")" + suggestion(field, section->keys));
  }
  if (field == "profile") {
    r_.fail(key, "'" + element + ".profile' names profiles, which are merged before sweep values apply; it cannot be "
                 "swept (sweep the fields themselves)");
  }
  if (field == section->list_key) r_.fail(key, "'" + element + "." + field + "' is a list and cannot be swept");
  // A registered filter type's params: its keys are the type's own, and
  // trying each value on the scenario checks them.
  if (section->name == "filters" && field == "params") {
    if (parts.size() != 4) r_.fail(key, "'" + element + ".params' is a map; sweep one of its keys");
    return;
  }
  if (const SubMapSchema* sub = section->sub_map(field)) {
    // hosts.NAME.siftr.costs.KEY: the one map inside a sub-map.
    if (field == "siftr" && parts.size() >= 4 && parts[3] == "costs") {
      if (parts.size() != 5 || !contains(kSiftrCostKeys, parts[4])) {
        r_.fail(key, "'" + element + ".siftr.costs' is a map; sweep one of its fields: " + join_words(kSiftrCostKeys));
      }
      return;
    }
    if (parts.size() != 4) {
      r_.fail(key, "'" + element + "." + field + "' is a map; sweep one of its fields: " + join_words(sub->keys));
    }
    if (!contains(sub->keys, parts[3])) {
      r_.fail(key, "unknown " + field + " field '" + parts[3] + "' (fields: " + join_words(sub->keys) + ")" +
                       suggestion(parts[3], sub->keys));
    }
    return;
  }
  if (parts.size() > 3) {
    r_.fail(key, "'" + element + "." + field + "' is a single value and has no field '" + parts[3] + "'");
  }
}

void Validator::check_connectivity() const {
  // Union-find over hosts, switches and hubs, joined by links.
  std::map<std::string, std::size_t> id;
  for (const auto& [name, decl] : nodes_) id.emplace(name, id.size());
  std::vector<std::size_t> parent(id.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  const auto root = [&parent](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& l : spec_.links) parent[root(id.at(l.end_a))] = root(id.at(l.end_b));

  for (const auto& h : spec_.hosts) {
    const std::size_t component = root(id.at(h.name));
    const HostSpec* other = nullptr;
    bool connected = false;
    for (const auto& o : spec_.hosts) {
      if (o.name == h.name) continue;
      if (other == nullptr) other = &o;
      connected = connected || root(id.at(o.name)) == component;
    }
    if (other == nullptr) {
      r_.fail_at(h.loc, "hosts." + h.name,
                 "host '" + h.name + "' is the only host: a scenario needs at least two hosts connected by links");
    }
    if (!connected) {
      r_.fail_at(
          h.loc, "hosts." + h.name,
          "host '" + h.name + "' has no path to any other host (e.g. '" + other->name + "'): connect it with a link");
    }
  }
  const auto check_flow = [&](const auto& fl) {
    if (root(id.at(fl.from)) != root(id.at(fl.to))) {
      r_.fail_at(fl.loc, "traffic." + fl.name,
                 "hosts '" + fl.from + "' and '" + fl.to + "' are not connected: no path of links joins them");
    }
  };
  // Both kinds in file order, so the first disconnected flow in the file is reported.
  std::vector<std::pair<int, std::function<void()>>> flows;
  for (const auto& fl : spec_.udp_flows) flows.emplace_back(fl.order, [&check_flow, &fl] { check_flow(fl); });
  for (const auto& fl : spec_.tcp_flows) flows.emplace_back(fl.order, [&check_flow, &fl] { check_flow(fl); });
  for (const auto& fl : spec_.ping_flows) flows.emplace_back(fl.order, [&check_flow, &fl] { check_flow(fl); });
  std::sort(flows.begin(), flows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, check] : flows) check();
}

}  // namespace

void check_top_level(const YAML::Node& root, const Reader& reader) {
  if (!root.IsMap()) {
    reader.fail(Field{root, YAML::Node(), ""},
                "the top level must be a map of scenario fields (name, duration, hosts, ...), got " + describe(root));
  }
}

ScenarioSpec validate_scenario(const YAML::Node& root, const Reader& reader, bool with_sweep,
                               std::shared_ptr<const ScenarioRegistry> registry) {
  return Validator(reader, with_sweep, std::move(registry)).run(root);
}

}  // namespace netsim::scenario_internal
