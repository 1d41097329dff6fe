// OneShotRxModeration: re(4)'s one-shot receive interrupt moderation, alone
// and in front of a GRO receive path. Times worked out by hand in the comments
// (1 Gbit/s, 5 us link: a 1500-byte frame arrives 12.304 + 5 = 17.304 us after
// it is sent).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "receive_path_fixture.h"

namespace netsim {
namespace {

using namespace netsim::literals;

// A guest NIC that hands every frame on the moment it arrives (no interrupt
// delay, no GRO), so the sink sees the moderation's timing alone.
GroReceiveNicConfig pass_through() {
  GroReceiveNicConfig c;
  c.irq_delay = 0;
  c.gro = false;
  return c;
}

// The fixture's path with the box NIC's moderation (host_nic) in front.
struct Net : GroNet {
  Net(SimTime moderation, const GroReceiveNicConfig& gro, SimTime latency = 0, SimTime jitter = 0)
      : GroNet(gro, DataRate::gbps(1), 250, moderation, latency, jitter) {}
};

// One full-sized segment per send time, segment i at sequence i * kMss.
void send_and_run(Net& net, const std::vector<SimTime>& sent) {
  for (std::size_t i = 0; i < sent.size(); ++i) {
    net.script->at(sent[i], segment(static_cast<std::uint32_t>(i * kMss), kMss));
  }
  net.sim.run();
}

// Frame i reached the sink at expected[i], in sequence order.
void expect_handed_on_at(const Net& net, const std::vector<SimTime>& expected) {
  ASSERT_EQ(net.sink.rx.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(net.sink.rx[i].t, expected[i]) << "frame " << i;
    EXPECT_EQ(net.sink.rx[i].seq, i * kMss) << "order kept";
  }
}

// Every counter as given, and the stage back to RX unmasked.
void expect_counters(const OneShotRxModeration& m, const OneShotRxModerationCounters& want) {
  const OneShotRxModerationCounters& c = m.counters();
  EXPECT_EQ(c.frames, want.frames);
  EXPECT_EQ(c.rx_interrupts, want.rx_interrupts);
  EXPECT_EQ(c.irq_frames, want.irq_frames);
  EXPECT_EQ(c.timer_interrupts, want.timer_interrupts);
  EXPECT_EQ(c.timer_frames, want.timer_frames);
  EXPECT_EQ(c.max_timer_batch, want.max_timer_batch);
  EXPECT_FALSE(m.rx_masked());
}

TEST(OneShotRxModeration, FirstFrameAtOnceTheRestAtTheTimer) {
  Net net(65_us, pass_through());
  // Arrivals (send + 17.304 us) and what re_intr_msi does with them:
  //   17.304  RX interrupts on: handed on at once, masked, timer to 82.304
  //   29.608, 41.912, 54.216  wait in the ring
  //   82.304  timer: the three handed on, RX unmasked
  //  117.304  at once again (timer to 182.304)
  //  147.304  waits; 182.304 timer hands it on
  //  217.304  at once; the timer at 282.304 finds nothing and just unmasks
  //  300.304  at once
  send_and_run(net, {0, 12'304_ns, 24'608_ns, 36'912_ns, 100_us, 130_us, 200_us, 283_us});
  expect_handed_on_at(net, {17'304_ns, 82'304_ns, 82'304_ns, 82'304_ns, 117'304_ns, 182'304_ns, 217'304_ns, 300'304_ns});
  expect_counters(*net.host_nic, {.frames = 8, .rx_interrupts = 4, .irq_frames = 4, .timer_interrupts = 4,
                                  .timer_frames = 4, .max_timer_batch = 3});
  EXPECT_EQ(net.host_nic->ring_occupancy(), 0u);
}

TEST(OneShotRxModeration, ALoneFrameIsNotDelayed) {
  Net with(65_us, pass_through());
  Net without(0, pass_through());
  with.script->at(1_ms, segment(0, kMss));
  without.script->at(1_ms, segment(0, kMss));
  with.sim.run();
  without.sim.run();
  ASSERT_EQ(with.sink.rx.size(), 1u);
  ASSERT_EQ(without.sink.rx.size(), 1u);
  EXPECT_EQ(with.sink.rx[0].t, without.sink.rx[0].t);
  EXPECT_EQ(with.sink.rx[0].t, 1'017'304_ns);
}

// In front of a guest's GRO path (30 us from interrupt to poll): a three-frame
// burst arrives at 17.304, 29.608 and 41.912 us.
//   Without moderation the poll at 47.304 finds all three: one aggregate.
//   With it, only the first is in the guest's ring at 47.304 (an aggregate of
//   1); the other two come at the timer (82.304) and make a second poll at
//   112.304: an aggregate of 2. The burst now reaches the stack as two packets.
TEST(OneShotRxModeration, SplitsABurstAfterItsFirstFrameForGro) {
  GroReceiveNicConfig gro;
  gro.irq_delay = 30_us;
  for (const bool moderated : {false, true}) {
    Net net(moderated ? 65_us : 0, gro);
    net.burst(0, 0, 3);
    net.sim.run();
    if (!moderated) {
      ASSERT_EQ(net.sink.rx.size(), 1u);
      EXPECT_EQ(net.sink.rx[0].segments, 3);
      EXPECT_EQ(net.sink.rx[0].t, 47'304_ns);
    } else {
      ASSERT_EQ(net.sink.rx.size(), 2u);
      EXPECT_EQ(net.sink.rx[0].segments, 1);
      EXPECT_EQ(net.sink.rx[0].t, 47'304_ns);
      EXPECT_EQ(net.sink.rx[1].segments, 2);
      EXPECT_EQ(net.sink.rx[1].seq, kMss);
      EXPECT_EQ(net.sink.rx[1].t, 112'304_ns);
      EXPECT_EQ(net.nic->counters().interrupts, 2u);
    }
  }
}

// A guest slower than the timer merges the pieces again: with 100 us from
// interrupt to poll, the first frame's poll (117.304) comes after the timer
// has handed on the other two (82.304), so the burst is one aggregate either way.
TEST(OneShotRxModeration, ASlowGuestMergesThePiecesAgain) {
  GroReceiveNicConfig gro;
  gro.irq_delay = 100_us;
  Net net(65_us, gro);
  net.burst(0, 0, 3);
  net.sim.run();
  ASSERT_EQ(net.sink.rx.size(), 1u);
  EXPECT_EQ(net.sink.rx[0].segments, 3);
  EXPECT_EQ(net.sink.rx[0].t, 117'304_ns);
}

// The host's handler runs 15 us after the interrupt (MSI, ithread): what
// arrived meanwhile goes with the frame that raised it, and the one-shot
// timer starts from the handler. Five back-to-back frames arrive at 17.304,
// 29.608, 41.912, 54.216 and 66.520 us:
//   17.304  interrupt; handler at 32.304 takes frames 0 and 1, timer to 97.304
//   97.304  timer; handler at 112.304 takes 2, 3, 4 and frame 5, which
//           arrived at 105 us (sent at 87.696), after the timer but before
//           its handler; RX unmasked
//  130.304  frame 6 (sent 113 us) interrupts again: handler at 145.304
TEST(OneShotRxModeration, TheHandlerTakesWhatArrivedBeforeItRan) {
  Net net(65_us, pass_through(), 15_us);
  send_and_run(net, {0, 12'304_ns, 24'608_ns, 36'912_ns, 49'216_ns, 87'696_ns, 113_us});
  expect_handed_on_at(net, {32'304_ns, 32'304_ns, 112'304_ns, 112'304_ns, 112'304_ns, 112'304_ns, 145'304_ns});
  // irq_frames: frames 0 and 1, then 6.
  expect_counters(*net.host_nic, {.frames = 7, .rx_interrupts = 2, .irq_frames = 3, .timer_interrupts = 2,
                                  .timer_frames = 4, .max_timer_batch = 4});
}

// A uniform 0-10 us handler latency: every lone frame is late by a draw in
// [0, 10 us]; the draws differ from frame to frame, and the same seed gives
// the same draws.
TEST(OneShotRxModeration, HandlerJitterIsUniformAndSeeded) {
  auto run = [] {
    auto net = std::make_unique<Net>(65_us, pass_through(), 0, 10_us);
    for (std::uint32_t i = 0; i < 50; ++i) net->script->at(i * 1_ms, segment(i * kMss, kMss));
    net->sim.run();
    std::vector<SimTime> late;
    for (std::size_t i = 0; i < net->sink.rx.size(); ++i) late.push_back(net->sink.rx[i].t - (i * 1_ms + 17'304_ns));
    return late;
  };
  const std::vector<SimTime> a = run();
  ASSERT_EQ(a.size(), 50u);
  SimTime lo = a[0], hi = a[0];
  for (const SimTime d : a) {
    EXPECT_GE(d, 0);
    EXPECT_LE(d, 10_us);
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  EXPECT_LT(lo, 2_us);  // 50 draws spread over the range
  EXPECT_GT(hi, 8_us);
  EXPECT_EQ(run(), a);
}

TEST(OneShotRxModeration, RejectsAZeroTimer) {
  Simulation sim(1);
  EXPECT_THROW(sim.add<OneShotRxModeration>("m", 0), std::invalid_argument);
  EXPECT_THROW(sim.add<OneShotRxModeration>("n", 65_us, -1), std::invalid_argument);
  EXPECT_THROW(sim.add<OneShotRxModeration>("o", 65_us, 0, -1), std::invalid_argument);
}

TEST(OneShotRxModeration, FramesStillInTheRingGoBackToThePool) {
  auto net = std::make_unique<Net>(65_us, pass_through());
  net->burst(0, 0, 3);
  net->sim.run_until(50_us);  // frame 1 handed on at 17.304; 2 and 3 wait for 82.304
  EXPECT_EQ(net->host_nic->ring_occupancy(), 2u);
  EXPECT_EQ(net->sim.packets().in_use(), 2u);
  net.reset();  // the Simulation (and the stage) go; nothing leaks (ASan)
}

}  // namespace
}  // namespace netsim
