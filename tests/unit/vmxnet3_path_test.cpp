// The VMXNET3 path: two VMs on one ESXi vSwitch (scenarios written as
// text), the guest receive paths (vmx over iflib with tcp_lro, Linux
// vmxnet3), the vSwitch's segmentation and the hypervisor's CPU.
#include <gtest/gtest.h>

#include <string>

#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/net/vswitch.h"
#include "netsim/nic/gro_receive_nic.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/scenario/topology_builder.h"
#include "receive_path_fixture.h"

namespace netsim {
namespace {

using namespace netsim::literals;

// vm1 (FreeBSD sender) -- esxi -- vm2 (receiver), one bulk flow.
std::string vm_scenario(const std::string& rx_nic, const std::string& tx_nic = "{ driver: vmx }",
                        const std::string& hypervisor = "{ frame: 2us, segment: 500ns, copy_per_kib: 50ns }",
                        const std::string& mtu = "1500") {
  return "name: vm\n"
         "duration: 50ms\n"
         "hosts:\n"
         "  vm1: { address: 10.0.0.1, hz: 100, nic: " + tx_nic + " }\n"
         "  vm2: { address: 10.0.0.2, hz: 100, nic: " + rx_nic + " }\n"
         "vswitches:\n"
         "  esxi: { cpu: " + hypervisor + " }\n"
         "links:\n"
         "  vm1-esxi: { ends: [vm1, esxi], mtu: " + mtu + " }\n"
         "  vm2-esxi: { ends: [vm2, esxi], mtu: " + mtu + " }\n"
         "traffic:\n"
         "  bulk: { type: tcp, from: vm1, to: vm2 }\n";
}

const results::VSwitchStats& vswitch(const results::RunResult& r) { return r.vswitches(0); }

TEST(VSwitch, LroVnicGetsTsoFramesWhole) {
  const results::RunResult r = run_scenario(parse_scenario_text(vm_scenario("{ driver: vmx, lro: true }"), "vm.yaml"));
  ASSERT_EQ(r.vswitches_size(), 1);
  EXPECT_GT(vswitch(r).tso_frames_whole(), 0u);
  EXPECT_EQ(vswitch(r).tso_frames_segmented(), 0u);
  EXPECT_EQ(vswitch(r).segments_made(), 0u);
  EXPECT_GT(r.flows(0).receiver_mbps(), 100.0);
  // The receiver's NIC saw aggregates larger than one MSS.
  bool found = false;
  for (const auto& n : r.nics()) {
    if (n.host() == "vm2") {
      found = true;
      EXPECT_GT(n.max_aggregate_segments(), 1u);
      EXPECT_GT(n.rx_fragments(), n.wire_packets());  // 4 KB body buffers
    }
  }
  EXPECT_TRUE(found);
}

TEST(VSwitch, NonLroVnicGetsMtuSegments) {
  const results::RunResult r = run_scenario(parse_scenario_text(vm_scenario("{ driver: vmx }"), "vm.yaml"));
  EXPECT_EQ(vswitch(r).tso_frames_whole(), 0u);
  EXPECT_GT(vswitch(r).tso_frames_segmented(), 0u);
  EXPECT_GT(vswitch(r).segments_made(), vswitch(r).tso_frames_segmented());
  for (const auto& n : r.nics()) {
    if (n.host() == "vm2") {
      EXPECT_EQ(n.max_aggregate_segments(), 1u);  // no LRO in the guest either
    }
  }
}

TEST(VSwitch, HypervisorCpuIsChargedToTheVSwitchNotTheGuests) {
  const results::RunResult r = run_scenario(parse_scenario_text(vm_scenario("{ driver: vmx }"), "vm.yaml"));
  EXPECT_GT(vswitch(r).cpu_pct(), 1.0);
  EXPECT_EQ(r.cpus_size(), 0);  // the guests have no cpu: block, so no CPU model at all
  EXPECT_FALSE(r.flows(0).has_sender_cpu_pct());
  // Without costs the vSwitch takes no time.
  const results::RunResult free =
      run_scenario(parse_scenario_text(vm_scenario("{ driver: vmx }", "{ driver: vmx }", "{}"), "vm.yaml"));
  EXPECT_EQ(vswitch(free).cpu_pct(), 0.0);
}

TEST(VSwitch, SenderHandsTsoBurstsToTheVnicAsOnePacket) {
  const ScenarioSpec spec = parse_scenario_text(vm_scenario("{ driver: vmx, lro: true }"), "vm.yaml");
  BuiltScenario b = build_scenario(spec);
  auto* vm1 = static_cast<Host*>(b.node("vm1"));
  EXPECT_TRUE(vm1->tso_frames());
  b.sim->run_until(50_ms);
  const std::uint64_t sent = b.tcp_flows[0].sender->info().data_segments_sent;
  // Every data frame is one packet on the interface, counted once there.
  EXPECT_LT(vm1->counters().packets_sent * 4, sent);
}

TEST(VSwitch, HostsOffAVSwitchKeepPerSegmentPackets) {
  const std::string text =
      "name: wire\nduration: 20ms\nhosts:\n  a: { address: 10.0.0.1 }\n  b: { address: 10.0.0.2 }\n"
      "links:\n  a-b: { ends: [a, b], rate: 1Gbps }\ntraffic:\n  bulk: { type: tcp, from: a, to: b }\n";
  const ScenarioSpec spec = parse_scenario_text(text, "wire.yaml");
  BuiltScenario b = build_scenario(spec);
  auto* a = static_cast<Host*>(b.node("a"));
  EXPECT_FALSE(a->tso_frames());
  b.sim->run_until(20_ms);
  EXPECT_GE(a->counters().packets_sent, b.tcp_flows[0].sender->info().data_segments_sent);
}

TEST(VSwitch, LinuxVmxnet3LroIsOnByDefaultAndGroWhenOff) {
  const ScenarioSpec on = parse_scenario_text(vm_scenario("{ driver: vmxnet3 }"), "vm.yaml");
  EXPECT_TRUE(on.hosts[1].nic->lro);
  EXPECT_EQ(on.hosts[1].nic->ring_size, 1024u);
  const results::RunResult r = run_scenario(on);
  EXPECT_GT(vswitch(r).tso_frames_whole(), 0u);
  const ScenarioSpec off = parse_scenario_text(vm_scenario("{ driver: vmxnet3, lro: false }"), "vm.yaml");
  const results::RunResult g = run_scenario(off);
  EXPECT_GT(vswitch(g).segments_made(), 0u);
  for (const auto& n : g.nics()) {
    if (n.host() == "vm2") {
      EXPECT_GT(n.max_aggregate_segments(), 1u);  // GRO put them back together
    }
  }
}

TEST(VSwitch, VmxDefaultsAreTheDrivers) {
  const ScenarioSpec s = parse_scenario_text(vm_scenario("{ driver: vmx }"), "vm.yaml");
  const NicSpec& n = *s.hosts[1].nic;
  EXPECT_FALSE(n.lro);  // IFCAP_LRO: a capability, not enabled
  EXPECT_EQ(n.budget, 16);
  EXPECT_EQ(n.ring_size, 256u);
  EXPECT_EQ(n.lro_config.entries, 8);
  EXPECT_EQ(n.lro_config.length_lim, 65535u - 255u);
  EXPECT_EQ(s.links[0].rate.bps(), 1'000'000'000'000);  // a vNIC link has no line rate
}

// Wired by hand: 40 frames in the ring at once; iflib takes 16 per pass,
// and with tcp_lro each pass ends in one aggregate (tcp_lro_flush_all).
TEST(IflibReceive, BudgetOfSixteenPerPassAndAnLroFlushAtEachPassEnd) {
  for (const bool lro : {false, true}) {
    GroReceiveNicConfig cfg;
    cfg.irq_delay = 1_ms;
    cfg.budget = 16;
    cfg.gro = false;
    cfg.tcp_lro = lro;
    GroNet net(cfg);
    net.burst(0, 0, 40);
    net.sim.run();
    const GroNicCounters& c = net.nic->counters();
    EXPECT_EQ(c.polls, 3u);
    EXPECT_EQ(c.budget_exhausted, 2u);
    EXPECT_EQ(c.interrupts, 1u);
    EXPECT_EQ(net.sim.packets().in_use(), 0u);
    if (!lro) {
      EXPECT_EQ(net.sink.rx.size(), 40u);
      continue;
    }
    ASSERT_EQ(net.sink.rx.size(), 3u);
    EXPECT_EQ(net.sink.rx[0].segments, 16);
    EXPECT_EQ(net.sink.rx[1].segments, 16);
    EXPECT_EQ(net.sink.rx[2].segments, 8);
  }
}

// A 64 KB frame: 65160 + 52 + 14 = 65226 bytes: one 2048-byte head buffer
// and ceil(63178 / 4096) = 16 body buffers.
TEST(IflibReceive, FragmentsOfFourKilobyteBodyBuffers) {
  GroReceiveNicConfig cfg;
  cfg.rx_head_buffer = 2048;
  GroNet net(cfg);
  EXPECT_EQ(net.nic->fragments(1500), 1u);
  EXPECT_EQ(net.nic->fragments(65160 + 52), 17u);
  cfg.rx_head_buffer = 4096;  // MTU 9000: a page for the head
  GroNet jumbo(cfg);
  EXPECT_EQ(jumbo.nic->fragments(9000), 3u);  // 9014 = 4096 + 4096 + 822
}

TEST(VSwitchScenario, TopologyBuilderAddsAVSwitch) {
  TopologyBuilder t("vm");
  t.duration(20_ms);
  t.add_host("vm1", "10.0.0.1", {{"hz", 100}, {"nic.driver", "vmx"}, {"nic.lro", true}});
  t.add_host("vm2", "10.0.0.2", {{"hz", 100}, {"nic.driver", "vmx"}, {"nic.lro", true}});
  t.add_vswitch("esxi", {{"cpu.frame", "1us"}});
  t.add_link("vm1-esxi", "vm1", "esxi", DataRate::gbps(1000));
  t.add_link("vm2-esxi", "vm2", "esxi", DataRate::gbps(1000));
  t.add_flow("bulk", "tcp", "vm1", "vm2");
  const ScenarioSpec spec = t.build();
  ASSERT_EQ(spec.vswitches.size(), 1u);
  EXPECT_EQ(spec.vswitches[0].cpu.frame, 1_us);
  const results::RunResult r = run_scenario(spec);
  EXPECT_GT(r.vswitches(0).tso_frames_whole(), 0u);
}

void expect_error(const std::string& text, const std::string& field, int line, const std::string& words) {
  try {
    parse_scenario_text(text, "vm.yaml");
    ADD_FAILURE() << "accepted: " << field;
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field, field);
    EXPECT_EQ(e.loc.file, "vm.yaml");
    EXPECT_EQ(e.loc.line, line);
    EXPECT_NE(e.message.find(words), std::string::npos) << e.message;
  }
}

TEST(VSwitchScenario, ErrorsNameTheFileAndLine) {
  expect_error(vm_scenario("{ driver: vmxx }"), "hosts.vm2.nic.driver", 5, "vmxnet3");
  expect_error(vm_scenario("{ driver: virtio, lro: true }"), "hosts.vm2.nic.lro", 5, "vmx or vmxnet3");
  expect_error(vm_scenario("{ driver: vmxnet3, rx_head_buffer: 2048 }"), "hosts.vm2.nic.rx_head_buffer", 5,
               "driver: vmx");
  expect_error(vm_scenario("{ driver: vmx }", "{ driver: vmx }", "{ frame: -1us }"), "vswitches.esxi.cpu.frame", 7,
               "negative");
  expect_error(vm_scenario("{ driver: vmx }", "{ driver: vmx }", "{ fram: 1us }"), "vswitches.esxi.cpu.fram", 7,
               "frame");
  const std::string bad = "name: vm\nduration: 1ms\nhosts:\n  a: { address: 10.0.0.1 }\n  b: { address: 10.0.0.2 }\n"
                          "switches:\n  sw: {}\nvswitches:\n  esxi: {}\nlinks:\n"
                          "  a-sw: { ends: [a, sw], rate: 1Gbps }\n  b-sw: { ends: [b, sw], rate: 1Gbps }\n"
                          "  sw-esxi: { ends: [sw, esxi] }\n"
                          "traffic:\n  f: { type: tcp, from: a, to: b }\n";
  expect_error(bad, "links.sw-esxi.ends", 13, "must be a host");
  const std::string norate = "name: vm\nduration: 1ms\nhosts:\n  a: { address: 10.0.0.1 }\n  b: { address: 10.0.0.2 }\n"
                             "links:\n  a-b: { ends: [a, b] }\ntraffic:\n  f: { type: tcp, from: a, to: b }\n";
  expect_error(norate, "links.a-b.rate", 7, "rate");
}

}  // namespace
}  // namespace netsim
