// SIFTR (Statistical Information For TCP Research), the FreeBSD kernel
// module, on one FreeBSD host: pfil hooks that snapshot the tcpcb of every
// TCP packet the host sends and receives, a queue of those records, and the
// writer kthread that formats them into siftr.log; in both versions, 1.2.4
// (before review D40302) and 1.3.0 (after), with the CPU work each does.
//
// Ported (own code, no source text) from sys/netinet/siftr.c:
//   1.2.4: sobomax/freebsd14_vendor @ 0f7ff3427c99afe8b7a0ccf8638dc10aed02c3f8
//   1.3.0: FreeBSD main after review D40302 (the dev commit ccfbsd/siftr
//          63710a5 "siftr: multiple feature changes"), not yet with the
//          batched ALQ writes of ccfbsd/siftr 5851d47
// functions siftr_chkpkt / siftr_chkpkt6 (hook), siftr_findinpcb,
// siftr_get_flowid (1.3.0), siftr_siftdata, siftr_pkt_manager_thread,
// siftr_process_pkt, siftr_manage_ops. See shared/design/t3-t6-mechanisms.md
// section 4 and docs/siftr.md (the cost model and its equations).
//
// What each version does per TCP packet, in the packet's CPU context:
//   1.2.4  mbuf tag check + alloc, inpcb lookup, [no tcpcb / TIME_WAIT: skip],
//          port filter, pkt_node malloc, tcpcb copy, microtime, enqueue
//   1.3.0  port filter (on the header's ports), mbuf tag, inpcb lookup,
//          [t_state < ESTABLISHED: skip], flow id (inp_flowid, or a software
//          Toeplitz hash of the 5-tuple), flow lookup (first packet of a flow:
//          address strings cached), pkt_node malloc, copy, microtime, enqueue
// and per record in the writer thread, which wakes every tick on the same core:
//   1.2.4  37-byte key (13 without INET6), hash32_buf, bucket walk with memcmp,
//          [new flow node], snprintf of 35 (IPv4) / 43 (IPv6) conversions, post
//   1.3.0  bucket walk by flow id, snprintf of 28 conversions, post
// Costs are in CPU cycles, turned into time by the host CPU's clock.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "netsim/host/host.h"
#include "netsim/host/pfil_hook.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/timer.h"
#include "netsim/tcp/freebsd/siftr_config.h"
#include "netsim/tcp/freebsd/siftr_log_file.h"
#include "netsim/tcp/freebsd/siftr_log_format.h"
#include "netsim/tcp/freebsd/siftr_record.h"

namespace netsim::tcp {

class FreeBsdTcpSender;

struct SiftrStats {
  std::uint64_t records_queued = 0;   // pkt_nodes enqueued by the hooks
  std::uint64_t records_logged = 0;   // lines written (ppl > 1 logs fewer)
  std::uint64_t log_bytes = 0;        // whole log text, enable and disable lines included
  std::uint64_t writer_wakeups = 0;
  std::uint64_t max_queue = 0;        // most records waiting for the writer at once
  std::uint64_t hook_cycles = 0;      // CPU cycles charged in the packets' contexts
  std::uint64_t writer_cycles = 0;    // CPU cycles of the writer thread
};

class Siftr final : public Component, public PfilHook, public EventHandler {
 public:
  // Registers its hooks on `host` (a FreeBSD host); enabled at config.enable_at.
  Siftr(Simulation& sim, std::string name, Host& host, const SiftrConfig& config);
  ~Siftr() override;

  // A connection of this host the hooks can find (its inpcb), with the
  // peer's address text as the scenario gives it.
  void attach(const FreeBsdTcpSender& connection, const std::string& peer_address);
  // Writes the log to `path` (the file is created now).
  void set_log_file(const std::string& path);
  // Called with every record as the writer logs it (tests, trace comparison).
  void set_record_observer(std::function<void(const SiftrRecord&)> f) { observer_ = std::move(f); }

  // The end of the run: a SIFTR still enabled is disabled now (the writer
  // drains its queue, the disable line is written, the log closed).
  void finish();

  SimTime cost(const Packet& p, PfilDir dir) override;
  void run(const Packet& p, PfilDir dir) override;
  void handle_event(std::uint64_t tag) override;

  const SiftrConfig& config() const { return config_; }
  const SiftrCounters& counters() const { return counters_; }
  const SiftrStats& stats() const { return stats_; }
  bool enabled() const { return enabled_; }
  const SiftrEnableLine& enable_line() const { return enable_line_; }
  // The log file's path; empty without one.
  std::string log_path() const { return log_ ? log_->path() : std::string(); }
  const std::optional<SiftrDisableLine>& disable_line() const { return disable_line_; }

 private:
  enum Tag : std::uint64_t { kEnable = 1, kDisable = 2, kWake = 3, kWriterDone = 4 };
  struct Connection {
    const FreeBsdTcpSender* tcp;
    SiftrAddress laddr;
    SiftrAddress faddr;
    NodeId peer;
  };
  // flow_hash_node: the ppl counter and (1.3.0) the cached address text.
  struct FlowNode {
    std::uint32_t key = 0;            // 1.3.0: the flow id; 1.2.4: hash32_buf of the key
    std::array<std::uint8_t, 37> key_bytes{};  // 1.2.4's key
    std::uint16_t counter = 0;
    std::uint32_t order = 0;          // creation order (LIST_INSERT_HEAD: newest first in a bucket)
    SiftrFlow flow;
    SiftrAddressText laddr_text;
    SiftrAddressText faddr_text;
  };
  struct Queued {
    SiftrRecord record;
    std::int32_t flow = -1;  // 1.3.0: the flow node the hook found or made
  };
  // What the hook does with a packet: the path through siftr_chkpkt.
  struct HookPath {
    // ignored: not TCP, SIFTR disabled, or 1.3.0's header port filter (uncounted);
    // the others are counted in n_in / n_out, then skipped or queued.
    enum class Outcome { ignored, no_inpcb, no_tcpcb, filtered, queue_full, queued };
    Outcome outcome = Outcome::ignored;
    std::int64_t cycles = 0;
    const Connection* conn = nullptr;
    std::uint32_t flowid = 0;    // what the record logs
    std::uint32_t flowtype = 0;
    std::int32_t flow = -1;      // 1.3.0: the flow node by flow id; -1: a new flow
  };

  HookPath classify(const Packet& p, PfilDir dir) const;
  const Connection* find_connection(const Packet& p, PfilDir dir) const;
  std::uint32_t flow_id(const Connection& c, std::uint32_t& flowtype) const;
  std::int32_t find_flow(std::uint32_t key, const std::uint8_t* key_bytes, std::size_t key_len) const;
  std::int32_t new_flow(std::uint32_t key, const std::uint8_t* key_bytes, std::size_t key_len, const SiftrFlow& flow);
  void siftdata(const Connection& c, PfilDir dir, SiftrRecord& r) const;
  // siftr_process_pkt: returns the writer's cycles for the record.
  std::int64_t process(Queued& q);
  void enable();
  void disable();
  void wake();
  void drain();
  void write_text(std::string_view text);
  std::size_t key_length() const { return config_.inet6 ? 37 : 13; }
  void realtime(std::int64_t& sec, std::int32_t& usec) const;

  Host& host_;
  SiftrConfig config_;
  Callout wake_;       // mtx_sleep(&wait_for_pkt, ..., 1): the writer's tick
  Timer enable_timer_;
  Timer disable_timer_;
  Timer writer_done_;  // the writer's batch has run on the CPU
  bool enabled_ = false;
  std::vector<Connection> connections_;
  mutable std::unordered_map<std::uint64_t, std::size_t> connection_index_;
  std::vector<FlowNode> flows_;
  std::unordered_map<std::uint32_t, std::vector<std::int32_t>> buckets_;  // key -> flow nodes (collisions kept)
  std::vector<Queued> queue_;  // pkt_queue
  std::vector<Queued> batch_;  // tmp_pkt_queue
  SiftrLine line_;
  std::unique_ptr<SiftrLogFile> log_;
  std::function<void(const SiftrRecord&)> observer_;
  SiftrCounters counters_;
  SiftrStats stats_;
  SiftrEnableLine enable_line_;
  std::optional<SiftrDisableLine> disable_line_;
};

}  // namespace netsim::tcp
