// OneShotRxModeration: re(4)'s one-shot receive interrupt moderation, alone
// and in front of a GRO receive path. Times worked out by hand in the comments
// (1 Gbit/s, 5 us link: a 1500-byte frame arrives 12.304 + 5 = 17.304 us after
// it is sent).
#include <gtest/gtest.h>

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
  Net(SimTime moderation, const GroReceiveNicConfig& gro) : GroNet(gro, DataRate::gbps(1), 250, moderation) {}
};

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
  const std::vector<SimTime> sent{0, 12'304_ns, 24'608_ns, 36'912_ns, 100_us, 130_us, 200_us, 283_us};
  for (std::size_t i = 0; i < sent.size(); ++i) {
    net.script->at(sent[i], segment(static_cast<std::uint32_t>(i * kMss), kMss));
  }
  net.sim.run();
  const std::vector<SimTime> expected{17'304_ns, 82'304_ns, 82'304_ns,  82'304_ns,
                                      117'304_ns, 182'304_ns, 217'304_ns, 300'304_ns};
  ASSERT_EQ(net.sink.rx.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(net.sink.rx[i].t, expected[i]) << "frame " << i;
    EXPECT_EQ(net.sink.rx[i].seq, i * kMss) << "order kept";
  }
  const OneShotRxModerationCounters& c = net.host_nic->counters();
  EXPECT_EQ(c.frames, 8u);
  EXPECT_EQ(c.rx_interrupts, 4u);
  EXPECT_EQ(c.timer_interrupts, 4u);
  EXPECT_EQ(c.timer_frames, 4u);
  EXPECT_EQ(c.max_timer_batch, 3u);
  EXPECT_FALSE(net.host_nic->rx_masked());
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

TEST(OneShotRxModeration, RejectsAZeroTimer) {
  Simulation sim(1);
  EXPECT_THROW(sim.add<OneShotRxModeration>("m", 0), std::invalid_argument);
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
