// End-to-end: the shipped UDP scenarios against hand-computed numbers, and
// bit-identical repeats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>

#include "netsim/results/machine_times.h"
#include "netsim/app/udp_source.h"
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

TEST(UdpScenario, EveryNoneMeansNoRule) {
  // The shipped scenario with `every: none`: no rule, every datagram arrives
  // (76427 of them, as above), and an impossible `packet` is no error then.
  const ScenarioSpec spec =
      load_scenario(kScenario, {{"filters.drop-every-100.every", "none"}, {"filters.drop-every-100.packet", "5"}});
  ASSERT_EQ(spec.filters.size(), 1u);
  EXPECT_EQ(spec.filters[0].every, 0);
  const results::RunResult r = run_scenario(spec);
  EXPECT_EQ(r.filters_size(), 0);
  EXPECT_EQ(r.flows(0).packets_received(), 76427u);
  EXPECT_EQ(r.flows(0).packets_lost(), 0u);
  // Any other word is still an error at the field.
  EXPECT_THROW(load_scenario(kScenario, {{"filters.drop-every-100.every", "never"}}), ScenarioError);
}

results::RunResult run_without_wall_time(const ScenarioSpec& spec) {
  results::RunResult r = run_scenario(spec);
  results::clear_machine_times(r);  // the only field that depends on the machine
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

// A constant-rate source faster than its link blocks on its send buffer
// (SO_SNDBUF) instead of piling datagrams into the interface queue: with
// room for ten 1500-byte IP packets, the queue holds at most ten, nothing is
// dropped, and the link carries what it would have carried anyway.
TEST(UdpScenario, SendBufferBlocksAFastSourceAtItsLinksRate) {
  auto run = [](const std::string& buffer) {
    const std::string yaml = "name: sndbuf\nduration: 100ms\nhosts:\n  a: { address: 10.0.0.1 }\n"
                             "  b: { address: 10.0.0.2 }\nlinks:\n  a-b: { ends: [a, b], rate: 100Mbps }\n"
                             "traffic:\n  f: { type: udp, from: a, to: b, rate: 200Mbps" + buffer + " }\n";
    const ScenarioSpec spec = parse_scenario_text(yaml, "sndbuf.yaml");
    BuiltScenario built = build_scenario(spec);
    built.sim->run_until(spec.duration);
    const Channel& out = built.links[0]->a_to_b();
    const UdpSource& src = *built.udp_flows[0].source;
    return std::make_tuple(out.counters(), out.occupancy_packets(), src.packets_sent(), src.send_blocks(),
                           src.buffered_bytes());
  };
  // 1538 wire bytes at 100 Mbit/s: a frame every 123.04 us, 812 of them
  // complete within 100 ms (812 x 123.04 us = 99.908 ms).
  const auto [c, left, sent, blocks, buffered] = run(", send_buffer: 15000B");
  EXPECT_EQ(c.packets_sent, 812u);
  EXPECT_EQ(c.packets_dropped, 0u);
  EXPECT_EQ(c.max_queue_packets, 10u);
  EXPECT_EQ(c.max_queue_bytes, 15000u);
  // Each frame that left let one more datagram in: ten are still there.
  EXPECT_EQ(left, 10u);
  EXPECT_EQ(buffered, 15000u);
  EXPECT_EQ(sent, c.packets_sent + left);
  EXPECT_GT(blocks, 0u);

  // send_buffer: 0 is the old unlimited socket: every datagram of the
  // 200 Mbit/s schedule (one per 58.88 us: n = 0..1698) is queued at once.
  const auto [u, u_left, u_sent, u_blocks, u_buffered] = run(", send_buffer: 0");
  EXPECT_EQ(u_sent, 1699u);
  EXPECT_EQ(u.packets_sent, 812u);
  EXPECT_EQ(u.packets_sent + u_left, 1699u);
  EXPECT_EQ(u_blocks, 0u);
  EXPECT_EQ(u_buffered, 0u);  // not counted without a limit

  // The default is Linux's net.core.wmem_default, 212992 bytes: 142 packets
  // of 1500 (141 x 1500 = 211500 still leaves room for one more).
  const auto [d, d_left, d_sent, d_blocks, d_buffered] = run("");
  EXPECT_EQ(d.max_queue_packets, 142u);
  EXPECT_EQ(d.max_queue_bytes, 213000u);
  EXPECT_EQ(d.packets_sent, 812u);
  EXPECT_EQ(d.packets_dropped, 0u);
}

// With a CPU model, each datagram is a sendto() on the sender's core (copy
// plus the stack's per-packet work) and a recvmsg() on the receiver's (copy):
// the CPU paces the source, and a slower reader fills its receive buffer.
TEST(UdpScenario, SendtoAndRecvmsgCostTheProcessesCpu) {
  auto run = [](const std::string& rx_copy) {
    const std::string yaml =
        "name: udpcpu\nduration: 100ms\nhosts:\n"
        "  a: { address: 10.0.0.1, os: linux, cpu: { copy_per_kib: 1024ns, tx_packet: 4us } }\n"
        "  b: { address: 10.0.0.2, os: linux, cpu: { copy_per_kib: " + rx_copy + " } }\n"
        "links:\n  a-b: { ends: [a, b], rate: 10Gbps, mtu: 9000 }\n"
        "traffic:\n  f: { type: udp, from: a, to: b, size: 8192B, rate: max }\n";
    const ScenarioSpec spec = parse_scenario_text(yaml, "udpcpu.yaml");
    BuiltScenario built = build_scenario(spec);
    built.sim->run_until(spec.duration);
    const auto& flow = built.udp_flows[0];
    const Host& tx = *static_cast<Host*>(built.nodes[0]);
    return std::make_tuple(flow.source->packets_sent(), flow.sink->packets_received(), flow.sink->buffer_drops(),
                           tx.cpu()->used()[CpuContext::system]);
  };
  // sendto: 8 KiB x 1024 ns + 4 us = 12.192 us; sendto n starts at n x 12.192
  // us, n = 0 .. 8202 before 100 ms (8202 x 12.192 = 99.999 ms).
  const auto [sent, received, drops, tx_system] = run("1024ns");
  EXPECT_EQ(sent, 8203u);
  EXPECT_EQ(drops, 0u);  // a reader as fast as the writer keeps up
  EXPECT_GE(received, sent - 2);
  // The sender's process is busy all the time: 8203 sendtos, the last one
  // ending after 100 ms, minus what is unfinished at 100 ms.
  EXPECT_GT(tx_system, 99'990'000'000);
  EXPECT_LE(tx_system, 100'000'000'000);

  // A reader at 16.384 us per datagram falls behind: the 212992-byte buffer
  // (Linux's rmem_default) holds 25 datagrams of 8220 IP bytes, later
  // arrivals that find it full are dropped; reads are 100 ms / 16.384 us.
  const auto [sent2, received2, drops2, tx2] = run("2048ns");
  EXPECT_EQ(sent2, 8203u);
  EXPECT_GT(drops2, 0u);
  EXPECT_EQ(received2 + drops2 + 2 >= sent2, true);
  EXPECT_NEAR(static_cast<double>(received2), 100e6 / 16384.0 + 25, 3.0) << drops2;
  (void)tx2;
}

// A queue without a limit that outgrows max_packets stops the run with a
// message naming the time, the limit and the queue, instead of taking all
// memory; the other runs of a sweep are not affected.
TEST(UdpScenario, PacketLimitStopsARunawayQueueWithAMessage) {
  const std::string yaml = "name: runaway\nduration: 10ms\nmax_packets: 4096\nhosts:\n  a: { address: 10.0.0.1 }\n"
                           "  b: { address: 10.0.0.2 }\nlinks:\n  a-b: { ends: [a, b], rate: 1Gbps }\n"
                           "traffic:\n  f: { type: udp, from: a, to: b, rate: 100Gbps, send_buffer: 0 }\n";
  const ScenarioSpec spec = parse_scenario_text(yaml, "runaway.yaml");
  EXPECT_EQ(spec.max_packets, 4096u);
  try {
    run_scenario(spec);
    FAIL() << "expected the packet limit to stop the run";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("run stopped at 0."), std::string::npos) << what;
    EXPECT_NE(what.find("max_packets: 4096"), std::string::npos) << what;
    EXPECT_NE(what.find("the longest queue is a -> b with 40"), std::string::npos) << what;
  }
  // With the default send buffer the same source runs at the link's rate:
  // 812 frames of 12.304 us leave within 10 ms, 142 (a full send buffer) are
  // still queued, and all arrive once the run drains.
  const std::string bounded = std::string(yaml).replace(yaml.find(", send_buffer: 0"), 16, "");
  const results::RunResult r = run_scenario(parse_scenario_text(bounded, "runaway.yaml"));
  ASSERT_EQ(r.flows_size(), 1);
  EXPECT_EQ(r.flows(0).packets_sent(), 812u + 142u);
  EXPECT_EQ(r.flows(0).packets_lost(), 0u);
}

TEST(UdpScenario, MaxPacketsAndSendBufferAreChecked) {
  auto error_of = [](const std::string& yaml) -> std::string {
    try {
      parse_scenario_text(yaml, "bad.yaml");
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "";
  };
  const std::string hosts = "hosts:\n  a: { address: 10.0.0.1 }\n  b: { address: 10.0.0.2 }\n"
                            "links:\n  a-b: { ends: [a, b], rate: 1Gbps }\n";
  const std::string small = error_of("name: x\nduration: 1ms\nmax_packets: 10\n" + hosts + "traffic: {}\n");
  EXPECT_NE(small.find("bad.yaml:3:"), std::string::npos) << small;
  EXPECT_NE(small.find("'max_packets'"), std::string::npos) << small;
  const std::string negative = error_of("name: x\nduration: 1ms\n" + hosts +
                                        "traffic:\n  f: { type: udp, from: a, to: b, rate: 1Mbps, send_buffer: -1B }\n");
  EXPECT_NE(negative.find("bad.yaml:9:"), std::string::npos) << negative;
  EXPECT_NE(negative.find("traffic.f.send_buffer"), std::string::npos) << negative;
}

}  // namespace
}  // namespace netsim
