// The host CPU model: first-come-first-served work stretched by hardclock
// handlers (hand-computed), its accounting, a host's packets waiting for
// their CPU work, and CPU-bound TCP senders whose throughput the costs fix.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "netsim/app/iperf3_from_result.h"
#include "netsim/host/cpu_usage_log.h"
#include "netsim/results/result_writers.h"
#include "netsim/host/host.h"
#include "netsim/host/host_cpu.h"
#include "netsim/app/iperf3_client.h"
#include "netsim/app/iperf3_cpu_meter.h"
#include "netsim/app/iperf3_server.h"
#include "netsim/scenario/measured_comparison.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/units.h"
#include "two_host_link.h"

namespace netsim {
namespace {

constexpr SimTime us(std::int64_t n) { return n * kPicosPerMicro; }

// hz=1000 with edges at 0.5 ms, 1.5 ms, 2.5 ms, ...
struct CpuFixture {
  Simulation sim{1};
  TickClock clock{sim, 1000, us(500)};
};

TEST(HostCpu, WorkIsServedInOrderAndAfterTheQueue) {
  CpuFixture f;
  HostCpu cpu(f.clock, HostCpuCosts{.tx_segment = us(1)});
  EXPECT_EQ(cpu.run(us(10), CpuContext::system), us(10));
  EXPECT_EQ(cpu.run(us(5), CpuContext::user), us(15));
  EXPECT_EQ(cpu.run(0, CpuContext::user), us(15));  // nothing to do: ends with the queue
  f.sim.run_until(us(40));
  EXPECT_EQ(cpu.run(us(5), CpuContext::system), us(45));  // idle CPU: starts now
  EXPECT_EQ(cpu.items(), 3u);
}

// iperf3's cpu_util: on FreeBSD the interrupt context (ithreads, netisr,
// softclock, hardclock handlers) is not the process's rusage; on Linux the
// figure keeps it.
TEST(Iperf3CpuMeter, AFreeBsdProcessLeavesItsInterruptThreadsOut) {
  CpuFixture f;
  HostCpu cpu(f.clock, HostCpuCosts{.tx_segment = us(1)});
  app::Iperf3CpuMeter freebsd;
  app::Iperf3CpuMeter linux_side;
  freebsd.set_cpu(&cpu, true);
  linux_side.set_cpu(&cpu);
  freebsd.start(0);
  linux_side.start(0);
  cpu.run(us(30), CpuContext::system);
  cpu.run(us(10), CpuContext::interrupt);
  cpu.run(us(20), CpuContext::user);
  f.sim.run_until(us(100));
  freebsd.stop(us(100));
  linux_side.stop(us(100));
  const auto fb = freebsd.measured();
  const auto lx = linux_side.measured();
  ASSERT_TRUE(fb.has_value());
  ASSERT_TRUE(lx.has_value());
  EXPECT_DOUBLE_EQ((*fb)[0], 50.0);  // user 20 + system 30 of 100 us
  EXPECT_DOUBLE_EQ((*fb)[1], 20.0);
  EXPECT_DOUBLE_EQ((*fb)[2], 30.0);
  EXPECT_DOUBLE_EQ((*lx)[0], 60.0);  // + the 10 us of interrupt work
  EXPECT_DOUBLE_EQ((*lx)[2], 40.0);
}

// A core twice as fast does every piece of work, cycles included, in half the time.
TEST(HostCpu, SpeedScalesEveryCost) {
  CpuFixture f;
  HostCpu cpu(f.clock, HostCpuCosts{.tcp_input = us(3), .tx_segment = us(10), .frequency_hz = 3'000'000'000, .speed = 2.0});
  EXPECT_EQ(cpu.costs().tx_segment, us(5));
  EXPECT_EQ(cpu.costs().tcp_input, 1'500'000);
  EXPECT_EQ(cpu.cycles(3000), 500'000);  // 3000 cycles at 3 GHz: 1 us, halved
  EXPECT_THROW(HostCpu(f.clock, HostCpuCosts{.tx_segment = us(1), .speed = 0.0}), std::invalid_argument);
}

TEST(HostCpu, HardclockHandlersStretchWorkThatSpansTickEdges) {
  CpuFixture f;
  HostCpu cpu(f.clock, HostCpuCosts{.tick = us(100)});
  // 1.2 ms from 0: the 0.5 ms edge adds 0.1 ms -> 1.3 ms (no edge in (1.2, 1.3]).
  EXPECT_EQ(cpu.run(us(1200), CpuContext::system), us(1300));
  // 0.3 ms from 1.3 ms: the 1.5 ms edge adds 0.1 ms -> 1.7 ms.
  EXPECT_EQ(cpu.run(us(300), CpuContext::user), us(1700));
  // Ready inside the handler of the 2.5 ms edge: starts when it ends (2.6 ms).
  f.sim.run_until(us(2550));
  EXPECT_EQ(cpu.run(us(100), CpuContext::system), us(2700));
  // 2.5 ms from 2.7 ms crosses the 3.5 and 4.5 ms edges -> 5.4 ms.
  EXPECT_EQ(cpu.run(us(2500), CpuContext::system), us(5400));
  // 0.15 ms from 5.4 ms: 5.55 ms is past the 5.5 ms edge -> 5.65 ms.
  EXPECT_EQ(cpu.run(us(150), CpuContext::system), us(5650));
  // An edge exactly at the end counts: 0.85 ms from 5.65 ends on 6.5 -> 6.6 ms.
  EXPECT_EQ(cpu.run(us(850), CpuContext::system), us(6600));
  // The stretch itself reaches a further edge: 1.85 ms from 6.6 ms ends at
  // 8.45, past 7.5 -> 8.55, which is past 8.5 -> 8.65 ms.
  EXPECT_EQ(cpu.run(us(1850), CpuContext::system), us(8650));
}

TEST(HostCpu, AccountsFinishedWorkAndEveryHardclock) {
  CpuFixture f;
  HostCpu cpu(f.clock, HostCpuCosts{.tick = us(100)});
  cpu.run(us(1200), CpuContext::system);  // ends 1.3 ms
  cpu.run(us(300), CpuContext::user);     // ends 1.7 ms
  f.sim.run_until(us(1000));
  // By 1.0 ms: 0.9 ms of the system item done (0.5-0.6 ms was hardclock),
  // the user item not started; one hardclock so far.
  CpuTimes t = cpu.used();
  EXPECT_EQ(t[CpuContext::system], us(900));
  EXPECT_EQ(t[CpuContext::user], 0);
  EXPECT_EQ(t[CpuContext::interrupt], us(100));
  EXPECT_EQ(t.total(), us(1000));  // busy all along
  f.sim.run_until(us(2550));
  t = cpu.used();
  EXPECT_EQ(t[CpuContext::system], us(1200));
  EXPECT_EQ(t[CpuContext::user], us(300));
  EXPECT_EQ(t[CpuContext::interrupt], us(300));  // edges 0.5, 1.5, 2.5 ms
}

TEST(HostCpu, RejectsAHardclockThatLeavesNoTime) {
  CpuFixture f;
  EXPECT_THROW(HostCpu(f.clock, HostCpuCosts{.tick = us(1000)}), std::invalid_argument);
  EXPECT_THROW(HostCpu(f.clock, HostCpuCosts{.tx_packet = -1}), std::invalid_argument);
  EXPECT_NO_THROW(HostCpu(f.clock, HostCpuCosts{.tick = us(999)}));
}

TEST(CpuUsageLog, InterpolatesUseOverAWindow) {
  CpuFixture f;
  HostCpu cpu(f.clock, HostCpuCosts{.tick = us(100)});
  CpuUsageLog& log = f.sim.add<CpuUsageLog>("log", cpu, us(1000), us(4000));
  cpu.run(us(1200), CpuContext::system);  // busy [0, 1.3 ms)
  f.sim.run_until(us(4000));
  // [0, 1 ms): all busy. [2 ms, 4 ms): only the hardclocks at 2.5 and 3.5 ms.
  EXPECT_DOUBLE_EQ(log.utilization_pct(0, us(1000)), 100.0);
  EXPECT_DOUBLE_EQ(log.utilization_pct(us(2000), us(4000)), 10.0);
  EXPECT_EQ(log.used_between(0, us(4000))[CpuContext::system], us(1200));
}

struct Recorder final : Endpoint {
  Simulation& sim;
  std::vector<SimTime> at;
  explicit Recorder(Simulation& s) : sim(s) {}
  void deliver(Packet* p) override {
    at.push_back(sim.now());
    sim.packets().release(p);
  }
};

Packet* udp_packet(Simulation& sim, NodeId dst) {
  Packet* p = sim.packets().alloc();
  p->dst = dst;
  p->protocol = IpProtocol::udp;
  p->dst_port = 9;
  p->l4_header_bytes = kUdpHeaderBytes;
  p->payload_bytes = 100;
  return p;
}

TEST(HostWithCpu, PacketsLeaveWhenTheirTransmitWorkEnds) {
  Simulation sim(1);
  auto [a, b] = two_host_link(sim, 1000);
  a->set_cpu(HostCpuCosts{.tx_packet = us(5), .tx_segment = us(20)});
  // One output of three wire segments (a TSO burst): 5 + 20, then 20 each.
  a->send(udp_packet(sim, b->id()), true);
  a->send(udp_packet(sim, b->id()), false);
  a->send(udp_packet(sim, b->id()), false);
  const SimTime expect[] = {us(25), us(45), us(65)};
  for (std::uint64_t i = 0; i < 3; ++i) {
    sim.run_until(expect[i] - 1);
    EXPECT_EQ(a->counters().packets_sent, i) << i;
    sim.run_until(expect[i]);
    EXPECT_EQ(a->counters().packets_sent, i + 1) << i;
  }
}

// A transmit backlog of 3: five packets sent at once, the first three wait
// for their 20 us each and leave in order, the last two find the queue full
// and are dropped (the sender is not told); later ones fit again.
TEST(HostWithCpu, ATransmitBacklogHoldsAtMostItsLimitAndDropsTheRest) {
  Simulation sim(1);
  auto [a, b] = two_host_link(sim, 1000);
  a->set_cpu(HostCpuCosts{.tx_segment = us(20)});
  EXPECT_TRUE(a->output_waits_for_cpu());
  a->set_tx_backlog_limit(3);
  EXPECT_FALSE(a->output_waits_for_cpu());
  for (int i = 0; i < 5; ++i) a->send(udp_packet(sim, b->id()), true);
  EXPECT_EQ(a->counters().tx_backlog_drops, 2u);
  sim.run_until(us(60));
  EXPECT_EQ(a->counters().packets_sent, 3u);
  EXPECT_EQ(a->cpu()->items(), 3u);  // dropped packets cost no CPU
  a->send(udp_packet(sim, b->id()), true);
  sim.run_until(us(80));
  EXPECT_EQ(a->counters().packets_sent, 4u);
  EXPECT_EQ(a->counters().tx_backlog_drops, 2u);
}

TEST(HostWithCpu, DeliveryWaitsForTcpInputWorkInOrder) {
  Simulation sim(1);
  auto [a, b] = two_host_link(sim, 1000);
  b->set_cpu(HostCpuCosts{.tcp_input = us(30)});
  Recorder r(sim);
  b->bind(IpProtocol::udp, 9, &r);
  a->send(udp_packet(sim, b->id()));
  a->send(udp_packet(sim, b->id()));
  sim.run();
  ASSERT_EQ(r.at.size(), 2u);
  // 128-byte datagrams + 38 framing: 1.328 us each at 1 Gbit/s, 100 us delay.
  const SimTime first_arrival = 100 * kPicosPerMicro + 1'328'000;
  EXPECT_EQ(r.at[0], first_arrival + us(30));
  // The second arrives 1.328 us later, while the CPU is busy: it waits.
  EXPECT_EQ(r.at[1], first_arrival + us(60));
}

TEST(HostWithCpu, NoCostsMeansNoCpuModel) {
  Simulation sim(1);
  auto [a, b] = two_host_link(sim, 1000);
  a->set_cpu(HostCpuCosts{});
  EXPECT_EQ(a->cpu(), nullptr);
  (void)b;
}

// A FreeBSD sender whose CPU pays 20 us per wire segment sends at most
// 1448 bytes per 20 us (579.2 Mbit/s), whatever the network allows, and
// reports its CPU as busy.
std::string cpu_bound_scenario(const std::string& sender_cpu, bool tso) {
  return R"(
name: cpu-bound
seed: 1
duration: 3s
hosts:
  sender:   { address: 10.0.0.1, hz: 1000, cpu: )" +
         sender_cpu + R"( }
  receiver: { address: 10.0.0.2, hz: 250, nic: { gro: true }, cpu: { tcp_input: 1us } }
switches:
  router: { buffer: 1MB }
links:
  a: { ends: [sender, router], rate: 1Gbps, delay: 50us }
  b: { ends: [router, receiver], rate: 1Gbps, delay: 50us }
traffic:
  bulk: { type: tcp, from: sender, to: receiver, dst_port: 5201, cc: newreno, tso: )" +
         (tso ? "true" : "false") + " }\n";
}

TEST(CpuBoundSender, ThroughputIsTheCpusSegmentRate) {
  for (bool tso : {false, true}) {
    const results::RunResult r =
        run_scenario(parse_scenario_text(cpu_bound_scenario("{ tx_segment: 20us }", tso), "cpu.yaml"));
    ASSERT_EQ(r.flows_size(), 1);
    const auto& fl = r.flows(0);
    const double cap = 1448.0 * 8 / 20e-6 / 1e6;  // 579.2 Mbit/s
    EXPECT_LT(fl.receiver_mbps(), cap * 1.001) << tso;
    EXPECT_GT(fl.receiver_mbps(), cap * 0.98) << tso;  // less only for slow start
    ASSERT_TRUE(fl.has_sender_cpu_pct());
    EXPECT_GT(fl.sender_cpu_pct(), 98.0);
    EXPECT_LE(fl.sender_cpu_pct(), 100.0 + 1e-9);
    // The receiver pays 1 us per TCP input: about one GRO aggregate per 2 wire segments here.
    ASSERT_TRUE(fl.has_receiver_cpu_pct());
    EXPECT_GT(fl.receiver_cpu_pct(), 1.0);
    EXPECT_LT(fl.receiver_cpu_pct(), 5.0);
    ASSERT_EQ(r.cpus_size(), 2);
    EXPECT_EQ(r.cpus(0).host(), "sender");
  }
}

TEST(CpuBoundSender, AHardclockTakesItsShareOfTheCpu) {
  // hz=100000 and 5 us per hardclock: half the CPU. 10 us per segment leaves
  // 1448 bytes per 20 us of wall time again.
  std::string text = cpu_bound_scenario("{ tick: 5us, tx_segment: 10us }", false);
  text.replace(text.find("hz: 1000"), 8, "hz: 100000");
  const results::RunResult r = run_scenario(parse_scenario_text(text, "cpu.yaml"));
  const double cap = 1448.0 * 8 / 20e-6 / 1e6;
  EXPECT_LT(r.flows(0).receiver_mbps(), cap * 1.01);
  EXPECT_GT(r.flows(0).receiver_mbps(), cap * 0.97);
  EXPECT_NEAR(r.cpus(0).interrupt_pct(), 50.0, 0.01);
}

TEST(CpuBoundSender, WithoutCpuBlockNothingChanges) {
  const std::string with = cpu_bound_scenario("{ tx_segment: 0us }", true);
  std::string without = with;
  without.replace(without.find("cpu: { tx_segment: 0us }"), 24, "clock_ppm: 0");
  const results::RunResult a = run_scenario(parse_scenario_text(with, "cpu.yaml"));
  const results::RunResult b = run_scenario(parse_scenario_text(without, "cpu.yaml"));
  EXPECT_FALSE(a.flows(0).has_sender_cpu_pct());
  EXPECT_EQ(a.flows(0).receiver_mbps(), b.flows(0).receiver_mbps());
  EXPECT_EQ(a.events(), b.events());
}

TEST(CpuScenario, TheTickCostMustBeShorterThanTheTickPeriod) {
  std::string text = cpu_bound_scenario("{ tick: 10us }", false);
  text.replace(text.find("hz: 1000"), 8, "hz: 100000");
  try {
    parse_scenario_text(text, "cpu.yaml");
    FAIL() << "accepted a 10 us hardclock at hz=100000";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field, "hosts.sender.cpu.tick");
    EXPECT_EQ(e.loc.file, "cpu.yaml");
    EXPECT_EQ(e.loc.line, 6);
    EXPECT_NE(e.message.find("not shorter than the tick period"), std::string::npos) << e.message;
  }
  try {
    parse_scenario_text(cpu_bound_scenario("{ tx_segmnt: 1us }", false), "cpu.yaml");
    FAIL() << "accepted an unknown cpu key";
  } catch (const ScenarioError& e) {
    EXPECT_NE(e.message.find("tx_segment"), std::string::npos) << e.message;  // the suggestion
  }
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

// The sender's CPU as a measured metric: the comparison reads the flow's
// sender_cpu_pct, the CSV carries it beside the measured value; and the cost
// can be set from the command line like any host field.
TEST(CpuScenario, CpuMetricInTheMeasuredComparison) {
  std::string text = cpu_bound_scenario("{ tx_segment: 10us }", false) + R"(
measured:
  metric: cpu_sender_pct
  keys: { cost: hosts.sender.cpu.tx_segment }
  cells:
    - { cost: 20us, value: 90 }
)";
  const ScenarioSpec spec =
      parse_scenario_text(text, "cpu.yaml", {parse_override("hosts.sender.cpu.tx_segment=20us")});
  EXPECT_EQ(spec.hosts[0].cpu.tx_segment, 20 * kPicosPerMicro);
  results::RunSet runs;
  *runs.add_runs() = run_scenario(spec);
  const std::optional<MeasuredSpec> m = parse_measured(spec);
  ASSERT_TRUE(m.has_value());
  std::ostringstream csv;
  write_comparison_csv(csv, runs, *m);
  const std::string out = csv.str();
  ASSERT_EQ(out.rfind("cost,seed,sender_mbps,receiver_mbps,retransmits,cpu_sender_pct,measured_cpu_sender_pct,error_pct\n", 0), 0u)
      << out;
  const double sim = runs.runs(0).flows(0).sender_cpu_pct();
  EXPECT_GT(sim, 98.0);
  EXPECT_NE(out.find("," + format_double_roundtrip(sim) + ",90,"), std::string::npos) << out;
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

// iperf3's cpu_utilization_percent comes from the hosts' CPU models, each
// side over its own test window; a host without one reports nothing (zeros).
TEST(CpuScenario, Iperf3ReportsEachSidesCpu) {
  std::string text = cpu_bound_scenario("{ tx_segment: 20us }", false);
  text.replace(text.find("type: tcp, from"), 15, "type: tcp, app: iperf3, time: 2s, length: 1MiB, from");
  const results::RunResult r = run_scenario(parse_scenario_text(text, "cpu.yaml"));
  ASSERT_EQ(r.iperf3_size(), 1);
  const results::Iperf3Result& i = r.iperf3(0);
  ASSERT_TRUE(i.has_client_cpu());
  ASSERT_TRUE(i.has_server_cpu());
  EXPECT_GT(i.client_cpu().total(), 98.0);  // the CPU-bound sender
  EXPECT_DOUBLE_EQ(i.client_cpu().total(), i.client_cpu().user() + i.client_cpu().system());
  EXPECT_NEAR(i.client_cpu().total(), r.flows(0).sender_cpu_pct(), 0.5);
  // The measured-block metrics read iperf3's own figures.
  MeasuredMetric k;
  k.metric = "iperf3_cpu_sender_pct";
  EXPECT_DOUBLE_EQ(*metric_value(r, k), i.client_cpu().total());
  k.metric = "iperf3_cpu_receiver_pct";
  EXPECT_DOUBLE_EQ(*metric_value(r, k), i.server_cpu().total());
  EXPECT_GT(i.server_cpu().total(), 1.0);
  EXPECT_LT(i.server_cpu().total(), 5.0);
  const app::Iperf3Test t = app::iperf3_test_from_result(i, 1);
  EXPECT_DOUBLE_EQ(t.client_cpu_total, i.client_cpu().total());
  EXPECT_DOUBLE_EQ(t.server_cpu_system, i.server_cpu().system());

  text.replace(text.find("cpu: { tcp_input: 1us }"), 23, "clock_ppm: 0");
  const results::RunResult no_cpu = run_scenario(parse_scenario_text(text, "cpu.yaml"));
  EXPECT_FALSE(no_cpu.iperf3(0).has_server_cpu());
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

double json_number(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::stod(json.substr(at + key.size() + 3));
}

// The results messages on the control connection carry the same CPU
// figures (iperf3's cpu_util over the test), not the fixed ones.
TEST(CpuScenario, Iperf3ResultsMessagesCarryTheModelledCpu) {
  std::string text = cpu_bound_scenario("{ tx_segment: 20us }", false);
  text.replace(text.find("type: tcp, from"), 15, "type: tcp, app: iperf3, time: 2s, length: 1MiB, from");
  const ScenarioSpec spec = parse_scenario_text(text, "cpu.yaml");
  BuiltScenario b = build_scenario(spec);
  b.sim->run_until(spec.duration);
  const std::string client = b.tcp_flows[0].iperf3_client->results_json();
  EXPECT_GT(json_number(client, "cpu_util_total"), 98.0) << client;
  EXPECT_LE(json_number(client, "cpu_util_total"), 100.0) << client;
  EXPECT_EQ(json_number(client, "cpu_util_user"), 0.0) << client;
  const std::string server = b.tcp_flows[0].iperf3_server->results_json();
  EXPECT_GT(json_number(server, "cpu_util_total"), 1.0) << server;
  EXPECT_LT(json_number(server, "cpu_util_total"), 5.0) << server;
  EXPECT_DOUBLE_EQ(json_number(server, "cpu_util_total"), json_number(server, "cpu_util_system")) << server;
}

}  // namespace
}  // namespace netsim
