// FreeBSD software LRO (tcp_lro) for the default TCP stack: a per-ring table
// of flow entries that queues a flow's packets and condenses them into one
// large segment when the entry is flushed.
//
// Port (own code) of sys/netinet/tcp_lro.c and tcp_lro.h, read in
// fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814
// (tcp_lro.c) and kenrap/freebsd-src @ f30bcb15894c03d8afb60c8a4e0ca6b0b029f737
// (tcp_lro.h: TCP_LRO_LENGTH_MAX = 65535 - 255). Functions followed:
//   tcp_lro_rx / tcp_lro_rx_common  queue a packet on its flow's entry, or
//                                   start an entry, or refuse (SYN, not TCP,
//                                   no free entry: the caller passes it up
//                                   after tcp_lro_flush_active)
//   tcp_set_entry_to_mbuf           an entry's state from its head packet
//   tcp_lro_condense                the merge rules, applied at flush time
//   tcp_push_and_replace            flush the head, the packet becomes head
//   tcp_flush_out_entry             the head gets the latest ack/window/TS
//   tcp_lro_flush_all / rx_done     flush every entry, newest first
//   tcp_lro_flush_active            (see flush_active below)
// The RACK/BBR mbuf-queue path (tcp_lro_flush_tcphpts, tcp_lro_queue_mbuf)
// is not modelled: the default stack never registers for it.
//
// Merge rules (tcp_lro_condense), for the packet m following the head:
//   flush the head and make m the head if m has options other than the
//   timestamp alone (SACK), flags other than ACK/PSH, would reach
//   lro_ackcnt_lim packets or lro_length_lim payload bytes, has a TSval
//   below the entry's, is not the next sequence number, differs in the ACK
//   flag, or is a pure duplicate ACK (no data, same ack and window);
//   otherwise data is appended (lro_nsegs + 1) and a pure ACK is absorbed
//   (freed; nsegs unchanged), the entry keeping the latest ack, window and
//   timestamp, which the head carries when it goes up.
// A pure ACK older than the entry's ack is dropped on arrival.
//
// Packets: the aggregate is the head Packet with payload = the sum and
// segments = the wire segments merged (FreeBSD's lro_nsegs counts packets
// instead, which differs only for device aggregates; nsegs() of the entry
// keeps lro_nsegs for the ackcnt limit). No allocation per packet: the
// entries are a fixed table, chains run through Packet::next.
#pragma once

#include <cstdint>
#include <vector>

#include "netsim/sim/packet.h"
#include "netsim/sim/packet_pool.h"
#include "netsim/sim/packet_queue.h"

namespace netsim {

struct TcpLroConfig {
  int entries = 8;                          // TCP_LRO_ENTRIES (drivers pass their own to tcp_lro_init_args)
  std::uint32_t length_lim = 65535 - 255;   // lro_length_lim = TCP_LRO_LENGTH_MAX: payload bytes
  std::uint32_t ackcnt_lim = 65535;         // lro_ackcnt_lim = TCP_LRO_ACKCNT_MAX ("unlimited")
};

struct TcpLroCounters {
  std::uint64_t queued = 0;         // lro_queued: packets handed up, an aggregate as its lro_nsegs
  std::uint64_t flushed = 0;        // lro_flushed: entries flushed
  std::uint64_t acks_absorbed = 0;  // pure ACKs freed into an entry (nsegs not incremented)
  std::uint64_t old_acks_dropped = 0;  // pure ACKs older than the entry's ack, dropped on arrival
  std::uint64_t refused = 0;        // packets the caller passes up itself (SYN, not TCP, no entry)
};

class TcpLro {
 public:
  // Throws std::invalid_argument unless 1 <= entries <= 1024 and the limits are >= 1.
  TcpLro(PacketPool& pool, const TcpLroConfig& config);
  ~TcpLro();
  TcpLro(const TcpLro&) = delete;
  TcpLro& operator=(const TcpLro&) = delete;

  // tcp_lro_rx: true if LRO took `m` (queued, or dropped as an old ACK);
  // false if the caller must pass it up itself, after what output() holds
  // (tcp_lro_flush_active may have flushed an entry ahead of it).
  bool rx(Packet* m);
  // tcp_lro_flush_all: every entry goes up (newest first), the table empties.
  void flush_all();
  // What went up so far, in order; the caller pops it (if_input).
  PacketQueue& output() { return out_; }

  int active() const { return static_cast<int>(active_.size()); }
  const TcpLroConfig& config() const { return config_; }
  const TcpLroCounters& counters() const { return counters_; }

 private:
  struct Entry {
    Packet* head = nullptr;   // m_head; the queued chain follows through Packet::next
    Packet* last = nullptr;   // m_last_mbuf
    std::uint32_t next_seq = 0;
    std::uint32_t ack_seq = 0;
    std::uint32_t window = 0;
    std::uint32_t tsval = 0;
    std::uint32_t tsecr = 0;
    std::uint32_t nsegs = 1;  // lro_nsegs of the head
    std::uint8_t flags = 0;
    bool timestamp = false;   // the head carries the timestamp option alone
    bool needs_merge = false;
  };

  Entry* find(const Packet& m);
  void set_entry(Entry& le, Packet* m);
  void condense(Entry& le);
  void push_and_replace(Entry& le, Packet* m);
  void flush_out(Entry& le);
  void flush(std::size_t active_index);
  void flush_active();

  PacketPool& pool_;
  TcpLroConfig config_;
  std::vector<Entry> table_;            // lro_entries slots, allocated once
  std::vector<Entry*> free_;            // lro_free
  std::vector<Entry*> active_;          // lro_active in creation order (FreeBSD lists it newest first)
  PacketQueue out_;
  TcpLroCounters counters_;
};

}  // namespace netsim
