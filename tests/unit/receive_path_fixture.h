// Test fixture for receive paths wired by hand: host a -- 1 Gbit/s, 5 us link
// -- [re(4) moderation, optional] -- GRO NIC -- host b, with scripted sends
// from a and a sink recording what b's TCP port 5201 gets. A 1500-byte frame
// sent at t reaches the far end of the link at t + 12.304 + 5 us.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "netsim/nic/gro_receive_nic.h"
#include "netsim/nic/one_shot_rx_moderation.h"

namespace netsim {

inline constexpr std::uint16_t kSport = 40000;
inline constexpr std::uint16_t kDport = 5201;
inline constexpr std::uint32_t kMss = 1448;

// Records what the host hands to the TCP port.
struct Sink final : Endpoint {
  Simulation* sim = nullptr;
  struct Rx {
    SimTime t;
    std::uint32_t seq;
    std::uint32_t payload;
    std::uint16_t segments;
    std::uint16_t src_port;
    std::uint8_t flags;
    std::uint32_t ack = 0;
  };
  std::vector<Rx> rx;
  void deliver(Packet* p) override {
    rx.push_back({sim->now(), p->tcp.seq, p->payload_bytes, p->segments, p->src_port, p->tcp.flags, p->tcp.ack});
    sim->packets().release(p);
  }
};

// Sends pool copies of template packets from a host at scripted times.
class ScriptedSender final : public EventHandler {
 public:
  ScriptedSender(Simulation& sim, Host& host) : sim_(sim), host_(host) {}
  void at(SimTime t, const Packet& p) {
    tmpl_.push_back(p);
    sim_.schedule_at(t, this, tmpl_.size() - 1);
  }
  void handle_event(std::uint64_t tag) override { host_.send(sim_.packets().clone(tmpl_[tag])); }

 private:
  Simulation& sim_;
  Host& host_;
  std::vector<Packet> tmpl_;
};

inline Packet segment(std::uint32_t seq, std::uint32_t len, std::uint8_t flags = tcp_flags::kAck,
                      std::uint32_t tsval = 7, std::uint16_t sport = kSport) {
  Packet p;
  p.protocol = IpProtocol::tcp;
  p.dst = 1;
  p.src_port = sport;
  p.dst_port = kDport;
  p.tcp.seq = seq;
  p.tcp.ack = 1;
  p.tcp.window = 1000;
  p.tcp.flags = flags;
  p.tcp.ts_present = true;
  p.tcp.ts_val = tsval;
  p.tcp.ts_ecr = 3;
  p.l4_header_bytes = kTcpHeaderBytes + p.tcp.option_bytes();
  p.payload_bytes = len;
  return p;
}

// A pure ACK of the flow (no payload).
inline Packet pure_ack(std::uint32_t ack, std::uint32_t tsval = 7, std::uint16_t window = 1000) {
  Packet p = segment(1, 0, tcp_flags::kAck, tsval);
  p.tcp.ack = ack;
  p.tcp.window = window;
  return p;
}

struct GroNet {
  Simulation sim{1};
  Host* a;
  Host* b;
  Link* link;
  GroReceiveNic* nic;
  OneShotRxModeration* host_nic = nullptr;  // with host_int_rx_mod > 0
  Sink sink;
  ScriptedSender* script = nullptr;
  explicit GroNet(GroReceiveNicConfig cfg = {}, DataRate rate = DataRate::gbps(1), int hz_b = 250,
                  SimTime host_int_rx_mod = 0, SimTime host_int_latency = 0, SimTime host_int_jitter = 0,
                  IpVersion v = IpVersion::v4) {
    const bool v4 = v == IpVersion::v4;
    a = &sim.add<Host>("a", 0, v4 ? "10.0.0.1" : "fd00::1", v, 1000);
    b = &sim.add<Host>("b", 1, v4 ? "10.0.0.2" : "fd00::2", v, hz_b);
    ChannelConfig c;
    c.rate = rate;
    c.delay = 5 * kPicosPerMicro;
    link = &sim.add<Link>("a-b", *a, *b, c, c);
    a->set_forwarding({-1, 0});
    b->set_forwarding({0, -1});
    nic = &sim.add<GroReceiveNic>("b-nic", *b, link->port_at_b(), cfg);
    nic->attach(link->a_to_b());
    if (host_int_rx_mod > 0) {
      host_nic = &sim.add<OneShotRxModeration>("b-host-nic", host_int_rx_mod, host_int_latency, host_int_jitter);
      host_nic->attach(link->a_to_b());
    }
    sink.sim = &sim;
    b->bind(IpProtocol::tcp, kDport, &sink);
    script_storage = std::make_unique<ScriptedSender>(sim, *a);
    script = script_storage.get();
  }
  // Back-to-back segments k = first .. first+n-1 of one flow, all sent at `t`.
  void burst(SimTime t, std::uint32_t first, std::uint32_t n, std::uint32_t mss = kMss) {
    for (std::uint32_t k = first; k < first + n; ++k) script->at(t, segment(k * mss, mss));
  }
  std::unique_ptr<ScriptedSender> script_storage;
};

}  // namespace netsim
