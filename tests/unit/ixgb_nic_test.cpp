// IxgbNic and PcixBus: TSO cut into wire segments, RDTR interrupt
// moderation, PCI-X transfer times and sharing, ring overflow; wired by hand
// (host a -- 10 Gbit/s, 5 us link -- host b). Expected values are worked out
// in the comments (docs/ixgb.md has the equations).
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/nic/gro_receive_nic.h"
#include "netsim/nic/ixgb_nic.h"
#include "netsim/nic/pcix_bus.h"
#include "netsim/scenario/scenario_loader.h"
#include "receive_path_fixture.h"
#include "scenario_error_capture.h"

namespace netsim {
namespace {

using namespace netsim::literals;

// A 9000-byte IP datagram with timestamps: 20 + 32 + 8948.
constexpr std::uint32_t kJumboMss = 8948;
// 9000 + 38 bytes of framing at 10 Gbit/s: 9038 * 0.8 ns.
constexpr SimTime kJumboWire = 7'230'400;

// 1 GHz x 64 bit, no overhead, 4 KB bursts: 8 bytes per ns, far ahead of the wire.
PcixBusConfig fast_bus() {
  PcixBusConfig b;
  b.clock_hz = 1'000'000'000;
  b.mmrbc = 4096;
  b.transaction_overhead_cycles = 0;
  return b;
}

// The receive side an ixgb NIC feeds: ixgb_clean_rx_irq without GRO or budget.
GroReceiveNicConfig ixgb_rx(SimTime rdtr, std::uint32_t ring) {
  GroReceiveNicConfig c;
  c.gro = false;
  c.budget = 65536;
  c.irq_delay = rdtr;
  c.ring_size = ring;
  return c;
}

struct IxgbNet {
  Simulation sim{1};
  Host* a;
  Host* b;
  Link* link;
  GroReceiveNic* a_rx = nullptr;
  GroReceiveNic* b_rx = nullptr;
  IxgbNic* a_nic = nullptr;
  IxgbNic* b_nic = nullptr;
  Sink sink;
  std::unique_ptr<ScriptedSender> script;
  // An ixgb NIC on a (tx_cfg) and/or on b (rx_cfg, with receive delay
  // `rdtr`); a null one: the host's plain interface.
  IxgbNet(const IxgbNicConfig* tx_cfg, const IxgbNicConfig* rx_cfg, SimTime rdtr = 72 * kIxgbDelayUnit) {
    a = &sim.add<Host>("a", 0, "10.0.0.1", IpVersion::v4, 1000);
    b = &sim.add<Host>("b", 1, "10.0.0.2", IpVersion::v4, 1000);
    ChannelConfig c;
    c.rate = DataRate::gbps(10);
    c.delay = 5 * kPicosPerMicro;
    c.mtu = 9000;
    link = &sim.add<Link>("a-b", *a, *b, c, c);
    a->set_forwarding({-1, 0});
    b->set_forwarding({0, -1});
    if (tx_cfg != nullptr) {
      a_rx = &sim.add<GroReceiveNic>("a-rx", *a, link->port_at_a(), ixgb_rx(0, tx_cfg->rx_descriptors));
      a_rx->attach(link->b_to_a());
      a_nic = &sim.add<IxgbNic>("a-nic", *a, link->port_at_a(), *a_rx, link->a_to_b(), *tx_cfg);
      a_nic->attach(link->b_to_a());
      a->set_tso_frames(tx_cfg->tso);
    }
    if (rx_cfg != nullptr) {
      b_rx = &sim.add<GroReceiveNic>("b-rx", *b, link->port_at_b(), ixgb_rx(rdtr, rx_cfg->rx_descriptors));
      b_rx->attach(link->a_to_b());
      b_nic = &sim.add<IxgbNic>("b-nic", *b, link->port_at_b(), *b_rx, link->b_to_a(), *rx_cfg);
      b_nic->attach(link->a_to_b());
    }
    sink.sim = &sim;
    b->bind(IpProtocol::tcp, kDport, &sink);
    script = std::make_unique<ScriptedSender>(sim, *a);
  }
};

// A TSO frame of n jumbo segments (PSH set, as the stack sets it on the frame).
Packet tso_frame(std::uint32_t seq, std::uint16_t n) {
  Packet p = segment(seq, n * kJumboMss, tcp_flags::kAck | tcp_flags::kPush);
  p.segments = n;
  p.seg_payload = static_cast<std::uint16_t>(kJumboMss);
  return p;
}

TEST(PcixBus, JumboFrameTransferTimeAt133MhzBy64Bit) {
  const PcixBus bus{PcixBusConfig{}};
  // 9018 bytes in MMRBC = 512-byte reads: 18 transactions, 17 of 64 data
  // cycles and one of ceil(314 / 8) = 40, plus 8 overhead cycles each:
  // 17 * 72 + 48 = 1272 cycles; 1272 / 133 MHz = 9 563 909.77 ps.
  EXPECT_EQ(bus.transactions(9018, DmaDirection::read), 18u);
  EXPECT_EQ(bus.cycles(9018, DmaDirection::read), 1272u);
  EXPECT_EQ(bus.transfer_time(9018, DmaDirection::read), 9'563'910);
  // Writes in 4096-byte bursts: 3 transactions, 1128 data + 24 overhead cycles.
  EXPECT_EQ(bus.cycles(9018, DmaDirection::write), 1152u);
  EXPECT_EQ(bus.transfer_time(9018, DmaDirection::write), 8'661'654);
  // The raw rate 133 MHz x 64 bit = 8.512 Gbit/s: 1128 cycles, 8 481 203 ps.
  EXPECT_EQ(bus.cycles_time(1128), 8'481'203);
  // MMRBC 4096 makes reads cost what writes do.
  PcixBusConfig big;
  big.mmrbc = 4096;
  EXPECT_EQ(PcixBus{big}.transfer_time(9018, DmaDirection::read), 8'661'654);
  // A prefix: the first 1000 bytes are in when the second transaction ends (2 * 72 cycles).
  EXPECT_EQ(bus.cycles_through(1000, 9018, DmaDirection::read), 144u);
}

TEST(PcixBus, BothDirectionsShareOneBusFirstComeFirstServed) {
  PcixBus bus{PcixBusConfig{}};
  const SimTime read_end = bus.transfer(0, 9018, DmaDirection::read);
  EXPECT_EQ(read_end, 9'563'910);
  // A receive DMA that arrives 1 us later waits for the read to end.
  const SimTime write_end = bus.transfer(1'000'000, 9018, DmaDirection::write);
  EXPECT_EQ(write_end, 9'563'910 + 8'661'654);
  EXPECT_EQ(bus.counters().max_wait, 9'563'910 - 1'000'000);
  EXPECT_EQ(bus.counters().busy[0] + bus.counters().busy[1], write_end);
  // After an idle gap a request starts at once.
  EXPECT_EQ(bus.transfer(30'000'000, 8, DmaDirection::write), 30'000'000 + bus.cycles_time(9));
}

TEST(PcixBus, RejectsImpossibleGeometry) {
  PcixBusConfig c;
  c.width_bits = 48;
  EXPECT_THROW(PcixBus{c}, std::invalid_argument);
  c = PcixBusConfig{};
  c.mmrbc = 8192;
  EXPECT_THROW(PcixBus{c}, std::invalid_argument);
}

TEST(IxgbNic, TsoFrameLeavesAsWireSegmentsAtLineRate) {
  IxgbNicConfig cfg;
  cfg.bus = fast_bus();
  IxgbNet net(&cfg, nullptr);
  net.script->at(0, tso_frame(0, 4));
  net.sim.run();
  // Segment 0's DMA: 14 + 52 + 8948 = 9014 bytes = 1127 cycles = 1.127 us;
  // each later one 8948 bytes = 1119 ns, always done before the wire is
  // free, so the segments leave back to back: the k-th reaches b at
  // 1.127 + (k + 1) * 7.2304 + 5 us.
  ASSERT_EQ(net.sink.rx.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(net.sink.rx[k].t, 1'127'000 + static_cast<SimTime>(k + 1) * kJumboWire + 5'000'000);
    EXPECT_EQ(net.sink.rx[k].seq, k * kJumboMss);
    EXPECT_EQ(net.sink.rx[k].payload, kJumboMss);
    EXPECT_EQ(net.sink.rx[k].segments, 1);
    EXPECT_EQ((net.sink.rx[k].flags & tcp_flags::kPush) != 0, k == 3);  // PSH only on the last
  }
  const IxgbCounters& c = net.a_nic->counters();
  EXPECT_EQ(c.tx_packets, 1u);
  EXPECT_EQ(c.tx_tso_frames, 1u);
  EXPECT_EQ(c.tx_wire_segments, 4u);
  EXPECT_EQ(c.tx_interrupts, 1u);
  EXPECT_EQ(net.a_nic->tx_free_descriptors(), cfg.tx_descriptors);  // cleaned TxIntDelay after the last DMA
  EXPECT_EQ(net.sim.packets().in_use(), 0u);
}

// The transmit interrupt (ixgb_intr) runs where the NIC's interrupt is
// bound, the irq core, not on the application's core.
TEST(IxgbNic, TheTransmitInterruptRunsOnTheIrqCore) {
  IxgbNicConfig cfg;
  cfg.bus = fast_bus();
  IxgbNet net(&cfg, nullptr);
  HostCpuCosts costs;
  costs.interrupt = 3 * kPicosPerMicro;
  net.a->set_cpu(costs, HostCpuLayout{2, 0, 1});
  net.script->at(0, tso_frame(0, 4));
  net.sim.run();
  EXPECT_EQ(net.a_nic->counters().tx_interrupts, 1u);
  EXPECT_EQ(net.a->irq_cpu()->used()[CpuContext::interrupt], 3 * kPicosPerMicro);
  EXPECT_EQ(net.a->cpu()->used()[CpuContext::interrupt], 0);
  EXPECT_EQ(net.a_nic->tx_free_descriptors(), cfg.tx_descriptors);
}

TEST(IxgbNic, TheDefaultBusPacesTsoSegmentsBelowLineRate) {
  IxgbNicConfig cfg;  // 133 MHz x 64, MMRBC 512, 8 cycles
  IxgbNet net(&cfg, nullptr);
  net.script->at(0, tso_frame(0, 3));
  net.sim.run();
  // Segment 0: 9014 bytes = 17 * 72 + (8 + 39) = 1271 cycles; later ones 8948
  // bytes = 17 * 72 + (8 + 31) = 1263 cycles, longer than the 7.2304 us wire
  // time: each segment starts on the wire when its DMA ends.
  PcixBus bus{cfg.bus};
  const SimTime d0 = bus.cycles_time(1271);
  const SimTime d1 = bus.cycles_time(1263);
  ASSERT_EQ(net.sink.rx.size(), 3u);
  EXPECT_EQ(net.sink.rx[0].t, d0 + kJumboWire + 5'000'000);
  EXPECT_EQ(net.sink.rx[1].t, d0 + d1 + kJumboWire + 5'000'000);
  EXPECT_EQ(net.sink.rx[2].t, d0 + 2 * d1 + kJumboWire + 5'000'000);
}

TEST(IxgbNic, TransmitReadsAndReceiveWritesShareTheBusInTurn) {
  IxgbNicConfig cfg;  // 133 MHz x 64, MMRBC 512, writes of 4096, 8 cycles
  IxgbNet net(nullptr, &cfg, 0);
  Sink at_a;
  at_a.sim = &net.sim;
  net.a->bind(IpProtocol::tcp, kSport, &at_a);
  ScriptedSender from_b(net.sim, *net.b);
  Packet out = tso_frame(0, 4);
  out.dst = 0;
  std::swap(out.src_port, out.dst_port);
  from_b.at(0, out);                                           // b's NIC reads 4 segments
  net.script->at(0, segment(0, kJumboMss));                    // a frame reaches b at 12.2304 us
  net.sim.run();
  const PcixBus bus{cfg.bus};
  const SimTime d0 = bus.cycles_time(1271);  // read of segment 0 (9014 bytes)
  const SimTime d1 = bus.cycles_time(1263);  // read of a later segment (8948 bytes)
  const SimTime w = bus.cycles_time(1151);   // write of the received frame (9014 bytes)
  // The frame arrives during segment 1's read and waits for it; then both
  // directions wait and the write goes first (the last request was a read);
  // segment 2's read follows it, segment 3's read comes after.
  ASSERT_EQ(net.sink.rx.size(), 1u);
  EXPECT_EQ(net.sink.rx[0].t, d0 + d1 + w);  // RxIntDelay 0: up when its DMA ends
  ASSERT_EQ(at_a.rx.size(), 4u);
  EXPECT_EQ(at_a.rx[1].t, d0 + d1 + kJumboWire + 5'000'000);
  EXPECT_EQ(at_a.rx[2].t, d0 + d1 + w + d1 + kJumboWire + 5'000'000);
  EXPECT_EQ(at_a.rx[3].t, d0 + d1 + w + 2 * d1 + kJumboWire + 5'000'000);
  EXPECT_EQ(net.b_nic->bus().counters().requests[0], 4u);
  EXPECT_EQ(net.b_nic->bus().counters().requests[1], 1u);
  EXPECT_EQ(net.sim.packets().in_use(), 0u);
}

TEST(IxgbNic, RdtrInterruptFiresAfterTheFirstFrameAndTheFramesWithinShareIt) {
  IxgbNicConfig cfg;
  cfg.bus = fast_bus();
  IxgbNet net(nullptr, &cfg);
  for (std::uint32_t k = 0; k < 3; ++k) net.script->at(0, segment(k * kJumboMss, kJumboMss));
  net.script->at(200_us, segment(3 * kJumboMss, kJumboMss));
  net.sim.run();
  // Frames reach b's NIC at 12.2304, 19.4608, 26.6912 us and are in host
  // memory 1.127 us later (9014 bytes); the first starts RDTR = 72 x 0.8192
  // = 58.9824 us: the interrupt at 72.3398 us takes all three. The fourth
  // (sent at 200 us) is in the ring at 213.3574 us and is taken at 272.3398 us.
  ASSERT_EQ(net.sink.rx.size(), 4u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(net.sink.rx[static_cast<std::size_t>(k)].t, 72'339'800);
  EXPECT_EQ(net.sink.rx[3].t, 272'339'800);
  EXPECT_EQ(net.b_rx->counters().interrupts, 2u);
  EXPECT_EQ(net.b_rx->counters().delivered_packets, 4u);
  EXPECT_EQ(net.b_rx->counters().aggregates, 0u);  // no GRO: the stack sees every wire segment
  EXPECT_EQ(net.b_nic->counters().rx_frames, 4u);
}

TEST(IxgbNic, AFullReceiveRingDropsAndCounts) {
  IxgbNicConfig cfg;
  cfg.bus = fast_bus();
  cfg.rx_descriptors = 64;
  // 70 frames arrive 7.2304 us apart; a receive delay of 1 ms keeps the
  // driver away until all have come (RDTR's 59 us would let it in after 8).
  IxgbNet net(nullptr, &cfg, 1_ms);
  for (std::uint32_t k = 0; k < 70; ++k) net.script->at(0, segment(k * kJumboMss, kJumboMss));
  net.sim.run();
  // 64 descriptors: frames 0-63 fill them, 64-69 are dropped before any DMA.
  EXPECT_EQ(net.b_nic->counters().rx_ring_drops, 6u);
  EXPECT_EQ(net.b_nic->counters().rx_frames, 64u);
  EXPECT_EQ(net.sink.rx.size(), 64u);
  EXPECT_EQ(net.b_nic->bus().counters().requests[1], 64u);
}

TEST(IxgbNic, ASlowBusCapsTheReceiveRateAtItsTransferTime) {
  IxgbNicConfig cfg;
  cfg.bus.clock_hz = 66'000'000;  // PCI-X 66 MHz x 32 bit: 2.112 Gbit/s raw
  cfg.bus.width_bits = 32;
  cfg.rx_descriptors = 4096;
  IxgbNet net(nullptr, &cfg, 0);  // RxIntDelay 0: each frame goes up when its DMA ends
  for (std::uint32_t k = 0; k < 40; ++k) net.script->at(0, segment(k * kJumboMss, kJumboMss));
  net.sim.run();
  // Each 9014-byte write: 3 transactions of 4096 bytes at most, 2254 data +
  // 24 overhead cycles = 2278 cycles at 66 MHz = 34 515 152 ps, beyond the
  // 7.2304 us the wire takes, so frames come out of DMA 34.515152 us apart:
  // 9000 * 8 bits / 34.515152 us = 2.086 Gbit/s of IP.
  ASSERT_EQ(net.sink.rx.size(), 40u);
  for (std::size_t k = 1; k < 40; ++k) EXPECT_EQ(net.sink.rx[k].t - net.sink.rx[k - 1].t, 34'515'152) << k;
  EXPECT_EQ(net.b_nic->counters().rx_ring_drops, 0u);
}

TEST(IxgbNic, TransmitRingFullQueuesInTheQdiscAndDropsBeyondIt) {
  IxgbNicConfig cfg;
  cfg.bus = fast_bus();
  cfg.tx_descriptors = 18;  // one 4-segment frame takes 2 + ceil(35792 / 4096) = 11
  cfg.tx_queue_len = 2;
  IxgbNet net(&cfg, nullptr);
  for (std::uint32_t k = 0; k < 5; ++k) net.script->at(0, tso_frame(k * 4 * kJumboMss, 4));
  net.sim.run();
  // Frame 0 takes 11 of 18 descriptors; frames 1 and 2 wait in the qdisc
  // (2 packets), 3 and 4 are dropped; 1 and 2 go out after the transmit
  // interrupt frees frame 0's descriptors, one at a time: 3 x 4 segments.
  const IxgbCounters& c = net.a_nic->counters();
  using Five = std::array<std::uint64_t, 5>;
  EXPECT_EQ((Five{c.tx_packets, c.tx_queued, c.tx_queue_drops, c.max_tx_queue, c.tx_wire_segments}),
            (Five{5, 2, 2, 2, 12}));
  EXPECT_EQ(net.sink.rx.size(), 12u);
  EXPECT_EQ(net.a_nic->tx_free_descriptors(), 18u);
  EXPECT_EQ(net.sim.packets().in_use(), 0u);
}

// ---- scenario keys ----

const std::string kIxgbBase =
    "name: t\n"
    "duration: 1s\n"
    "hosts:\n"
    "  a: { address: 10.0.0.1, nic: { driver: ixgb } }\n"
    "  b: { address: 10.0.0.2, nic: { driver: ixgb, bus: { mmrbc: 4096 } } }\n"
    "links:\n"
    "  a-b: { ends: [a, b], rate: 10Gbps, mtu: 9000 }\n"
    "traffic:\n"
    "  f: { type: tcp, from: a, to: b }\n";

TEST(IxgbScenario, DefaultsAreTheDriversAndTheBusKnobsLoad) {
  const ScenarioSpec s = parse_scenario_text(kIxgbBase, "inline.yaml");
  const NicSpec& a = *s.hosts[0].nic;
  EXPECT_EQ(a.driver, NicDriver::ixgb);
  EXPECT_EQ(a.ixgb.tx_descriptors, 256u);
  EXPECT_EQ(a.ixgb.rx_descriptors, 1024u);
  EXPECT_EQ(a.ring_size, 1024u);
  EXPECT_EQ(a.irq_delay, 72 * kIxgbDelayUnit);
  EXPECT_EQ(a.ixgb.tx_int_delay, 32);
  EXPECT_TRUE(a.ixgb.tso);
  EXPECT_FALSE(a.gro);
  EXPECT_EQ(a.ixgb.bus.mmrbc, 512u);
  EXPECT_EQ(a.ixgb.bus.clock_hz, 133'000'000);
  EXPECT_EQ(s.hosts[1].nic->ixgb.bus.mmrbc, 4096u);
}

// The error of kIxgbBase with `from` replaced by `to`.
ScenarioError ixgb_error(const std::string& from, const std::string& to) {
  std::string yaml = kIxgbBase;
  yaml.replace(yaml.find(from), from.size(), to);
  return scenario_text_error(yaml);
}

TEST(IxgbScenario, BadKnobsNameFileLineAndField) {
  // "  b: { address: 10.0.0.2, nic: { driver: ixgb, bus: { mmrbc: " is 61 characters.
  const ScenarioError e = ixgb_error("mmrbc: 4096", "mmrbc: 1000");
  EXPECT_EQ(e.loc.file, "inline.yaml");
  EXPECT_EQ(e.loc.line, 5);
  EXPECT_EQ(e.loc.column, 62);
  EXPECT_EQ(e.field, "hosts.b.nic.bus.mmrbc");
  EXPECT_NE(e.message.find("512, 1024, 2048 or 4096"), std::string::npos) << e.what();

  const ScenarioError w = ixgb_error("mmrbc: 4096", "width_bits: 16");
  EXPECT_EQ(w.field, "hosts.b.nic.bus.width_bits");
  EXPECT_EQ(w.loc.line, 5);

  const ScenarioError g = ixgb_error("driver: ixgb }", "driver: ixgb, gro: true }");
  EXPECT_EQ(g.field, "hosts.a.nic.gro");
  EXPECT_EQ(g.loc.line, 4);
  EXPECT_NE(g.message.find("no GRO"), std::string::npos) << g.what();

  const ScenarioError r = ixgb_error("driver: ixgb }", "driver: ixgb, rx_descriptors: 8 }");
  EXPECT_EQ(r.field, "hosts.a.nic.rx_descriptors");

  const ScenarioError v = ixgb_error("driver: ixgb }", "driver: virtio, tx_int_delay: 8 }");
  EXPECT_EQ(v.field, "hosts.a.nic.tx_int_delay");
  EXPECT_NE(v.message.find("belongs to driver: ixgb"), std::string::npos) << v.what();

  const ScenarioError t = ixgb_error("mmrbc: 4096", "type: pci");
  EXPECT_EQ(t.field, "hosts.b.nic.bus.type");
}

}  // namespace
}  // namespace netsim
