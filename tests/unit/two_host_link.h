// Test topology: a FreeBSD-side host "a" (kern.hz as given, node 0) and a
// Linux-side host "b" (CONFIG_HZ 250, node 1) on one 1 Gbit/s link with
// 100 us one-way delay, each routing to the other over it; IPv4 (10.0.0.1,
// 10.0.0.2) or IPv6 (fd00::1, fd00::2).
#pragma once

#include <utility>

#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/sim/simulation.h"

namespace netsim {

inline std::pair<Host*, Host*> two_host_link(Simulation& sim, int hz_a, IpVersion v = IpVersion::v4) {
  const bool v4 = v == IpVersion::v4;
  Host* a = &sim.add<Host>("a", 0, v4 ? "10.0.0.1" : "fd00::1", v, hz_a);
  Host* b = &sim.add<Host>("b", 1, v4 ? "10.0.0.2" : "fd00::2", v, 250);
  ChannelConfig c;
  c.delay = 100 * kPicosPerMicro;
  sim.add<Link>("ab", *a, *b, c, c);
  a->set_forwarding({-1, 0});
  b->set_forwarding({0, -1});
  return {a, b};
}

}  // namespace netsim
