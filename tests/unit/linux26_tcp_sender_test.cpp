// The Linux 2.6 sender end to end, two hosts on a 10 Gbit/s switch at MTU
// 9000 (MSS 8948): 2.6.13/14's deferral freezes cwnd in slow start near 22
// segments while 2.6.12 keeps growing; the what-if switches (divisor 0, the
// TSO-aware cwnd test) let 2.6.14 escape; the socket lock moves ACK work to
// the process when it is busy in sendmsg (2.6.12, CPU-bound) and leaves it
// in softirq on the interrupt core when it sleeps (2.6.14); bad YAML.
#include <gtest/gtest.h>

#include <string>

#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"

namespace netsim {
namespace {

constexpr std::uint32_t kMss = 8948;

std::string scenario(const std::string& sender_extra, const std::string& cpu = "") {
  return R"(name: t3-unit
seed: 1
duration: 1s
hosts:
  tx: { address: 10.0.0.1, hz: 100, os: linux, kernel: "2.6.14")" +
         sender_extra + cpu + R"( }
  rx: { address: 10.0.0.2, hz: 100, os: linux, nic: { gro: false, irq_delay: 100us } }
switches:
  sw: { buffer: 8MB }
links:
  a: { ends: [tx, sw], rate: 10Gbps, delay: 100us, mtu: 9000 }
  b: { ends: [sw, rx], rate: 10Gbps, delay: 100us, mtu: 9000 }
traffic:
  f: { type: tcp, from: tx, to: rx, dst_port: 5001 }
)";
}

results::RunResult run(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  std::vector<Override> o;
  for (const std::string& s : sets) o.push_back(parse_override(s));
  return run_scenario(parse_scenario_text(yaml, "t3-unit.yaml", o));
}

const std::string kCpu =
    ", cpu: { frequency: 3.06GHz, cores: 2, irq_core: 0, app_core: 1, ack_input: 3us, tx_packet: 5us, "
    "copy_per_kib: 1100ns }";
// Copies cheap enough that the frozen 2.6.14 writer sleeps most of the time.
const std::string kCheapCopy =
    ", cpu: { frequency: 3.06GHz, cores: 2, irq_core: 0, app_core: 1, ack_input: 3us, tx_packet: 5us, "
    "copy_per_kib: 300ns }";

TEST(Linux26Sender, DeferralFreezesCwndFrom2_6_13) {
  for (const char* k : {"2.6.13", "2.6.14"}) {
    const results::RunResult r = run(scenario(""), {std::string("hosts.tx.kernel=") + k});
    ASSERT_EQ(r.flows_size(), 1);
    EXPECT_GE(r.flows(0).final_cwnd(), 18 * kMss) << k;
    EXPECT_LE(r.flows(0).final_cwnd(), 23 * kMss) << k;
    EXPECT_EQ(r.flows(0).retransmits(), 0u) << k;
  }
  // 2.6.12's whole-skb rule with skbs sized at build time does not freeze.
  const results::RunResult old = run(scenario(""), {"hosts.tx.kernel=2.6.12"});
  EXPECT_GT(old.flows(0).final_cwnd(), 40 * kMss);
  EXPECT_GT(old.flows(0).receiver_mbps(), 1.5 * run(scenario("")).flows(0).receiver_mbps());
}

TEST(Linux26Sender, WhatIfSwitchesLet2_6_14Escape) {
  const std::uint32_t frozen = run(scenario("")).flows(0).final_cwnd();
  // tso_win_divisor 0 read literally: defer unless more than tcp_max_burst
  // (3) segments are free, and cwnd grows only when in flight reaches it:
  // from cwnd 3 nothing is sent until the probe timer's one segment, which
  // cannot grow cwnd either, so the flow crawls at one segment per RTO.
  const results::RunResult zero = run(scenario(", tso_win_divisor: 0"));
  EXPECT_LE(zero.flows(0).final_cwnd(), 3 * kMss);
  EXPECT_LT(zero.flows(0).receiver_mbps(), 10.0);
  EXPECT_GT(run(scenario(", tso_cwnd_limited: true")).flows(0).final_cwnd(), 2 * frozen);
  // The 2.6.19 bound as that commit wrote it (stamped at every deferral)
  // never fires while ACKs come every few microseconds: still frozen.
  EXPECT_EQ(run(scenario(", tso_defer_bound: true")).flows(0).final_cwnd(), frozen);
  // Without TSO nothing defers.
  EXPECT_GT(run(scenario(""), {"traffic.f.tso=false"}).flows(0).final_cwnd(), 2 * frozen);
}

double core_pct(const results::RunResult& r, const std::string& host, results::CpuStats* out = nullptr) {
  for (const auto& c : r.cpus()) {
    if (c.host() == host) {
      if (out != nullptr) *out = c;
      return c.utilization_pct();
    }
  }
  ADD_FAILURE() << "no cpu row " << host;
  return 0;
}

TEST(Linux26Sender, SocketLockPutsAckWorkWhereTheKernelDoes) {
  // 2.6.12: CPU-bound, the process is in sendmsg when ACKs come, so they
  // wait in the backlog and the process's core does them (system time);
  // the interrupt core has little to do.
  const results::RunResult busy = run(scenario("", kCpu), {"hosts.tx.kernel=2.6.12"});
  EXPECT_GT(core_pct(busy, "tx"), 97.0);
  EXPECT_LT(core_pct(busy, "tx/cpu0"), 8.0);
  // 2.6.14: window-bound, the process sleeps; ACKs (3 us each) and the skbs
  // they send (5 us) run in softirq on core 0, as interrupt time.
  const results::RunResult idle = run(scenario("", kCheapCopy));
  results::CpuStats irq;
  core_pct(idle, "tx/cpu0", &irq);
  EXPECT_LT(core_pct(idle, "tx"), 20.0);
  EXPECT_GT(irq.interrupt_pct(), 4.0);
  EXPECT_GT(irq.interrupt_pct(), 0.5 * irq.utilization_pct());
}

TEST(Linux26Sender, BitIdenticalRuns) {
  const std::string y = scenario("", kCpu);
  const results::RunResult a = run(y);
  const results::RunResult b = run(y);
  EXPECT_EQ(a.flows(0).SerializeAsString(), b.flows(0).SerializeAsString());
  ASSERT_EQ(a.cpus_size(), b.cpus_size());
  for (int i = 0; i < a.cpus_size(); ++i) EXPECT_EQ(a.cpus(i).SerializeAsString(), b.cpus(i).SerializeAsString());
}

std::string error_of(const std::string& yaml) {
  try {
    parse_scenario_text(yaml, "t3-unit.yaml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(Linux26Sender, KernelNeedsALinuxHostAndAKnownVersion) {
  std::string y = scenario("");
  y.replace(y.find("os: linux, kernel"), 9, "os: freebsd");
  EXPECT_NE(error_of(y).find("t3-unit.yaml:5:"), std::string::npos) << error_of(y);
  EXPECT_NE(error_of(y).find("needs os: linux"), std::string::npos) << error_of(y);
  std::string v = scenario("");
  v.replace(v.find("2.6.14"), 6, "2.6.15");
  EXPECT_NE(error_of(v).find("kernel"), std::string::npos) << error_of(v);
  EXPECT_NE(error_of(scenario(", cpu: { cores: 2, irq_core: 2 }")).find("does not exist"), std::string::npos);
  // cubic is not a 2.6.14 module here.
  std::string c = scenario("");
  c.replace(c.find("dst_port: 5001"), 14, "dst_port: 5001, cc: cubic");
  EXPECT_NE(error_of(c).find("bic, reno"), std::string::npos) << error_of(c);
}

}  // namespace
}  // namespace netsim
