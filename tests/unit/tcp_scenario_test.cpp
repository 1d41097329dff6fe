// TCP bulk flows and receive NICs built from scenario files: the shipped
// scenario runs, a flow's counters are consistent with each other, runs are
// bit-identical, and the NIC's filter position decides what an ingress rule
// counts. Runs are shortened to 2-3 s of simulated time.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "netsim/results/machine_times.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/units.h"

namespace netsim {
namespace {

using namespace netsim::literals;

const std::string kScenario = std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml";

ScenarioSpec shipped(std::vector<Override> overrides = {}) {
  overrides.insert(overrides.begin(), parse_override("duration=3s"));
  return load_scenario(kScenario, overrides);
}

TEST(TcpScenario, ShippedScenarioLoadsAndRuns) {
  const ScenarioSpec spec = load_scenario(kScenario);
  ASSERT_EQ(spec.tcp_flows.size(), 1u);
  EXPECT_EQ(spec.tcp_flows[0].cc, "newreno");
  EXPECT_EQ(spec.duration, 5_s);
  ASSERT_TRUE(spec.hosts[1].nic.has_value());

  const results::RunResult r = run_scenario(shipped());
  ASSERT_EQ(r.flows_size(), 1);
  const auto& f = r.flows(0);
  EXPECT_EQ(f.kind(), "tcp");
  EXPECT_EQ(f.src(), "sender");
  EXPECT_EQ(f.dst(), "receiver");
  EXPECT_EQ(f.start_ps(), 0);
  EXPECT_EQ(f.end_ps(), 3_s);
  // The SYN is dropped and retried after 1 s; after that data flows.
  EXPECT_GT(f.receiver_mbps(), 100.0);
  EXPECT_GT(f.sender_mbps(), 100.0);
  EXPECT_GT(f.retransmits(), 0u);
  EXPECT_EQ(f.packets_lost(), f.retransmits());
  EXPECT_GT(f.recovery_episodes(), 0u);
  EXPECT_GT(f.final_cwnd(), 0u);
  EXPECT_GT(f.srtt_us(), 0u);
  EXPECT_DOUBLE_EQ(f.loss_pct(), 100.0 * static_cast<double>(f.retransmits()) / static_cast<double>(f.packets_sent()));
  // Interval samples: bytes delivered per second, nothing in the first (SYN retry).
  ASSERT_EQ(r.intervals_size(), 3);
  EXPECT_EQ(r.intervals(0).bytes(), 0u);
  std::uint64_t sum = 0;
  for (const auto& s : r.intervals()) {
    EXPECT_EQ(s.flow(), "iperf3");
    sum += s.bytes();
  }
  EXPECT_EQ(sum, f.bytes_received());
  ASSERT_EQ(r.filters_size(), 1);
  EXPECT_GT(r.filters(0).dropped(), 1u);
}

TEST(TcpScenario, FlowCountersAreConsistent) {
  const ScenarioSpec spec = shipped();
  BuiltScenario b = build_scenario(spec);
  ASSERT_EQ(b.tcp_flows.size(), 1u);
  ASSERT_EQ(b.nics.size(), 1u);
  b.sim->run_until(spec.duration);
  TcpFlowApp& d = *b.tcp_flows[0].driver;
  d.finish();
  const TcpFlowCounters c = d.counters();
  const auto& tp = dynamic_cast<const tcp::FreeBsdTcpSender&>(*b.tcp_flows[0].sender).tcpcb();
  const std::uint64_t in_flight = tp.snd_max - tp.snd_una;
  // Acknowledged bytes were delivered; delivered bytes were acknowledged or are in flight.
  EXPECT_LE(c.bytes_acked, c.bytes_delivered);
  EXPECT_LE(c.bytes_delivered, c.bytes_acked + in_flight);
  EXPECT_GT(c.bytes_delivered, 0u);
  // Every dropped packet but the SYN is repaired by a retransmission.
  const std::uint64_t drops = b.filters[0].filter->dropped();
  EXPECT_GE(c.retransmits + 1, drops);
  EXPECT_GE(c.bytes_sent, c.bytes_acked);
  // Counters are frozen at the end of the window.
  b.sim->run_until(spec.duration + 50_ms);
  const TcpFlowCounters later = d.counters();
  EXPECT_EQ(later.bytes_delivered, c.bytes_delivered);
  EXPECT_EQ(later.retransmits, c.retransmits);
}

TEST(TcpScenario, BitIdenticalAcrossRuns) {
  const ScenarioSpec spec = shipped({parse_override("traffic.iperf3.cc=cubic")});
  results::RunResult a = run_scenario(spec);
  results::RunResult b = run_scenario(spec);
  results::clear_machine_times(a);
  results::clear_machine_times(b);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  EXPECT_GT(a.flows(0).bytes_received(), 0u);
}

struct NicRun {
  std::uint64_t matched;
  std::uint64_t wire_packets;
  std::uint64_t delivered;
};

NicRun run_with_position(const std::string& position) {
  const ScenarioSpec spec = shipped({parse_override("duration=2s"),
                                     parse_override("hosts.receiver.nic.filter_position=" + position)});
  BuiltScenario b = build_scenario(spec);
  b.sim->run_until(spec.duration);
  EXPECT_EQ(b.nics[0].nic->filters().size(), 1u) << "the ingress rule runs in the NIC";
  return {b.filters[0].filter->matched(), b.nics[0].nic->counters().wire_packets,
          b.tcp_flows[0].driver->counters().bytes_delivered};
}

TEST(TcpScenario, FilterPositionBeforeAndAfterGro) {
  const NicRun before = run_with_position("before_gro");
  const NicRun after = run_with_position("after_gro");
  // Before GRO the rule sees every wire packet; after GRO fewer, larger ones.
  EXPECT_EQ(before.matched, before.wire_packets);
  EXPECT_LT(after.matched, after.wire_packets);
  EXPECT_GT(before.delivered, 0u);
  EXPECT_GT(after.delivered, 0u);
}

// Without a nic: block the rule stays on the host's ingress chain, and two
// flows to one port share one receiver.
TEST(TcpScenario, TwoFlowsShareAListenerWithoutNic) {
  const std::string yaml =
      "name: two\n"
      "duration: 2s\n"
      "hosts:\n"
      "  a: { address: 10.0.0.1 }\n"
      "  b: { address: 10.0.0.2 }\n"
      "links:\n"
      "  a-b: { ends: [a, b], rate: 1Gbps, delay: 100us }\n"
      "filters:\n"
      "  nth: { host: b, type: nth, every: 1000, packet: 5, match: { protocol: tcp } }\n"
      "traffic:\n"
      "  t1: { type: tcp, from: a, to: b, cc: cubic }\n"
      "  u1: { type: udp, from: a, to: b, rate: 10Mbps }\n"
      "  t2: { type: tcp, from: a, to: b, start: 500ms, stop: 1500ms, sack: false }\n";
  const ScenarioSpec spec = parse_scenario_text(yaml, "inline.yaml");
  {
    BuiltScenario b = build_scenario(spec);
    EXPECT_TRUE(b.nics.empty());
    ASSERT_EQ(b.tcp_flows.size(), 2u);
    EXPECT_EQ(b.tcp_flows[0].receiver, b.tcp_flows[1].receiver);
  }
  const results::RunResult r = run_scenario(spec);
  ASSERT_EQ(r.flows_size(), 3);
  EXPECT_EQ(r.flows(0).name(), "t1");
  EXPECT_EQ(r.flows(1).name(), "u1");
  EXPECT_EQ(r.flows(2).name(), "t2");
  EXPECT_EQ(r.flows(2).start_ps(), 500_ms);
  EXPECT_EQ(r.flows(2).end_ps(), 1500_ms);
  EXPECT_GT(r.flows(0).bytes_received(), 0u);
  EXPECT_GT(r.flows(2).bytes_received(), 0u);
  EXPECT_GT(r.filters(0).dropped(), 0u);
  // Both tcp flows share the 1 Gbit/s link with the udp flow.
  EXPECT_LT(r.flows(0).receiver_mbps() * 2.0 / 2.0 + r.flows(2).receiver_mbps() / 2.0, 1000.0);
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

TEST(TcpScenario, Iperf3TimingStartsAfterTheControlConnection) {
  // With --packet 0 the rule's first victim is the control connection's SYN,
  // retried after the initial 1 s RTO; the cookie and parameter exchange and
  // the data connection follow, and the 3 s test is measured from the
  // client's reading of TEST_START, as iperf3 -t 3 does.
  const ScenarioSpec spec = load_scenario(
      std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml",
      {{"traffic.iperf3.app", "iperf3"}, {"traffic.iperf3.time", "3s"}});
  BuiltScenario b = build_scenario(spec);
  b.sim->run_until(spec.duration);
  ASSERT_EQ(b.tcp_flows.size(), 1u);
  const BuiltTcpFlow& f = b.tcp_flows[0];
  EXPECT_EQ(dynamic_cast<const tcp::FreeBsdTcpSender&>(*f.sender).stats().syn_retransmits, 0u);  // the data SYN got through
  EXPECT_GT(f.driver->start(), seconds(1));          // after the control SYN's retry...
  EXPECT_LT(f.driver->start(), seconds(1) + milliseconds(5));  // ...and four round trips (docs/iperf3.md)
  EXPECT_EQ(f.driver->end() - f.driver->start(), seconds(3));
  EXPECT_GT(f.driver->counters().bytes_delivered, 0u);
  const auto r = run_scenario(spec);
  EXPECT_EQ(r.flows(0).end_ps() - r.flows(0).start_ps(), seconds(3));
}

TEST(TcpScenario, Iperf3TimeMustBePositive) {
  EXPECT_THROW(load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml",
                             {{"traffic.iperf3.app", "iperf3"}, {"traffic.iperf3.time", "0s"}}),
               ScenarioError);
  EXPECT_THROW(load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml",
                             {{"traffic.iperf3.app", "netperf"}}),
               ScenarioError);
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

TEST(TcpScenario, ReceiveNicCountersAreReported) {
  const auto r = run_scenario(load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml",
                                            {{"duration", "2s"}}));
  ASSERT_EQ(r.nics_size(), 1);
  const auto& n = r.nics(0);
  EXPECT_EQ(n.host(), "receiver");
  // Every wire packet is either filtered or delivered, aggregates counting once.
  EXPECT_LE(n.delivered_packets() + n.filtered(), n.wire_packets());
  EXPECT_EQ(n.filtered(), r.filters(0).dropped());
  EXPECT_GE(n.mean_aggregate_segments(), 1.0);
  EXPECT_DOUBLE_EQ(n.mean_aggregate_segments(),
                   static_cast<double>(n.tcp_data_segments()) / static_cast<double>(n.tcp_data_packets()));
}

// nic.host_int_rx_mod puts the physical NIC's one-shot moderation in front of
// the receive path: every wire frame passes it, either at once (an RX
// interrupt) or at a timer expiry, and the bulk flow's bursts make it use both.
TEST(TcpScenario, HostNicModerationIsInterposedAndCounted) {
  const auto plain = run_scenario(load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml",
                                                {{"duration", "2s"}}));
  EXPECT_EQ(plain.nics(0).host_rx_interrupts(), 0u);
  const auto r = run_scenario(load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml",
                                            {{"duration", "2s"}, {"hosts.receiver.nic.host_int_rx_mod", "65us"}}));
  ASSERT_EQ(r.nics_size(), 1);
  const auto& n = r.nics(0);
  EXPECT_EQ(n.host_rx_interrupts() + n.host_timer_frames(), n.wire_packets());
  EXPECT_GT(n.host_rx_interrupts(), 0u);
  EXPECT_GT(n.host_timer_frames(), n.host_rx_interrupts()) << "bursts: most frames wait for the timer";
  EXPECT_GE(n.host_timer_interrupts(), n.host_rx_interrupts() - 1);
  EXPECT_LE(n.host_timer_interrupts(), n.host_rx_interrupts());
  EXPECT_EQ(n.host_irq_frames(), n.host_rx_interrupts()) << "no handler latency: one frame per interrupt";

  // With a handler latency of 0-20 us (nic.host_int_jitter), a handler that
  // runs late takes the next back-to-back frame (12.3 us later) too.
  const auto late = run_scenario(load_scenario(
      std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml",
      {{"duration", "2s"}, {"hosts.receiver.nic.host_int_rx_mod", "65us"}, {"hosts.receiver.nic.host_int_jitter", "20us"}}));
  const auto& m = late.nics(0);
  EXPECT_EQ(m.host_irq_frames() + m.host_timer_frames(), m.wire_packets());
  EXPECT_GT(m.host_irq_frames(), m.host_rx_interrupts());
  EXPECT_LT(m.host_irq_frames(), 2 * m.host_rx_interrupts());
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream is(line);
  while (std::getline(is, cell, ',')) out.push_back(cell);
  return out;
}

TEST(TcpScenario, TraceHasOneRowPerAckAndAgreesWithTheCounters) {
  const ScenarioSpec spec = load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/tcp-bulk-nth.yaml");
  std::ostringstream trace;
  RunOptions options;
  options.tcp_trace = &trace;
  const results::RunResult r = run_scenario(spec, options);
  ASSERT_EQ(r.flows_size(), 1);
  std::istringstream lines(trace.str());
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  const auto header = split_csv(line);
  ASSERT_EQ(header.size(), 17u);
  EXPECT_EQ(header[0], "flow");
  EXPECT_EQ(header[3], "cwnd");
  std::uint64_t acks = 0;
  std::uint64_t max_recoveries = 0;
  std::uint64_t max_retransmits = 0;
  double last_time = 0;
  while (std::getline(lines, line)) {
    const auto row = split_csv(line);
    ASSERT_EQ(row.size(), 17u) << line;
    EXPECT_EQ(row[0], "iperf3");
    const double t = std::stod(row[1]);
    EXPECT_GE(t, last_time);
    last_time = t;
    if (row[2] == "ack") ++acks;
    EXPECT_GE(std::stoul(row[3]), 1448u);  // cwnd never below one segment
    max_retransmits = std::max<std::uint64_t>(max_retransmits, std::stoull(row[14]));
    max_recoveries = std::max<std::uint64_t>(max_recoveries, std::stoull(row[15]));
  }
  // The sender processed at least the ACKs the receiver sent before the end.
  EXPECT_GT(acks, 1000u);
  // Counters in the result are frozen at the end of the window; the trace
  // runs on through the drain, so it can only have seen as many or more.
  EXPECT_GE(max_retransmits, r.flows(0).retransmits());
  EXPECT_GE(max_recoveries, r.flows(0).recovery_episodes());
  EXPECT_GT(max_recoveries, 0u);
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

// iperf3 reporting of one T1 cell: intervals of -i from the client's reading
// of TEST_START, whole -l blocks on the client side, and totals that are the
// sums of the intervals.
TEST(TcpScenario, Iperf3IntervalsSumToTheTotals) {
  const ScenarioSpec spec =
      load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/t1-loss-resilience.yaml",
                    {parse_override("hosts.sender.hz=1000"), parse_override("traffic.iperf3.cc=newreno"),
                     parse_override("filters.drop.every=100")});
  const results::RunResult r = run_scenario(spec);
  ASSERT_EQ(r.iperf3_size(), 1);
  const auto& t = r.iperf3(0);
  EXPECT_EQ(t.flow(), "iperf3");
  EXPECT_EQ(t.server_port(), 5201u);
  EXPECT_EQ(t.blksize(), 1048576u);
  EXPECT_EQ(t.congestion(), "newreno");
  EXPECT_DOUBLE_EQ(t.duration_s(), 10.0);
  // The control SYN is dropped by the rule and retried after 1 s.
  EXPECT_GT(t.test_start_s(), 1.0);
  EXPECT_LT(t.test_start_s(), 1.01);
  ASSERT_EQ(t.streams_size(), 1);
  const auto& s = t.streams(0);
  ASSERT_EQ(s.intervals_size(), 10);
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t retransmits = 0;
  for (int i = 0; i < s.intervals_size(); ++i) {
    const auto& x = s.intervals(i);
    EXPECT_DOUBLE_EQ(x.start_s(), i);
    EXPECT_DOUBLE_EQ(x.end_s(), i + 1);
    EXPECT_EQ(x.bytes_sent() % 1048576u, 0u) << "a write of -l bytes is counted when complete";
    EXPECT_GE(x.snd_cwnd(), 1448u);
    EXPECT_GT(x.rtt_us(), 0u);
    sent += x.bytes_sent();
    received += x.bytes_received();
    retransmits += x.retransmits();
  }
  EXPECT_EQ(sent, s.sender_bytes());
  EXPECT_EQ(received, s.receiver_bytes());
  EXPECT_EQ(retransmits, s.sender_retransmits());
  EXPECT_DOUBLE_EQ(s.sender_seconds(), 10.0);
  // The server-side total is the flow's receiver throughput.
  ASSERT_EQ(r.flows_size(), 1);
  EXPECT_EQ(s.receiver_bytes(), r.flows(0).bytes_received());
  EXPECT_EQ(s.sender_retransmits(), r.flows(0).retransmits());
  // What was written but not yet delivered fits in the send buffer (2 MB max) plus one block.
  EXPECT_LE(s.sender_bytes(), s.receiver_bytes() + 2097152u + 1048576u);
  EXPECT_GE(s.max_rtt_us(), s.mean_rtt_us());
  EXPECT_GE(s.mean_rtt_us(), s.min_rtt_us());
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

// Regression: two senders through one switch port (CUBIC and NewReno). The
// CUBIC sender used to stop for good after ~1 s: out of recovery, with
// nothing outstanding, tcp_output still subtracted a stale
// sackhint.sack_bytes_rexmit (left by LRD) from cwnd, so it sent nothing and
// armed no timer. FreeBSD only reads it in fast recovery.
TEST(TcpScenario, TwoSendersThroughOnePortKeepSending) {
  const std::string yaml = R"(
name: two-senders
duration: 4s
interval: 1s
hosts:
  a: { address: 10.0.0.1, hz: 1000 }
  b: { address: 10.0.0.2, hz: 1000 }
  s: { address: 10.0.0.3, hz: 250, nic: { irq_delay: 20us } }
switches:
  sw: { buffer: 256KB }
links:
  a-sw: { ends: [a, sw], rate: 1Gbps, delay: 50us }
  b-sw: { ends: [b, sw], rate: 1Gbps, delay: 50us }
  sw-s: { ends: [sw, s], rate: 1Gbps, delay: 50us }
traffic:
  s1: { type: tcp, app: bulk, from: a, to: s, cc: cubic }
  s2: { type: tcp, app: bulk, from: b, to: s, cc: newreno }
)";
  const results::RunResult r = run_scenario(parse_scenario_text(yaml, "two.yaml"));
  ASSERT_EQ(r.flows_size(), 2);
  // Both flows deliver data in every second after the first.
  for (const auto& i : r.intervals()) {
    if (i.start_ps() >= 1'000'000'000'000) {
      EXPECT_GT(i.bytes(), 1'000'000u) << i.flow() << " at " << i.start_ps();
    }
  }
  EXPECT_GT(r.flows(0).receiver_mbps(), 20.0);
  EXPECT_GT(r.flows(0).receiver_mbps() + r.flows(1).receiver_mbps(), 900.0);
}

// Table T2's topology (scenarios/t2-tcp-friendliness.yaml: two bhyve-VM
// senders, the congested 256 KB router port, the physical receiver) with the
// same CC on both senders: nothing favours either flow, so over iperf's 30 s
// they share the port fairly, and together they fill it.
TEST(TcpScenario, TwoNewRenoFlowsThroughT2PortShareFairly) {
  const ScenarioSpec spec = load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/t2-tcp-friendliness.yaml",
                                          {Override{"traffic.s1.cc", "newreno"}, Override{"traffic.s2.cc", "newreno"},
                                           Override{"hosts.s1.hz", "1000"}, Override{"hosts.s2.hz", "1000"}});
  const results::RunResult r = run_scenario(spec);
  ASSERT_EQ(r.flows_size(), 2);
  const double x1 = r.flows(0).receiver_mbps();
  const double x2 = r.flows(1).receiver_mbps();
  const double jain = (x1 + x2) * (x1 + x2) / (2.0 * (x1 * x1 + x2 * x2));
  EXPECT_GT(jain, 0.95) << x1 << " vs " << x2;
  EXPECT_GT(x1 + x2, 850.0);
  // The losses are tail drops: the router port's, and when one sender runs
  // ahead on its own link, its box's NIC queue (the next test).
  std::uint64_t drops = 0;
  for (const auto& l : r.links()) drops += l.packets_dropped();
  EXPECT_GT(drops, 0u);
  EXPECT_GT(r.flows(0).retransmits() + r.flows(1).retransmits(), 0u);
  // The queue report saw the port fill to its buffer and drop.
  std::uint64_t peak = 0;
  std::uint64_t reported_drops = 0;
  for (const auto& q : r.queues()) {
    if (q.to() != "rcv") continue;
    peak = std::max(peak, q.max_bytes());
    reported_drops += q.dropped_packets();
  }
  EXPECT_GT(peak, 256'000u - 1500u);
  EXPECT_LE(peak, 256'000u);
  EXPECT_GT(reported_drops, 0u);
}

// A bhyve guest's frames leave through its box's re(4) queue: 512 in if_snd
// plus 254 in the descriptor ring (scenarios/profiles/bhyve-vm.yaml). In T2 a
// sender that runs ahead while the other recovers fills its own 1 Gbit/s link
// (as fast as the router port), so its standing queue sits in that NIC, which
// tail-drops at exactly 766 frames; without the limit it grew past 1000.
TEST(TcpScenario, T2SenderVmQueuesStopAtTheBoxNicsRe4Limit) {
  const ScenarioSpec spec = load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/t2-tcp-friendliness.yaml",
                                          {Override{"traffic.s1.cc", "cubic"}, Override{"traffic.s2.cc", "newreno"},
                                           Override{"hosts.s1.hz", "100"}, Override{"hosts.s2.hz", "100"}});
  ASSERT_TRUE(spec.hosts.at(0).tx_buffer_packets.has_value());
  EXPECT_EQ(*spec.hosts.at(0).tx_buffer_packets, 766);
  const results::RunResult r = run_scenario(spec);
  std::uint64_t sender_drops = 0;
  std::uint64_t peak = 0;
  for (const auto& l : r.links()) {
    if (l.from() != "s1" && l.from() != "s2") continue;
    EXPECT_LE(l.max_queue_packets(), 766u) << l.from();
    peak = std::max<std::uint64_t>(peak, l.max_queue_packets());
    sender_drops += l.packets_dropped();
  }
  EXPECT_EQ(peak, 766u);
  EXPECT_GT(sender_drops, 0u);
}

}  // namespace
}  // namespace netsim
