// An outside program built against the installed netsim package (tests/install).
//
// Two hosts joined by one 1 Gbit/s link with 5 us of propagation delay; a UDP
// source on host a sends 1000-byte datagrams to a sink on host b at 10 Mbit/s
// of payload for 10 ms. Expected, by hand:
//   one datagram every 1000 * 8 bit / 10 Mbit/s = 800 us, leaving at n * 800 us
//   for n = 0..12 (13 * 800 us = 10.4 ms is past the stop time) -> 13 sent, 13 received,
//   13000 payload bytes;
//   a frame is 1000 payload + 8 UDP + 20 IP + 38 Ethernet framing = 1066 bytes
//   = 8.528 us at 1 Gbit/s, so the last datagram arrives at
//   9600 us + 8.528 us + 5 us = 9613.528 us, and the a->b channel was busy
//   13 * 8.528 us = 110.864 us.
// The numbers also go through a results::FlowStats protobuf message and back,
// so the generated code and libprotobuf must link too.
// Then the same network as a YAML scenario, through parse_scenario_text and
// run_scenario (so yaml-cpp must link): the same 13 datagrams must arrive.
// Exit status 0 iff every number matches.
#include <cstdint>
#include <iostream>
#include <string>

#include "netsim/app/udp_sink.h"
#include "netsim/app/udp_source.h"
#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/simulation.h"
#include "netsim/topology/topology.h"
#include "netsim/version.h"

namespace {

int failures = 0;

void check(const char* what, std::int64_t got, std::int64_t want) {
  std::cout << what << " = " << got;
  if (got != want) {
    std::cout << "   WRONG, expected " << want;
    ++failures;
  }
  std::cout << "\n";
}

}  // namespace

int main() {
  using namespace netsim;
  using namespace netsim::literals;

  Simulation sim(1);
  Host& a = sim.add<Host>("a", 0, "10.0.0.1", IpVersion::v4, 1000);
  Host& b = sim.add<Host>("b", 1, "10.0.0.2", IpVersion::v4, 1000);
  ChannelConfig wire;
  wire.rate = 1_Gbps;
  wire.delay = 5_us;
  Link& link = sim.add<Link>("a-b", a, b, wire, wire);

  // Forwarding tables from the Boost.Graph topology (needs Boost's headers).
  Topology topo;
  topo.add_node({"a", NodeKind::host, ""});
  topo.add_node({"b", NodeKind::host, ""});
  Topology::EdgeInfo edge;
  edge.name = link.name();
  edge.node_a = a.id();
  edge.node_b = b.id();
  edge.port_at_a = link.port_at_a();
  edge.port_at_b = link.port_at_b();
  topo.add_link(edge);
  const auto tables = topo.forwarding_tables();
  a.set_forwarding(tables[a.id()]);
  b.set_forwarding(tables[b.id()]);

  UdpSink& sink = sim.add<UdpSink>("sink", b, 5001);
  UdpSourceConfig flow;
  flow.dst = b.id();
  flow.dst_port = 5001;
  flow.payload_bytes = 1000;
  flow.rate = 10_Mbps;
  flow.stop = 10_ms;
  UdpSource& source = sim.add<UdpSource>("source", a, flow);
  sim.run();

  results::FlowStats stats;
  stats.set_name("a->b");
  stats.set_packets_sent(source.packets_sent());
  stats.set_packets_received(sink.packets_received());
  stats.set_bytes_received(sink.bytes_received());
  stats.set_end_ps(sink.last_arrival());
  std::string wire_bytes;
  results::FlowStats decoded;
  if (!stats.SerializeToString(&wire_bytes) || !decoded.ParseFromString(wire_bytes)) {
    std::cout << "protobuf round trip failed\n";
    return 1;
  }

  std::cout << "netsim " << NETSIM_VERSION << " consumer: 10 Mbit/s of 1000-byte UDP datagrams for 10 ms\n";
  check("packets sent", static_cast<std::int64_t>(decoded.packets_sent()), 13);
  check("packets received", static_cast<std::int64_t>(decoded.packets_received()), 13);
  check("payload bytes received", static_cast<std::int64_t>(decoded.bytes_received()), 13'000);
  check("last arrival (ps)", decoded.end_ps(), 9'613'528'000);
  check("a->b busy time (ps)", link.a_to_b().counters().busy_time, 110'864'000);
  check("packets still allocated", static_cast<std::int64_t>(sim.packets().in_use()), 0);

  const char* const yaml = R"(
name: consumer
duration: 10ms
hosts:
  a: { address: 10.0.0.1 }
  b: { address: 10.0.0.2 }
links:
  a-b: { ends: [a, b], rate: 1Gbps, delay: 5us }
traffic:
  flow: { type: udp, from: a, to: b, size: 1000B, rate: 10Mbps }
)";
  const results::RunResult run = run_scenario(parse_scenario_text(yaml, "consumer.yaml"));
  if (!run.error().empty() || run.flows_size() != 1) {
    std::cout << "scenario run failed: '" << run.error() << "', " << run.flows_size() << " flows\n";
    return 1;
  }
  check("scenario: packets received", static_cast<std::int64_t>(run.flows(0).packets_received()), 13);
  check("scenario: payload bytes received", static_cast<std::int64_t>(run.flows(0).bytes_received()), 13'000);
  std::cout << (failures == 0 ? "consumer: OK\n" : "consumer: FAILED\n");
  return failures == 0 ? 0 : 1;
}
