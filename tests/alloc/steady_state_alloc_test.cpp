// Proof that the steady state allocates nothing.
//
// This translation unit replaces every global operator new / delete variant
// with versions that count calls and forward to malloc/free. The counter is a
// relaxed atomic: counting itself never allocates. A test warms a scenario up
// (the packet pool, the event heap and any vectors reach their final size),
// takes the count, runs much longer, and requires the count to be unchanged
// while a lower bound of real work was done, so it cannot pass vacuously.
//
// Sanitizer builds: AddressSanitizer also defines operator new/delete, but in
// its shared runtime (GCC's default, and Clang with -shared-libasan) they are
// ordinary dynamic symbols, and the executable's definitions below take
// precedence; allocations still go through malloc, which ASan intercepts. The
// test `CountingAllocator.CountsNewAndDelete` checks that the replacement is
// in effect in whatever configuration this was built in.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "netsim/app/udp_sink.h"
#include "netsim/app/udp_source.h"
#include "netsim/filter/nth_drop_filter.h"
#include "netsim/host/cpu_usage_log.h"
#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/net/switch.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_captures.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/sim/event_queue.h"
#include "netsim/sim/rng.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/timer.h"
#include "netsim/topology/topology.h"

// ---------------------------------------------------------------------------
// Counting replacements of the global allocation functions.
namespace {

std::atomic<std::uint64_t> g_allocations{0};
std::atomic<std::uint64_t> g_deallocations{0};
// Bytes held by live allocations (malloc_usable_size), for memory per connection.
std::atomic<std::int64_t> g_live_bytes{0};
// Sizes of the first few allocations after arm_trace(), for failure messages.
constexpr int kTraceSlots = 8;
std::atomic<bool> g_trace{false};
std::atomic<int> g_traced{0};
std::size_t g_trace_sizes[kTraceSlots];

void note_allocation(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (g_trace.load(std::memory_order_relaxed)) {
    const int slot = g_traced.fetch_add(1, std::memory_order_relaxed);
    if (slot < kTraceSlots) g_trace_sizes[slot] = size;
  }
}

void* counted_alloc(std::size_t size) {
  note_allocation(size);
  return std::malloc(size == 0 ? 1 : size);
}

void* counted_aligned_alloc(std::size_t size, std::align_val_t al) {
  note_allocation(size);
  auto align = static_cast<std::size_t>(al);
  if (align < sizeof(void*)) align = sizeof(void*);
  // aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t rounded = size == 0 ? align : (size + align - 1) / align * align;
  return std::aligned_alloc(align, rounded);
}

// Not inlined: GCC 12 at -O3 otherwise sees free() applied to what operator
// new returned at an inlined call site and warns (-Wmismatched-new-delete),
// depending on how much else this file holds.
[[gnu::noinline]] void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  g_deallocations.fetch_add(1, std::memory_order_relaxed);
  g_live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}

void* counted_live(void* p) {
  if (p != nullptr) g_live_bytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  return p;
}

void* throwing(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(std::size_t n) { return throwing(counted_live(counted_alloc(n))); }
void* operator new[](std::size_t n) { return throwing(counted_live(counted_alloc(n))); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_live(counted_alloc(n)); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_live(counted_alloc(n)); }
void* operator new(std::size_t n, std::align_val_t a) { return throwing(counted_live(counted_aligned_alloc(n, a))); }
void* operator new[](std::size_t n, std::align_val_t a) { return throwing(counted_live(counted_aligned_alloc(n, a))); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return counted_live(counted_aligned_alloc(n, a)); }
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return counted_live(counted_aligned_alloc(n, a)); }

void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { counted_free(p); }

// ---------------------------------------------------------------------------
namespace netsim {
namespace {

using namespace netsim::literals;

// Allocations made between construction and allocations() / stop().
class AllocationWindow {
 public:
  AllocationWindow() {
    g_traced.store(0, std::memory_order_relaxed);
    start_ = g_allocations.load(std::memory_order_relaxed);
    g_trace.store(true, std::memory_order_relaxed);
  }
  ~AllocationWindow() { g_trace.store(false, std::memory_order_relaxed); }
  std::uint64_t stop() {
    g_trace.store(false, std::memory_order_relaxed);
    return g_allocations.load(std::memory_order_relaxed) - start_;
  }
  // "sizes of the first allocations: 48 16 ..." for a failure message.
  static std::string first_sizes() {
    std::string s = "sizes of the first allocations in the window:";
    const int n = std::min(g_traced.load(std::memory_order_relaxed), kTraceSlots);
    for (int i = 0; i < n; ++i) {
      s += ' ';
      s += std::to_string(g_trace_sizes[i]);
    }
    return s;
  }

 private:
  std::uint64_t start_;
};

// Guards against a build in which the replacement is silently not in effect
// (then the zero-allocation tests would pass vacuously).
const void* volatile g_escape = nullptr;

TEST(CountingAllocator, CountsNewAndDelete) {
  const std::uint64_t before = g_allocations.load();
  const std::uint64_t before_free = g_deallocations.load();
  {
    // The pointers escape through a volatile sink, so the compiler may not
    // elide the allocations (it may for unobserved new/delete pairs).
    auto v = std::make_unique<std::vector<int>>(1000, 7);  // two allocations
    std::string s(200, 'x');                                // one (beyond SSO)
    g_escape = v.get();
    g_escape = v->data();
    g_escape = s.data();
    ASSERT_EQ((*v)[999] + s.size(), 207u);
  }
  EXPECT_GE(g_allocations.load() - before, 3u);
  EXPECT_GE(g_deallocations.load() - before_free, 3u);
  struct alignas(64) Wide {
    char bytes[64];
  };
  const std::uint64_t before_aligned = g_allocations.load();
  auto w = std::make_unique<Wide>();
  g_escape = w.get();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.get()) % 64, 0u);
  EXPECT_EQ(g_allocations.load() - before_aligned, 1u);
}

// Hosts a (full rate) and c (constant bit rate) send to b through a switch.
// All links 1 Gbit/s, so the switch port toward b is oversubscribed and tail
// drops against its 100 KB buffer; b's ingress drops every 100th UDP datagram.
struct UdpNet {
  Simulation sim{7};
  Topology topo;
  Host* a = nullptr;
  Host* b = nullptr;
  Host* c = nullptr;
  Switch* sw = nullptr;
  UdpSink* full_sink = nullptr;
  UdpSink* cbr_sink = nullptr;
  UdpSource* full_src = nullptr;
  UdpSource* cbr_src = nullptr;
  NthDropFilter* nth = nullptr;

  UdpNet() {
    a = &sim.add<Host>("a", 0, "10.0.0.1", IpVersion::v4, 1000);
    b = &sim.add<Host>("b", 1, "10.0.0.2", IpVersion::v4, 1000);
    c = &sim.add<Host>("c", 2, "fd00::3", IpVersion::v6, 250);
    sw = &sim.add<Switch>("sw", 3);
    topo.add_node({"a", NodeKind::host, ""});
    topo.add_node({"b", NodeKind::host, ""});
    topo.add_node({"c", NodeKind::host, ""});
    topo.add_node({"sw", NodeKind::switch_, ""});
    ChannelConfig link;
    link.rate = 1_Gbps;
    link.delay = 5_us;
    ChannelConfig switch_port = link;
    switch_port.limit_bytes = 100'000;
    connect(*a, *sw, link, switch_port);
    connect(*sw, *b, switch_port, link);
    connect(*c, *sw, link, switch_port);
    auto tables = topo.forwarding_tables();
    for (Node* n : std::vector<Node*>{a, b, c, sw}) n->set_forwarding(tables[n->id()]);

    full_sink = &sim.add<UdpSink>("full-sink", *b, 5001);
    cbr_sink = &sim.add<UdpSink>("cbr-sink", *b, 5002);
    MatchRule m;
    m.protocol = IpProtocol::udp;
    nth = &sim.add<NthDropFilter>("drop-every-100", m, 100, 0);
    b->add_filter(Hook::ingress, nth);

    UdpSourceConfig full;
    full.dst = b->id();
    full.dst_port = 5001;
    full.rate = std::nullopt;
    full_src = &sim.add<UdpSource>("full", *a, full);
    UdpSourceConfig cbr;
    cbr.dst = b->id();
    cbr.dst_port = 5002;
    cbr.payload_bytes = 1000;
    cbr.rate = DataRate::mbps(200);
    cbr.flow_id = 1;
    cbr_src = &sim.add<UdpSource>("cbr", *c, cbr);
  }

  void connect(Node& x, Node& y, const ChannelConfig& xy, const ChannelConfig& yx) {
    Link& l = sim.add<Link>(x.name() + "-" + y.name(), x, y, xy, yx);
    Topology::EdgeInfo e;
    e.name = l.name();
    e.node_a = x.id();
    e.node_b = y.id();
    e.port_at_a = l.port_at_a();
    e.port_at_b = l.port_at_b();
    topo.add_link(e);
  }

  std::uint64_t delivered() const { return full_sink->packets_received() + cbr_sink->packets_received(); }
  std::uint64_t tail_drops() const { return sw->port(1).counters().packets_dropped; }
};

TEST(SteadyStateAllocations, UdpPathThroughSwitchAllocatesNothing) {
  UdpNet net;
  net.sim.run_until(50_ms);  // warm-up
  const std::uint64_t delivered0 = net.delivered();
  const std::uint64_t filtered0 = net.nth->dropped();
  const std::uint64_t tail0 = net.tail_drops();
  const std::uint64_t cbr0 = net.cbr_sink->packets_received();
  const std::uint64_t events0 = net.sim.events_processed();

  AllocationWindow window;
  net.sim.run_until(250_ms);
  const std::uint64_t allocations = window.stop();

  EXPECT_EQ(allocations, 0u) << AllocationWindow::first_sizes();
  // Non-vacuous: real traffic crossed every stage in the measured window.
  EXPECT_GE(net.delivered() - delivered0, 10'000u);
  EXPECT_GT(net.cbr_sink->packets_received() - cbr0, 0u);
  EXPECT_GT(net.nth->dropped() - filtered0, 0u);
  EXPECT_GT(net.tail_drops() - tail0, 0u);
  EXPECT_GT(net.sim.events_processed() - events0, 40'000u);
  EXPECT_EQ(net.sim.now(), 250_ms);
}

// A client c and a server s (a GRO NIC) through a 256 KB router, with the
// given reporting interval, nth rule and flow (YAML flow-map bodies); extra
// host keys (", key: value ...") for c and s, and s's receive NIC.
ScenarioSpec client_server_scenario(const std::string& interval, const std::string& rule, const std::string& flow,
                                    const std::string& c_extra = ", hz: 1000", const std::string& s_extra = "",
                                    const std::string& s_nic = "{ irq_delay: 20us }") {
  return parse_scenario_text("name: alloc\n"
                             "duration: 4s\n"
                             "interval: " + interval + "\n"
                             "hosts:\n"
                             "  c: { address: 10.0.0.1" + c_extra + " }\n"
                             "  s: { address: 10.0.0.2, hz: 250, nic: " + s_nic + s_extra + " }\n"
                             "switches:\n"
                             "  r: { buffer: 256KB }\n"
                             "links:\n"
                             "  c-r: { ends: [c, r], rate: 1Gbps, delay: 100us }\n"
                             "  r-s: { ends: [r, s], rate: 1Gbps, delay: 100us }\n"
                             "filters:\n"
                             "  drop: { " + rule + " }\n"
                             "traffic:\n"
                             "  t: { " + flow + " }\n",
                             "inline.yaml");
}

// Runs the first flow's test for about a second (warm-up), then one more
// second counting allocations: none, while it delivers over 10 MB and the
// rule drops more than 10 packets. `also` runs before and after the counted
// second (extra bookkeeping checks).
template <typename Also>
void expect_steady_tcp_path_allocates_nothing(BuiltScenario& b, Also also) {
  b.sim->run_until(2_s);
  const std::uint64_t delivered0 = b.tcp_flows[0].driver->counters().bytes_delivered;
  const std::uint64_t dropped0 = b.filters[0].filter->dropped();
  also(false);

  AllocationWindow window;
  b.sim->run_until(3_s);
  const std::uint64_t allocations = window.stop();

  EXPECT_EQ(allocations, 0u) << AllocationWindow::first_sizes();
  EXPECT_GT(b.tcp_flows[0].driver->counters().bytes_delivered - delivered0, 10'000'000u);
  EXPECT_GT(b.filters[0].filter->dropped() - dropped0, 10u);
  also(true);
}

// The TCP path with the iperf3 application model: two FreeBSD data
// connections (-P 2) through a router to a GRO NIC, an nth rule and the Linux
// receiver, plus the control connection's delayed ACK, once the test runs.
TEST(SteadyStateAllocations, Iperf3TcpPathAllocatesNothing) {
  const ScenarioSpec spec =
      client_server_scenario("1s", "host: s, type: nth, every: 100, packet: 0, match: { protocol: tcp, dst_port: 5201 }",
                             "type: tcp, app: iperf3, from: c, to: s, time: 3s, length: 1MiB, cc: cubic, parallel: 2");
  BuiltScenario b = build_scenario(spec);
  expect_steady_tcp_path_allocates_nothing(b, [](bool) {});
}

// iperf3 -R: passive FreeBSD senders (reached through the listener's demux)
// sending to Linux endpoints that opened the connections, with the client's
// interval samples of the server's TCP_INFO and an nth rule on src_port.
TEST(SteadyStateAllocations, Iperf3ReverseTcpPathAllocatesNothing) {
  const ScenarioSpec spec =
      client_server_scenario("1s", "host: s, type: nth, every: 100, packet: 7, match: { protocol: tcp, src_port: 5201 }",
                             "type: tcp, app: iperf3, reverse: true, from: c, to: s, time: 3s, cc: cubic, parallel: 2");
  BuiltScenario b = build_scenario(spec);
  expect_steady_tcp_path_allocates_nothing(b, [](bool) {});
}

// The FreeBSD receiver (s with os: freebsd): its pool connections' input
// path, the reassembly queue and SACK report after the rule's drops, the
// receive-window autotuning; with iperf3 -P 2 and with iperf3 -R (the
// client's active opens from the pool).
TEST(SteadyStateAllocations, FreeBsdReceiverTcpPathAllocatesNothing) {
  for (const char* reverse : {"false", "true"}) {
    SCOPED_TRACE(reverse);
    const bool rev = std::string(reverse) == "true";
    const ScenarioSpec spec = client_server_scenario(
        "1s",
        std::string("host: s, type: nth, every: 100, packet: 7, match: { protocol: tcp, ") +
            (rev ? "src_port" : "dst_port") + ": 5201 }",
        std::string("type: tcp, app: iperf3, reverse: ") + reverse + ", from: c, to: s, time: 3s, cc: cubic, parallel: 2",
        ", hz: 1000, os: freebsd", ", os: freebsd");
    BuiltScenario b = build_scenario(spec);
    expect_steady_tcp_path_allocates_nothing(b, [](bool) {});
  }
}

// Hosts with a CPU model: packets held behind the CPU (tx and rx), the
// FreeBSD sender's deferred output, NIC polls on the CPU, hardclock
// stretching, and a usage log sampling every millisecond.
TEST(SteadyStateAllocations, TcpPathWithHostCpusAllocatesNothing) {
  const ScenarioSpec spec = client_server_scenario(
      "1s", "host: s, type: nth, every: 100, packet: 0, match: { protocol: tcp, dst_port: 5201 }",
      "type: tcp, app: iperf3, from: c, to: s, time: 3s, length: 1MiB, cc: cubic",
      ", hz: 10000, cpu: { tick: 2us, tx_packet: 2us, tx_segment: 1us, tcp_input: 1us, copy_per_kib: 50ns }",
      ", cpu: { interrupt: 3us, rx_packet: 1us, tcp_input: 2us, copy_per_kib: 50ns }");
  BuiltScenario b = build_scenario(spec);
  const HostCpu* cpu = static_cast<Host*>(b.node("c"))->cpu();
  ASSERT_NE(cpu, nullptr);
  b.sim->add<CpuUsageLog>("log", *cpu, kPicosPerMilli, 4_s);
  expect_steady_tcp_path_allocates_nothing(b, [cpu](bool after) {
    if (after) {
      EXPECT_GT(cpu->items(), 10'000u);
    }
  });
}

// T1's receive path as shipped: the box's re(4) moderation in front of the
// guest's GRO NIC (frames wait in its ring for the one-shot timer).
// With a handler latency (host_int_latency + host_int_jitter) as well, the
// handler's own timer and the frames it takes early.
TEST(SteadyStateAllocations, TcpPathThroughHostNicModerationAllocatesNothing) {
  for (const char* handler : {"", ", host_int_latency: 5us, host_int_jitter: 15us"}) {
    SCOPED_TRACE(handler);
    const ScenarioSpec spec = client_server_scenario(
        "1s", "host: s, type: nth, every: 100, packet: 0, match: { protocol: tcp, dst_port: 5201 }",
        "type: tcp, app: iperf3, from: c, to: s, time: 3s, length: 1MiB, cc: newreno", ", hz: 1000", "",
        std::string("{ host_int_rx_mod: 65us, irq_delay: 20us, irq_jitter: 157us") + handler + " }");
    BuiltScenario b = build_scenario(spec);
    ASSERT_NE(b.nics.at(0).host_nic, nullptr);
    const OneShotRxModeration* mod = b.nics.at(0).host_nic;
    const bool late_handler = *handler != '\0';
    expect_steady_tcp_path_allocates_nothing(b, [mod, late_handler](bool after) {
      if (after) {
        EXPECT_GT(mod->counters().timer_frames, 10'000u);
        if (late_handler) {
          EXPECT_GT(mod->counters().irq_frames, mod->counters().rx_interrupts);
        }
      }
    });
  }
}

// Packet captures at every point of both hosts (ten pcap files): encoding a
// frame reuses the capture's buffer and libpcap appends through stdio.
TEST(SteadyStateAllocations, TcpPathWithEveryCapturePointAllocatesNothing) {
  const ScenarioSpec spec =
      client_server_scenario("1s", "host: s, type: nth, every: 100, packet: 0, match: { protocol: tcp, dst_port: 5201 }",
                             "type: tcp, app: iperf3, from: c, to: s, time: 3s, length: 1MiB, cc: newreno");
  BuiltScenario b = build_scenario(spec);
  const std::string dir = (std::filesystem::temp_directory_path() / ("netsim-alloc-pcap-" + std::to_string(::getpid()))).string();
  {
    ScenarioCaptures captures(b, default_capture(spec), dir);
    expect_steady_tcp_path_allocates_nothing(b, [](bool) {});
    results::RunResult r;
    captures.finish(r);
    ASSERT_EQ(r.captures_size(), 10);
    EXPECT_GT(r.captures(0).frames(), 1000u);
  }
  std::filesystem::remove_all(dir);
}

// The TCP path with the iperf2 application model: two FreeBSD connections
// (-P 2) to a GRO NIC, an nth rule and the Linux receiver, with the server's
// per-read accounting and both sides' interval samples, once the test runs.
TEST(SteadyStateAllocations, Iperf2TcpPathAllocatesNothing) {
  const ScenarioSpec spec =
      client_server_scenario("100ms", "host: s, type: nth, every: 100, packet: 0, match: { protocol: tcp, dst_port: 5001 }",
                             "type: tcp, app: iperf2, from: c, to: s, time: 3s, length: 1MiB, cc: cubic, parallel: 2");
  BuiltScenario b = build_scenario(spec);
  std::size_t samples0 = 0;
  expect_steady_tcp_path_allocates_nothing(b, [&](bool after) {
    const std::size_t samples = b.tcp_flows[0].iperf2_client->samples(0).size();
    if (after) {
      EXPECT_GE(samples - samples0, 9u);
    } else {
      samples0 = samples;
    }
  });
}

// Two VMs on an ESXi vSwitch (docs/vmxnet3.md): TSO frames as one packet,
// the hypervisor's CPU, the vmx receive path with 4 KB buffers and tcp_lro
// (LRO on: frames whole) or the vSwitch's segmentation (LRO off), guest CPUs.
// Hosts c and s (YAML flow-map bodies), a middle section (a vSwitch or a
// switch, with its heading) and the links c-m and m-s between them, with
// every 1000th data segment dropped at s and one cubic TCP flow from c.
ScenarioSpec two_hop_scenario(const std::string& c, const std::string& s, const std::string& middle,
                              const std::string& c_link, const std::string& s_link) {
  return parse_scenario_text(
      "name: alloc-two-hop\n"
      "duration: 4s\n"
      "hosts:\n"
      "  c: { " + c + " }\n"
      "  s: { " + s + " }\n" + middle +
      "links:\n"
      "  c-m: { " + c_link + " }\n"
      "  m-s: { " + s_link + " }\n"
      "filters:\n"
      "  drop: { host: s, type: nth, every: 1000, packet: 0, match: { protocol: tcp, dst_port: 5201 } }\n"
      "traffic:\n"
      "  t: { type: tcp, from: c, to: s, cc: cubic }\n",
      "inline.yaml");
}

TEST(SteadyStateAllocations, Vmxnet3VSwitchPathAllocatesNothing) {
  for (const char* lro : {"true", "false"}) {
    const std::string nic = std::string("{ driver: vmx, lro: ") + lro + " }";
    const ScenarioSpec spec = two_hop_scenario(
        "address: 10.0.0.1, hz: 100, nic: " + nic + ", cpu: { tx_packet: 1us, ack_input: 1us }",
        "address: 10.0.0.2, hz: 100, nic: " + nic + ", cpu: { rx_packet: 200ns, rx_fragment: 20ns }",
        "vswitches:\n  m: { cpu: { frame: 1us, segment: 100ns } }\n", "ends: [c, m], delay: 10us",
        "ends: [m, s], delay: 10us");
    BuiltScenario b = build_scenario(spec);
    expect_steady_tcp_path_allocates_nothing(b, [](bool) {});
    const VSwitchCounters& v = b.vswitches[0]->counters();
    EXPECT_GT(std::string(lro) == "true" ? v.tso_frames_whole : v.segments_made, 0u) << lro;
  }
}

// Two ixgb NICs (docs/ixgb.md) at 10 Gbit/s with jumbo frames, FreeBSD and
// Linux senders: TSO frames through the qdisc, the transmit ring and the
// per-segment PCI-X reads, wire segments cloned from the pool, transmit
// interrupts on the CPU, receive DMA into the ring and RDTR passes.
TEST(SteadyStateAllocations, IxgbPciXPathAllocatesNothing) {
  for (const char* os : {"freebsd", "linux"}) {
    const std::string nic = "{ driver: ixgb, tx_descriptors: 64, bus: { mmrbc: 4096 } }";
    const ScenarioSpec spec = two_hop_scenario(
        "address: 10.0.0.1, os: " + std::string(os) + ", nic: " + nic +
            ", cpu: { interrupt: 1us, tx_packet: 1us, ack_input: 500ns }",
        "address: 10.0.0.2, os: linux, nic: " + nic + ", cpu: { interrupt: 1us, rx_packet: 200ns }",
        "switches:\n  m: { buffer: 1MB }\n", "ends: [c, m], rate: 10Gbps, delay: 10us, mtu: 9000",
        "ends: [m, s], rate: 10Gbps, delay: 10us, mtu: 9000");
    BuiltScenario b = build_scenario(spec);
    expect_steady_tcp_path_allocates_nothing(b, [](bool) {});
    ASSERT_NE(b.nics[0].ixgb, nullptr) << os;
    EXPECT_GT(b.nics[0].ixgb->counters().tx_tso_frames, 0u) << os;
    EXPECT_GT(b.nics[0].ixgb->bus().counters().requests[0], 0u) << os;
  }
}

// SIFTR 1.2.4 and 1.3.0 on the CPU-bound sender, writing its log: hooks in
// both directions, the writer's queue and batches, the per-flow table, the
// formatted lines through the log file's buffer.
TEST(SteadyStateAllocations, TcpPathWithSiftrLogAllocatesNothing) {
  for (const char* version : {"1.2.4", "1.3.0"}) {
    SCOPED_TRACE(version);
    const ScenarioSpec spec = client_server_scenario(
        "1s", "host: s, type: nth, every: 100, packet: 0, match: { protocol: tcp, dst_port: 5001 }",
        "type: tcp, app: iperf2, from: c, to: s, time: 3s, cc: cubic, tso: false",
        std::string(", hz: 1000, cpu: { tx_segment: 2us, frequency: 3GHz }, siftr: { version: ") + version +
            ", flowid: none }");
    BuiltScenario b = build_scenario(spec);
    const std::string path =
        (std::filesystem::temp_directory_path() / ("netsim-alloc-siftr-" + std::to_string(::getpid()))).string();
    tcp::Siftr& siftr = *b.siftrs.at(0).siftr;
    siftr.set_log_file(path);
    std::uint64_t logged0 = 0;
    expect_steady_tcp_path_allocates_nothing(b, [&](bool after) {
      if (after) {
        EXPECT_GT(siftr.stats().records_logged - logged0, 20'000u);
      } else {
        logged0 = siftr.stats().records_logged;
      }
    });
    siftr.finish();
    std::filesystem::remove(path);
  }
}

struct CountingHandler final : EventHandler {
  std::uint64_t fired = 0;
  void handle_event(std::uint64_t) override { ++fired; }
};

// TCP's retransmit/delayed-ACK pattern: timers re-armed and cancelled all the
// time, occasionally one fires.
TEST(SteadyStateAllocations, TimerArmCancelChurnAllocatesNothing) {
  constexpr std::uint32_t kTimers = 1024;
  CountingHandler h;
  std::vector<std::unique_ptr<Timer>> timers;
  for (std::uint32_t i = 0; i < kTimers; ++i) timers.push_back(std::make_unique<Timer>(&h, i));
  EventQueue q;  // deliberately not reserved: warm-up must grow it
  Rng rng(3, "alloc/timer-churn");
  SimTime now = 0;
  std::uint64_t ops = 0;
  auto churn = [&](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      Timer& t = *timers[rng.uniform_below(kTimers)];
      if (rng.uniform_below(4) == 0) {
        q.cancel(t);
      } else {
        q.arm(t, now + 1 + static_cast<SimTime>(rng.uniform_below(1'000'000'000)));
      }
      ++ops;
      if ((i & 31) == 31 && !q.empty()) {
        const QueuedEvent ev = q.pop();
        now = ev.time;
        ev.handler->handle_event(ev.tag);
      }
    }
  };
  // Warm-up: arm everything once (the heap reaches its largest size), then churn.
  for (auto& t : timers) q.arm(*t, now + 1 + static_cast<SimTime>(rng.uniform_below(1'000'000'000)));
  churn(100'000);

  const std::uint64_t fired0 = h.fired;
  ops = 0;
  AllocationWindow window;
  churn(1'000'000);
  const std::uint64_t allocations = window.stop();

  EXPECT_EQ(allocations, 0u) << AllocationWindow::first_sizes();
  EXPECT_EQ(ops, 1'000'000u);
  EXPECT_GT(h.fired - fired0, 10'000u);
  EXPECT_GT(q.size(), 0u);
}

// The same through Simulation's public API, with the timers' handler
// re-arming from inside the dispatch loop.
struct Rearmer final : EventHandler {
  Simulation* sim = nullptr;
  std::vector<std::unique_ptr<Timer>>* timers = nullptr;
  Rng rng{5, "alloc/rearmer"};
  std::uint64_t fired = 0;
  void handle_event(std::uint64_t tag) override {
    ++fired;
    // Re-arm the fired timer, move one other, cancel a third.
    const auto n = timers->size();
    sim->arm_in(*(*timers)[tag], 1 + static_cast<SimTime>(rng.uniform_below(10'000'000)));
    sim->arm_in(*(*timers)[rng.uniform_below(n)], 1 + static_cast<SimTime>(rng.uniform_below(10'000'000)));
    sim->cancel(*(*timers)[rng.uniform_below(n)]);
    if (sim->queue().empty()) sim->arm_in(*(*timers)[0], 1);
  }
};

TEST(SteadyStateAllocations, SimulationTimerRearmLoopAllocatesNothing) {
  Simulation sim(11);
  Rearmer r;
  std::vector<std::unique_ptr<Timer>> timers;
  for (std::uint64_t i = 0; i < 256; ++i) timers.push_back(std::make_unique<Timer>(&r, i));
  r.sim = &sim;
  r.timers = &timers;
  for (auto& t : timers) sim.arm_in(*t, 1 + static_cast<SimTime>(r.rng.uniform_below(10'000'000)));
  sim.run_until(1_ms);
  const std::uint64_t fired0 = r.fired;

  AllocationWindow window;
  sim.run_until(21_ms);
  const std::uint64_t allocations = window.stop();

  EXPECT_EQ(allocations, 0u) << AllocationWindow::first_sizes();
  EXPECT_GT(r.fired - fired0, 100'000u);
}

// Memory per connection (docs/performance.md, Scale): heap bytes of a
// dumbbell with 100 and with 1100 bulk flows (FreeBSD NewReno senders, Linux
// receivers), once built (idle: every socket, timer and buffer made, nothing
// connected) and after 2 s of transfer (active: buffers filled, the packet
// pool at its peak); the difference over 1000 connections is what each costs.
TEST(MemoryPerConnection, IdleAndActiveBytes) {
  const auto measure = [](int flows, std::int64_t& idle, std::int64_t& active) {
    std::string text = R"(name: memory
duration: 2s
hosts:
  left{i}: { repeat: 16, address: "198.18.1.{i + 1}", hz: 1000 }
  right{i}: { repeat: 16, address: "198.18.2.{i + 1}", os: linux, hz: 250 }
switches:
  sl: { buffer: 1250KB }
  sr: { buffer: 1250KB }
links:
  al{i}: { repeat: 16, ends: ["left{i}", sl], rate: 10Gbps, delay: 10us }
  mid: { ends: [sl, sr], rate: 1Gbps, delay: 4980us }
  ar{i}: { repeat: 16, ends: [sr, "right{i}"], rate: 10Gbps, delay: 10us }
traffic:
  f{i}: { repeat: )" + std::to_string(flows) + R"(, type: tcp, from: "left{i % 16}", to: "right{i % 16}", app: bulk }
)";
    const ScenarioSpec spec = parse_scenario_text(text, "memory.yaml");
    const std::int64_t before = g_live_bytes.load(std::memory_order_relaxed);
    BuiltScenario b = build_scenario(spec);
    idle = g_live_bytes.load(std::memory_order_relaxed) - before;
    b.sim->run_until(spec.duration);
    active = g_live_bytes.load(std::memory_order_relaxed) - before;
  };
  std::int64_t idle_small = 0, active_small = 0, idle_large = 0, active_large = 0;
  measure(100, idle_small, active_small);
  measure(1100, idle_large, active_large);
  const std::int64_t idle = (idle_large - idle_small) / 1000;
  const std::int64_t active = (active_large - active_small) / 1000;
  std::printf("memory per connection: idle %lld B, active %lld B\n", static_cast<long long>(idle),
              static_cast<long long>(active));
  RecordProperty("idle_bytes_per_connection", std::to_string(idle));
  RecordProperty("active_bytes_per_connection", std::to_string(active));
  EXPECT_GT(idle, 1000);  // a sender and a receiver slot at least
  EXPECT_GE(active, idle);
  EXPECT_LT(active, 64 * 1024);  // 10000 connections within the 300 MiB budget, with room
}

}  // namespace
}  // namespace netsim
