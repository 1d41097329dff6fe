// GroReceiveNic: NAPI polling and Linux GRO merge rules, wired by hand
// (sender host -- link -- NIC -- receiver host). Expected values are worked
// out by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "netsim/filter/nth_drop_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/nic/gro_receive_nic.h"
#include "receive_path_fixture.h"

namespace netsim {
namespace {

using namespace netsim::literals;

GroReceiveNicConfig slow_irq() {
  GroReceiveNicConfig c;
  c.irq_delay = 100_us;  // 5 frames of 12.304 us arrive before the poll
  return c;
}

TEST(GroReceiveNic, MergesBackToBackInOrderSegmentsIntoOneAggregate) {
  GroNet net(slow_irq());
  net.burst(0, 0, 5);
  net.sim.run();
  // Frames arrive at 5 + 12.304 k us (k = 1..5); the interrupt raised by the
  // first one is served at 117.304 us and the poll finds all five.
  ASSERT_EQ(net.sink.rx.size(), 1u);
  EXPECT_EQ(net.sink.rx[0].segments, 5);
  EXPECT_EQ(net.sink.rx[0].payload, 5u * 1448u);
  EXPECT_EQ(net.sink.rx[0].seq, 0u);
  EXPECT_EQ(net.sink.rx[0].t, 117'304_ns);
  const GroNicCounters& c = net.nic->counters();
  EXPECT_EQ(c.wire_packets, 5u);
  EXPECT_EQ(c.interrupts, 1u);
  EXPECT_EQ(c.polls, 1u);
  EXPECT_EQ(c.aggregates, 1u);
  EXPECT_EQ(c.delivered_packets, 1u);
  EXPECT_DOUBLE_EQ(net.nic->mean_aggregate_segments(), 5.0);
  EXPECT_EQ(net.b->counters().packets_received, 1u);
  EXPECT_EQ(net.sim.packets().in_use(), 0u);
}

TEST(GroReceiveNic, ShortIrqDelaySplitsIntoPolls) {
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 20_us;
  GroNet net(cfg);
  net.burst(0, 0, 5);
  net.sim.run();
  // Arrivals 17.304, 29.608, 41.912, 54.216, 66.520 us.
  // IRQ at 17.304 -> poll at 37.304 takes 2; idle; IRQ at 41.912 -> poll at
  // 61.912 takes 2; IRQ at 66.520 -> poll at 86.520 takes 1.
  ASSERT_EQ(net.sink.rx.size(), 3u);
  EXPECT_EQ(net.sink.rx[0].segments, 2);
  EXPECT_EQ(net.sink.rx[1].segments, 2);
  EXPECT_EQ(net.sink.rx[2].segments, 1);
  EXPECT_EQ(net.sink.rx[0].t, 37'304_ns);
  EXPECT_EQ(net.sink.rx[1].t, 61'912_ns);
  EXPECT_EQ(net.sink.rx[2].t, 86'520_ns);
  EXPECT_EQ(net.nic->counters().interrupts, 3u);
  EXPECT_EQ(net.nic->counters().aggregates, 2u);
}

TEST(GroReceiveNic, GapFlushesAndStartsANewAggregate) {
  GroNet net(slow_irq());
  // Segments 0, 1, 3, 4, then 2 late (a retransmission arriving last).
  for (std::uint32_t k : {0u, 1u, 3u, 4u, 2u}) net.script->at(0, segment(k * kMss, kMss));
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 3u);
  // 0+1 merge; 3 does not follow 1: [0,1] flushed, 3 held; 4 merges; 2 does
  // not follow 4: [3,4] flushed, 2 held and flushed at the end of the poll.
  EXPECT_EQ(net.sink.rx[0].seq, 0u);
  EXPECT_EQ(net.sink.rx[0].segments, 2);
  EXPECT_EQ(net.sink.rx[1].seq, 3 * kMss);
  EXPECT_EQ(net.sink.rx[1].segments, 2);
  EXPECT_EQ(net.sink.rx[2].seq, 2 * kMss);
  EXPECT_EQ(net.sink.rx[2].segments, 1);
  EXPECT_EQ(net.nic->counters().polls, 1u);
}

TEST(GroReceiveNic, PureAckIsNotMergedAndFlushesItsFlow) {
  GroNet net(slow_irq());
  net.script->at(0, segment(0, kMss));
  net.script->at(0, segment(kMss, kMss));
  net.script->at(0, segment(2 * kMss, 0));  // pure ACK, same flow
  net.script->at(0, segment(2 * kMss, kMss));
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 3u);
  EXPECT_EQ(net.sink.rx[0].segments, 2);  // flushed by the ACK
  EXPECT_EQ(net.sink.rx[1].payload, 0u);  // the ACK itself, in order
  EXPECT_EQ(net.sink.rx[2].segments, 1);
  EXPECT_EQ(net.sink.rx[2].seq, 2 * kMss);
}

TEST(GroReceiveNic, OtherFlowsPureAckPassesAheadOfHeldAggregate) {
  GroNet net(slow_irq());
  net.script->at(0, segment(0, kMss));
  net.script->at(0, segment(kMss, kMss));
  net.script->at(0, segment(0, 0, tcp_flags::kAck, 7, 40001));  // pure ACK of another flow
  net.script->at(0, segment(2 * kMss, kMss));
  net.sim.run();
  // The ACK is not held: it goes up at once; the data aggregate (3 segments,
  // not interrupted) is flushed at the end of the poll.
  ASSERT_EQ(net.sink.rx.size(), 2u);
  EXPECT_EQ(net.sink.rx[0].src_port, 40001);
  EXPECT_EQ(net.sink.rx[1].segments, 3);
}

TEST(GroReceiveNic, PshMergesThenFlushesAndOptionChangeFlushes) {
  GroNet net(slow_irq());
  net.script->at(0, segment(0, kMss));
  net.script->at(0, segment(kMss, kMss, tcp_flags::kAck | tcp_flags::kPush));
  net.script->at(0, segment(2 * kMss, kMss));
  net.script->at(0, segment(3 * kMss, kMss, tcp_flags::kAck, 8));  // new TSval
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 3u);
  EXPECT_EQ(net.sink.rx[0].segments, 2);
  EXPECT_NE(net.sink.rx[0].flags & tcp_flags::kPush, 0);
  EXPECT_EQ(net.sink.rx[1].segments, 1);
  EXPECT_EQ(net.sink.rx[1].seq, 2 * kMss);
  EXPECT_EQ(net.sink.rx[2].segments, 1);
  EXPECT_EQ(net.sink.rx[2].seq, 3 * kMss);
}

TEST(GroReceiveNic, SixtyFourKilobyteLimitSplits) {
  // 10 Gbit/s: 50 frames arrive in 61.5 us, before the 100 us interrupt delay.
  GroNet net(slow_irq(), 10_Gbps);
  net.burst(0, 0, 50);
  net.sim.run();
  // IP length 20 + 32 + n * 1448 must stay below 65536 after each merge:
  // 45 segments = 65212 bytes fit, a 46th would make 66660.
  ASSERT_EQ(net.sink.rx.size(), 2u);
  EXPECT_EQ(net.sink.rx[0].segments, 45);
  EXPECT_EQ(net.sink.rx[0].payload, 45u * 1448u);
  EXPECT_EQ(net.sink.rx[1].segments, 5);
  EXPECT_EQ(net.sink.rx[1].seq, 45 * kMss);
  EXPECT_EQ(net.nic->counters().max_aggregate_segments, 45u);
  EXPECT_DOUBLE_EQ(net.nic->mean_aggregate_segments(), 25.0);
}

TEST(GroReceiveNic, SixtyFourKilobyteLimitCountsTheIpv6Header) {
  // skb_gro_receive's limit is on the IP length, headers included. 1393-byte
  // segments: over IPv4 20 + 32 + 47 x 1393 = 65523 stays below 65536, over
  // IPv6 40 + 32 + 47 x 1393 = 65543 does not, so 46 segments make the first
  // aggregate there.
  for (IpVersion v : {IpVersion::v4, IpVersion::v6}) {
    GroNet net(slow_irq(), 10_Gbps, 250, 0, 0, 0, v);
    net.burst(0, 0, 50, 1393);
    net.sim.run();
    const std::uint16_t first = v == IpVersion::v4 ? 47 : 46;
    ASSERT_EQ(net.sink.rx.size(), 2u);
    EXPECT_EQ(net.sink.rx[0].segments, first);
    EXPECT_EQ(net.sink.rx[1].segments, 50 - first);
  }
}

TEST(GroReceiveNic, NeverMergesAcrossAddressFamilies) {
  // Two in-order segments of the same addresses and ports, one IPv4 and one
  // IPv6 (inet_gro_receive and ipv6_gro_receive keep separate flows): each
  // goes up alone.
  GroNet net(slow_irq());
  Packet first = segment(0, kMss);
  first.src = 0;
  Packet second = segment(kMss, kMss);
  second.src = 0;
  second.ip_version = IpVersion::v6;
  net.nic->receive(net.sim.packets().clone(first), net.link->port_at_b());
  net.nic->receive(net.sim.packets().clone(second), net.link->port_at_b());
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 2u);
  EXPECT_EQ(net.sink.rx[0].segments, 1);
  EXPECT_EQ(net.sink.rx[1].segments, 1);
  EXPECT_EQ(net.nic->counters().aggregates, 0u);
}

TEST(GroReceiveNic, BudgetExhaustedFlushesAllBelowHz1000) {
  GroNet net(slow_irq(), 10_Gbps, 250);
  net.burst(0, 0, 70);
  net.sim.run();
  // Poll 1 takes 64 (budget): [45] closed by the size limit, [19] held;
  // work == weight and HZ < 1000 -> flush everything; poll 2 takes 6.
  ASSERT_EQ(net.sink.rx.size(), 3u);
  EXPECT_EQ(net.sink.rx[0].segments, 45);
  EXPECT_EQ(net.sink.rx[1].segments, 19);
  EXPECT_EQ(net.sink.rx[2].segments, 6);
  EXPECT_EQ(net.nic->counters().polls, 2u);
  EXPECT_EQ(net.nic->counters().budget_exhausted, 1u);
  EXPECT_EQ(net.nic->counters().interrupts, 1u);
}

TEST(GroReceiveNic, BudgetExhaustedKeepsYoungAggregatesAtHz1000) {
  GroNet net(slow_irq(), 10_Gbps, 1000);
  net.burst(0, 0, 70);
  net.sim.run();
  // HZ >= 1000: napi_gro_flush(flush_old) keeps aggregates started in this
  // jiffy, so the 19 held segments grow by the 6 of the second poll.
  ASSERT_EQ(net.sink.rx.size(), 2u);
  EXPECT_EQ(net.sink.rx[0].segments, 45);
  EXPECT_EQ(net.sink.rx[1].segments, 25);
  EXPECT_EQ(net.sim.packets().in_use(), 0u);
}

// Three bursts of 5 in-order segments, 1 ms apart (one poll each), and the
// rule `-m statistic --mode nth --every 3 --packet 0 -j DROP`.
struct NthCase {
  GroNet net;
  NthDropFilter* f;
  explicit NthCase(GroFilterPosition pos) : net(config(pos)) {
    MatchRule m;
    m.protocol = IpProtocol::tcp;
    m.dst_port = kDport;
    f = &net.sim.add<NthDropFilter>("nth", m, 3, 0);
    net.nic->add_filter(f);
    for (int j = 0; j < 3; ++j) net.burst(j * 1_ms, static_cast<std::uint32_t>(5 * j), 5);
    net.sim.run();
  }
  static GroReceiveNicConfig config(GroFilterPosition pos) {
    GroReceiveNicConfig c = slow_irq();
    c.filter_position = pos;
    return c;
  }
};

TEST(GroReceiveNic, NthFilterAfterGroCountsAggregates) {
  NthCase c(GroFilterPosition::after_gro);
  // The rule sees 3 aggregates and drops the first (all 5 of its segments).
  EXPECT_EQ(c.f->matched(), 3u);
  EXPECT_EQ(c.f->dropped(), 1u);
  EXPECT_EQ(c.net.nic->counters().filtered, 1u);
  ASSERT_EQ(c.net.sink.rx.size(), 2u);
  EXPECT_EQ(c.net.sink.rx[0].seq, 5 * kMss);
  EXPECT_EQ(c.net.sink.rx[0].segments, 5);
  EXPECT_EQ(c.net.sink.rx[1].segments, 5);
  EXPECT_EQ(c.net.b->counters().filtered_ingress, 0u);
}

TEST(GroReceiveNic, NthFilterBeforeGroCountsWireSegments) {
  NthCase c(GroFilterPosition::before_gro);
  // 15 wire segments, 1-based 1, 4, 7, 10, 13 dropped. What is left merges
  // around the holes: [2,3] [5] | [6] [8,9] | [11,12] [14,15].
  EXPECT_EQ(c.f->matched(), 15u);
  EXPECT_EQ(c.f->dropped(), 5u);
  ASSERT_EQ(c.net.sink.rx.size(), 6u);
  const std::vector<std::uint16_t> segs{2, 1, 1, 2, 2, 2};
  const std::vector<std::uint32_t> first{1, 4, 5, 7, 10, 13};  // 0-based segment index
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(c.net.sink.rx[i].segments, segs[i]) << i;
    EXPECT_EQ(c.net.sink.rx[i].seq, first[i] * kMss) << i;
  }
  EXPECT_EQ(c.net.nic->counters().wire_packets, 15u);
  EXPECT_EQ(c.net.nic->counters().filtered, 5u);
}

TEST(GroReceiveNic, NonTcpAndForeignFramesPassThrough) {
  GroNet net(slow_irq());
  Packet udp;
  udp.protocol = IpProtocol::udp;
  udp.dst = 1;
  udp.dst_port = 9;
  udp.l4_header_bytes = kUdpHeaderBytes;
  udp.payload_bytes = 100;
  net.script->at(0, segment(0, kMss));
  net.script->at(0, udp);
  net.script->at(0, segment(kMss, kMss));
  net.a->set_forwarding(std::vector<int>(8, 0));
  Packet stray = segment(0, kMss);
  stray.dst = 7;  // not this host (a hub repeats frames to every port)
  net.script->at(0, stray);
  net.sim.run();
  // UDP is not merged and does not break the TCP aggregate.
  ASSERT_EQ(net.sink.rx.size(), 1u);
  EXPECT_EQ(net.sink.rx[0].segments, 2);
  EXPECT_EQ(net.b->counters().no_listener, 1u);   // the UDP datagram
  EXPECT_EQ(net.nic->counters().not_for_us, 1u);  // not sent through the ring
  EXPECT_EQ(net.b->counters().not_for_us, 1u);
  EXPECT_EQ(net.nic->counters().wire_packets, 3u);
}

TEST(GroReceiveNic, GroOffDeliversWireSegments) {
  GroReceiveNicConfig cfg = slow_irq();
  cfg.gro = false;
  GroNet net(cfg);
  net.burst(0, 0, 5);
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 5u);
  EXPECT_EQ(net.nic->counters().aggregates, 0u);
  EXPECT_DOUBLE_EQ(net.nic->mean_aggregate_segments(), 1.0);
}

TEST(GroReceiveNic, PerPacketCostTakesLateArrivalsIntoTheSamePoll) {
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 20_us;
  cfg.per_packet_cost = 10_us;
  GroNet net(cfg);
  net.burst(0, 0, 5);  // arrivals at 17.304, 29.608, 41.912, 54.216, 66.520 us
  net.sim.run();
  // IRQ at 17.304 -> poll at 37.304 takes one packet every 10 us: at 37.304,
  // 47.304, 57.304, 67.304 (each time the next one has already arrived) and
  // 77.304; at 87.304 the ring is empty, the poll ends and GRO flushes one
  // 5-segment aggregate. One interrupt, one poll.
  ASSERT_EQ(net.sink.rx.size(), 1u);
  EXPECT_EQ(net.sink.rx[0].t, 87'304_ns);
  EXPECT_EQ(net.sink.rx[0].segments, 5);
  EXPECT_EQ(net.nic->counters().interrupts, 1u);
  EXPECT_EQ(net.nic->counters().polls, 1u);
}

TEST(GroReceiveNic, PerPacketCostBelowArrivalSpacingEndsThePoll) {
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 20_us;
  cfg.per_packet_cost = 2_us;
  GroNet net(cfg);
  net.burst(0, 0, 5);
  net.sim.run();
  // Poll at 37.304 takes #1 and #2 (39.304), ring empty at 41.304 -> flush a
  // 2-segment aggregate. #3 arrives at 41.912 with NAPI idle: a new
  // interrupt, poll at 61.912 takes #3 and #4 (54.216) and, at 65.912, the
  // ring is empty -> flush; #5 (66.520) starts a third interrupt, poll at
  // 86.520, flushed at 88.520.
  ASSERT_EQ(net.sink.rx.size(), 3u);
  EXPECT_EQ(net.sink.rx[0].t, 41'304_ns);
  EXPECT_EQ(net.sink.rx[0].segments, 2);
  EXPECT_EQ(net.sink.rx[1].t, 65'912_ns);
  EXPECT_EQ(net.sink.rx[1].segments, 2);
  EXPECT_EQ(net.sink.rx[2].t, 88'520_ns);
  EXPECT_EQ(net.sink.rx[2].segments, 1);
  EXPECT_EQ(net.nic->counters().interrupts, 3u);
  EXPECT_EQ(net.nic->counters().polls, 3u);
}

TEST(GroReceiveNic, InterruptThrottlingSpacesInterrupts) {
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 20_us;
  cfg.irq_min_interval = 100_us;
  GroNet net(cfg);
  net.script->at(0, segment(0, kMss));            // arrives 17.304: first IRQ at 37.304
  net.script->at(40_us, segment(kMss, kMss));     // arrives 57.304: IRQ held to 37.304 + 100 = 137.304
  net.script->at(200_us, segment(2 * kMss, kMss));  // arrives 217.304: 237.304 either way
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 3u);
  EXPECT_EQ(net.sink.rx[0].t, 37'304_ns);
  EXPECT_EQ(net.sink.rx[1].t, 137'304_ns);
  EXPECT_EQ(net.sink.rx[2].t, 237'304_ns);
  EXPECT_EQ(net.nic->counters().interrupts, 3u);
}

TEST(GroReceiveNic, InterruptThrottlingBatchesABusyLink) {
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 20_us;
  cfg.irq_min_interval = 100_us;
  GroNet net(cfg);
  // 20 back-to-back segments arrive every 12.304 us from 17.304 us on. The
  // first interrupt (37.304) finds 2; the next may come only at 137.304 and
  // finds the 8 that arrived meanwhile (#3..#10, up to 128.040 us); the third
  // at 237.304 finds #11..#18 (up to 226.472 us); #19 and #20 (238.776,
  // 251.080) wait for the fourth at 337.304.
  net.burst(0, 0, 20);
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 4u);
  EXPECT_EQ(net.sink.rx[0].segments, 2);
  EXPECT_EQ(net.sink.rx[1].segments, 8);
  EXPECT_EQ(net.sink.rx[1].t, 137'304_ns);
  EXPECT_EQ(net.sink.rx[2].segments, 8);
  EXPECT_EQ(net.sink.rx[2].t, 237'304_ns);
  EXPECT_EQ(net.sink.rx[3].segments, 2);
  EXPECT_EQ(net.sink.rx[3].t, 337'304_ns);
}

TEST(GroReceiveNic, MergeAcksAbsorbsAdvancingPureAcksInABatch) {
  GroReceiveNicConfig cfg = slow_irq();
  cfg.merge_acks = true;
  GroNet net(cfg);
  // Four ACKs within the 100 us interrupt delay: 1000, 2000 (TS 8), 3000,
  // then a duplicate of 3000 (flushes the held one and is held itself).
  net.script->at(0, pure_ack(1000));
  net.script->at(1_us, pure_ack(2000, 8));
  net.script->at(2_us, pure_ack(3000, 8));
  net.script->at(3_us, pure_ack(3000, 8));
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 2u);
  EXPECT_EQ(net.sink.rx[0].ack, 3000u);
  EXPECT_EQ(net.sink.rx[0].segments, 1);
  EXPECT_EQ(net.sink.rx[1].ack, 3000u);
  EXPECT_EQ(net.nic->counters().acks_merged, 2u);
}

TEST(GroReceiveNic, MergeAcksNeverAbsorbsSackOrData) {
  GroReceiveNicConfig cfg = slow_irq();
  cfg.merge_acks = true;
  GroNet net(cfg);
  Packet sack = pure_ack(2000);
  sack.tcp.sack_block_count = 1;
  sack.tcp.sack_blocks[0] = {5000, 6000};
  sack.l4_header_bytes = kTcpHeaderBytes + sack.tcp.option_bytes();
  net.script->at(0, pure_ack(1000));
  net.script->at(1_us, sack);                 // flushes the held ACK, goes up itself
  net.script->at(2_us, pure_ack(2000));       // held again
  net.script->at(3_us, pure_ack(1500));       // does not advance: flushes 2000, held
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 4u);
  EXPECT_EQ(net.sink.rx[0].ack, 1000u);
  EXPECT_EQ(net.sink.rx[1].ack, 2000u);
  EXPECT_EQ(net.sink.rx[2].ack, 2000u);
  EXPECT_EQ(net.sink.rx[3].ack, 1500u);
  EXPECT_EQ(net.nic->counters().acks_merged, 0u);
}

TEST(GroReceiveNic, WithoutMergeAcksPureAcksPassOneByOne) {
  GroNet net(slow_irq());
  net.script->at(0, pure_ack(1000));
  net.script->at(1_us, pure_ack(2000));
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 2u);
  EXPECT_EQ(net.nic->counters().acks_merged, 0u);
}

TEST(GroReceiveNic, IrqJitterStaysInRangeAndIsDeterministic) {
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 20_us;
  cfg.irq_jitter = 10_us;
  auto run = [&] {
    GroNet net(cfg);
    // 30 lone segments 200 us apart: each raises its own interrupt.
    for (std::uint32_t k = 0; k < 30; ++k) net.script->at(k * 200_us, segment(k * kMss, kMss, tcp_flags::kAck | tcp_flags::kPush));
    net.sim.run();
    std::vector<SimTime> lat;
    for (std::size_t k = 0; k < net.sink.rx.size(); ++k) {
      lat.push_back(net.sink.rx[k].t - static_cast<SimTime>(k) * 200_us - 17'304_ns);
    }
    return lat;
  };
  const auto a = run();
  ASSERT_EQ(a.size(), 30u);
  for (SimTime l : a) {
    EXPECT_GE(l, 20_us);
    EXPECT_LE(l, 30_us);
  }
  EXPECT_NE(*std::min_element(a.begin(), a.end()), *std::max_element(a.begin(), a.end()));
  EXPECT_EQ(a, run());
}

// irq_jitter_shape: exponential keeps the uniform's mean (irq_jitter / 2) and
// adds the tail: some interrupts come later than a uniform draw ever could
// (P(X > 2 x mean) = e^-2, 13.5%).
TEST(GroReceiveNic, ExponentialIrqJitterKeepsTheMeanAndHasATail) {
  auto latencies = [](JitterShape shape) {
    GroReceiveNicConfig cfg;
    cfg.irq_delay = 20_us;
    cfg.irq_jitter = 10_us;
    cfg.irq_jitter_shape = shape;
    GroNet net(cfg);
    // 400 lone segments 500 us apart: each raises its own interrupt.
    for (std::uint32_t k = 0; k < 400; ++k) net.script->at(k * 500_us, segment(k * kMss, kMss, tcp_flags::kAck | tcp_flags::kPush));
    net.sim.run();
    std::vector<SimTime> jitter;
    for (std::size_t k = 0; k < net.sink.rx.size(); ++k) {
      jitter.push_back(net.sink.rx[k].t - static_cast<SimTime>(k) * 500_us - 17'304_ns - 20_us);
    }
    return jitter;
  };
  const auto mean_us = [](const std::vector<SimTime>& v) {
    double s = 0.0;
    for (SimTime x : v) s += static_cast<double>(x);
    return s / static_cast<double>(v.size()) / 1e6;
  };
  const auto uni = latencies(JitterShape::uniform);
  const auto exp = latencies(JitterShape::exponential);
  ASSERT_EQ(uni.size(), 400u);
  ASSERT_EQ(exp.size(), 400u);
  EXPECT_GE(*std::min_element(exp.begin(), exp.end()), 0);
  EXPECT_LE(*std::max_element(uni.begin(), uni.end()), 10_us);
  const auto beyond = std::count_if(exp.begin(), exp.end(), [](SimTime x) { return x > 10_us; });
  EXPECT_GT(beyond, 30);  // about 54 expected
  EXPECT_LT(beyond, 80);
  EXPECT_NEAR(mean_us(uni), 5.0, 0.5);
  EXPECT_NEAR(mean_us(exp), 5.0, 0.8);  // standard error 0.25 us
  EXPECT_EQ(exp, latencies(JitterShape::exponential));
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

TEST(GroReceiveNic, IdleWakeDelayOnlyAfterAnIdleSpell) {
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 20_us;
  cfg.idle_wake_delay = 200_us;
  cfg.idle_after = 1_ms;
  GroNet net(cfg);
  net.script->at(0, segment(0, kMss));                      // arrives 17.304: never polled, pays: 237.304
  net.script->at(500_us, segment(kMss, kMss));              // 517.304: 280 us after the poll, busy: 537.304
  net.script->at(2'000_us, segment(2 * kMss, kMss));        // 2017.304: 1480 us idle, pays: 2237.304
  net.script->at(3'236'304_ns, segment(3 * kMss, kMss));    // 3253.608: 1016.304 us after 2237.304, pays
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 4u);
  EXPECT_EQ(net.sink.rx[0].t, 237'304_ns);
  EXPECT_EQ(net.sink.rx[1].t, 537'304_ns);
  EXPECT_EQ(net.sink.rx[2].t, 2'237'304_ns);
  EXPECT_EQ(net.sink.rx[3].t, 3'473'608_ns);
  EXPECT_EQ(net.nic->counters().interrupts, 4u);
  EXPECT_EQ(net.nic->counters().idle_wakeups, 3u);
}

// idle_wake_jitter lengthens only the wake-ups: with irq_jitter 0, a busy
// interrupt keeps its exact 20 us, each woken one lands in [237.304, 247.304]
// us after its packet, the draws differ, and a second run repeats them.
TEST(GroReceiveNic, IdleWakeJitterOnlyOnWakeUps) {
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 20_us;
  cfg.idle_wake_delay = 200_us;
  cfg.idle_wake_jitter = 10_us;
  cfg.idle_after = 1_ms;
  auto run = [&] {
    GroNet net(cfg);
    for (int i = 0; i < 20; ++i) {
      const SimTime t0 = i * 2'000_us;  // an idle spell before each: woken
      net.script->at(t0, segment(static_cast<std::uint32_t>(2 * i) * kMss, kMss));
      net.script->at(t0 + 300_us, segment(static_cast<std::uint32_t>(2 * i + 1) * kMss, kMss));  // busy
    }
    net.sim.run();
    EXPECT_EQ(net.nic->counters().idle_wakeups, 20u);
    std::vector<SimTime> woken;
    for (std::size_t k = 0; k < net.sink.rx.size(); ++k) {
      const SimTime t0 = static_cast<SimTime>(k / 2) * 2'000_us;
      const SimTime latency = net.sink.rx[k].t - t0 - (k % 2 == 0 ? 0 : 300_us) - 17'304_ns;
      if (k % 2 == 1) {
        EXPECT_EQ(latency, 20_us) << k;
      } else {
        EXPECT_GE(latency, 220_us) << k;
        EXPECT_LE(latency, 230_us) << k;
        woken.push_back(latency);
      }
    }
    EXPECT_EQ(net.sink.rx.size(), 40u);
    return woken;
  };
  const std::vector<SimTime> a = run();
  ASSERT_EQ(a.size(), 20u);
  EXPECT_NE(*std::min_element(a.begin(), a.end()), *std::max_element(a.begin(), a.end()));
  EXPECT_EQ(a, run());
}

}  // namespace
}  // namespace netsim

namespace netsim {
namespace {

using namespace netsim::literals;

// Linux r8169's defaults: software coalescing, 5 us from interrupt to poll.
GroReceiveNicConfig r8169_sw_coalescing() {
  GroReceiveNicConfig c;
  c.irq_delay = 5_us;
  c.gro_flush_timeout = 20_us;
  c.napi_defer_hard_irqs = 1;
  return c;
}

// Software interrupt coalescing as Linux's r8169 sets it (gro_flush_timeout
// 20 us, napi_defer_hard_irqs 1), 5 us from interrupt to poll. Six
// back-to-back segments arrive at 17.304 + 12.304 k us (k = 0..5):
//   22.304  interrupt poll takes #1 and holds it; work done, so the interrupt
//           stays masked and the timer polls at 42.304 (the aggregate, of
//           this jiffy, is kept)
//   42.304  takes #2, #3 (29.608, 41.912): held aggregate of 3; timer 62.304
//   62.304  takes #4: 4; timer 82.304
//   82.304  takes #5, #6: 6; timer 102.304
//  102.304  finds nothing: flushes the aggregate of 6 and unmasks.
// Without coalescing every segment is its own interrupt and aggregate.
TEST(GroReceiveNic, SoftwareInterruptCoalescingHoldsAggregatesAcrossPolls) {
  GroNet net(r8169_sw_coalescing());
  net.burst(0, 0, 6);
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 1u);
  EXPECT_EQ(net.sink.rx[0].segments, 6);
  EXPECT_EQ(net.sink.rx[0].t, 102'304_ns);
  const GroNicCounters& c = net.nic->counters();
  EXPECT_EQ(c.interrupts, 1u);
  EXPECT_EQ(c.polls, 5u);
  EXPECT_EQ(c.timer_polls, 4u);

  GroReceiveNicConfig plain;
  plain.irq_delay = 5_us;
  GroNet off(plain);
  off.burst(0, 0, 6);
  off.sim.run();
  ASSERT_EQ(off.sink.rx.size(), 6u);
  EXPECT_EQ(off.sink.rx[0].t, 22'304_ns);
  EXPECT_EQ(off.nic->counters().interrupts, 6u);
}

// A lone segment waits for the one timer poll that finds nothing: 20 us more.
TEST(GroReceiveNic, SoftwareInterruptCoalescingDelaysALoneSegmentOneTimeout) {
  GroNet net(r8169_sw_coalescing());
  net.script->at(0, segment(0, kMss));
  net.script->at(1_ms, segment(kMss, kMss));  // long after: a fresh interrupt
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 2u);
  EXPECT_EQ(net.sink.rx[0].t, 42'304_ns);
  EXPECT_EQ(net.sink.rx[1].t, 1'042'304_ns);
  EXPECT_EQ(net.nic->counters().interrupts, 2u);
  EXPECT_EQ(net.nic->counters().timer_polls, 2u);
}

// gro_flush_timeout without deferral keeps the interrupt enabled: the next
// segment interrupts as usual, but the held aggregate survives the poll end
// and the timer poll flushes it if nothing else did.
TEST(GroReceiveNic, GroFlushTimeoutAloneKeepsInterruptsOn) {
  GroReceiveNicConfig cfg;
  cfg.irq_delay = 5_us;
  cfg.gro_flush_timeout = 20_us;
  GroNet net(cfg);
  net.burst(0, 0, 2);  // 17.304, 29.608
  net.sim.run();
  // 22.304: #1 held, interrupts on, timer 42.304. 29.608: interrupt, poll at
  // 34.608 merges #2 (2 segments), timer re-armed to 54.608. 54.608: nothing
  // new, flush.
  ASSERT_EQ(net.sink.rx.size(), 1u);
  EXPECT_EQ(net.sink.rx[0].segments, 2);
  EXPECT_EQ(net.sink.rx[0].t, 54'608_ns);
  EXPECT_EQ(net.nic->counters().interrupts, 2u);
}

}  // namespace
}  // namespace netsim
