// Demultiplexing at scale: the KeyTable against a std::map under random
// inserts and erases, the connection table's answer against a scan of the
// slots (stale entries, two holders of one peer), host port bindings and
// ephemeral ports, and a scenario with many flows on one listening port,
// each flow credited with its own bytes.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <tuple>
#include <string>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/key_table.h"
#include "netsim/sim/rng.h"
#include "netsim/sim/simulation.h"
#include "netsim/tcp/connection_table.h"

namespace netsim {
namespace {

TEST(KeyTable, AgreesWithAMapUnderRandomInsertsAndErases) {
  KeyTable<int> t;
  std::map<std::uint64_t, int> ref;
  std::uint64_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::uint64_t key = peer_key(static_cast<NodeId>((x >> 40) % 64), static_cast<std::uint16_t>((x >> 20) % 512));
    switch ((x >> 8) % 3) {
      case 0:
        t.set(key, i);
        ref[key] = i;
        break;
      case 1:
        EXPECT_EQ(t.erase(key), ref.erase(key) == 1);
        break;
      default: {
        const int* v = t.find(key);
        const auto it = ref.find(key);
        ASSERT_EQ(v != nullptr, it != ref.end()) << "key " << key << " at op " << i;
        if (v != nullptr) {
          EXPECT_EQ(*v, it->second);
        }
      }
    }
    ASSERT_EQ(t.size(), ref.size());
  }
  for (const auto& [k, v] : ref) {
    ASSERT_NE(t.find(k), nullptr);
    EXPECT_EQ(*t.find(k), v);
  }
}

TEST(KeyTable, EraseKeepsEveryCollidingKeyReachable) {
  KeyTable<int> t;
  t.reserve(4);  // 8 slots: 7 keys make long probe runs that wrap around
  for (int k = 0; k < 4; ++k) t.set(static_cast<std::uint64_t>(k), k);
  for (int k = 0; k < 4; ++k) {
    KeyTable<int> u = t;
    ASSERT_TRUE(u.erase(static_cast<std::uint64_t>(k)));
    EXPECT_FALSE(u.erase(static_cast<std::uint64_t>(k)));
    for (int j = 0; j < 4; ++j) {
      if (j == k) {
        EXPECT_EQ(u.find(static_cast<std::uint64_t>(j)), nullptr);
      } else {
        ASSERT_NE(u.find(static_cast<std::uint64_t>(j)), nullptr) << "lost " << j << " after erasing " << k;
      }
    }
  }
}

TEST(KeyTable, PackedKeysKeepTheirFieldsApart) {
  EXPECT_NE(peer_key(1, 0), peer_key(0, 1));
  EXPECT_EQ(peer_key(3, 80), (std::uint64_t{3} << 16) | 80);
  EXPECT_NE(binding_key(IpProtocol::tcp, 5201), binding_key(IpProtocol::udp, 5201));
}

// Slots with a peer each (or none); the table must answer what a scan would.
struct Slots {
  std::vector<std::pair<NodeId, std::uint16_t>> peer;  // port 0: free
  bool holds(int i, NodeId n, std::uint16_t p) const {
    return peer[static_cast<std::size_t>(i)].second != 0 && peer[static_cast<std::size_t>(i)] == std::make_pair(n, p);
  }
  int scan(NodeId n, std::uint16_t p) const {
    for (int i = 0; i < static_cast<int>(peer.size()); ++i) {
      if (holds(i, n, p)) return i;
    }
    return -1;
  }
};

TEST(ConnectionTable, AnswersAsAScanOfTheSlotsWould) {
  Slots s;
  s.peer.assign(64, {0, 0});
  tcp::ConnectionTable t;
  t.reserve(64);
  Rng rng(7, "connection-table");
  for (int op = 0; op < 50000; ++op) {
    const int slot = static_cast<int>((0 + rng.uniform_below(64)));
    const NodeId n = static_cast<NodeId>((0 + rng.uniform_below(4)));
    const auto port = static_cast<std::uint16_t>((1 + rng.uniform_below(6)));  // few peers: duplicates happen
    const auto holds = [&](NodeId pn, std::uint16_t pp) { return [&s, pn, pp](int i) { return s.holds(i, pn, pp); }; };
    if ((0 + rng.uniform_below(3)) == 0) {
      s.peer[static_cast<std::size_t>(slot)] = {0, 0};  // the slot closes (the table is not told)
    } else if ((0 + rng.uniform_below(2)) == 0) {
      s.peer[static_cast<std::size_t>(slot)] = {n, port};
      t.add(n, port, slot, 64, holds(n, port));
    }
    ASSERT_EQ(t.find(n, port, 64, holds(n, port)), s.scan(n, port)) << "op " << op;
  }
}

TEST(HostBindings, DeliversByProtocolAndPortAmongThousands) {
  struct Sink final : Endpoint {
    Simulation& sim;
    int got = 0;
    explicit Sink(Simulation& s) : sim(s) {}
    void deliver(Packet* p) override {
      ++got;
      sim.packets().release(p);
    }
  };
  Simulation sim{1};
  Host& h = sim.add<Host>("h", 0, "10.0.0.1", IpVersion::v4, 1000);
  std::vector<std::unique_ptr<Sink>> sinks;
  for (int i = 0; i < 3000; ++i) {
    sinks.push_back(std::make_unique<Sink>(sim));
    h.bind(i % 2 == 0 ? IpProtocol::tcp : IpProtocol::udp, static_cast<std::uint16_t>(1000 + i / 2), sinks.back().get());
  }
  EXPECT_THROW(h.bind(IpProtocol::tcp, 1000, sinks[0].get()), std::invalid_argument);
  EXPECT_EQ(h.counters().packets_received, 0u);
  // Packets to (udp, 1700) reach sink 1401, (tcp, 1700) sink 1400; (tcp, 9) nobody.
  for (const auto& [proto, port, sink] : {std::tuple{IpProtocol::udp, 1700, 1401}, std::tuple{IpProtocol::tcp, 1700, 1400}}) {
    Packet p;
    p.protocol = proto;
    p.dst = 0;
    p.dst_port = static_cast<std::uint16_t>(port);
    h.receive(sim.packets().clone(p), 0);
    sim.run();
    EXPECT_EQ(sinks[static_cast<std::size_t>(sink)]->got, 1);
  }
  EXPECT_EQ(h.counters().packets_received, 2u);
}

TEST(HostBindings, EphemeralPortsSkipBoundOnesAndRunOut) {
  struct Null final : Endpoint {
    void deliver(Packet*) override {}
  } e;
  Simulation sim{1};
  Host& h = sim.add<Host>("h", 0, "10.0.0.1", IpVersion::v4, 1000);
  h.bind(IpProtocol::udp, 49152, &e);  // a port of either protocol is taken
  h.bind(IpProtocol::tcp, 49153, &e);
  EXPECT_EQ(h.ephemeral_port(), 49154);
  for (int port = 49154; port <= 65535; ++port) h.bind(IpProtocol::tcp, static_cast<std::uint16_t>(port), &e);
  EXPECT_THROW(h.ephemeral_port(), std::invalid_argument);
}

TEST(ManyFlowsOneListener, EveryFlowIsCreditedWithItsOwnBytes) {
  std::string text = R"(name: many
duration: 2s
hosts:
  a: { address: 10.0.0.1, hz: 1000 }
  b: { address: 10.0.0.2, hz: 250 }
links:
  a-b: { ends: [a, b], rate: 1Gbps, delay: 50us }
traffic:
)";
  constexpr int kFlows = 40;
  for (int i = 0; i < kFlows; ++i) {
    text += "  f" + std::to_string(i) + ": { type: tcp, from: a, to: b, dst_port: 5201, cc: newreno, app: bulk, start: " +
            std::to_string(i * 10) + "ms }\n";
  }
  const results::RunResult r = run_scenario(parse_scenario_text(text, "many.yaml"));
  ASSERT_EQ(r.flows_size(), kFlows);
  double total = 0;
  for (const auto& f : r.flows()) {
    // Each flow's goodput is its own connection's: about a fair share of
    // the link, never the sum of several or nothing.
    EXPECT_GT(f.receiver_mbps(), 2.0) << f.name();
    EXPECT_LT(f.receiver_mbps(), 300.0) << f.name();
    total += f.receiver_mbps();
  }
  EXPECT_GT(total, 800.0);
  EXPECT_LT(total, 1000.0);
}

}  // namespace
}  // namespace netsim
