// The whole T1 chain wired by hand: FreeBSD sender -> 1 Gbit/s path ->
// virtio-net/GRO receive NIC -> nth-drop rule (after GRO) -> Linux receiver.
// Structural checks only: fidelity to table T1 is issue 3's calibration work.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "netsim/filter/nth_drop_filter.h"
#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/net/switch.h"
#include "netsim/nic/gro_receive_nic.h"
#include "netsim/tcp/freebsd_tcp_sender.h"
#include "netsim/tcp/linux_tcp_receiver.h"

namespace netsim {
namespace {

using namespace netsim::literals;

struct Result {
  double mbps;
  std::uint64_t retransmits;
  std::uint64_t rule_matched;
  std::uint64_t rule_dropped;
  std::uint64_t wire_segments;
  std::uint64_t rto;
};

Result run_cell(int hz, const std::string& cc, std::uint32_t every, SimTime duration, GroFilterPosition pos) {
  Simulation sim(11);
  Host& snd = sim.add<Host>("sender", 0, "10.0.0.1", IpVersion::v4, hz);
  Host& rcv = sim.add<Host>("receiver", 1, "10.0.0.2", IpVersion::v4, 250);
  Switch& sw = sim.add<Switch>("router", 2);
  ChannelConfig c;
  c.delay = 100_us;  // half of a ~0.5 ms ping RTT, split over two hops incl. VM latency
  Link& l1 = sim.add<Link>("sender-router", snd, sw, c, c);
  Link& l2 = sim.add<Link>("router-receiver", sw, rcv, c, c);
  snd.set_forwarding({-1, 0, 0});
  rcv.set_forwarding({0, -1, 0});
  sw.set_forwarding({l1.port_at_b(), l2.port_at_a(), -1});
  GroReceiveNicConfig nic_cfg;
  nic_cfg.filter_position = pos;
  GroReceiveNic& nic = sim.add<GroReceiveNic>("vtnet", rcv, l2.port_at_b(), nic_cfg);
  nic.attach(l2.a_to_b());
  MatchRule m;
  m.protocol = IpProtocol::tcp;
  m.dst_port = 5201;
  NthDropFilter& rule = sim.add<NthDropFilter>("nth", m, every, 0);
  nic.add_filter(&rule);
  tcp::LinuxTcpConfig rcfg;
  sim.add<tcp::LinuxTcpReceiver>("iperf3-server", rcv, rcfg);
  tcp::FreeBsdTcpConfig scfg;
  scfg.cc = cc;
  auto& tx = sim.add<tcp::FreeBsdTcpSender>("iperf3-client", snd, rcv.id(), 5201, scfg);
  tx.set_unlimited_data(true);
  tx.connect();
  sim.run_until(duration);
  return Result{static_cast<double>(tx.bytes_acked()) * 8 / to_seconds(duration) / 1e6,
                tx.stats().retransmitted_segments, rule.matched(), rule.dropped(), nic.counters().wire_packets,
                tx.stats().rto_count};
}

TEST(TcpEndToEnd, NthRuleAfterGroCountsAggregatesNotWireSegments) {
  // The first matching packet is the SYN: with --packet 0 it is dropped and
  // retried after the initial RTO (1 s), so for the first second nothing flows.
  const Result early = run_cell(1000, "newreno", 100, 900_ms, GroFilterPosition::after_gro);
  EXPECT_EQ(early.rule_matched, 1u);
  EXPECT_EQ(early.rule_dropped, 1u);
  EXPECT_EQ(early.mbps, 0.0);
  const Result after = run_cell(1000, "newreno", 100, 2_s, GroFilterPosition::after_gro);
  const Result before = run_cell(1000, "newreno", 100, 2_s, GroFilterPosition::before_gro);
  // After GRO the rule sees fewer, larger packets than arrive on the wire...
  EXPECT_LT(after.rule_matched, after.wire_segments * 3 / 4);
  // ...before GRO it sees every wire segment.
  EXPECT_EQ(before.rule_matched, before.wire_segments);
  // Every 100th aggregate is a rarer loss event than every 100th wire
  // segment (aggregates hold several segments), so throughput is higher with
  // the rule after GRO - the calibration lever of freebsd-tcp.md 2.7.
  EXPECT_GT(after.mbps, before.mbps);
}

TEST(TcpEndToEnd, EveryCcRunsDeterministicallyThroughLoss) {
  for (const char* cc : {"newreno", "cubic", "cubic_d46046"}) {
    for (int hz : {100, 1000}) {
      const Result a = run_cell(hz, cc, 100, 3_s, GroFilterPosition::after_gro);
      const Result b = run_cell(hz, cc, 100, 3_s, GroFilterPosition::after_gro);
      EXPECT_EQ(a.mbps, b.mbps) << cc << " hz=" << hz;
      EXPECT_EQ(a.retransmits, b.retransmits);
      EXPECT_GT(a.mbps, 50.0) << cc << " hz=" << hz;
      EXPECT_GE(a.retransmits, a.rule_dropped - 1) << "every drop but the SYN's is repaired";
      std::printf("[ cell ] hz=%-4d cc=%-13s every=100  %7.1f Mbit/s (3 s incl. 1 s SYN retry)  retr=%llu rto=%llu "
                  "drops=%llu matched=%llu wire=%llu\n",
                  hz, cc, a.mbps, static_cast<unsigned long long>(a.retransmits),
                  static_cast<unsigned long long>(a.rto), static_cast<unsigned long long>(a.rule_dropped),
                  static_cast<unsigned long long>(a.rule_matched), static_cast<unsigned long long>(a.wire_segments));
    }
  }
}

}  // namespace
}  // namespace netsim
