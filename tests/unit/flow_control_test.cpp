// IEEE 802.3x flow control: a transmitter that honours PAUSE (Channel), the
// receiving station's XOFF/XON frames (PauseFrameSender), a NIC's receive
// FIFO in front of its ring, and the scenario keys. Expected times are worked
// out by hand: a 1500-byte frame takes 12.304 us at 1 Gbit/s (1538 bytes with
// framing), a PAUSE frame 0.672 us (84 bytes), 65535 quanta 33.553920 ms.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "netsim/net/channel.h"
#include "netsim/net/low_power_idle.h"
#include "netsim/net/pause_frame_sender.h"
#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_runner.h"
#include "receive_path_fixture.h"
#include "two_host_scenario.h"

namespace netsim {
namespace {

using namespace netsim::literals;

struct ArrivalTimes final : PacketReceiver {
  Simulation* sim = nullptr;
  std::vector<SimTime> times;
  void receive(Packet* p, int) override {
    times.push_back(sim->now());
    sim->packets().release(p);
  }
};

// Runs f at scripted times.
struct At final : EventHandler {
  std::vector<std::function<void()>> actions;
  void at(Simulation& sim, SimTime t, std::function<void()> f) {
    actions.push_back(std::move(f));
    sim.schedule_at(t, this, actions.size() - 1);
  }
  void handle_event(std::uint64_t tag) override { actions[tag](); }
};

Packet* udp_frame(Simulation& sim) {
  Packet* p = sim.packets().alloc();
  p->protocol = IpProtocol::udp;
  p->l4_header_bytes = kUdpHeaderBytes;
  p->payload_bytes = 1500 - 20 - kUdpHeaderBytes;
  return p;
}

struct PausedChannel {
  Simulation sim{1};
  ArrivalTimes far_end;
  Channel ch;
  At script;
  PausedChannel() : ch(sim, "a", "b", config(), &far_end, 0) {
    far_end.sim = &sim;
    for (int i = 0; i < 3; ++i) ch.send(udp_frame(sim));
  }
  static ChannelConfig config() {
    ChannelConfig c;
    c.delay = 5_us;
    return c;
  }
};

TEST(Channel, PauseHoldsTheFramesAfterTheOneOnTheWire) {
  PausedChannel t;
  // Frame 1 is on the wire 0-12.304 us when the PAUSE (100 us) arrives at 5 us:
  // it finishes; frame 2 starts at 105 us, frame 3 right after it.
  t.script.at(t.sim, 5_us, [&] { t.ch.receive_pause(100_us); });
  t.sim.run();
  EXPECT_EQ(t.far_end.times, (std::vector<SimTime>{17'304_ns, 122'304_ns, 134'608_ns}));
  EXPECT_EQ(t.ch.counters().pause_frames, 1u);
  EXPECT_EQ(t.ch.counters().paused_time, 105_us - 12'304_ns);  // frame 2 waited from 12.304 us
}

TEST(Channel, XonLiftsThePauseAtOnce) {
  PausedChannel t;
  t.script.at(t.sim, 5_us, [&] { t.ch.receive_pause(100_us); });
  t.script.at(t.sim, 50_us, [&] { t.ch.receive_pause(0); });
  t.sim.run();
  EXPECT_EQ(t.far_end.times, (std::vector<SimTime>{17'304_ns, 67'304_ns, 79'608_ns}));
  EXPECT_EQ(t.ch.counters().pause_frames, 2u);
  EXPECT_EQ(t.ch.counters().paused_time, 50_us - 12'304_ns);
}

TEST(Channel, ALaterPauseReplacesTheTimerEvenWhenShorter) {
  PausedChannel t;
  t.script.at(t.sim, 5_us, [&] { t.ch.receive_pause(100_us); });
  t.script.at(t.sim, 20_us, [&] { t.ch.receive_pause(10_us); });  // now paused until 30 us
  t.sim.run();
  EXPECT_EQ(t.far_end.times, (std::vector<SimTime>{17'304_ns, 47'304_ns, 59'608_ns}));
  EXPECT_EQ(t.ch.counters().paused_time, 30_us - 12'304_ns);
}

TEST(Channel, APauseThatEndsBeforeTheFrameOnTheWireCostsNothing) {
  PausedChannel t;
  t.script.at(t.sim, 2_us, [&] { t.ch.receive_pause(10_us); });  // until 12 us < 12.304 us
  t.sim.run();
  EXPECT_EQ(t.far_end.times, (std::vector<SimTime>{17'304_ns, 29'608_ns, 41'912_ns}));
  EXPECT_EQ(t.ch.counters().paused_time, 0);
}

// A station (b) whose FIFO fill is scripted, pausing a -> b.
struct Station {
  Simulation sim{1};
  ArrivalTimes at_b;
  ArrivalTimes at_a;
  Channel a_to_b;
  Channel b_to_a;
  At script;
  explicit Station(FlowControlConfig fc)
      : a_to_b(sim, "a", "b", PausedChannel::config(), &at_b, 0),
        b_to_a(sim, "b", "a", PausedChannel::config(), &at_a, 0),
        sender(sim, fc, b_to_a, a_to_b) {
    at_a.sim = &sim;
    at_b.sim = &sim;
  }
  PauseFrameSender sender;
};

TEST(PauseFrameSender, XoffAtHighWaterXonAtLowWaterEachAfterTheLinkDelay) {
  FlowControlConfig fc;
  fc.high_water_bytes = 3000;
  fc.low_water_bytes = 1000;
  Station s(fc);
  for (int i = 0; i < 3; ++i) s.a_to_b.send(udp_frame(s.sim));
  s.script.at(s.sim, 0, [&] { s.sender.fill_changed(2999); });  // below high water: nothing
  s.script.at(s.sim, 1_us, [&] { s.sender.fill_changed(3000); });
  s.script.at(s.sim, 10_us, [&] { s.sender.fill_changed(1001); });  // still above low water
  s.script.at(s.sim, 20_us, [&] { s.sender.fill_changed(1000); });
  s.sim.run();
  // XOFF leaves b at 1 + 0.672 us and reaches a's transmitter 5 us later
  // (6.672 us), during frame 1; XON leaves at 20.672 and arrives at 25.672 us,
  // when frame 2 starts (ends 37.976, arrives 42.976 us).
  EXPECT_EQ(s.sender.counters().xoff_frames, 1u);
  EXPECT_EQ(s.sender.counters().xon_frames, 1u);
  EXPECT_EQ(s.sender.counters().max_fill_bytes, 3000u);
  EXPECT_EQ(s.a_to_b.counters().pause_frames, 2u);
  EXPECT_EQ(s.at_b.times, (std::vector<SimTime>{17'304_ns, 42'976_ns, 55'280_ns}));
  EXPECT_EQ(s.a_to_b.counters().paused_time, 25'672_ns - 12'304_ns);
  EXPECT_EQ(s.sender.pause_duration(), 33'553'920_ns);
}

TEST(PauseFrameSender, APauseFrameGoesAfterTheFrameOnTheWireAndBeforeTheQueuedOnes) {
  FlowControlConfig fc;
  fc.high_water_bytes = 100;
  fc.low_water_bytes = 50;
  Station s(fc);
  for (int i = 0; i < 2; ++i) s.b_to_a.send(udp_frame(s.sim));  // b's frame 1 is on the wire 0-12.304 us
  for (int i = 0; i < 2; ++i) s.a_to_b.send(udp_frame(s.sim));
  s.script.at(s.sim, 1_us, [&] { s.sender.fill_changed(100); });
  s.script.at(s.sim, 2_us, [&] { s.sender.fill_changed(0); });
  s.sim.run();
  // XOFF on b's wire 12.304-12.976 us, arriving at 17.976 us; the XON right
  // behind it (12.976-13.648, arriving at 18.648 us); then b's frame 2
  // (13.648-25.952 us, at a at 30.952 us). Frame 2 of a had started at
  // 12.304 us, before either PAUSE arrived: nothing of a waits.
  EXPECT_EQ(s.b_to_a.counters().pause_frames_sent, 2u);
  EXPECT_EQ(s.b_to_a.counters().packets_sent, 2u);  // PAUSE frames are not IP packets
  EXPECT_EQ(s.b_to_a.counters().busy_time, 2 * 12'304_ns + 2 * 672_ns);
  EXPECT_EQ(s.at_a.times, (std::vector<SimTime>{17'304_ns, 30'952_ns}));
  EXPECT_EQ(s.a_to_b.counters().pause_frames, 2u);
  EXPECT_EQ(s.at_b.times, (std::vector<SimTime>{17'304_ns, 29'608_ns}));
  EXPECT_EQ(s.a_to_b.counters().paused_time, 0);
  EXPECT_FALSE(s.a_to_b.paused());
}

TEST(PauseFrameSender, APauseFrameWakesASleepingLink) {
  // Energy-Efficient Ethernet on b -> a: the PAUSE frame waits 16.5 us for
  // the link to wake, like any frame (b -> a has idled since the start).
  FlowControlConfig fc;
  fc.high_water_bytes = 100;
  fc.low_water_bytes = 50;
  Station s(fc);
  LowPowerIdle lpi({16'500_ns, 0, false});
  s.b_to_a.set_low_power_idle(&lpi, 1);
  s.a_to_b.send(udp_frame(s.sim));
  s.a_to_b.send(udp_frame(s.sim));
  s.script.at(s.sim, 1_us, [&] { s.sender.fill_changed(100); });
  s.sim.run();
  // XOFF on the wire 17.5-18.172 us, at a at 23.172 us: after a's frame 2
  // had started (12.304 us), so both of a's frames go unhindered.
  EXPECT_EQ(lpi.counters(1).wakeups, 1u);
  EXPECT_EQ(s.b_to_a.counters().busy_time, 672_ns);
  EXPECT_EQ(s.at_b.times, (std::vector<SimTime>{17'304_ns, 29'608_ns}));
  EXPECT_EQ(s.a_to_b.counters().pause_frames, 1u);
}

TEST(PauseFrameSender, RefreshesTheXoffWhileAboveLowWaterAndStopsAfterXon) {
  FlowControlConfig fc;
  fc.high_water_bytes = 100;
  fc.low_water_bytes = 50;
  fc.refresh = 10_us;
  fc.send_xon = false;
  Station s(fc);
  s.script.at(s.sim, 0, [&] { s.sender.fill_changed(120); });
  s.script.at(s.sim, 35_us, [&] { s.sender.fill_changed(40); });
  bool paused_at_100us = false;
  s.script.at(s.sim, 100_us, [&] { paused_at_100us = s.a_to_b.paused(); });
  s.sim.run();
  // XOFF at 0, refreshed at 10, 20 and 30 us; at 35 us the FIFO is below low
  // water, and without send_xon nothing is sent (the partner's timer runs out).
  EXPECT_EQ(s.sender.counters().xoff_frames, 4u);
  EXPECT_EQ(s.sender.counters().xon_frames, 0u);
  EXPECT_EQ(s.a_to_b.counters().pause_frames, 4u);
  EXPECT_TRUE(paused_at_100us);  // the last XOFF (sent at 30 us) holds a's transmitter for 33.5 ms
}

// A slow receive path: one frame per 50 us of poll time, a 2-descriptor ring.
GroReceiveNicConfig slow_nic() {
  GroReceiveNicConfig c;
  c.irq_delay = 1_us;
  c.per_packet_cost = 50_us;
  c.ring_size = 2;
  c.gro = false;
  return c;
}

TEST(GroReceiveNic, AFullRingDropsAtOnceWithoutAFifo) {
  GroNet net(slow_nic());
  net.burst(0, 0, 20);
  net.sim.run();
  EXPECT_GT(net.nic->counters().ring_drops, 0u);
  EXPECT_EQ(net.sink.rx.size() + net.nic->counters().ring_drops, 20u);
  EXPECT_EQ(net.nic->counters().max_fifo_bytes, 0u);
}

TEST(GroReceiveNic, TheFifoHoldsFramesUntilDescriptorsFreeUpAndDropsWhatDoesNotFit) {
  GroReceiveNicConfig cfg = slow_nic();
  cfg.rx_fifo_bytes = 4 * 1518;  // four frames (1500 IP bytes + 18)
  GroNet net(cfg);
  net.burst(0, 0, 20);
  net.sim.run();
  const GroNicCounters& c = net.nic->counters();
  // Frames come every 12.304 us and leave every 50 us: the ring (2) and FIFO
  // (4) fill, later frames are dropped, and the survivors arrive in order.
  EXPECT_EQ(c.max_fifo_bytes, 4u * 1518u);
  EXPECT_GT(c.ring_drops, 0u);
  EXPECT_EQ(net.sink.rx.size() + c.ring_drops, 20u);
  for (std::size_t i = 1; i < net.sink.rx.size(); ++i) EXPECT_GT(net.sink.rx[i].seq, net.sink.rx[i - 1].seq);
  EXPECT_EQ(net.sim.packets().in_use(), 0u);
}

TEST(GroReceiveNic, FlowControlPausesTheLinkInsteadOfDropping) {
  GroReceiveNicConfig cfg = slow_nic();
  cfg.rx_fifo_bytes = 4 * 1518;
  FlowControlConfig fc;
  fc.high_water_bytes = 2 * 1518;  // XOFF at two frames in the FIFO
  fc.low_water_bytes = 1518;       // XON at one
  cfg.flow_control = fc;
  GroNet net(cfg);
  net.nic->enable_flow_control(net.link->b_to_a());
  net.burst(0, 0, 20);
  net.sim.run();
  const GroNicCounters& c = net.nic->counters();
  ASSERT_NE(net.nic->pause_sender(), nullptr);
  // The FIFO reaches its high water, the XOFF stops a's transmitter within
  // 5.672 us plus the frame on the wire, so at most two more frames arrive:
  // nothing is dropped and every frame is delivered, in order.
  EXPECT_EQ(c.ring_drops, 0u);
  EXPECT_LE(c.max_fifo_bytes, 4u * 1518u);
  ASSERT_EQ(net.sink.rx.size(), 20u);
  for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(net.sink.rx[i].seq, i * kMss);
  const FlowControlCounters& f = net.nic->pause_sender()->counters();
  EXPECT_GT(f.xoff_frames, 0u);
  EXPECT_EQ(f.xon_frames, f.xoff_frames);  // each XOFF lifted by an XON (no refresh)
  EXPECT_EQ(net.link->a_to_b().counters().pause_frames, f.xoff_frames + f.xon_frames);
  EXPECT_EQ(net.link->b_to_a().counters().pause_frames_sent, f.xoff_frames + f.xon_frames);
  EXPECT_GT(net.link->a_to_b().counters().paused_time, 0);
  // The poll is the bottleneck: 20 frames x 50 us, so the last leaves the
  // NIC about a millisecond after the first arrives, not 20 x 12.3 us.
  EXPECT_GT(net.sink.rx.back().t, 950_us);
  EXPECT_EQ(net.sim.packets().in_use(), 0u);
}

// --- scenario keys -------------------------------------------------------

TEST(FlowControlScenario, KeysAndTheirErrors) {
  using test_support::two_hosts_error;
  EXPECT_EQ(two_hosts_error({{"hosts.b.nic", "{rx_fifo: 34816B, flow_control: true}"}}), "no error");
  EXPECT_EQ(two_hosts_error({{"hosts.b.nic",
                              "{rx_fifo: 34KiB, flow_control: {high_water: 24064B, low_water: 24048B, "
                              "pause_quanta: 1664, send_xon: false, refresh: 400us}}"}}),
            "no error");
  EXPECT_EQ(two_hosts_error({{"hosts.b.nic", "{flow_control: false}"}}), "no error");
  const std::string no_fifo = two_hosts_error({{"hosts.b.nic", "{flow_control: true}"}});
  EXPECT_NE(no_fifo.find("needs rx_fifo > 0"), std::string::npos) << no_fifo;
  EXPECT_NE(no_fifo.find("flow_control"), std::string::npos) << no_fifo;
  const std::string high = two_hosts_error({{"hosts.b.nic", "{rx_fifo: 16000B, flow_control: {}}"}});
  EXPECT_NE(high.find("high_water 24064 bytes is above rx_fifo (16000 bytes)"), std::string::npos) << high;
  const std::string order =
      two_hosts_error({{"hosts.b.nic", "{rx_fifo: 34816B, flow_control: {high_water: 1000B, low_water: 2000B}}"}});
  EXPECT_NE(order.find("low_water 2000 bytes is above high_water 1000 bytes"), std::string::npos) << order;
  const std::string vm = two_hosts_error({{"hosts.b.nic", "{rx_fifo: 34816B, flow_control: true, host_int_rx_mod: 65us}"}});
  EXPECT_NE(vm.find("cannot be combined with host_int_rx_mod"), std::string::npos) << vm;
  const std::string word = two_hosts_error({{"hosts.b.nic", "{rx_fifo: 34816B, flow_control: yes please}"}});
  EXPECT_NE(word.find("or true or false"), std::string::npos) << word;
  const std::string unlimited = two_hosts_error({{"hosts.b.nic", "{rx_fifo: 34816B, ring_size: 0}"}});
  EXPECT_NE(unlimited.find("needs a limited ring"), std::string::npos) << unlimited;
  const std::string quanta =
      two_hosts_error({{"hosts.b.nic", "{rx_fifo: 34816B, flow_control: {pause_quanta: 70000}}"}});
  EXPECT_NE(quanta.find("pause_quanta"), std::string::npos) << quanta;
}

// A UDP stream at line rate into a receiver whose poll takes 20 us per frame:
// without flow control its ring overflows; with it, the link pauses and the
// report shows the PAUSE frames on both sides.
const std::string kSlowReceiver = R"(name: slow-receiver
duration: 20ms
hosts:
  a: { address: 10.0.0.1 }
  b: { address: 10.0.0.2, nic: { gro: false, irq_delay: 5us, per_packet_cost: 20us, ring_size: 16 } }
links:
  a-b: { ends: [a, b], rate: 1Gbps, delay: 5us }
traffic:
  u: { type: udp, from: a, to: b, size: 1472B, rate: 1Gbps, start: 0s, stop: 10ms }
)";

TEST(FlowControlScenario, ASlowReceiverPausesTheLinkInsteadOfDropping) {
  const auto plain = run_scenario(parse_scenario_text(kSlowReceiver, "inline.yaml", {}));
  ASSERT_EQ(plain.nics_size(), 1);
  std::uint64_t plain_drops = 0;
  for (const auto& n : plain.nics()) plain_drops += n.ring_drops();
  EXPECT_GT(plain_drops, 100u);

  const auto fc = run_scenario(parse_scenario_text(
      kSlowReceiver, "inline.yaml", {{"hosts.b.nic.rx_fifo", "34816B"}, {"hosts.b.nic.flow_control", "true"}}));
  std::uint64_t drops = 0;
  std::uint64_t xoff = 0;
  for (const auto& n : fc.nics()) {
    drops += n.ring_drops();
    xoff += n.pause_xoff_frames();
  }
  EXPECT_GT(xoff, 0u);
  // The backlog moves to a's interface queue (unlimited here), nothing is lost at b.
  EXPECT_EQ(drops, 0u);
  bool paused = false;
  for (const auto& l : fc.links()) {
    if (l.from() == "a" && l.to() == "b") {
      paused = l.pause_frames() > 0 && l.paused_ps() > 0;
      EXPECT_EQ(l.pause_frames_sent(), 0u);
      EXPECT_GT(l.max_queue_packets(), 100u);
    }
  }
  EXPECT_TRUE(paused);
  results::RunSet set;
  *set.add_runs() = fc;
  std::ostringstream text;
  write_text(text, set);
  EXPECT_NE(text.str().find("pause (802.3x):"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("xoff sent"), std::string::npos) << text.str();
  results::RunSet plain_set;
  *plain_set.add_runs() = plain;
  std::ostringstream plain_text;
  write_text(plain_text, plain_set);
  EXPECT_EQ(plain_text.str().find("pause (802.3x):"), std::string::npos);
  EXPECT_EQ(plain_text.str().find("xoff sent"), std::string::npos);
}


// --- a switch's ingress accounting ----------------------------------------

// Two senders at 300 Mbit/s each into a 100 Mbit/s port with a 32 KB buffer.
const std::string kTwoIntoOne = R"(name: two-into-one
duration: 40ms
hosts:
  a: { address: 10.0.0.1 }
  c: { address: 10.0.0.3 }
  b: { address: 10.0.0.2 }
switches:
  sw: { buffer: 32KB }
links:
  a-sw: { ends: [a, sw], rate: 1Gbps, delay: 1us }
  c-sw: { ends: [c, sw], rate: 1Gbps, delay: 1us }
  sw-b: { ends: [sw, b], rate: 100Mbps, delay: 1us }
traffic:
  ua: { type: udp, from: a, to: b, size: 1472B, rate: 300Mbps, start: 0s, stop: 20ms }
  uc: { type: udp, from: c, to: b, dst_port: 5002, size: 1472B, rate: 300Mbps, start: 0s, stop: 20ms }
)";

const results::LinkStats& direction(const results::RunResult& r, const std::string& from, const std::string& to) {
  for (const auto& l : r.links()) {
    if (l.from() == from && l.to() == to) return l;
  }
  throw std::runtime_error("no link direction " + from + "->" + to);
}

TEST(SwitchFlowControl, PausesEachInputFromItsOwnBufferedBytesInsteadOfDropping) {
  const auto plain = run_scenario(parse_scenario_text(kTwoIntoOne, "inline.yaml", {}));
  EXPECT_GT(direction(plain, "sw", "b").packets_dropped(), 300u);

  const auto fc = run_scenario(parse_scenario_text(
      kTwoIntoOne, "inline.yaml", {{"switches.sw.flow_control", "{high_water: 6000B, low_water: 3000B}"}}));
  const auto& out = direction(fc, "sw", "b");
  EXPECT_EQ(out.packets_dropped(), 0u);
  // Each input stops within its PAUSE's trip (1.672 us) plus the frame on
  // its wire and the one that follows: at most 6000 + 2 x 1500 bytes each.
  EXPECT_LE(out.max_queue_bytes(), 2u * 9000u);
  for (const char* in : {"a", "c"}) {
    const auto& to_sw = direction(fc, in, "sw");
    const auto& from_sw = direction(fc, "sw", in);
    EXPECT_GT(from_sw.pause_frames_sent(), 0u) << in;
    EXPECT_EQ(to_sw.pause_frames(), from_sw.pause_frames_sent()) << in;
    EXPECT_GT(to_sw.paused_ps(), 0) << in;
    EXPECT_GT(to_sw.max_queue_packets(), 100u) << in;  // the backlog waits at the sender
    EXPECT_EQ(to_sw.packets_dropped(), 0u) << in;
  }
  // The output port never carries a PAUSE and b never sends one.
  EXPECT_EQ(out.pause_frames_sent(), 0u);
  EXPECT_EQ(direction(fc, "b", "sw").pause_frames_sent(), 0u);
  // Both inputs get the port about equally (each is paused on its own share).
  ASSERT_EQ(fc.flows_size(), 2);
  const double ra = static_cast<double>(fc.flows(0).packets_received());
  const double rc = static_cast<double>(fc.flows(1).packets_received());
  EXPECT_NEAR(ra / (ra + rc), 0.5, 0.05);
}

TEST(SwitchFlowControl, KeysAndTheirErrors) {
  const auto error = [](const std::string& value) {
    try {
      parse_scenario_text(kTwoIntoOne, "inline.yaml", {{"switches.sw.flow_control", value}});
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("{high_water: 16KB, low_water: 8KB, pause_quanta: 1000, refresh: 1ms}"), "no error");
  EXPECT_EQ(error("false"), "no error");
  const std::string bare = error("true");
  EXPECT_NE(bare.find("a switch needs high_water and low_water"), std::string::npos) << bare;
  const std::string half = error("{high_water: 16KB}");
  EXPECT_NE(half.find("a switch needs high_water and low_water"), std::string::npos) << half;
  const std::string big = error("{high_water: 64KB, low_water: 8KB}");
  EXPECT_NE(big.find("is above the buffer (32000 bytes per port)"), std::string::npos) << big;
}

}  // namespace
}  // namespace netsim
