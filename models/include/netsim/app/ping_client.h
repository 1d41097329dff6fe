// The pinging side of `ping -c COUNT -i INTERVAL -s SIZE TO`: ICMP echo
// requests at fixed intervals, each reply's round-trip time from the time the
// request was handed to the host to the time the reply reached the process
// (FreeBSD ping(8) stamps the data with the send time and subtracts it on
// receipt). The destination's IcmpEchoResponder answers.
//
// Statistics as ping(8) prints them: min, avg and max of the replies'
// times and their population standard deviation, sqrt(sum t^2 / n - avg^2)
// (FreeBSD's "stddev", iputils' "mdev"). Sums are exact (integer
// picoseconds), so the figures are the same on every machine.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "netsim/app/icmp_echo_responder.h"
#include "netsim/host/host.h"
#include "netsim/sim/event_handler.h"
#include "netsim/sim/timer.h"

namespace netsim {

struct PingConfig {
  NodeId dst = kNoNode;
  std::uint16_t ident = 1;          // echo identifier: the client's port in the host's table (not 0)
  std::uint32_t data_bytes = 56;    // ping -s: ICMP data after the 8-byte header (>= 8 for the timestamp)
  SimTime interval = 1'000'000'000'000;  // ping -i
  std::uint64_t count = 0;          // ping -c; 0: until `stop`
  SimTime start = 0;
  SimTime stop = kTimeNever;        // no request at or after this time
  std::uint32_t flow_id = 0;
};

struct PingReply {
  std::uint64_t seq = 0;  // icmp_seq, from 0
  SimTime rtt = 0;
  SimTime received = 0;   // when the reply reached the client
};

struct PingStats {
  std::uint64_t transmitted = 0;
  std::uint64_t received = 0;
  // Empty when no reply came back (ping prints no round-trip line then).
  std::optional<double> min_ms;
  std::optional<double> avg_ms;
  std::optional<double> max_ms;
  std::optional<double> stddev_ms;
};

class PingClient final : public Component, public EventHandler, public Endpoint {
 public:
  // Binds (icmp, config.ident) on `host`; ICMPv6 (ping6) on an IPv6 host.
  PingClient(Simulation& sim, std::string name, Host& host, const PingConfig& config);

  void handle_event(std::uint64_t tag) override;
  void deliver(Packet* p) override;

  const PingConfig& config() const { return config_; }
  Host& host() const { return host_; }
  std::uint64_t transmitted() const { return sent_; }
  // Replies in arrival order.
  const std::vector<PingReply>& replies() const { return replies_; }
  PingStats stats() const;

 private:
  Host& host_;
  PingConfig config_;
  Timer timer_;
  std::uint64_t sent_ = 0;
  std::vector<SimTime> sent_at_;  // by icmp_seq
  std::vector<PingReply> replies_;
};

// The statistics of a set of round-trip times (exposed for tests).
PingStats ping_stats(std::uint64_t transmitted, const std::vector<PingReply>& replies);

}  // namespace netsim
