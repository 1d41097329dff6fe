// netsim lab without root: what a scenario cell becomes on the real kernel
// (commands, rule order, htb rate with framing, offloads, tools' argv), the
// fields the lab refuses with their file:line, and the child-process layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "netsim/lab/child_process.h"
#include "netsim/lab/lab_cell_plan.h"
#include "netsim/lab/lab_commands.h"
#include "netsim/lab/lab_host_probe.h"
#include "netsim/scenario/scenario_loader.h"

namespace netsim::lab {
namespace {

const std::string kLab = std::string(NETSIM_SOURCE_DIR) + "/scenarios/lab-linux-nth.yaml";

LabEnvironment env250() {
  LabEnvironment e;
  e.config_hz = 250;
  e.congestion_controls = {"reno", "cubic"};
  e.iptables = "iptables-legacy";
  return e;
}

LabCellPlan plan_of(const std::vector<std::string>& sets, const LabEnvironment& env = env250()) {
  std::vector<Override> o;
  for (const std::string& s : sets) o.push_back(parse_override(s));
  return plan_lab_cell(load_scenario(kLab, o), env, "t");
}

std::string joined(const std::vector<Command>& cs) {
  std::string s;
  for (const Command& c : cs) s += command_text(c) + "\n";
  return s;
}

// The position of the first command containing `text`, or npos.
std::size_t index_of(const std::vector<Command>& cs, const std::string& text) {
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (command_text(cs[i]).find(text) != std::string::npos) return i;
  }
  return std::string::npos;
}

// The error of planning a scenario written to a file (so lines are real).
ScenarioError plan_error(const std::string& yaml, const LabEnvironment& env = env250()) {
  const std::string path = testing::TempDir() + "/lab_plan_test.yaml";
  std::ofstream(path) << yaml;
  try {
    plan_lab_cell(load_scenario(path), env, "t");
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return ScenarioError(SourceLoc{}, "", "");
}

const char* const kTwoHosts = R"(name: t
duration: 3s
hosts:
  s: { address: 198.18.0.1, hz: 250, os: linux }
  r: { address: 198.18.0.2, hz: 250, os: linux }
links:
  l: { ends: [s, r], rate: 1Gbps, delay: 250us }
traffic:
  f: { type: tcp, app: iperf3, from: s, to: r, cc: cubic, time: 3s }
)";

std::string with(const std::string& base, const std::string& from, const std::string& to) {
  std::string s = base;
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(LabPlan, NthCellBuildsNamespacesShapingRulesAndDelayInOrder) {
  const LabCellPlan p = plan_of({"traffic.iperf3.cc=reno", "filters.nth-drop.every=50", "traffic.iperf3.tso=false",
                                 "hosts.receiver.nic.gro=false"});
  EXPECT_EQ(p.a.netns, "netsim-lab-t-a");
  EXPECT_EQ(p.b.host, "receiver");
  EXPECT_EQ(p.link.delay_us, 250);
  const std::vector<Command> setup = setup_commands(p);
  const std::string text = joined(setup);
  // The veth pair is created directly inside the namespaces.
  EXPECT_NE(text.find("ip link add veth-a netns netsim-lab-t-a type veth peer name veth-b netns netsim-lab-t-b"),
            std::string::npos);
  EXPECT_NE(text.find("ip netns exec netsim-lab-t-b ip addr add 198.18.0.2/30 dev veth-b"), std::string::npos);
  // Both directions shaped; unlimited model queue -> a long pfifo leaf.
  EXPECT_NE(text.find("ip netns exec netsim-lab-t-a tc class add dev veth-a parent 1: classid 1:1 htb rate 984395318bit"),
            std::string::npos);
  EXPECT_NE(text.find("ip netns exec netsim-lab-t-b tc class add dev veth-b"), std::string::npos);
  EXPECT_NE(text.find("pfifo limit 100000"), std::string::npos);
  // The nth rule: receiver INPUT, the scenario's match, --packet 0.
  EXPECT_NE(text.find("ip netns exec netsim-lab-t-b iptables-legacy -A INPUT -p tcp --dport 5201 -m statistic --mode nth "
                      "--every 50 --packet 0 -j DROP"),
            std::string::npos);
  // Per-packet offload: TSO and GSO off at the sender, GRO off at the receiver.
  EXPECT_NE(text.find("ip netns exec netsim-lab-t-a ethtool -K veth-a tso off gso off gro off"), std::string::npos);
  EXPECT_NE(text.find("ip netns exec netsim-lab-t-b ethtool -K veth-b tso off gso off gro off"), std::string::npos);
  EXPECT_NE(text.find("net.ipv4.tcp_sack=1"), std::string::npos);
  // Delay rules after the filters (a dropped packet is never held), one per receiving side.
  const std::vector<Command> delay = delay_rule_commands(p);
  ASSERT_EQ(delay.size(), 2u);
  EXPECT_EQ(command_text(delay[1]),
            "ip netns exec netsim-lab-t-b iptables-legacy -A INPUT -i veth-b -j NFQUEUE --queue-num 0 --queue-bypass");
  EXPECT_EQ(command_text(delay_daemon_command(p, p.b.netns, "/x/netsim-nfq-delay", "d.json")),
            "ip netns exec netsim-lab-t-b /x/netsim-nfq-delay --queue 0 --delay-us 250 --stats-file d.json");
  EXPECT_LT(index_of(setup, "ip netns add"), index_of(setup, "ip link add"));
  EXPECT_EQ(joined(teardown_commands(p)), "ip netns del netsim-lab-t-a\nip netns del netsim-lab-t-b\n");
}

TEST(LabPlan, Iperf3ArgvFollowsTheFlow) {
  const LabCellPlan p = plan_of({"traffic.iperf3.cc=reno", "filters.nth-drop.every=none"});
  EXPECT_TRUE(p.rules.empty());  // every: none writes no rule
  ASSERT_EQ(p.flows.size(), 1u);
  const LabFlow& f = p.flows[0];
  EXPECT_EQ(command_text(in_netns(f.server_netns, f.server_argv)),
            "ip netns exec netsim-lab-t-b iperf3 -s -1 -B 198.18.0.2 -p 5201");
  EXPECT_EQ(command_text(in_netns(f.client_netns, f.client_argv)),
            "ip netns exec netsim-lab-t-a iperf3 -c 198.18.0.2 -B 198.18.0.1 -p 5201 -t 10 -l 131072 -P 1 -C reno -J -i 1");
  EXPECT_EQ(f.output_file, "iperf3.json");
  EXPECT_EQ(f.output_format, "iperf3-json");
  EXPECT_EQ(p.data_sender_netns, std::vector<std::string>{"netsim-lab-t-a"});
}

TEST(LabPlan, OffloadRowsSetSenderTsoGsoAndReceiverGro) {
  const std::string tso = joined(setup_commands(plan_of({"traffic.iperf3.tso=true", "hosts.receiver.nic.gro=false"})));
  EXPECT_NE(tso.find("ethtool -K veth-a tso on gso on gro off"), std::string::npos);
  EXPECT_NE(tso.find("ethtool -K veth-b tso off gso off gro off"), std::string::npos);
  const std::string gro = joined(setup_commands(plan_of({"traffic.iperf3.tso=false", "hosts.receiver.nic.gro=true"})));
  EXPECT_NE(gro.find("ethtool -K veth-b tso off gso off gro on"), std::string::npos);
}

TEST(LabPlan, HtbRateGivesMtuFramesTheWireRate) {
  LabLink k;
  k.rate_bps = 1'000'000'000;
  k.mtu = 1500;
  k.overhead_bytes = 24;  // framing 38 - 14
  EXPECT_EQ(htb_rate_bps(k), 984'395'318);  // 1e9 * 1514 / 1538, rounded down
  // Goodput of full-MSS segments (1448 bytes with timestamps) at that rate: 941.5 Mbit/s.
  EXPECT_NEAR(static_cast<double>(htb_rate_bps(k)) * 1448 / 1514 / 1e6, 941.5, 0.05);
  k.mtu = 9000;
  EXPECT_EQ(htb_rate_bps(k), 1'000'000'000LL * 9014 / 9038);
}

TEST(LabPlan, QueueLimitsAndRandomFilters) {
  const auto plan_yaml = [](const std::string& yaml) {
    const std::string path = testing::TempDir() + "/lab_plan_queue.yaml";
    std::ofstream(path) << yaml;
    return plan_lab_cell(load_scenario(path), env250(), "t");
  };
  const std::string random = with(kTwoHosts, "delay: 250us }", "delay: 250us, queue: { packets: 64 } }") +
                             "filters:\n  d: { host: r, hook: ingress, type: random, probability: 0.01 }\n";
  const std::string text = joined(setup_commands(plan_yaml(random)));
  EXPECT_NE(text.find("pfifo limit 64"), std::string::npos) << text;
  EXPECT_NE(text.find("-m statistic --mode random --probability 0.01 -j DROP"), std::string::npos) << text;
  const std::string bytes =
      joined(setup_commands(plan_yaml(with(kTwoHosts, "delay: 250us }", "delay: 250us, queue: { bytes: 150000 } }"))));
  EXPECT_NE(bytes.find("bfifo limit 150000"), std::string::npos) << bytes;
}

TEST(LabPlan, RefusesWhatTheLabCannotReproduceNamingFileLineAndField) {
  ScenarioError e = plan_error(with(kTwoHosts, "hz: 250, os: linux }\n  r:", "hz: 250, os: linux, clock_ppm: 50 }\n  r:"));
  EXPECT_EQ(e.field, "hosts.s.clock_ppm");
  EXPECT_EQ(e.loc.line, 4);
  EXPECT_NE(std::string(e.what()).find("lab_plan_test.yaml:4:"), std::string::npos) << e.what();

  e = plan_error(with(kTwoHosts, "{ address: 198.18.0.1, hz: 250", "{ address: 198.18.0.1, hz: 1000"));
  EXPECT_EQ(e.field, "hosts.s.hz");
  EXPECT_NE(e.message.find("CONFIG_HZ=250"), std::string::npos);

  e = plan_error(with(kTwoHosts, "198.18.0.1", "10.0.0.1"));
  EXPECT_EQ(e.field, "hosts.s.address");
  EXPECT_NE(e.message.find("198.18.0.0/15"), std::string::npos);

  e = plan_error(with(kTwoHosts, "hz: 250, os: linux }\n  r:", "hz: 250 }\n  r:"));
  EXPECT_EQ(e.field, "hosts.s.os");

  e = plan_error(with(kTwoHosts, "app: iperf3", "app: bulk"));
  EXPECT_EQ(e.field, "traffic.f.app");

  e = plan_error(with(kTwoHosts, "time: 3s }", "time: 2500ms }"));
  EXPECT_EQ(e.field, "traffic.f.time");

  e = plan_error(with(kTwoHosts, "cc: cubic", "cc: reno"), [] {
    LabEnvironment env = env250();
    env.congestion_controls = {"cubic"};
    return env;
  }());
  EXPECT_EQ(e.field, "traffic.f.cc");
  EXPECT_NE(e.message.find("offers cubic"), std::string::npos);

  e = plan_error(with(kTwoHosts, "rate: 1Gbps, delay: 250us }", "rate: 1Gbps, delay: 250us, eee: {} }"));
  EXPECT_EQ(e.field, "links.l.eee");

  e = plan_error(with(kTwoHosts, "os: linux }\nlinks", "os: linux, nic: { irq_delay: 50us } }\nlinks"));
  EXPECT_EQ(e.field, "hosts.r.nic.irq_delay");

  e = plan_error(with(kTwoHosts, "os: linux }\nlinks", "os: linux, nic: { filter_position: before_gro } }\nlinks"));
  EXPECT_EQ(e.field, "hosts.r.nic.filter_position");
}

TEST(LabPlan, AnOverrideIsBlamedAsTheOverride) {
  try {
    plan_of({"hosts.sender.clock_ppm=20"});
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.loc.file, "--set");
    EXPECT_EQ(e.field, "hosts.sender.clock_ppm");
    EXPECT_NE(std::string(e.what()).find("hosts.sender.clock_ppm=20"), std::string::npos) << e.what();
  }
}

TEST(LabPlan, HzIsNotCheckedWhenTheKernelConfigIsUnknown) {
  LabEnvironment env = env250();
  env.config_hz = 0;
  EXPECT_NO_THROW(plan_of({"hosts.sender.hz=1000", "hosts.receiver.hz=1000"}, env));
}

TEST(LabHostProbe, ConfigHzAndEnvironmentJson) {
  EXPECT_EQ(config_hz_from("# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n"), 250);
  EXPECT_EQ(config_hz_from("CONFIG_NO_HZ=y\n"), 0);
  EXPECT_EQ(environment_json({{"a", "x\"y"}, {"b", "1\n2"}}), "{\n  \"a\": \"x\\\"y\",\n  \"b\": \"1\\n2\"\n}\n");
}

TEST(ChildProcess, RunCommandCapturesOutputAndStatus) {
  const CommandResult r = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.output.find("out\n"), std::string::npos);
  EXPECT_NE(r.output.find("err\n"), std::string::npos);
  const CommandResult missing = run_command({"netsim-no-such-program-xyz"});
  EXPECT_NE(missing.status, 0);
}

TEST(ChildProcess, WaitTimesOutThenTerminateStopsTheChild) {
  ChildProcess c = ChildProcess::spawn({"sleep", "30"}, "", "");
  EXPECT_TRUE(c.running());
  EXPECT_FALSE(c.wait_for(std::chrono::milliseconds(50)).has_value());
  EXPECT_EQ(c.terminate(), 128 + SIGTERM);  // the child's SIGTERM is not blocked, whatever the parent's mask
  EXPECT_FALSE(c.running());
}

TEST(ChildProcess, WaitReturnsEarlyOnStop) {
  std::atomic<bool> stop{true};
  ChildProcess c = ChildProcess::spawn({"sleep", "30"}, "", "");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(c.wait_for(std::chrono::seconds(20), &stop).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

}  // namespace
}  // namespace netsim::lab
