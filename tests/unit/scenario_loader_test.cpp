#include "netsim/scenario/scenario_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "netsim/calibrate/calibration_profile.h"
#include "netsim/sim/units.h"
#include "scenario_error_capture.h"

namespace netsim {
namespace {

using namespace netsim::literals;

std::string fixture(const std::string& name) {
  return std::string(NETSIM_SOURCE_DIR) + "/tests/data/scenarios/" + name;
}

ScenarioError text_error(const std::string& yaml, const std::vector<Override>& overrides = {}) {
  try {
    parse_scenario_text(yaml, "inline.yaml", overrides);
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error:\n" << yaml;
  return ScenarioError(SourceLoc{}, "", "no error");
}

// Asserts the complete location of an error in tests/data/scenarios/bad/<name>.
void expect_bad(const std::string& name, int line, int column, const std::string& field, const std::string& fragment) {
  SCOPED_TRACE(name);
  const std::string path = fixture("bad/" + name);
  const ScenarioError e = load_error(path);
  EXPECT_EQ(e.loc.file, path);
  EXPECT_EQ(e.loc.line, line);
  EXPECT_EQ(e.loc.column, column);
  EXPECT_EQ(e.field, field);
  EXPECT_NE(e.message.find(fragment), std::string::npos) << e.what();
  const std::string prefix = path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                             ": error: " + (field.empty() ? std::string() : "field '" + field + "': ");
  EXPECT_EQ(std::string(e.what()), prefix + e.message);
}

void expect_text_error(const std::string& yaml, int line, int column, const std::string& field,
                       const std::string& fragment) {
  const ScenarioError e = text_error(yaml);
  EXPECT_EQ(e.loc.file, "inline.yaml");
  EXPECT_EQ(e.loc.line, line) << e.what();
  EXPECT_EQ(e.loc.column, column) << e.what();
  EXPECT_EQ(e.field, field);
  EXPECT_NE(e.message.find(fragment), std::string::npos) << e.what();
}

// A valid scenario that the inline tests append to or edit. Lines:
// 1 name, 2 duration, 3 hosts, 4-5 a b, 6 links, 7 a-b, 8 traffic, 9 f.
const std::string kBase =
    "name: t\n"
    "duration: 1s\n"
    "hosts:\n"
    "  a: { address: 10.0.0.1 }\n"
    "  b: { address: 10.0.0.2 }\n"
    "links:\n"
    "  a-b: { ends: [a, b], rate: 1Gbps }\n"
    "traffic:\n"
    "  f: { type: udp, from: a, to: b }\n";

// ---------------------------------------------------------------------------
// enabled: a flow switched off is validated, then left out of the run.

TEST(ScenarioLoader, DisabledFlowsAreLeftOut) {
  const std::string yaml = kBase +
                           "  t: { type: tcp, from: a, to: b, enabled: false }\n"
                           "  p: { type: ping, from: a, to: b, enabled: true }\n";
  const ScenarioSpec s = parse_scenario_text(yaml, "inline.yaml");
  ASSERT_EQ(s.udp_flows.size(), 1u);
  EXPECT_TRUE(s.tcp_flows.empty());
  ASSERT_EQ(s.ping_flows.size(), 1u);
  // A sweep value turns it back on (and the udp flow off).
  const ScenarioSpec swapped = parse_scenario_text(
      yaml, "inline.yaml", {{"traffic.t.enabled", "true"}, {"traffic.f.enabled", "false"}});
  EXPECT_EQ(swapped.tcp_flows.size(), 1u);
  EXPECT_TRUE(swapped.udp_flows.empty());
}
TEST(ScenarioLoaderErrors, DisabledFlowIsStillValidated) {
  expect_text_error(kBase + "  t: { type: tcp, from: a, to: nowhere, enabled: false }\n", 10, 32, "traffic.t.to",
                    "unknown host 'nowhere'");
}
TEST(ScenarioLoaderErrors, EnabledMustBeBoolean) {
  expect_text_error(kBase + "  t: { type: tcp, from: a, to: b, enabled: maybe }\n", 10, 44, "traffic.t.enabled",
                    "expected true or false");
}

// ---------------------------------------------------------------------------
// Good scenarios

TEST(ScenarioLoader, FullScenarioValues) {
  const std::string path = fixture("good/full.yaml");
  const ScenarioSpec s = load_scenario(path);
  EXPECT_EQ(s.file, path);
  EXPECT_EQ(s.name, "udp-switch-nth");
  EXPECT_EQ(s.description, "UDP through a switch, every 100th datagram dropped");
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.duration, 1_s);
  EXPECT_EQ(s.interval, 100_ms);

  ASSERT_EQ(s.hosts.size(), 4u);
  EXPECT_EQ(s.hosts[0].name, "sender");
  EXPECT_EQ(s.hosts[0].address, "10.0.0.1");
  EXPECT_EQ(s.hosts[0].ip_version, IpVersion::v4);
  EXPECT_EQ(s.hosts[0].hz, 1000);
  EXPECT_EQ(s.hosts[1].name, "receiver");
  EXPECT_EQ(s.hosts[1].loc.file, path);
  EXPECT_EQ(s.hosts[1].loc.line, 9);
  EXPECT_EQ(s.hosts[1].loc.column, 3);
  EXPECT_EQ(s.hosts[2].address, "fd00::1");
  EXPECT_EQ(s.hosts[2].ip_version, IpVersion::v6);
  EXPECT_EQ(s.hosts[2].hz, 250);

  ASSERT_EQ(s.switches.size(), 1u);
  EXPECT_EQ(s.switches[0].name, "sw1");
  EXPECT_EQ(s.switches[0].buffer_bytes, 256'000);
  EXPECT_EQ(s.switches[0].buffer_packets, 100);
  EXPECT_EQ(s.switches[0].loc.line, 13);
  ASSERT_EQ(s.hubs.size(), 1u);
  EXPECT_EQ(s.hubs[0].rate, DataRate::mbps(100));
  EXPECT_EQ(s.hubs[0].buffer_bytes, 64'000);  // default 64KB

  ASSERT_EQ(s.links.size(), 4u);
  const LinkSpec& a_sw = s.links[0];
  EXPECT_EQ(a_sw.name, "a-sw");
  EXPECT_EQ(a_sw.loc.line, 17);
  EXPECT_EQ(a_sw.loc.column, 3);
  EXPECT_EQ(a_sw.end_a, "sender");
  EXPECT_EQ(a_sw.end_b, "sw1");
  EXPECT_EQ(a_sw.rate, DataRate::gbps(1));
  EXPECT_EQ(a_sw.delay, 5_us);
  EXPECT_EQ(a_sw.mtu, 1500);
  EXPECT_EQ(a_sw.framing_bytes, 38);
  EXPECT_EQ(a_sw.queue_packets, 1000);
  EXPECT_EQ(a_sw.queue_bytes, 1'000'000);
  EXPECT_EQ(s.links[1].delay, 2500_ns);
  EXPECT_EQ(s.links[1].rate, DataRate::gbps(10));
  EXPECT_FALSE(s.links[1].queue_packets.has_value());
  EXPECT_EQ(s.links[2].mtu, 9000);
  EXPECT_EQ(s.links[3].framing_bytes, 0);

  ASSERT_EQ(s.filters.size(), 2u);
  const FilterSpec& nth = s.filters[0];
  EXPECT_EQ(nth.name, "drop-nth");
  EXPECT_EQ(nth.host, "receiver");
  EXPECT_EQ(nth.hook, FilterHook::ingress);
  EXPECT_EQ(nth.type, FilterType::nth);
  EXPECT_EQ(nth.every, 100);
  EXPECT_EQ(nth.packet, 3);
  EXPECT_EQ(nth.match.protocol, IpProtocol::udp);
  EXPECT_EQ(nth.match.dst_port, 5001);
  EXPECT_FALSE(nth.match.src_port.has_value());
  const FilterSpec& lossy = s.filters[1];
  EXPECT_EQ(lossy.loc.line, 23);
  EXPECT_EQ(lossy.hook, FilterHook::egress);
  EXPECT_EQ(lossy.type, FilterType::random);
  EXPECT_DOUBLE_EQ(lossy.probability, 0.01);

  ASSERT_EQ(s.udp_flows.size(), 2u);
  const UdpFlowSpec& udp1 = s.udp_flows[0];
  EXPECT_EQ(udp1.name, "udp1");
  EXPECT_EQ(udp1.loc.line, 29);
  EXPECT_EQ(udp1.from, "sender");
  EXPECT_EQ(udp1.to, "receiver");
  EXPECT_EQ(udp1.dst_port, 5001);
  EXPECT_EQ(udp1.src_port, 40000);
  EXPECT_EQ(udp1.payload_bytes, 1472);
  EXPECT_EQ(udp1.rate, DataRate::mbps(500));
  EXPECT_EQ(udp1.start, 0);
  EXPECT_EQ(udp1.stop, 1_s);
  const UdpFlowSpec& udp6 = s.udp_flows[1];
  EXPECT_FALSE(udp6.rate.has_value());  // default: max
  EXPECT_EQ(udp6.src_port, 0);
  EXPECT_EQ(udp6.dst_port, 5001);
  EXPECT_EQ(udp6.payload_bytes, 1472);
  EXPECT_EQ(udp6.start, 10_ms);
  EXPECT_FALSE(udp6.stop.has_value());

  ASSERT_EQ(s.sweep.size(), 2u);
  EXPECT_EQ(s.sweep[0].key, "links.a-sw.delay");
  EXPECT_EQ(s.sweep[0].paths, (std::vector<std::string>{"links.a-sw.delay"}));
  EXPECT_EQ(s.sweep[0].values, (std::vector<std::vector<std::string>>{{"10us"}, {"100us"}}));
  EXPECT_EQ(s.sweep[0].loc.line, 32);
  EXPECT_EQ(s.sweep[0].loc.column, 3);
  EXPECT_EQ(s.sweep[1].key, "seed");
  EXPECT_EQ(s.sweep[1].values, (std::vector<std::vector<std::string>>{{"1"}, {"2"}, {"3"}}));

  ASSERT_TRUE(s.measured.IsMap());
  EXPECT_EQ(s.measured["udp1"]["goodput"].as<std::string>(), "495.5Mbps");
  EXPECT_TRUE(s.overrides.empty());
}

TEST(ScenarioLoader, MinimalScenarioDefaults) {
  const ScenarioSpec s = load_scenario(fixture("good/minimal.yaml"));
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.interval, 0);
  EXPECT_EQ(s.description, "");
  EXPECT_EQ(s.hosts[0].hz, 1000);
  EXPECT_EQ(s.links[0].delay, 0);
  EXPECT_EQ(s.links[0].mtu, 1500);
  EXPECT_EQ(s.links[0].framing_bytes, 38);
  EXPECT_FALSE(s.links[0].queue_packets.has_value());
  EXPECT_FALSE(s.links[0].queue_bytes.has_value());
  EXPECT_EQ(s.udp_flows[0].payload_bytes, 1472);
  EXPECT_FALSE(s.udp_flows[0].rate.has_value());
  EXPECT_TRUE(s.switches.empty());
  EXPECT_TRUE(s.filters.empty());
  EXPECT_TRUE(s.sweep.empty());
}

TEST(ScenarioLoader, BlockStyleAndEmptyElements) {
  const ScenarioSpec s = load_scenario(fixture("good/block_style.yaml"));
  EXPECT_EQ(s.hosts[0].hz, 100);
  EXPECT_EQ(s.hosts[0].loc.line, 7);
  ASSERT_EQ(s.switches.size(), 1u);
  EXPECT_EQ(s.switches[0].buffer_bytes, 128'000);  // "core:" with no value takes all defaults
  EXPECT_FALSE(s.switches[0].buffer_packets.has_value());
  EXPECT_EQ(s.links[0].end_b, "core");
  EXPECT_EQ(s.links[0].delay, 1_ms);
  EXPECT_EQ(s.links[1].queue_packets, 64);
  EXPECT_EQ(s.udp_flows[0].payload_bytes, 1024);  // 1KiB
  EXPECT_FALSE(s.udp_flows[0].rate.has_value());
}

TEST(ScenarioLoader, ParallelLinksAreAllowed) {
  const ScenarioSpec s = load_scenario(fixture("good/parallel_links.yaml"));
  ASSERT_EQ(s.links.size(), 2u);
  EXPECT_EQ(s.links[1].end_a, "b");
  EXPECT_TRUE(s.udp_flows.empty());
}

TEST(ScenarioLoader, ShippedScenariosLoad) {
  // Every scenario in good/ must load; a new fixture is covered automatically.
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixture("good"))) {
    EXPECT_NO_THROW(load_scenario(entry.path().string())) << entry.path();
    ++count;
  }
  EXPECT_GE(count, 4);
}

// ---------------------------------------------------------------------------
// Errors: each case names file, line, column, field and a message fragment.

TEST(ScenarioLoaderErrors, UnparsableYaml) { expect_bad("syntax.yaml", 8, 35, "", "invalid YAML"); }
TEST(ScenarioLoaderErrors, FileNotFound) {
  const std::string path = fixture("bad/does-not-exist.yaml");
  const ScenarioError e = load_error(path);
  EXPECT_EQ(e.loc.file, path);
  EXPECT_EQ(e.loc.line, 0);
  EXPECT_EQ(e.field, "");
  EXPECT_NE(e.message.find("'" + path + "'"), std::string::npos);
  EXPECT_NE(e.message.find("No such file"), std::string::npos);
  EXPECT_EQ(std::string(e.what()), path + ": error: " + e.message);
}
TEST(ScenarioLoaderErrors, Directory) {
  const ScenarioError e = load_error(fixture("bad"));
  EXPECT_NE(e.message.find("is a directory"), std::string::npos);
}
TEST(ScenarioLoaderErrors, EmptyFile) { expect_bad("empty.yaml", 1, 1, "", "the scenario is empty"); }
TEST(ScenarioLoaderErrors, TopLevelNotAMap) { expect_bad("top_list.yaml", 2, 1, "", "top level must be a map"); }
TEST(ScenarioLoaderErrors, ABinaryFileIsEchoedAsPrintableText) {
  // A binary file parses as one long scalar; the message quotes it with
  // control and non-ASCII bytes as \xNN, cut after 60 characters.
  std::string junk = "L\x01\xfe\x7f";
  junk += std::string(100, 'z');
  const ScenarioError e = text_error(junk);
  EXPECT_NE(e.message.find("top level must be a map"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("got 'L\\x01\\xfe\\x7f" + std::string(56, 'z') + "...'"), std::string::npos) << e.what();
  for (const char c : e.message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << e.what();
}
TEST(ScenarioLoaderErrors, AnEnumValueWithAControlByteIsEscaped) {
  const ScenarioError e = text_error(kBase + "filters:\n  d: { host: a, hook: ingress, type: \"nth\\t\", every: 3 }\n");
  EXPECT_NE(e.message.find("got 'nth\\x09'"), std::string::npos) << e.what();
}
TEST(ScenarioLoaderErrors, AKeyWithControlBytesIsEscapedInTheFieldAndTheMessage) {
  const ScenarioError e = text_error(kBase + "\"dur\\x1b[2Jation\": 1s\n");
  EXPECT_NE(e.message.find("unknown key 'dur\\x1b[2Jation'"), std::string::npos) << e.what();
  const std::string what = e.what();
  EXPECT_NE(what.find("field 'dur\\x1b[2Jation'"), std::string::npos) << what;
  for (const char c : what) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << what;
}
TEST(ScenarioLoaderErrors, TwoDocuments) { expect_bad("two_documents.yaml", 5, 1, "", "one YAML document"); }
TEST(ScenarioLoaderErrors, LeadingComma) { expect_bad("leading_comma.yaml", 2, 1, "", "invalid YAML: unexpected ','"); }
TEST(ScenarioLoader, TrailingEmptyDocumentsAreHarmless) {
  EXPECT_EQ(parse_scenario_text(kBase + "---\n...\n", "inline.yaml").name, "t");
}

TEST(ScenarioLoaderErrors, UnknownKeyWithSuggestion) {
  expect_bad("unknown_key.yaml", 8, 37, "links.a-b.dealy", "did you mean 'delay'?");
  expect_bad("unknown_key.yaml", 8, 37, "links.a-b.dealy", "accepted keys: ends, rate, delay, mtu, framing, queue");
}
TEST(ScenarioLoaderErrors, UnknownNestedKeyWithoutSuggestion) {
  expect_bad("unknown_nested_key.yaml", 13, 7, "links.a-b.queue.colour", "(accepted keys: packets, bytes)");
  const ScenarioError e = load_error(fixture("bad/unknown_nested_key.yaml"));
  EXPECT_EQ(e.message.find("did you mean"), std::string::npos);
}
TEST(ScenarioLoaderErrors, UnknownTopLevelKey) {
  expect_text_error(kBase + "hostz: {}\n", 10, 1, "hostz", "did you mean 'hosts'?");
}

TEST(ScenarioLoaderErrors, MapWhereScalarExpected) {
  expect_bad("map_for_scalar.yaml", 8, 44, "links.a-b.delay", "expected a duration such as 250us, got a map");
}
TEST(ScenarioLoaderErrors, ListWhereMapExpected) {
  expect_bad("list_for_map.yaml", 5, 3, "hosts", "expected a map of name -> host, got a list");
}
TEST(ScenarioLoaderErrors, EveryNotInteger) {
  expect_bad("every_not_integer.yaml", 10, 38, "filters.drop.every", "expected an integer, got '1.5'");
}
TEST(ScenarioLoaderErrors, HzNotInteger) {
  expect_bad("hz_fast.yaml", 7, 9, "hosts.a.hz", "expected an integer, got 'fast'");
}
TEST(ScenarioLoaderErrors, ListWhereStringExpected) {
  expect_text_error("name: [a, b]\n" + kBase.substr(kBase.find('\n') + 1), 1, 7, "name",
                    "expected a string, got a list");
}

TEST(ScenarioLoaderErrors, MissingRequiredFieldAtParentMap) {
  expect_bad("missing_address.yaml", 6, 6, "hosts.b.address", "required field 'address' is missing");
}
TEST(ScenarioLoaderErrors, MissingTopLevelField) {
  expect_bad("missing_duration.yaml", 2, 1, "duration", "required field 'duration' is missing");
}
TEST(ScenarioLoaderErrors, MissingFilterType) {
  expect_text_error(kBase + "filters:\n  x: { host: b, every: 3 }\n", 11, 6, "filters.x.type",
                    "required field 'type' is missing");
}

TEST(ScenarioLoaderErrors, UnknownLinkEnd) {
  expect_bad("unknown_end.yaml", 10, 21, "links.a-sw.ends", "unknown node 'sw2' (known nodes: a, b, sw1)");
}
TEST(ScenarioLoaderErrors, UnknownFilterHost) {
  expect_bad("unknown_filter_host.yaml", 10, 17, "filters.drop.host", "unknown host 'c' (known hosts: a, b)");
}
TEST(ScenarioLoaderErrors, UnknownFlowFrom) {
  expect_bad("unknown_from.yaml", 10, 25, "traffic.f.from", "did you mean 'sender'?");
}
TEST(ScenarioLoaderErrors, UnknownFlowTo) {
  expect_bad("unknown_to.yaml", 13, 9, "traffic.f.to", "unknown host 'nowhere' (known hosts: a, b)");
}
TEST(ScenarioLoaderErrors, FlowEndpointIsASwitch) {
  const std::string edited = kBase.substr(0, kBase.find("to: b")) + "to: sw }\nswitches:\n  sw: {}\n";
  expect_text_error(edited, 9, 32, "traffic.f.to", "'sw' is a switch");
}
TEST(ScenarioLoaderErrors, FilterOnSwitch) {
  expect_bad("filter_on_switch.yaml", 13, 17, "filters.drop.host",
             "'sw1' is a switch, but filters can only be attached");
}
TEST(ScenarioLoaderErrors, LinkToItself) {
  expect_bad("link_self.yaml", 8, 21, "links.loop.ends", "two different ends, but both are 'a'");
}

TEST(ScenarioLoaderErrors, NegativeRate) {
  expect_bad("negative_rate.yaml", 8, 30, "links.a-b.rate", "negative values are not allowed");
}
TEST(ScenarioLoaderErrors, ZeroRate) { expect_bad("zero_rate.yaml", 8, 30, "links.a-b.rate", "greater than zero"); }
TEST(ScenarioLoaderErrors, UnparsableUnit) {
  expect_bad("bad_unit.yaml", 8, 44, "links.a-b.delay", "unknown unit 'parsecs'");
}

TEST(ScenarioLoaderErrors, HzOutOfRange) {
  expect_bad("hz_range.yaml", 5, 31, "hosts.a.hz", "between 10 and 100000, got 5");
}
TEST(ScenarioLoaderErrors, PacketNotBelowEvery) {
  expect_bad("packet_ge_every.yaml", 10, 51, "filters.drop.packet", "must be less than every (100), got 100");
}
TEST(ScenarioLoaderErrors, ProbabilityOutOfRange) {
  expect_bad("probability_range.yaml", 13, 18, "filters.drop.probability", "between 0 and 1, got 1.5");
}
TEST(ScenarioLoaderErrors, PortOutOfRange) {
  expect_bad("port_range.yaml", 10, 45, "traffic.f.dst_port", "between 1 and 65535, got 70000");
}
TEST(ScenarioLoaderErrors, MtuOutOfRange) {
  expect_bad("mtu_range.yaml", 8, 42, "links.a-b.mtu", "between 68 and 65535, got 20");
}
TEST(ScenarioLoaderErrors, Ipv6MtuBelow1280) {
  expect_bad("ipv6_mtu.yaml", 8, 42, "links.a-b.mtu", "at least 1280 on a link to IPv6 host 'a'");
}
TEST(ScenarioLoaderErrors, BadAddress) {
  expect_bad("bad_address.yaml", 5, 17, "hosts.a.address", "'10.0.0.256' is not an IPv4 address");
}
TEST(ScenarioLoaderErrors, DuplicateAddress) {
  std::string yaml = kBase;
  yaml.replace(yaml.find("10.0.0.2"), 8, "10.0.0.1");
  expect_text_error(yaml, 5, 17, "hosts.b.address", "already used by host 'a'");
}
TEST(ScenarioLoaderErrors, IntervalLongerThanDuration) {
  expect_bad("interval_too_long.yaml", 4, 11, "interval", "interval (2s) must not exceed duration (1s)");
}
// Files that cannot be read say why: the system's reason, or a directory
// (which an ifstream would open and read as empty).
TEST(ScenarioLoaderErrors, UnreadableFilesSayWhy) {
  const std::string dir = fixture("good");
  const ScenarioError d = load_error(dir);
  EXPECT_EQ(d.message, "cannot read scenario file '" + dir + "': it is a directory");
  const ScenarioError m = load_error(fixture("no-such.yaml"));
  EXPECT_EQ(m.message, "cannot read scenario file '" + fixture("no-such.yaml") + "': No such file or directory");
  try {
    calibrate::load_calibration_profile(dir);
    ADD_FAILURE() << "a directory loaded as a calibration profile";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.message, "cannot read the calibration profile: it is a directory");
    EXPECT_EQ(e.loc.file, dir);
  }
}
// One report per microsecond of a second is the most a run may write.
TEST(ScenarioLoaderErrors, TooManyIntervalReports) {
  std::string yaml = kBase + "interval: 999ns\n";
  expect_text_error(yaml, 10, 11, "interval",
                    "interval (999ns) over duration (1s) gives more than 1000000 interval reports");
  yaml.replace(yaml.find("999ns"), 5, "1us");
  EXPECT_NO_THROW(parse_scenario_text(yaml, "inline.yaml"));
}
TEST(ScenarioLoaderErrors, ZeroDuration) {
  std::string yaml = kBase;
  yaml.replace(yaml.find("1s"), 2, "0s");
  expect_text_error(yaml, 2, 11, "duration", "must be greater than 0");
}
TEST(ScenarioLoaderErrors, StopNotAfterStart) {
  std::string yaml = kBase;
  yaml.replace(yaml.find("to: b }"), 7, "to: b, start: 5ms, stop: 5ms }");
  expect_text_error(yaml, 9, 53, "traffic.f.stop", "stop (5ms) must be after start (5ms)");
}
TEST(ScenarioLoaderErrors, StartAfterEndOfRun) {
  std::string yaml = kBase;
  yaml.replace(yaml.find("to: b }"), 7, "to: b, start: 2s }");
  expect_text_error(yaml, 9, 42, "traffic.f.start", "must be before the end of the run");
}
TEST(ScenarioLoaderErrors, FlowBetweenIpVersions) {
  std::string yaml = kBase;
  yaml.replace(yaml.find("10.0.0.2"), 8, "'fd00::2'");
  expect_text_error(yaml, 9, 32, "traffic.f.to", "both ends must use the same IP version");
}
TEST(ScenarioLoaderErrors, TcpAndPingFlowsBetweenIpVersions) {
  std::string tcp = kBase;
  tcp.replace(tcp.find("10.0.0.2"), 8, "'fd00::2'");
  tcp.replace(tcp.find("type: udp"), 9, "type: tcp");
  expect_text_error(tcp, 9, 32, "traffic.f.to", "flow from IPv4 host 'a' to IPv6 host 'b'");
  std::string ping = kBase;
  ping.replace(ping.find("10.0.0.1"), 8, "'fd00::1'");
  ping.replace(ping.find("type: udp"), 9, "type: ping");
  expect_text_error(ping, 9, 33, "traffic.f.to", "flow from IPv6 host 'a' to IPv4 host 'b'");
  const ScenarioError e = text_error(ping);
  EXPECT_EQ(std::string(e.what()), "inline.yaml:9:33: error: field 'traffic.f.to': flow from IPv6 host 'a' to IPv4 "
                                   "host 'b': both ends must use the same IP version");
}
TEST(ScenarioLoaderErrors, FilterKeyForOtherType) {
  expect_text_error(kBase + "filters:\n  x: { host: b, type: random, probability: 0.5, every: 3 }\n", 11, 49,
                    "filters.x.every", "applies only to filters of type nth");
}
TEST(ScenarioLoaderErrors, UnsupportedTrafficType) {
  expect_bad("traffic_type.yaml", 10, 14, "traffic.f.type", "unsupported traffic type 'sctp' (supported: udp, tcp, ping)");
}

TEST(ScenarioLoaderErrors, IsolatedHost) {
  expect_bad("isolated_host.yaml", 7, 3, "hosts.c", "host 'c' has no path to any other host (e.g. 'a')");
}
TEST(ScenarioLoaderErrors, FlowAcrossComponents) {
  expect_bad("flow_disconnected.yaml", 14, 3, "traffic.cross", "hosts 'a' and 'd' are not connected");
}
TEST(ScenarioLoaderErrors, SingleHost) {
  expect_text_error("name: t\nduration: 1s\nhosts:\n  a: { address: 10.0.0.1 }\nlinks: {}\ntraffic: {}\n", 4, 3,
                    "hosts.a", "is the only host");
}

TEST(ScenarioLoaderErrors, NameReusedAcrossNodeKinds) {
  expect_bad("name_reused.yaml", 8, 3, "switches.b", "already used by the host defined at line 6");
}
TEST(ScenarioLoaderErrors, InvalidName) { expect_bad("bad_name.yaml", 5, 3, "hosts.a.1", "invalid name 'a.1'"); }
TEST(ScenarioLoaderErrors, EmptyHosts) { expect_bad("empty_hosts.yaml", 4, 8, "hosts", "no hosts defined"); }
TEST(ScenarioLoaderErrors, DuplicateKeyReportsSecond) {
  expect_bad("duplicate_key.yaml", 12, 5, "links.a-b.rate",
             "duplicate key 'rate' (first defined at line 10, column 5)");
}
TEST(ScenarioLoaderErrors, DuplicateHost) {
  expect_bad("duplicate_host.yaml", 7, 3, "hosts.a", "duplicate key 'a' (first defined at line 5, column 3)");
}

TEST(ScenarioLoaderErrors, SweepUnknownField) {
  expect_bad("sweep_bad_key.yaml", 12, 3, "sweep.links.a-b.dealy", "did you mean 'delay'?");
}
TEST(ScenarioLoaderErrors, SweepUnknownElement) {
  expect_bad("sweep_unknown_element.yaml", 11, 3, "sweep.links.a-c.delay", "no link named 'a-c' (links: a-b)");
}
TEST(ScenarioLoaderErrors, SweepEmptyValues) {
  expect_bad("sweep_empty.yaml", 11, 20, "sweep.links.a-b.delay", "the list of values is empty");
}
TEST(ScenarioLoaderErrors, SweepBadValue) {
  expect_bad("sweep_bad_value.yaml", 11, 26, "sweep.links.a-b.delay", "value '1 fortnight' for 'links.a-b.delay'");
}
TEST(ScenarioLoaderErrors, SweepValuesMustBeAList) {
  expect_text_error(kBase + "sweep:\n  seed: 3\n", 11, 9, "sweep.seed", "expected a list of values");
}
TEST(ScenarioLoaderErrors, SweepWholeSectionOrList) {
  expect_text_error(kBase + "sweep:\n  links: [1]\n", 11, 3, "sweep.links", "is a whole section");
  expect_text_error(kBase + "sweep:\n  links.a-b.ends: [1]\n", 11, 3, "sweep.links.a-b.ends", "is a list");
  expect_text_error(kBase + "sweep:\n  measured.x: [1]\n", 11, 3, "sweep.measured.x", "not a field that can be swept");
}

// ---------------------------------------------------------------------------
// Overrides

TEST(ScenarioOverrides, ParseOverride) {
  const Override o = parse_override("links.a-sw.delay=300us");
  EXPECT_EQ(o.key, "links.a-sw.delay");
  EXPECT_EQ(o.value, "300us");
  const Override spaced = parse_override(" seed = 5 ");
  EXPECT_EQ(spaced.key, "seed");
  EXPECT_EQ(spaced.value, "5");
  EXPECT_EQ(parse_override("description=a=b").value, "a=b");  // split at the first '='
  EXPECT_EQ(format_override(o), "links.a-sw.delay=300us");
}

TEST(ScenarioOverrides, ParseOverrideErrors) {
  try {
    parse_override("links.a-sw.delay");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.loc.file, "--set");
    EXPECT_EQ(e.field, "links.a-sw.delay");
    EXPECT_EQ(std::string(e.what()),
              "--set links.a-sw.delay: error: field 'links.a-sw.delay': missing '=': expected KEY=VALUE, e.g. "
              "links.wan.delay=300us");
  }
  EXPECT_THROW(parse_override("=5"), ScenarioError);
  EXPECT_THROW(parse_override("links..delay=5us"), ScenarioError);
}

TEST(ScenarioOverrides, ValidOverridesApplyBeforeValidation) {
  const std::vector<Override> overrides{parse_override("links.a-sw.delay=300us"),
                                        parse_override("hosts.receiver.hz=100"),  // absent in the file: added
                                        parse_override("seed=42"), parse_override("seed=43")};  // last wins
  const ScenarioSpec s = load_scenario(fixture("good/full.yaml"), overrides);
  EXPECT_EQ(s.links[0].delay, 300_us);
  EXPECT_EQ(s.hosts[1].hz, 100);
  EXPECT_EQ(s.seed, 43u);
  ASSERT_EQ(s.overrides.size(), 4u);
  EXPECT_EQ(s.overrides[0].key, "links.a-sw.delay");
  EXPECT_EQ(s.overrides[3].value, "43");
}

TEST(ScenarioOverrides, OverrideOnEmptyElement) {
  const ScenarioSpec s = load_scenario(fixture("good/block_style.yaml"), {parse_override("switches.core.buffer=1MB")});
  EXPECT_EQ(s.switches[0].buffer_bytes, 1'000'000);
}

TEST(ScenarioOverrides, InvalidValueReportsTheOverride) {
  const ScenarioError e = load_error(fixture("good/full.yaml"), {parse_override("links.a-sw.delay=abc")});
  EXPECT_EQ(e.loc.file, "--set");
  EXPECT_EQ(e.loc.line, 0);
  EXPECT_EQ(e.field, "links.a-sw.delay");
  EXPECT_EQ(e.override_text, "links.a-sw.delay=abc");
  EXPECT_EQ(std::string(e.what()), "--set links.a-sw.delay=abc: error: field 'links.a-sw.delay': " + e.message);
  EXPECT_NE(e.message.find("invalid duration 'abc'"), std::string::npos);
}

TEST(ScenarioOverrides, AddedValueOutOfRangeReportsTheOverride) {
  const ScenarioError e = load_error(fixture("good/full.yaml"), {parse_override("hosts.receiver.hz=5")});
  EXPECT_EQ(e.loc.file, "--set");
  EXPECT_EQ(e.override_text, "hosts.receiver.hz=5");
  EXPECT_EQ(e.field, "hosts.receiver.hz");
}

TEST(ScenarioOverrides, CrossFieldCheckReportsTheOverride) {
  const ScenarioError e = load_error(fixture("good/full.yaml"), {parse_override("interval=2s")});
  EXPECT_EQ(e.loc.file, "--set");
  EXPECT_EQ(e.field, "interval");
  EXPECT_NE(e.message.find("must not exceed duration"), std::string::npos);
}

TEST(ScenarioOverrides, UnknownLeafKeyReportsTheOverride) {
  const ScenarioError e = load_error(fixture("good/full.yaml"), {parse_override("links.a-sw.dealy=1us")});
  EXPECT_EQ(e.loc.file, "--set");
  EXPECT_EQ(e.field, "links.a-sw.dealy");
  EXPECT_NE(e.message.find("did you mean 'delay'?"), std::string::npos);
}

// A flow map or sequence replaces the whole field (here the rule's match:
// dst_port is gone, src_port added); its inner values are checked as usual
// and their errors name the override.
TEST(ScenarioOverrides, FlowMapValueReplacesTheField) {
  const ScenarioSpec s =
      load_scenario(fixture("good/full.yaml"), {parse_override("filters.drop-nth.match={protocol: tcp, src_port: 5201}")});
  ASSERT_EQ(s.filters.size(), 2u);
  EXPECT_EQ(s.filters[0].name, "drop-nth");
  EXPECT_EQ(s.filters[0].match.protocol, IpProtocol::tcp);
  EXPECT_EQ(s.filters[0].match.src_port, 5201);
  EXPECT_FALSE(s.filters[0].match.dst_port.has_value());

  const ScenarioError bad =
      load_error(fixture("good/full.yaml"), {parse_override("filters.drop-nth.match={protocol: tcp, src_port: abc}")});
  EXPECT_EQ(bad.loc.file, "--set");
  EXPECT_EQ(bad.field, "filters.drop-nth.match.src_port");

  const ScenarioError broken =
      load_error(fixture("good/full.yaml"), {parse_override("filters.drop-nth.match={protocol: tcp")});
  EXPECT_EQ(broken.loc.file, "--set");
  EXPECT_EQ(broken.field, "filters.drop-nth.match");
  EXPECT_NE(broken.message.find("not valid YAML"), std::string::npos) << broken.message;
}

TEST(ScenarioOverrides, NonexistentPath) {
  const ScenarioError e = load_error(fixture("good/full.yaml"), {parse_override("links.a-sx.delay=1us")});
  EXPECT_EQ(e.loc.file, "--set");
  EXPECT_EQ(e.field, "links.a-sx.delay");
  EXPECT_NE(e.message.find("'links.a-sx' does not exist"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("did you mean 'a-sw'?"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).rfind("--set links.a-sx.delay=1us: error: ", 0), 0u);
}

TEST(ScenarioOverrides, PathThroughScalar) {
  const ScenarioError e = load_error(fixture("good/full.yaml"), {parse_override("name.x=1")});
  EXPECT_EQ(e.loc.file, "--set");
  EXPECT_NE(e.message.find("'name' is not a map"), std::string::npos) << e.what();
}

TEST(ScenarioOverrides, FileErrorsStillReportTheFile) {
  // An override elsewhere does not change where a problem in the file is reported.
  const ScenarioError e = load_error(fixture("bad/hz_range.yaml"), {parse_override("seed=9")});
  EXPECT_EQ(e.loc.line, 5);
  EXPECT_EQ(e.field, "hosts.a.hz");
}

// ---------------------------------------------------------------------------
// Sweeps

TEST(ScenarioSweep, CartesianProductFirstAxisSlowest) {
  const ScenarioSpec s = load_scenario(fixture("good/full.yaml"));
  const auto cells = expand_sweep(s);
  ASSERT_EQ(cells.size(), 6u);
  const std::vector<std::pair<std::string, std::string>> expected{{"10us", "1"},  {"10us", "2"},  {"10us", "3"},
                                                                  {"100us", "1"}, {"100us", "2"}, {"100us", "3"}};
  for (std::size_t i = 0; i < cells.size(); ++i) {
    ASSERT_EQ(cells[i].size(), 2u);
    EXPECT_EQ(cells[i][0].key, "links.a-sw.delay");
    EXPECT_EQ(cells[i][0].value, expected[i].first);
    EXPECT_EQ(cells[i][1].key, "seed");
    EXPECT_EQ(cells[i][1].value, expected[i].second);
  }
  // Each cell loads as a run.
  const ScenarioSpec run = load_scenario(fixture("good/full.yaml"), cells[4]);
  EXPECT_EQ(run.links[0].delay, 100_us);
  EXPECT_EQ(run.seed, 2u);
}

TEST(ScenarioSweep, NoAxesGivesOneEmptyCell) {
  const auto cells = expand_sweep(load_scenario(fixture("good/minimal.yaml")));
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_TRUE(cells[0].empty());
}

TEST(ScenarioSweep, CommandLineWinsOverAxis) {
  const ScenarioSpec s = load_scenario(fixture("good/full.yaml"), {parse_override("seed=99")});
  const auto cells = expand_sweep(s);
  ASSERT_EQ(cells.size(), 2u);  // the seed axis is pinned by the command line
  for (const auto& cell : cells) {
    ASSERT_EQ(cell.size(), 1u);
    EXPECT_EQ(cell[0].key, "links.a-sw.delay");
  }
}

TEST(ScenarioSweep, SeedsRepeatEveryCellWithConsecutiveSeeds) {
  const ScenarioSpec s = parse_scenario_text(kBase + "seed: 7\nseeds: 3\nsweep:\n  hosts.a.hz: [100, 1000]\n", "inline.yaml");
  EXPECT_EQ(s.seeds, 3);
  const auto cells = expand_sweep(s);
  ASSERT_EQ(cells.size(), 6u);
  const std::vector<std::pair<std::string, std::string>> expected{{"100", "7"},  {"100", "8"},  {"100", "9"},
                                                                  {"1000", "7"}, {"1000", "8"}, {"1000", "9"}};
  for (std::size_t i = 0; i < cells.size(); ++i) {
    ASSERT_EQ(cells[i].size(), 2u);
    EXPECT_EQ(cells[i][0].value, expected[i].first);
    EXPECT_EQ(cells[i][1].key, "seed");
    EXPECT_EQ(cells[i][1].value, expected[i].second);
  }
  // Without a sweep: one cell per seed.
  EXPECT_EQ(expand_sweep(parse_scenario_text(kBase + "seeds: 4\n", "inline.yaml")).size(), 4u);
  // A seed on the command line pins it: no repetition.
  const ScenarioSpec pinned = parse_scenario_text(kBase + "seeds: 3\n", "inline.yaml", {parse_override("seed=5")});
  EXPECT_EQ(expand_sweep(pinned).size(), 1u);
}

TEST(ScenarioSweep, LinkedAxisSetsSeveralFieldsTogether) {
  // Both hosts' hz from one scalar per value; two flows' ports as pairs.
  const std::string yaml = kBase +
                           "sweep:\n"
                           "  hosts.a.hz + hosts.b.hz: [100, 1000]\n"
                           "  links.a-b.mtu + links.a-b.delay: [[1500, 10us], [9000, 20us]]\n";
  const ScenarioSpec s = parse_scenario_text(yaml, "inline.yaml");
  ASSERT_EQ(s.sweep.size(), 2u);
  EXPECT_EQ(s.sweep[0].paths, (std::vector<std::string>{"hosts.a.hz", "hosts.b.hz"}));
  const auto cells = expand_sweep(s);
  ASSERT_EQ(cells.size(), 4u);  // 2 x 2, not 2^4
  ASSERT_EQ(cells[3].size(), 4u);
  EXPECT_EQ(cells[3][0].key, "hosts.a.hz");
  EXPECT_EQ(cells[3][0].value, "1000");
  EXPECT_EQ(cells[3][1].key, "hosts.b.hz");
  EXPECT_EQ(cells[3][1].value, "1000");
  EXPECT_EQ(cells[3][2].value, "9000");
  EXPECT_EQ(cells[3][3].value, "20us");
  const ScenarioSpec run = parse_scenario_text(yaml, "inline.yaml", cells[1]);
  EXPECT_EQ(run.hosts[0].hz, 100);
  EXPECT_EQ(run.hosts[1].hz, 100);
  EXPECT_EQ(run.links[0].mtu, 9000);
  // A command-line value of one of the fields pins the whole linked axis.
  const auto pinned = expand_sweep(parse_scenario_text(yaml, "inline.yaml", {parse_override("hosts.b.hz=250")}));
  EXPECT_EQ(pinned.size(), 2u);
}

TEST(ScenarioSweep, LinkedAxisErrors) {
  expect_text_error(kBase + "sweep:\n  hosts.a.hz + hosts.a.hz: [100]\n", 11, 3, "sweep.hosts.a.hz + hosts.a.hz",
                    "appears twice");
  expect_text_error(kBase + "sweep:\n  hosts.a.hz + : [100]\n", 11, 3, "sweep.hosts.a.hz +", "empty path");
  expect_text_error(kBase + "sweep:\n  hosts.a.hz + hosts.b.hz: [[100, 250, 1000]]\n", 11, 29,
                    "sweep.hosts.a.hz + hosts.b.hz", "expected 2 values");
  expect_text_error(kBase + "sweep:\n  hosts.a.hz + hosts.b.color: [100]\n", 11, 3,
                    "sweep.hosts.a.hz + hosts.b.color", "unknown host field 'color'");
}

TEST(ScenarioSweep, SeedsMustBePositive) {
  expect_text_error(kBase + "seeds: 0\n", 10, 8, "seeds", "between 1 and 100000");
}

TEST(ScenarioSweep, AxisMayAddADefaultedField) {
  const ScenarioSpec s =
      parse_scenario_text(kBase + "sweep:\n  hosts.a.hz: [100, 1000]\n  links.a-b.mtu: [1500, 9000]\n", "inline.yaml");
  const auto cells = expand_sweep(s);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[1][0].value, "100");
  EXPECT_EQ(cells[1][1].value, "9000");
  EXPECT_EQ(parse_scenario_text(kBase, "inline.yaml", cells[3]).links[0].mtu, 9000);
}

// ---------------------------------------------------------------------------
// TCP flows and receive NICs

// kBase with the udp flow of line 9 replaced by `flow` (still on line 9).
std::string with_flow(const std::string& flow) {
  std::string yaml = kBase;
  yaml.replace(yaml.find("  f: { type: udp, from: a, to: b }"), 34, flow);
  return yaml;
}

TEST(ScenarioTcp, TcpFlowDefaultsAndKeys) {
  ScenarioSpec s = parse_scenario_text(with_flow("  f: { type: tcp, from: a, to: b }"), "inline.yaml");
  ASSERT_EQ(s.tcp_flows.size(), 1u);
  EXPECT_TRUE(s.udp_flows.empty());
  const TcpFlowSpec& d = s.tcp_flows[0];
  EXPECT_EQ(d.dst_port, 5201);
  EXPECT_EQ(d.cc, "newreno");
  EXPECT_EQ(d.start, 0);
  EXPECT_FALSE(d.stop.has_value());
  EXPECT_TRUE(d.sack);
  EXPECT_TRUE(d.lrd);
  EXPECT_TRUE(d.tso);
  s = parse_scenario_text(with_flow("  f: { type: tcp, from: a, to: b, dst_port: 5555, cc: cubic_d46046, start: "
                                    "100ms, stop: 900ms, sack: false, lrd: false, tso: false }"),
                          "inline.yaml");
  const TcpFlowSpec& t = s.tcp_flows[0];
  EXPECT_EQ(t.dst_port, 5555);
  EXPECT_EQ(t.cc, "cubic_d46046");
  EXPECT_EQ(t.start, 100_ms);
  EXPECT_EQ(t.stop, 900_ms);
  EXPECT_FALSE(t.sack);
  EXPECT_FALSE(t.lrd);
  EXPECT_FALSE(t.tso);
}

TEST(ScenarioTcp, FlowsOfBothKindsKeepFileOrder) {
  const ScenarioSpec s = parse_scenario_text(
      with_flow("  t1: { type: tcp, from: a, to: b }\n  u1: { type: udp, from: a, to: b }\n  t2: { type: tcp, from: b, to: a }"),
      "inline.yaml");
  ASSERT_EQ(s.tcp_flows.size(), 2u);
  ASSERT_EQ(s.udp_flows.size(), 1u);
  EXPECT_EQ(s.tcp_flows[0].order, 0);
  EXPECT_EQ(s.udp_flows[0].order, 1);
  EXPECT_EQ(s.tcp_flows[1].order, 2);
}

TEST(ScenarioTcp, BadCcListsTheValidNames) {
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, cc: cubik }"), 9, 39, "traffic.f.cc",
                    "expected one of newreno, cubic, cubic_d46046, reno, bic, got 'cubik'; did you mean 'cubic'?");
}
std::string with_linux_sender(const std::string& flow) {
  std::string yaml = with_flow(flow);
  yaml.replace(yaml.find("  a: { address: 10.0.0.1 }"), 26, "  a: { address: 10.0.0.1, os: linux }");
  return yaml;
}
TEST(ScenarioTcp, HostOsDecidesTheDefaultCc) {
  ScenarioSpec s = parse_scenario_text(with_linux_sender("  f: { type: tcp, from: a, to: b }"), "inline.yaml");
  ASSERT_EQ(s.hosts.size(), 2u);
  EXPECT_EQ(s.hosts[0].os, "linux");
  EXPECT_EQ(s.hosts[1].os, "freebsd");
  EXPECT_EQ(s.tcp_flows[0].cc, "cubic");  // net.ipv4.tcp_congestion_control default
  s = parse_scenario_text(with_linux_sender("  f: { type: tcp, from: a, to: b, cc: reno }"), "inline.yaml");
  EXPECT_EQ(s.tcp_flows[0].cc, "reno");
}
TEST(ScenarioTcp, CcMustBeOneOfTheSendersOs) {
  expect_text_error(with_linux_sender("  f: { type: tcp, from: a, to: b, cc: newreno }"), 9, 39, "traffic.f.cc",
                    "cc 'newreno' is not a congestion control of the sender 'a' (os: linux); it has reno, cubic");
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, cc: reno }"), 9, 39, "traffic.f.cc",
                    "cc 'reno' is not a congestion control of the sender 'a' (os: freebsd); it has newreno, cubic, "
                    "cubic_d46046");
}
TEST(ScenarioTcp, UnknownHostOs) {
  std::string yaml = with_flow("  f: { type: tcp, from: a, to: b }");
  yaml.replace(yaml.find("  a: { address: 10.0.0.1 }"), 26, "  a: { address: 10.0.0.1, os: netbsd }");
  expect_text_error(yaml, 4, 31, "hosts.a.os", "expected one of freebsd, linux, got 'netbsd'");
}
TEST(ScenarioTcp, NonBooleanSack) {
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, sack: yes }"), 9, 41, "traffic.f.sack",
                    "expected true or false, got 'yes'");
}
TEST(ScenarioTcp, UdpFlowRejectsCc) {
  expect_text_error(with_flow("  f: { type: udp, from: a, to: b, cc: cubic }"), 9, 35, "traffic.f.cc",
                    "unknown key 'cc' (accepted keys: type, from, to, src_port, dst_port, size, rate, start, stop, send_buffer, app, length, time, interval, window, version, enabled)");
}
TEST(ScenarioTcp, TcpFlowRejectsSizeAndRate) {
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, size: 1000B }"), 9, 35, "traffic.f.size",
                    "unknown key 'size' (accepted keys: type, from, to, dst_port, cc, start, stop, sack, lrd, tso, app, time, length, parallel, start_jitter, reverse, hostcache_ssthresh, window, interval, version, streams, enabled)");
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, rate: 1Gbps }"), 9, 35, "traffic.f.rate",
                    "unknown key 'rate'");
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, sak: true }"), 9, 35, "traffic.f.sak",
                    "did you mean 'sack'?");
}
TEST(ScenarioTcp, Iperf3ParallelStreams) {
  ScenarioSpec s = parse_scenario_text(with_flow("  f: { type: tcp, from: a, to: b, app: iperf3 }"), "inline.yaml");
  EXPECT_EQ(s.tcp_flows[0].parallel, 1);
  s = parse_scenario_text(with_flow("  f: { type: tcp, parallel: 8, from: a, to: b, app: iperf3 }"), "inline.yaml");
  EXPECT_EQ(s.tcp_flows[0].parallel, 8);  // the key may come before app
  s = parse_scenario_text(with_flow("  f: { type: tcp, from: a, to: b, app: iperf3 }"), "inline.yaml",
                          {parse_override("traffic.f.parallel=128")});
  EXPECT_EQ(s.tcp_flows[0].parallel, 128);
}
TEST(ScenarioTcp, Iperf3ParallelErrors) {
  // "  f: { type: tcp, from: a, to: b, app: iperf3, parallel: " is 57 characters: the value is at column 58.
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, app: iperf3, parallel: 0 }"), 9, 58,
                    "traffic.f.parallel", "out of range: must be between 1 and 128, got 0");
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, app: iperf3, parallel: 129 }"), 9, 58,
                    "traffic.f.parallel", "got 129");
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, app: iperf3, parallel: two }"), 9, 58,
                    "traffic.f.parallel", "expected an integer, got 'two'");
  // -P belongs to iperf3: a bulk flow is one connection.
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, parallel: 2 }"), 9, 45, "traffic.f.parallel",
                    "parallel (-P) applies only to flows with app: iperf3 or iperf2; this flow has app: bulk");
  expect_text_error(with_flow("  f: { type: udp, from: a, to: b, parallel: 2 }"), 9, 35, "traffic.f.parallel",
                    "unknown key 'parallel'");
  const ScenarioError e = text_error(with_flow("  f: { type: tcp, from: a, to: b }"), {parse_override("traffic.f.parallel=4")});
  EXPECT_EQ(e.loc.file, "--set");
  EXPECT_EQ(e.field, "traffic.f.parallel");
  EXPECT_EQ(e.override_text, "traffic.f.parallel=4");
}
TEST(ScenarioTcp, TcpFlowSharedChecks) {
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: a }"), 9, 32, "traffic.f.to",
                    "a flow needs two different hosts");
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: b, start: 2s }"), 9, 42, "traffic.f.start",
                    "must be before the end of the run");
  expect_text_error(with_flow("  f: { type: tcp, from: a, to: c }"), 9, 32, "traffic.f.to", "unknown host 'c'");
}

TEST(ScenarioTcp, NicBlock) {
  std::string yaml = kBase;
  yaml.replace(yaml.find("{ address: 10.0.0.2 }"), 21, "{ address: 10.0.0.2, nic: {} }");
  ScenarioSpec s = parse_scenario_text(yaml, "inline.yaml");
  ASSERT_TRUE(s.hosts[1].nic.has_value());
  EXPECT_FALSE(s.hosts[0].nic.has_value());
  EXPECT_TRUE(s.hosts[1].nic->gro);
  EXPECT_EQ(s.hosts[1].nic->irq_delay, 20_us);
  EXPECT_EQ(s.hosts[1].nic->budget, 64);
  EXPECT_EQ(s.hosts[1].nic->filter_position, NicFilterPosition::after_gro);
  EXPECT_EQ(s.hosts[1].nic->host_int_rx_mod, 0);
  EXPECT_EQ(s.hosts[1].nic->host_int_latency, 0);
  EXPECT_EQ(s.hosts[1].nic->host_int_jitter, 0);
  EXPECT_EQ(s.hosts[1].nic->irq_jitter_shape, NicJitterShape::uniform);

  yaml = kBase;
  yaml.replace(yaml.find("{ address: 10.0.0.2 }"), 21,
               "{ address: 10.0.0.2, nic: { gro: false, irq_delay: 5us, budget: 16, per_packet_cost: 3us, ring_size: 256, "
               "filter_position: before_gro, host_int_rx_mod: 65us, host_int_latency: 2us, host_int_jitter: 8us, "
               "gro_flush_timeout: 20us, irq_jitter: 10us, irq_jitter_shape: exponential, "
               "napi_defer_hard_irqs: 1 } }");
  s = parse_scenario_text(yaml, "inline.yaml");
  EXPECT_FALSE(s.hosts[1].nic->gro);
  EXPECT_EQ(s.hosts[1].nic->host_int_rx_mod, 65_us);
  EXPECT_EQ(s.hosts[1].nic->host_int_latency, 2_us);
  EXPECT_EQ(s.hosts[1].nic->host_int_jitter, 8_us);
  EXPECT_EQ(s.hosts[1].nic->gro_flush_timeout, 20_us);
  EXPECT_EQ(s.hosts[1].nic->napi_defer_hard_irqs, 1);
  EXPECT_EQ(s.hosts[1].nic->per_packet_cost, 3_us);
  EXPECT_EQ(s.hosts[1].nic->ring_size, 256u);
  EXPECT_EQ(s.hosts[1].nic->irq_delay, 5_us);
  EXPECT_EQ(s.hosts[1].nic->budget, 16);
  EXPECT_EQ(s.hosts[1].nic->filter_position, NicFilterPosition::before_gro);
  EXPECT_EQ(s.hosts[1].nic->irq_jitter, 10_us);
  EXPECT_EQ(s.hosts[1].nic->irq_jitter_shape, NicJitterShape::exponential);
}

TEST(ScenarioTcp, NicErrors) {
  const auto nic = [](const std::string& block) {
    std::string yaml = kBase;
    yaml.replace(yaml.find("{ address: 10.0.0.2 }"), 21, "{ address: 10.0.0.2, nic: " + block + " }");
    return yaml;
  };
  // "  b: { address: 10.0.0.2, nic: " is 31 characters: the nic map starts at column 32.
  expect_text_error(nic("{ gro: 1 }"), 5, 39, "hosts.b.nic.gro", "expected true or false, got '1'");
  expect_text_error(nic("{ budget: 0 }"), 5, 42, "hosts.b.nic.budget", "out of range");
  expect_text_error(nic("{ filter_position: before }"), 5, 51, "hosts.b.nic.filter_position",
                    "expected one of after_gro, before_gro, got 'before'");
  expect_text_error(nic("{ per_packet_cost: 2 }"), 5, 51, "hosts.b.nic.per_packet_cost", "missing unit");
  expect_text_error(nic("{ irq_jitter_shape: tail }"), 5, 52, "hosts.b.nic.irq_jitter_shape",
                    "expected one of uniform, exponential, got 'tail'");
  expect_text_error(nic("{ host_int_rx_mod: -5us }"), 5, 51, "hosts.b.nic.host_int_rx_mod", "negative");
  expect_text_error(nic("{ host_int_jitter: -1us }"), 5, 51, "hosts.b.nic.host_int_jitter", "negative");
  expect_text_error(nic("{ host_int_jitter: 5us }"), 5, 51, "hosts.b.nic.host_int_jitter", "needs host_int_rx_mod > 0");
  expect_text_error(nic("{ napi_defer_hard_irqs: -1 }"), 5, 56, "hosts.b.nic.napi_defer_hard_irqs", "between 0 and");
  expect_text_error(nic("{ ring_size: -1 }"), 5, 45, "hosts.b.nic.ring_size", "between 0 and 1048576");
  expect_text_error(nic("{ irq: 5us }"), 5, 34, "hosts.b.nic.irq",
                    "unknown key 'irq' (accepted keys: gro, merge_acks, irq_delay, irq_jitter, irq_jitter_shape, irq_min_interval, idle_wake_delay, idle_wake_jitter, idle_after, budget, per_packet_cost, ring_size, filter_position, host_int_rx_mod, host_int_latency, host_int_jitter, gro_flush_timeout, napi_defer_hard_irqs, rx_fifo, flow_control, driver, lro, lro_entries, lro_length_lim, lro_ackcnt_lim, rx_head_buffer, rx_body_buffer, tso, tx_descriptors, rx_descriptors, rx_int_delay, tx_int_delay, tx_int_delay_enable, tx_queue_len, bus)");
  expect_text_error(nic("5us"), 5, 32, "hosts.b.nic", "expected a map");
}

TEST(ScenarioTcp, OverridesAndSweepsReachTheNewKeys) {
  std::string yaml = with_flow("  t1: { type: tcp, from: a, to: b }");
  yaml.replace(yaml.find("{ address: 10.0.0.2 }"), 21, "{ address: 10.0.0.2, nic: {} }");
  const ScenarioSpec s = parse_scenario_text(
      yaml, "inline.yaml",
      {parse_override("traffic.t1.cc=cubic"), parse_override("hosts.a.hz=100"),
       parse_override("hosts.b.nic.filter_position=before_gro"), parse_override("traffic.t1.sack=false")});
  EXPECT_EQ(s.tcp_flows[0].cc, "cubic");
  EXPECT_FALSE(s.tcp_flows[0].sack);
  EXPECT_EQ(s.hosts[0].hz, 100);
  EXPECT_EQ(s.hosts[1].nic->filter_position, NicFilterPosition::before_gro);

  const ScenarioSpec swept = parse_scenario_text(
      yaml + "sweep:\n  traffic.t1.cc: [newreno, cubic]\n  hosts.a.hz: [100, 1000]\n  hosts.b.nic.gro: [true, false]\n",
      "inline.yaml");
  EXPECT_EQ(expand_sweep(swept).size(), 8u);
  // A bad value, and a key of the other flow type, are reported at the sweep value.
  expect_text_error(yaml + "sweep:\n  traffic.t1.cc: [newreno, reno]\n", 11, 28, "sweep.traffic.t1.cc",
                    "value 'reno' for 'traffic.t1.cc' would make the scenario invalid");
  expect_text_error(yaml + "sweep:\n  traffic.t1.size: [1000B]\n", 11, 21, "sweep.traffic.t1.size", "unknown key 'size'");
  expect_text_error(yaml + "sweep:\n  hosts.b.nic: [1]\n", 11, 3, "sweep.hosts.b.nic", "is a map");
  // An override with a bad value is reported at the override.
  const ScenarioError e = text_error(yaml, {parse_override("traffic.t1.cc=bbr")});
  EXPECT_EQ(e.loc.file, "--set");
  EXPECT_EQ(e.field, "traffic.t1.cc");
}

}  // namespace
}  // namespace netsim
