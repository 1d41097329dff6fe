// End-to-end: the shipped UDP scenarios against hand-computed numbers, and
// bit-identical repeats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>

#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/int128.h"

namespace netsim {
namespace {

const std::string kScenario = std::string(NETSIM_SOURCE_DIR) + "/scenarios/udp-switch-nth.yaml";
const std::string kHubScenario = std::string(NETSIM_SOURCE_DIR) + "/scenarios/udp-hub-contention.yaml";

TEST(UdpScenario, SwitchNthDropMatchesHandComputedCounts) {
  const results::RunResult r = run_scenario(load_scenario(kScenario));
  ASSERT_EQ(r.flows_size(), 1);
  const auto& f = r.flows(0);
  // Datagram n leaves at floor(n * 11776 bit / 900 Mbit/s) = n * 13.0844.. us;
  // n < 1 s * 900e6 / 11776 = 76426.6, so n = 0..76426.
  EXPECT_EQ(f.packets_sent(), 76427u);
  EXPECT_EQ(f.bytes_sent(), 76427u * 1472u);
  // --every 100 --packet 0 drops 1-based packets 1, 101, ..., 76401: 765 of them.
  ASSERT_EQ(r.filters_size(), 1);
  EXPECT_EQ(r.filters(0).matched(), 76427u);
  EXPECT_EQ(r.filters(0).dropped(), 765u);
  EXPECT_EQ(f.packets_received(), 75662u);
  EXPECT_EQ(f.packets_lost(), 765u);
  // 75662 * 1472 * 8 bit over 1 s = 890.995712 Mbit/s; sent 900.004352 Mbit/s.
  EXPECT_DOUBLE_EQ(f.receiver_mbps(), 890.995712);
  EXPECT_DOUBLE_EQ(f.sender_mbps(), 900.004352);
  // Each link direction toward the receiver carried every datagram as a
  // 1500-byte IP packet; nothing queued up enough to drop at the switch.
  ASSERT_EQ(r.links_size(), 4);
  for (int i = 0; i < 4; ++i) {
    const auto& l = r.links(i);
    EXPECT_EQ(l.packets_dropped(), 0u) << l.link();
    if (l.to() == "receiver" || (l.to() == "sw1" && l.from() == "sender")) {
      EXPECT_EQ(l.packets_sent(), 76427u) << l.link();
      EXPECT_EQ(l.bytes_sent(), 76427u * 1500u) << l.link();
      // 1538 wire bytes per frame at 1 Gbit/s: 12.304 us busy per datagram,
      // counted up to the end of the run (1 s). Datagram n starts on the first
      // hop at floor(n * 11776e12 / 900e6) ps and on the second one 12.304 us
      // + 5 us later; the last ones are cut off at 1 s.
      const SimTime hop_offset = (l.to() == "receiver") ? 12'304'000 + 5'000'000 : 0;
      SimTime busy = 0;
      for (std::int64_t n = 0; n < 76427; ++n) {
        const SimTime start = static_cast<SimTime>(static_cast<Int128>(n) * 11776 * kPicosPerSecond / 900'000'000) + hop_offset;
        busy += std::min<SimTime>(12'304'000, std::max<SimTime>(0, 1'000'000'000'000LL - start));
      }
      EXPECT_EQ(l.busy_ps(), busy) << l.link();
      EXPECT_LT(l.utilization(), 1.0);
    } else {
      EXPECT_EQ(l.packets_sent(), 0u) << l.link();
    }
  }
  // Ten 100 ms interval samples. They add up to what arrived by 1 s: the
  // three datagrams sent in the last ~35 us (two 12.3 us serializations plus
  // 10 us of wire) land during the drain, after the last interval.
  ASSERT_EQ(r.intervals_size(), 10);
  std::uint64_t sum = 0;
  for (const auto& s : r.intervals()) sum += s.packets();
  EXPECT_EQ(sum, 75662u - 3u);
}

results::RunResult run_without_wall_time(const ScenarioSpec& spec) {
  results::RunResult r = run_scenario(spec);
  r.clear_wall_time_s();  // the only field that depends on the machine
  return r;
}

TEST(UdpScenario, RepeatsAndThreadsAreBitIdentical) {
  const ScenarioSpec spec = load_scenario(kHubScenario);
  const std::string first = run_without_wall_time(spec).SerializeAsString();
  EXPECT_EQ(first, run_without_wall_time(spec).SerializeAsString());
  std::string in_thread_a, in_thread_b;
  std::thread ta([&] { in_thread_a = run_without_wall_time(spec).SerializeAsString(); });
  std::thread tb([&] { in_thread_b = run_without_wall_time(spec).SerializeAsString(); });
  ta.join();
  tb.join();
  EXPECT_EQ(first, in_thread_a);
  EXPECT_EQ(first, in_thread_b);
}

TEST(UdpScenario, SeedOverrideIsRecordedAndCountsDoNotDependOnIt) {
  // Nothing in this UDP path is random (no random filter): a different seed
  // moves only the hosts' tick phases, so the counts stay the same.
  auto ra = run_without_wall_time(load_scenario(kScenario));
  auto rb = run_without_wall_time(load_scenario(kScenario, {{"seed", "7"}}));
  EXPECT_EQ(rb.seed(), 7u);
  ASSERT_EQ(rb.overrides_size(), 1);
  EXPECT_EQ(rb.overrides(0).key(), "seed");
  EXPECT_EQ(ra.flows(0).packets_received(), rb.flows(0).packets_received());
}

TEST(UdpScenario, HubSharesCapacity) {
  const auto r = run_scenario(load_scenario(kHubScenario));
  ASSERT_EQ(r.flows_size(), 2);
  const double total = r.flows(0).receiver_mbps() + r.flows(1).receiver_mbps();
  // 1452-byte payloads in 1538-byte frames on a shared 1 Gbit/s medium:
  // 1000 * 1452 / 1538 = 944.1 Mbit/s of payload while the run lasts, plus
  // what drains afterwards: the two 64 KB waiting rooms (42 frames each), the
  // frame on the medium and the senders' interface queues (3 frames each):
  // at most 91 frames * 1452 B * 8 / 0.2 s = 5.3 Mbit/s.
  EXPECT_LE(total, 944.1 + 5.3);
  EXPECT_GE(total, 930.0);
  EXPECT_GT(r.flows(0).packets_lost(), 0u);
  EXPECT_GT(r.flows(1).packets_lost(), 0u);
  // Random arbitration among contending ports shares the medium about evenly.
  EXPECT_NEAR(r.flows(0).receiver_mbps(), r.flows(1).receiver_mbps(), 0.05 * total);
}

// clock_ppm: each transmitter's links run at rate x (1 + offset), the offset
// drawn per seed within +-clock_ppm; a switch has one offset for all ports.
TEST(UdpScenario, ClockPpmOffsetsEachTransmitter) {
  const std::string yaml = R"(
name: clocks
duration: 1ms
hosts:
  a: { address: 10.0.0.1, clock_ppm: 50 }
  b: { address: 10.0.0.2 }
switches:
  sw: { clock_ppm: 100 }
links:
  a-sw: { ends: [a, sw], rate: 1Gbps }
  sw-b: { ends: [sw, b], rate: 1Gbps }
traffic:
  f: { type: udp, from: a, to: b }
)";
  const ScenarioSpec spec = parse_scenario_text(yaml, "clocks.yaml");
  const BuiltScenario built = build_scenario(spec);
  const std::int64_t a_out = built.links[0]->a_to_b().config().rate.bps();
  const std::int64_t sw_to_a = built.links[0]->b_to_a().config().rate.bps();
  const std::int64_t sw_to_b = built.links[1]->a_to_b().config().rate.bps();
  const std::int64_t b_out = built.links[1]->b_to_a().config().rate.bps();
  EXPECT_NE(a_out, 1'000'000'000);
  EXPECT_LE(std::abs(a_out - 1'000'000'000), 50'000);  // 50 ppm of 1 Gbit/s
  EXPECT_NE(sw_to_a, 1'000'000'000);
  EXPECT_LE(std::abs(sw_to_a - 1'000'000'000), 100'000);
  EXPECT_EQ(sw_to_a, sw_to_b);       // one crystal for the switch
  EXPECT_EQ(b_out, 1'000'000'000);   // no clock_ppm: exact
  // The same seed draws the same offsets; another seed others.
  EXPECT_EQ(build_scenario(spec).links[0]->a_to_b().config().rate.bps(), a_out);
  ScenarioSpec other = spec;
  other.seed = 2;
  EXPECT_NE(build_scenario(other).links[0]->a_to_b().config().rate.bps(), a_out);
}

// A host's tx_buffer limits its own transmit queues, as a switch's buffer
// does its ports: a 200 Mbit/s source into a 100 Mbit/s link overfills it.
TEST(UdpScenario, HostTxBufferTailDropsAtTheSendingInterface) {
  auto run = [](const std::string& limits) {
    const std::string yaml = "name: txq\nduration: 10ms\nhosts:\n  a: { address: 10.0.0.1" + limits +
                             " }\n  b: { address: 10.0.0.2 }\nlinks:\n  a-b: { ends: [a, b], rate: 100Mbps }\n"
                             "traffic:\n  f: { type: udp, from: a, to: b, rate: 200Mbps }\n";
    const ScenarioSpec spec = parse_scenario_text(yaml, "txq.yaml");
    BuiltScenario built = build_scenario(spec);
    built.sim->run_until(spec.duration);
    const Channel& out = built.links[0]->a_to_b();
    return std::make_pair(out.counters(), out.occupancy_packets());
  };
  // 1472-byte payloads at 200 Mbit/s leave every 58.88 us: n = 0..169 within 10 ms.
  const std::uint64_t generated = 170;
  const auto [unlimited, left_unlimited] = run("");
  EXPECT_EQ(unlimited.packets_dropped, 0u);
  EXPECT_GT(unlimited.max_queue_packets, 10u);
  EXPECT_EQ(unlimited.packets_sent + left_unlimited, generated);

  const auto [packets, left_packets] = run(", tx_buffer_packets: 10");
  EXPECT_EQ(packets.max_queue_packets, 10u);
  EXPECT_GT(packets.packets_dropped, 0u);
  EXPECT_LE(left_packets, 10u);
  EXPECT_EQ(packets.packets_sent + packets.packets_dropped + left_packets, generated);
  // The link still runs at its rate: as many frames serialized as unlimited.
  EXPECT_EQ(packets.packets_sent, unlimited.packets_sent);

  const auto [bytes, left_bytes] = run(", tx_buffer: 4500B");  // three 1500-byte IP packets
  EXPECT_EQ(bytes.max_queue_packets, 3u);
  EXPECT_EQ(bytes.max_queue_bytes, 4500u);
  EXPECT_EQ(bytes.packets_sent + bytes.packets_dropped + left_bytes, generated);
}

TEST(UdpScenario, HostTxBufferMustBePositive) {
  const std::string yaml =
      "name: txq\nduration: 1ms\nhosts:\n  a: { address: 10.0.0.1, tx_buffer_packets: 0 }\n"
      "  b: { address: 10.0.0.2 }\nlinks:\n  a-b: { ends: [a, b] }\n";
  try {
    parse_scenario_text(yaml, "txq.yaml");
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("txq.yaml:4:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("hosts.a.tx_buffer_packets"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace netsim
