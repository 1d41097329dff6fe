#include "netsim/app/ping_client.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "netsim/sim/int128.h"

namespace netsim {

PingClient::PingClient(Simulation& sim, std::string name, Host& host, const PingConfig& config)
    : Component(sim, std::move(name)), host_(host), config_(config), timer_(this, 0) {
  const auto fail = [this](const std::string& why) { throw std::invalid_argument("ping " + this->name() + ": " + why); };
  if (config_.ident == IcmpEchoResponder::kPort) fail("identifier 0 is the echo service's");
  if (config_.interval <= 0) fail("interval must be > 0");
  if (host.route(config_.dst) == nullptr) fail("no route to destination");
  host.bind(icmp_protocol(host.ip_version()), config_.ident, this);
  // Room for every request up front, so the run itself does not allocate.
  std::uint64_t requests = config_.count;
  if (requests == 0 && config_.stop != kTimeNever && config_.stop > config_.start) {
    requests = static_cast<std::uint64_t>((config_.stop - config_.start - 1) / config_.interval) + 1;
  }
  requests = std::min<std::uint64_t>(requests, std::uint64_t{1} << 20);
  replies_.reserve(requests);
  sent_at_.reserve(requests);
  sim.arm_at(timer_, config_.start);
}

void PingClient::handle_event(std::uint64_t) {
  if (sim().now() >= config_.stop || (config_.count > 0 && sent_ >= config_.count)) return;
  Packet* p = sim().packets().alloc();
  p->flow_id = config_.flow_id;
  p->dst = config_.dst;
  p->protocol = icmp_protocol(host_.ip_version());  // ping6: ICMPv6 echo request
  p->src_port = config_.ident;
  p->dst_port = IcmpEchoResponder::kPort;
  p->l4_header_bytes = kIcmpHeaderBytes;
  p->payload_bytes = config_.data_bytes;
  p->app_seq = sent_;
  p->created = sim().now();
  sent_at_.push_back(sim().now());
  ++sent_;
  host_.send(p);
  // Request k leaves at start + k * interval: no drift from rounding.
  const SimTime next = config_.start + static_cast<SimTime>(sent_) * config_.interval;
  if (next < config_.stop && (config_.count == 0 || sent_ < config_.count)) sim().arm_at(timer_, next);
}

void PingClient::deliver(Packet* p) {
  // The sequence number says which request this answers; its send time is
  // what ping(8) reads back from the reply's data.
  if (p->app_seq < sent_at_.size()) replies_.push_back({p->app_seq, sim().now() - sent_at_[p->app_seq], sim().now()});
  sim().packets().release(p);
}

PingStats PingClient::stats() const { return ping_stats(sent_, replies_); }

PingStats ping_stats(std::uint64_t transmitted, const std::vector<PingReply>& replies) {
  PingStats s;
  s.transmitted = transmitted;
  s.received = replies.size();
  if (replies.empty()) return s;
  SimTime lo = replies.front().rtt;
  SimTime hi = lo;
  Int128 sum = 0;
  Int128 sum_sq = 0;
  for (const PingReply& r : replies) {
    lo = std::min(lo, r.rtt);
    hi = std::max(hi, r.rtt);
    sum += r.rtt;
    sum_sq += static_cast<Int128>(r.rtt) * r.rtt;
  }
  const auto n = static_cast<Int128>(replies.size());
  const double ms = static_cast<double>(kPicosPerMilli);
  s.min_ms = static_cast<double>(lo) / ms;
  s.max_ms = static_cast<double>(hi) / ms;
  s.avg_ms = static_cast<double>(sum) / static_cast<double>(n) / ms;
  // n * sum t^2 - (sum t)^2 is exact and >= 0; the variance is that / n^2.
  const Int128 spread = n * sum_sq - sum * sum;
  s.stddev_ms = std::sqrt(static_cast<double>(spread)) / static_cast<double>(n) / ms;
  return s;
}

}  // namespace netsim
