// Profiles and includes: merge order, overrides and sweeps on what a profile
// provides, and the errors (at the right file and line).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/sim/units.h"
#include "scenario_error_capture.h"

namespace netsim {
namespace {

using namespace netsim::literals;

// A scratch directory per test, removed afterwards.
class Profiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("netsim-profiles-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "lib");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& rel, const std::string& text) {
    const std::filesystem::path p = dir_ / rel;
    std::ofstream(p) << text;
    return p.string();
  }
  static ScenarioError error(const std::string& path, const std::vector<Override>& overrides = {}) {
    return load_error(path, overrides);
  }

  std::filesystem::path dir_;
};

// The library every test includes. Lines: 1 profiles, 2 vm, 3 nic, 4 fast, 5 slow, 6 big-buffer, 7 wan.
const std::string kLib =
    "profiles:\n"
    "  vm:\n"
    "    nic: { irq_delay: 20us, irq_jitter: 157us, irq_min_interval: 250us }\n"
    "  fast: { hz: 1000, nic: { irq_delay: 5us } }\n"
    "  slow: { hz: 100 }\n"
    "  big-buffer: { buffer: 512KB }\n"
    "  wan: { rate: 1Gbps, delay: 111us }\n";

std::string scenario(const std::string& hosts_extra, const std::string& tail = "") {
  return "name: p\n"
         "include: [lib/vms.yaml]\n"
         "duration: 1s\n"
         "hosts:\n"
         "  a: { address: 10.0.0.1" + hosts_extra + " }\n"
         "  b: { address: 10.0.0.2, profile: vm }\n"
         "switches:\n"
         "  sw: { profile: big-buffer }\n"
         "links:\n"
         "  a-sw: { ends: [a, sw], profile: wan }\n"
         "  sw-b: { ends: [sw, b], profile: wan, delay: 5us }\n"
         "traffic:\n"
         "  f: { type: udp, from: a, to: b }\n" + tail;
}

const HostSpec& host(const ScenarioSpec& s, const std::string& name) {
  for (const auto& h : s.hosts) {
    if (h.name == name) return h;
  }
  throw std::runtime_error("no host " + name);
}

TEST_F(Profiles, MergeUnderTheElementsOwnKeys) {
  write("lib/vms.yaml", kLib);
  const ScenarioSpec s = load_scenario(write("s.yaml", scenario(", hz: 250, profile: vm, nic: { irq_delay: 1us }")));
  const HostSpec& a = host(s, "a");
  EXPECT_EQ(a.hz, 250);
  ASSERT_TRUE(a.nic.has_value());
  EXPECT_EQ(a.nic->irq_delay, 1_us);            // the host's own nic key wins ...
  EXPECT_EQ(a.nic->irq_jitter, 157_us);         // ... the rest of the profile's nic block is merged in
  EXPECT_EQ(a.nic->irq_min_interval, 250_us);
  EXPECT_EQ(host(s, "b").nic->irq_delay, 20_us);
  ASSERT_EQ(s.switches.size(), 1u);
  EXPECT_EQ(s.switches[0].buffer_bytes, 512'000);
  EXPECT_EQ(s.links[0].delay, 111_us);
  EXPECT_EQ(s.links[1].delay, 5_us);  // a link's own key wins too
  EXPECT_EQ(s.links[1].rate, DataRate::gbps(1));
  EXPECT_EQ(s.includes, (std::vector<std::string>{(dir_ / "lib/vms.yaml").string()}));
}

TEST_F(Profiles, LaterProfileInAListWins) {
  write("lib/vms.yaml", kLib);
  const ScenarioSpec s = load_scenario(write("s.yaml", scenario(", profile: [vm, fast, slow]")));
  const HostSpec& a = host(s, "a");
  EXPECT_EQ(a.hz, 100);                      // slow over fast
  EXPECT_EQ(a.nic->irq_delay, 5_us);         // fast over vm
  EXPECT_EQ(a.nic->irq_jitter, 157_us);      // only vm has it
}

TEST_F(Profiles, OverridesAndSweepsReachProfileFields) {
  write("lib/vms.yaml", kLib);
  const std::string path = write("s.yaml", scenario(", profile: vm", "sweep:\n  hosts.b.nic.irq_jitter: [0s, 50us]\n"));
  const ScenarioSpec s = load_scenario(path, {Override{"hosts.a.nic.irq_jitter", "7us"}});
  EXPECT_EQ(host(s, "a").nic->irq_jitter, 7_us);
  EXPECT_EQ(host(s, "a").nic->irq_delay, 20_us);
  const auto cells = expand_sweep(s);
  ASSERT_EQ(cells.size(), 2u);
  const ScenarioSpec second = load_scenario(path, cells[1]);
  EXPECT_EQ(host(second, "b").nic->irq_jitter, 50_us);
  EXPECT_EQ(host(second, "b").nic->irq_min_interval, 250_us);
}

TEST_F(Profiles, IncludesAreRelativeToTheIncludingFileAndMayNest) {
  write("lib/vms.yaml", "include: [more/base.yaml]\nprofiles:\n  slow: { hz: 100 }\n");
  std::filesystem::create_directories(dir_ / "lib/more");
  write("lib/more/base.yaml", "profiles:\n  vm: { nic: { irq_delay: 33us } }\n  big-buffer: { buffer: 1MB }\n"
                              "  wan: { rate: 1Gbps }\n");
  const ScenarioSpec s = load_scenario(write("s.yaml", scenario(", profile: slow")));
  EXPECT_EQ(host(s, "a").hz, 100);
  EXPECT_EQ(host(s, "b").nic->irq_delay, 33_us);
  EXPECT_EQ(s.includes.size(), 2u);
}

TEST_F(Profiles, UnknownProfileIsReportedAtTheName) {
  write("lib/vms.yaml", kLib);
  const std::string path = write("s.yaml", scenario(", profile: [vm, fsat]"));
  const ScenarioError e = error(path);
  EXPECT_EQ(e.loc.file, path);
  EXPECT_EQ(e.loc.line, 5);
  EXPECT_EQ(e.loc.column, 41);
  EXPECT_EQ(e.field, "hosts.a.profile[1]");
  EXPECT_NE(e.message.find("unknown profile 'fsat'"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("did you mean 'fast'?"), std::string::npos) << e.what();
}

TEST_F(Profiles, BadFieldInsideAProfileIsReportedInTheProfileFile) {
  const std::string lib = write("lib/vms.yaml", "profiles:\n  vm:\n    nic: { irq_dealy: 20us }\n"
                                                "  big-buffer: { buffer: 1MB }\n  wan: { rate: 1Gbps }\n");
  const ScenarioError e = error(write("s.yaml", scenario("")));
  EXPECT_EQ(e.loc.file, lib);
  EXPECT_EQ(e.loc.line, 3);
  EXPECT_EQ(e.loc.column, 12);
  EXPECT_EQ(e.field, "hosts.b.nic.irq_dealy");
  EXPECT_NE(e.message.find("did you mean 'irq_delay'?"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("(from profile 'vm')"), std::string::npos) << e.what();
  // A bad value too, and the message starts with the profile file's location.
  write("lib/vms.yaml", "profiles:\n  vm: { hz: fast }\n  big-buffer: { buffer: 1MB }\n  wan: { rate: 1Gbps }\n");
  const ScenarioError v = error(dir_ / "s.yaml");
  EXPECT_EQ(std::string(v.what()).rfind(lib + ":2:13: error: field 'hosts.b.hz'", 0), 0u) << v.what();
}

TEST_F(Profiles, IncludeCycleNamesTheIncludeEntry) {
  const std::string lib = write("lib/vms.yaml", "include: [../s.yaml]\nprofiles:\n  vm: { hz: 100 }\n");
  const std::string path = write("s.yaml", scenario(""));
  // s.yaml -> lib/vms.yaml -> s.yaml: reported where vms.yaml includes s.yaml again.
  const ScenarioError e = error(path);
  EXPECT_EQ(e.loc.file, lib);
  EXPECT_EQ(e.loc.line, 1);
  EXPECT_EQ(e.loc.column, 11);
  EXPECT_NE(e.message.find("include cycle: s.yaml -> vms.yaml -> s.yaml"), std::string::npos) << e.what();
}

TEST_F(Profiles, IncludeErrors) {
  const std::string path = write("s.yaml", scenario(""));
  const ScenarioError missing = error(path);  // lib/vms.yaml does not exist
  EXPECT_EQ(missing.loc.file, path);
  EXPECT_EQ(missing.loc.line, 2);
  EXPECT_EQ(missing.field, "include[0]");
  EXPECT_NE(missing.message.find("cannot read included file"), std::string::npos) << missing.what();

  const std::string lib = write("lib/vms.yaml", "profiles:\n  vm: { hz: 100 }\nhosts: {}\n");
  const ScenarioError extra = error(path);
  EXPECT_EQ(extra.loc.file, lib);
  EXPECT_EQ(extra.loc.line, 3);
  EXPECT_NE(extra.message.find("unknown key 'hosts' (accepted keys: include, profiles, description)"),
            std::string::npos)
      << extra.what();

  write("lib/vms.yaml", kLib + "  vm: { hz: 100 }\n");
  const ScenarioError twice = error(path);
  EXPECT_EQ(twice.loc.line, 8);
  EXPECT_NE(twice.message.find("duplicate key 'vm'"), std::string::npos) << twice.what();

  write("lib/vms.yaml", kLib);
  const ScenarioError dup = error(write("s.yaml", scenario("", "profiles:\n  slow: { hz: 250 }\n")));
  EXPECT_EQ(dup.loc.file, (dir_ / "s.yaml").string());
  EXPECT_NE(dup.message.find("profile 'slow' is already defined at " + lib + ":5"), std::string::npos) << dup.what();
}

TEST_F(Profiles, ProfileChoiceCannotBeOverriddenOrSwept) {
  write("lib/vms.yaml", kLib);
  const std::string path = write("s.yaml", scenario(", profile: vm"));
  const ScenarioError set = error(path, {Override{"hosts.a.profile", "fast"}});
  EXPECT_EQ(set.loc.file, "--set");
  EXPECT_NE(set.message.find("cannot be overridden"), std::string::npos) << set.what();
  const ScenarioError lib = error(path, {Override{"profiles.vm.hz", "100"}});
  EXPECT_NE(lib.message.find("cannot be overridden"), std::string::npos) << lib.what();
  const ScenarioError sweep = error(write("t.yaml", scenario("", "sweep:\n  hosts.a.profile: [vm, fast]\n")));
  EXPECT_EQ(sweep.loc.line, 15);
  EXPECT_NE(sweep.message.find("cannot be swept"), std::string::npos) << sweep.what();
}

TEST_F(Profiles, ShippedT1ScenarioGetsTheT1ReceivePaths) {
  const ScenarioSpec s = load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/t1-loss-resilience.yaml");
  const HostSpec& snd = host(s, "sender");
  const HostSpec& rcv = host(s, "receiver");
  for (const HostSpec* h : {&snd, &rcv}) {
    ASSERT_TRUE(h->nic.has_value()) << h->name;
    EXPECT_EQ(h->nic->irq_delay, 20_us);
    EXPECT_EQ(h->nic->irq_jitter, 20_us);  // a loaded guest's interrupts...
    EXPECT_EQ(h->nic->idle_wake_jitter, 137_us);  // ...the ping's spread is in the wake-ups
    EXPECT_EQ(h->nic->irq_min_interval, 0);  // a virtio guest has no interrupt throttling...
    EXPECT_EQ(h->nic->host_int_rx_mod, 65_us);  // ...the box's re(4) NIC moderates instead
    EXPECT_EQ(h->nic->idle_wake_delay, 167'500_ns);
    EXPECT_EQ(h->nic->idle_after, 1'000_us);
    EXPECT_TRUE(h->nic->gro);
  }
  EXPECT_EQ(snd.hz, 1000);
  EXPECT_EQ(rcv.hz, 250);
  // An idle ping: four crossings of sleeping links (EEE, 1000BASE-T's 16.5 us
  // wake) and two woken receive paths, 485 us plus 0-314 us of jitter.
  for (const LinkSpec& l : s.links) {
    EXPECT_EQ(l.delay, 11_us) << l.name;
    ASSERT_TRUE(l.eee.has_value()) << l.name;
    EXPECT_EQ(l.eee->wake, 16'500_ns);
    EXPECT_EQ(l.eee->lpi_after, 12'368_ns);
    EXPECT_TRUE(l.eee->symmetric);
  }
  EXPECT_EQ(4 * (s.links.at(0).delay + s.links.at(0).eee->wake) +
                2 * (snd.nic->irq_delay + snd.nic->idle_wake_delay),
            485_us);
  EXPECT_EQ(2 * (snd.nic->irq_jitter + snd.nic->idle_wake_jitter), 314_us);
  EXPECT_EQ(s.switches.at(0).buffer_bytes, 256'000);
}

}  // namespace
}  // namespace netsim
