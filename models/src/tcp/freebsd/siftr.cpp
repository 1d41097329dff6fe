#include "netsim/tcp/freebsd/siftr.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "netsim/tcp/freebsd/flow_hash.h"
#include "netsim/tcp/freebsd_tcp_sender.h"

namespace netsim::tcp {
namespace {

// t_state numbers (tcp_fsm.h) of the sender's states.
int tcps_state(FreeBsdTcpSender::State s) {
  switch (s) {
    case FreeBsdTcpSender::State::closed: return 0;        // TCPS_CLOSED
    case FreeBsdTcpSender::State::listen: return 1;        // TCPS_LISTEN
    case FreeBsdTcpSender::State::syn_sent: return 2;      // TCPS_SYN_SENT
    case FreeBsdTcpSender::State::syn_received: return 3;  // TCPS_SYN_RECEIVED
    case FreeBsdTcpSender::State::established: return 4;   // TCPS_ESTABLISHED
    case FreeBsdTcpSender::State::close_wait: return 5;    // TCPS_CLOSE_WAIT
  }
  return 0;
}
constexpr int TCPS_ESTABLISHED = 4;

// t_flags bits (tcp_var.h) the handshake sets, which the ported sender keeps
// in its own fields rather than in t_flags.
constexpr std::uint32_t TF_REQ_SCALE = 0x20;
constexpr std::uint32_t TF_RCVD_SCALE = 0x40;
constexpr std::uint32_t TF_REQ_TSTMP = 0x80;
constexpr std::uint32_t TF_RCVD_TSTMP = 0x100;
constexpr std::uint32_t TF_TSO = 0x01000000;
// t_flags2: TF2_PLPMTU_PMTUD, set on every connection while
// net.inet.tcp.path_mtu_discovery is 1 (the default; every line of the sample has it).
constexpr std::uint32_t TF2_PLPMTU_PMTUD = 0x2;

constexpr std::uint8_t INP_IPV4 = 0x1;  // in_pcb.h inp_vflag
constexpr std::uint8_t INP_IPV6 = 0x2;
constexpr std::uint32_t kHashMask = 65535;  // hashinit(SIFTR_EXPECTED_MAX_TCP_FLOWS = 65536)

SiftrAddress parse_address(const std::string& text, IpVersion v) {
  SiftrAddress a;
  a.family = v;
  if (inet_pton(v == IpVersion::v4 ? AF_INET : AF_INET6, text.c_str(), a.bytes.data()) != 1) {
    throw std::invalid_argument("SIFTR: '" + text + "' is not an IPv" + (v == IpVersion::v4 ? "4" : "6") +
                                " address");
  }
  return a;
}

std::size_t address_bytes(const SiftrAddress& a) { return a.family == IpVersion::v4 ? 4 : 16; }

}  // namespace

Siftr::Siftr(Simulation& sim, std::string name, Host& host, const SiftrConfig& config)
    : Component(sim, std::move(name)),
      host_(host),
      config_(config),
      wake_(host.clock(), this, kWake),
      enable_timer_(this, kEnable),
      disable_timer_(this, kDisable),
      writer_done_(this, kWriterDone) {
  if (config_.ppl == 0) throw std::invalid_argument("SIFTR: ppl must be at least 1");
  queue_.reserve(4096);
  batch_.reserve(4096);
  host_.add_pfil_hook(this);
  if (config_.enable_at <= sim.now()) {
    enable();
  } else {
    sim.arm_at(enable_timer_, config_.enable_at);
  }
  if (config_.disable_at) sim.arm_at(disable_timer_, std::max(*config_.disable_at, config_.enable_at));
}

Siftr::~Siftr() = default;

void Siftr::attach(const FreeBsdTcpSender& connection, const std::string& peer_address) {
  const IpVersion v = host_.ip_version();
  connections_.push_back(
      {&connection, parse_address(host_.address(), v), parse_address(peer_address, v), connection.peer()});
  connection_index_.clear();
}

void Siftr::set_log_file(const std::string& path) {
  log_ = std::make_unique<SiftrLogFile>(path);
  if (enabled_) {
    // The line written before the file was named (an enable at time 0).
    log_->append(format_siftr_enable(config_.version, enable_line_));
  }
}

void Siftr::realtime(std::int64_t& sec, std::int32_t& usec) const {
  const std::int64_t us = config_.wall_clock_us + sim().now() / 1'000'000;
  sec = us / 1'000'000;
  usec = static_cast<std::int32_t>(us % 1'000'000);
}

void Siftr::write_text(std::string_view text) {
  stats_.log_bytes += text.size();
  if (log_) log_->append(text);
}

void Siftr::enable() {
  enabled_ = true;
  counters_ = {};  // DPCPU_ZERO(ss)
  enable_line_ = {};
  realtime(enable_line_.secs, enable_line_.usecs);
  enable_line_.siftrver = siftr_version_name(config_.version);
  if (config_.version == SiftrVersion::v1_2_4) {
    enable_line_.hz = static_cast<std::uint32_t>(host_.clock().hz());
    enable_line_.tcp_rtt_scale = 32;
  }
  enable_line_.sysver = config_.sysver;
  enable_line_.ipmode = config_.inet6 ? 6 : 4;
  write_text(format_siftr_enable(config_.version, enable_line_));
  wake_.reset(1);
}

void Siftr::disable() {
  if (!enabled_) return;
  // siftr_pfil(UNHOOK), then the writer's last pass over the queue.
  enabled_ = false;
  wake_.stop();
  sim().cancel(writer_done_);
  drain();
  SiftrDisableLine d;
  realtime(d.secs, d.usecs);
  d.counters = counters_;
  // flow_list: bucket by bucket, each bucket's list newest first.
  std::vector<const FlowNode*> order;
  order.reserve(flows_.size());
  for (const FlowNode& f : flows_) order.push_back(&f);
  std::sort(order.begin(), order.end(), [](const FlowNode* a, const FlowNode* b) {
    const std::uint32_t ba = a->key & kHashMask;
    const std::uint32_t bb = b->key & kHashMask;
    return ba != bb ? ba < bb : a->order > b->order;
  });
  for (const FlowNode* f : order) d.flows.push_back(f->flow);
  write_text(format_siftr_disable(config_.version, d));
  disable_line_ = std::move(d);
  if (log_) log_->close();
}

void Siftr::finish() { disable(); }

void Siftr::handle_event(std::uint64_t tag) {
  switch (tag) {
    case kEnable: enable(); break;
    case kDisable: disable(); break;
    case kWake: wake(); break;
    case kWriterDone:
      if (enabled_) wake_.reset(1);
      break;
    default: break;
  }
}

const Siftr::Connection* Siftr::find_connection(const Packet& p, PfilDir dir) const {
  const bool out = dir == PfilDir::out;
  const std::uint16_t lport = out ? p.src_port : p.dst_port;
  const std::uint16_t fport = out ? p.dst_port : p.src_port;
  const NodeId peer = out ? p.dst : p.src;
  const std::uint64_t key = (static_cast<std::uint64_t>(lport) << 48) | (static_cast<std::uint64_t>(fport) << 32) | peer;
  if (const auto it = connection_index_.find(key); it != connection_index_.end()) return &connections_[it->second];
  // A passive connection learns its peer's port from the SYN: looked up by
  // the 4-tuple once it matches, then found by key.
  for (std::size_t i = 0; i < connections_.size(); ++i) {
    const FreeBsdTcpSender& t = *connections_[i].tcp;
    if (t.local_port() == lport && t.peer() == peer && t.peer_port() == fport) {
      connection_index_.emplace(key, i);
      return &connections_[i];
    }
  }
  return nullptr;
}

std::uint32_t Siftr::flow_id(const Connection& c, std::uint32_t& flowtype) const {
  const FreeBsdTcpSender& t = *c.tcp;
  // inp_flowid: tcp_input copies the SYN-ACK's mbuf hash into the inpcb.
  if (config_.flowid == SiftrFlowIdSource::nic && t.state() == FreeBsdTcpSender::State::established) {
    flowtype = c.laddr.family == IpVersion::v4 ? M_HASHTYPE_RSS_TCP_IPV4 : M_HASHTYPE_RSS_TCP_IPV6;
    return toeplitz_hash(mpath_entropy_key(), rss_hash_input(c.faddr, c.laddr, t.peer_port(), t.local_port()).span());
  }
  flowtype = 0;
  return 0;
}

// One walk through siftr_chkpkt for both calls: cost() takes its cycles,
// run() its outcome, so the two cannot disagree on the path.
Siftr::HookPath Siftr::classify(const Packet& p, PfilDir dir) const {
  using Outcome = HookPath::Outcome;
  HookPath h;
  if (!enabled_ || p.protocol != IpProtocol::tcp) return h;
  const SiftrCosts& c = config_.costs;
  const bool v130 = config_.version == SiftrVersion::v1_3_0;
  const auto port_passes = [&](std::uint16_t a, std::uint16_t b) {
    return config_.port_filter == 0 || config_.port_filter == a || config_.port_filter == b;
  };
  if (v130 && !port_passes(p.src_port, p.dst_port)) return h;  // checked first, on the header, uncounted
  h.cycles += c.hook;
  h.conn = find_connection(p, dir);
  if (h.conn == nullptr) {
    h.outcome = Outcome::no_inpcb;
    return h;
  }
  const FreeBsdTcpSender& t = *h.conn->tcp;
  h.flowid = flow_id(*h.conn, h.flowtype);  // inp_flowid / inp_flowtype
  if (v130) {
    if (tcps_state(t.state()) < TCPS_ESTABLISHED) {
      h.outcome = Outcome::no_tcpcb;
      return h;
    }
    if (h.flowid == 0) {
      const FiveTupleBytes in = software_hash_input(h.conn->laddr, h.conn->faddr, t.local_port(), t.peer_port(), 6);
      h.cycles += c.toeplitz_per_bit * 8 * static_cast<std::int64_t>(in.size);
      h.flowid = toeplitz_hash(mpath_entropy_key(), in.span());
      h.flowtype = M_HASHTYPE_OPAQUE;
    }
    h.flow = find_flow(h.flowid, nullptr, 0);
    if (h.flow < 0) h.cycles += c.flow_setup;
  } else if (!port_passes(t.local_port(), t.peer_port())) {
    h.outcome = Outcome::filtered;  // 1.2.4 filters on the inpcb's ports, after the lookup
    return h;
  }
  if (config_.queue_limit > 0 && queue_.size() >= config_.queue_limit) {
    h.outcome = Outcome::queue_full;
    return h;
  }
  h.cycles += c.hook_record;
  h.outcome = Outcome::queued;
  return h;
}

SimTime Siftr::cost(const Packet& p, PfilDir dir) {
  const HookPath h = classify(p, dir);
  if (h.cycles == 0) return 0;
  stats_.hook_cycles += static_cast<std::uint64_t>(h.cycles);
  const HostCpu* cpu = host_.cpu();
  return cpu != nullptr ? cpu->cycles(h.cycles) : 0;
}

void Siftr::run(const Packet& p, PfilDir dir) {
  using Outcome = HookPath::Outcome;
  const HookPath h = classify(p, dir);
  if (h.outcome == Outcome::ignored) return;
  const bool in = dir == PfilDir::in;
  const auto count = [in](std::uint32_t& in_counter, std::uint32_t& out_counter) {
    ++(in ? in_counter : out_counter);
  };
  ++(in ? counters_.n_in : counters_.n_out);
  switch (h.outcome) {
    case Outcome::no_inpcb: count(counters_.nskip_in_inpcb, counters_.nskip_out_inpcb); return;
    case Outcome::no_tcpcb: count(counters_.nskip_in_tcpcb, counters_.nskip_out_tcpcb); return;
    case Outcome::filtered: return;
    default: break;
  }
  const FreeBsdTcpSender& t = *h.conn->tcp;
  Queued q;
  q.record.flowid = h.flowid;
  q.record.flowtype = h.flowtype;
  q.flow = h.flow;
  // 1.3.0 makes a new flow's node before it asks for the pkt_node.
  if (config_.version == SiftrVersion::v1_3_0 && q.flow < 0) {
    q.flow = new_flow(h.flowid, nullptr, 0, {h.conn->laddr, t.local_port(), h.conn->faddr, t.peer_port()});
  }
  if (h.outcome == Outcome::queue_full) {
    count(counters_.nskip_in_malloc, counters_.nskip_out_malloc);
    return;
  }
  siftdata(*h.conn, dir, q.record);
  queue_.push_back(q);
  ++stats_.records_queued;
  stats_.max_queue = std::max<std::uint64_t>(stats_.max_queue, queue_.size());
}

void Siftr::siftdata(const Connection& c, PfilDir dir, SiftrRecord& r) const {
  const FreeBsdTcpSender& t = *c.tcp;
  const Tcpcb& tp = t.tcpcb();
  const bool v130 = config_.version == SiftrVersion::v1_3_0;
  const std::int64_t tick = 1'000'000 / host_.clock().hz();
  r.direction = dir == PfilDir::in ? SiftrDirection::in : SiftrDirection::out;
  r.laddr = c.laddr;
  r.faddr = c.faddr;
  r.lport = t.local_port();
  r.fport = t.peer_port();
  r.snd_cwnd = tp.snd_cwnd;
  r.snd_wnd = tp.snd_wnd;
  r.rcv_wnd = t.receive_window();
  r.t_flags2 = v130 ? TF2_PLPMTU_PMTUD : 0;  // 1.2.4: snd_bwnd, unused, 0
  r.snd_ssthresh = tp.snd_ssthresh;
  r.snd_scale = tp.snd_scale;
  r.rcv_scale = t.rcv_scale();
  r.conn_state = tcps_state(t.state());
  r.mss = tp.t_maxseg;
  r.srtt = v130 ? static_cast<std::uint32_t>((static_cast<std::uint64_t>(tp.t_srtt) * tick) >> 5)
                : static_cast<std::uint32_t>(tp.t_srtt);
  r.sack_enabled = t.sack_permitted() ? 1 : 0;
  std::uint32_t flags = tp.t_flags;
  if (t.timestamps_on()) flags |= TF_REQ_TSTMP | TF_RCVD_TSTMP;
  if (t.window_scaling_on()) flags |= TF_REQ_SCALE | TF_RCVD_SCALE;
  if (t.sack_permitted()) flags |= TF_SACK_PERMIT;
  if (t.config().tso) flags |= TF_TSO;
  r.t_flags = flags;
  r.rto = v130 ? static_cast<std::uint32_t>(tp.t_rxtcur * tick) : static_cast<std::uint32_t>(tp.t_rxtcur);
  r.snd_buf_hiwater = t.send_buffer_hiwat();
  r.snd_buf_cc = static_cast<std::uint32_t>(std::min<std::uint64_t>(t.send_buffer_used(), UINT32_MAX));
  r.rcv_buf_hiwater = t.receive_buffer_hiwat();
  r.rcv_buf_cc = t.receive_buffer_used();
  r.sent_inflight_bytes = tp.snd_max - tp.snd_una;
  r.t_segqlen = tp.t_segqlen;
  realtime(r.tv_sec, r.tv_usec);
}

std::int32_t Siftr::find_flow(std::uint32_t key, const std::uint8_t* key_bytes, std::size_t key_len) const {
  const auto it = buckets_.find(key);
  if (it == buckets_.end()) return -1;
  for (const std::int32_t i : it->second) {
    const FlowNode& f = flows_[static_cast<std::size_t>(i)];
    if (key_bytes == nullptr || std::memcmp(f.key_bytes.data(), key_bytes, key_len) == 0) return i;
  }
  return -1;
}

std::int32_t Siftr::new_flow(std::uint32_t key, const std::uint8_t* key_bytes, std::size_t key_len,
                             const SiftrFlow& flow) {
  FlowNode f;
  f.key = key;
  if (key_bytes != nullptr) std::memcpy(f.key_bytes.data(), key_bytes, key_len);
  f.order = static_cast<std::uint32_t>(flows_.size());
  f.flow = flow;
  f.laddr_text = siftr_address_text(flow.laddr);
  f.faddr_text = siftr_address_text(flow.faddr);
  flows_.push_back(f);
  const auto i = static_cast<std::int32_t>(flows_.size() - 1);
  buckets_[key].push_back(i);
  return i;
}

std::int64_t Siftr::process(Queued& q) {
  const SiftrCosts& c = config_.costs;
  std::int64_t cycles = c.record;
  std::int32_t flow = q.flow;
  bool created = false;
  if (config_.version == SiftrVersion::v1_2_4) {
    // key: ipversion, local address, local port, foreign address, foreign
    // port, the addresses as pkt_node holds them (IPv4 in the last word).
    const SiftrRecord& r = q.record;
    std::array<std::uint8_t, 37> key{};
    const std::size_t alen = config_.inet6 ? 16 : 4;
    std::size_t n = 0;
    key[n++] = r.laddr.family == IpVersion::v4 ? INP_IPV4 : INP_IPV6;
    const auto put_address = [&](const SiftrAddress& a) {
      const std::size_t skip = alen - address_bytes(a);
      for (std::size_t i = 0; i < address_bytes(a); ++i) key[n + skip + i] = a.bytes[i];
      n += alen;
    };
    const auto put_port = [&](std::uint16_t port) {
      key[n++] = static_cast<std::uint8_t>(port >> 8);
      key[n++] = static_cast<std::uint8_t>(port);
    };
    put_address(r.laddr);
    put_port(r.lport);
    put_address(r.faddr);
    put_port(r.fport);
    cycles += c.key_hash_per_byte * static_cast<std::int64_t>(n);
    const std::uint32_t h = hash32_buf({key.data(), n}, 0);
    flow = find_flow(h, key.data(), n);
    if (flow < 0) {
      flow = new_flow(h, key.data(), n, {r.laddr, r.lport, r.faddr, r.fport});
      cycles += c.flow_setup;
      created = true;
    }
  }
  if (flow < 0) return cycles;
  FlowNode& node = flows_[static_cast<std::size_t>(flow)];
  if (!created && config_.ppl > 1) {
    node.counter = static_cast<std::uint16_t>((node.counter + 1) % config_.ppl);
    if (node.counter > 0) return cycles;
  }
  format_siftr_record(config_.version, q.record, node.laddr_text, node.faddr_text, line_);
  cycles += c.conversion * line_.conversions() + c.log_byte * static_cast<std::int64_t>(line_.size());
  write_text(line_.view());
  ++stats_.records_logged;
  if (observer_) observer_(q.record);
  return cycles;
}

void Siftr::drain() {
  std::int64_t cycles = 0;
  std::swap(queue_, batch_);
  for (Queued& q : batch_) cycles += process(q);
  batch_.clear();
  stats_.writer_cycles += static_cast<std::uint64_t>(cycles);
  if (HostCpu* cpu = host_.cpu(); cpu != nullptr && cycles > 0) {
    const SimTime done = cpu->run(cpu->cycles(cycles), CpuContext::system);
    if (enabled_ && done > sim().now()) {
      sim().arm_at(writer_done_, done);
      return;
    }
  }
  if (enabled_) wake_.reset(1);
}

void Siftr::wake() {
  ++stats_.writer_wakeups;
  stats_.writer_cycles += static_cast<std::uint64_t>(config_.costs.wakeup);
  if (HostCpu* cpu = host_.cpu(); cpu != nullptr && config_.costs.wakeup > 0) {
    cpu->run(cpu->cycles(config_.costs.wakeup), CpuContext::system);
  }
  drain();
}

}  // namespace netsim::tcp
