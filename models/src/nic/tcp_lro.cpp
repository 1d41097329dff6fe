// FreeBSD tcp_lro, default-stack path; see tcp_lro.h for the sources followed.
#include "netsim/nic/tcp_lro.h"

#include <stdexcept>

namespace netsim {
namespace {

bool seq_lt(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) < 0; }
bool seq_gt(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) > 0; }
bool tstmp_gt(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) > 0; }

// TCP options other than NOP NOP TIMESTAMP (TCPOLEN_TSTAMP_APPA, TCP_LRO_TS_OPTION): SACK blocks here.
bool other_options(const Packet& m) { return m.tcp.sack_block_count > 0; }
bool only_ack_push(const Packet& m) {
  return (m.tcp.flags & ~(tcp_flags::kAck | tcp_flags::kPush)) == 0;
}

bool same_flow(const Packet& a, const Packet& b) {
  return a.src == b.src && a.dst == b.dst && a.src_port == b.src_port && a.dst_port == b.dst_port &&
         a.ip_version == b.ip_version;
}

}  // namespace

TcpLro::TcpLro(PacketPool& pool, const TcpLroConfig& config) : pool_(pool), config_(config) {
  if (config_.entries < 1 || config_.entries > 1024) throw std::invalid_argument("tcp_lro: entries must be in [1, 1024]");
  if (config_.length_lim < 1 || config_.ackcnt_lim < 1) throw std::invalid_argument("tcp_lro: limits must be >= 1");
  table_.resize(static_cast<std::size_t>(config_.entries));
  free_.reserve(table_.size());
  active_.reserve(table_.size());
  for (auto it = table_.rbegin(); it != table_.rend(); ++it) free_.push_back(&*it);
}

TcpLro::~TcpLro() {
  for (Entry* le : active_) {
    Packet* m = le->head;
    while (m != nullptr) {
      Packet* next = m->next;
      pool_.release(m);
      m = next;
    }
  }
  while (Packet* m = out_.pop()) pool_.release(m);
}

TcpLro::Entry* TcpLro::find(const Packet& m) {
  for (Entry* le : active_) {
    if (same_flow(*le->head, m)) return le;
  }
  return nullptr;
}

bool TcpLro::rx(Packet* m) {
  // tcp_lro_rx_common: SYNs and what is not TCP are not LRO'd; tcp_lro_rx
  // then flushes ahead of the packet to keep order.
  if (m->protocol != IpProtocol::tcp || (m->tcp.flags & tcp_flags::kSyn) != 0) {
    ++counters_.refused;
    flush_active();
    return false;
  }
  if (Entry* le = find(*m)) {
    // An ACK older than the entry's (its head's, until condensed) is dropped.
    if (m->payload_bytes == 0 && seq_lt(m->tcp.ack, le->ack_seq)) {
      ++counters_.old_acks_dropped;
      pool_.release(m);
      return true;
    }
    m->next = nullptr;
    le->last->next = m;
    le->last = m;
    return true;
  }
  if (free_.empty()) {  // TCP_LRO_NO_ENTRIES
    ++counters_.refused;
    flush_active();
    return false;
  }
  Entry* le = free_.back();
  free_.pop_back();
  active_.push_back(le);
  m->next = nullptr;
  set_entry(*le, m);
  le->last = m;
  return true;
}

// tcp_set_entry_to_mbuf. A head without the timestamp option alone keeps
// the entry's previous tsval (FreeBSD leaves it as it was).
void TcpLro::set_entry(Entry& le, Packet* m) {
  le.timestamp = m->tcp.ts_present && !other_options(*m);
  if (le.timestamp) {
    le.tsval = m->tcp.ts_val;
    le.tsecr = m->tcp.ts_ecr;
  }
  le.next_seq = m->tcp.seq + m->payload_bytes;
  le.ack_seq = m->tcp.ack;
  le.window = m->tcp.window;
  le.flags = m->tcp.flags;
  le.needs_merge = false;
  le.nsegs = 1;
  le.head = m;
}

// tcp_flush_out_entry: a merged head carries the entry's latest ack, window and timestamp.
void TcpLro::flush_out(Entry& le) {
  Packet* h = le.head;
  if (le.needs_merge) {
    h->tcp.ack = le.ack_seq;
    h->tcp.window = le.window;
    if (le.timestamp) {
      h->tcp.ts_val = le.tsval;
      h->tcp.ts_ecr = le.tsecr;
    }
  }
  h->next = nullptr;
  counters_.queued += le.nsegs;
  out_.push(h);
}

// tcp_push_and_replace: the head goes up, m becomes the head of the rest.
void TcpLro::push_and_replace(Entry& le, Packet* m) {
  Packet* rest = le.head->next;
  le.head->next = nullptr;
  flush_out(le);
  set_entry(le, m);
  m->next = rest;
}

// tcp_lro_condense: walk the queued chain behind the head and merge what the rules allow.
void TcpLro::condense(Entry& le) {
  for (;;) {  // `again:` in FreeBSD
    Packet* m = le.head->next;
    if (m == nullptr) return;
    if (other_options(*m) || !only_ack_push(*m)) {
      // Not a head that can take merges (SACK, FIN, RST): it goes up on its own turn.
      le.head->next = m->next;
      push_and_replace(le, m);
      continue;
    }
    bool restart = false;
    while (!restart && (m = le.head->next) != nullptr) {
      le.head->next = m->next;
      m->next = nullptr;
      const std::uint32_t len = m->payload_bytes;
      const std::uint64_t len_total = static_cast<std::uint64_t>(le.head->payload_bytes) + len;
      const std::uint64_t seg_total = static_cast<std::uint64_t>(le.nsegs) + 1;  // m's lro_nsegs is 1
      if (seg_total >= config_.ackcnt_lim || len_total >= config_.length_lim || other_options(*m) ||
          !only_ack_push(*m)) {
        push_and_replace(le, m);
        restart = true;
        continue;
      }
      if (m->tcp.ts_present) {
        if (tstmp_gt(le.tsval, m->tcp.ts_val)) {  // timestamps must not go backwards
          push_and_replace(le, m);
          restart = true;
          continue;
        }
        le.tsval = m->tcp.ts_val;
        le.tsecr = m->tcp.ts_ecr;
      }
      const bool dup_ack = len == 0 && le.ack_seq == m->tcp.ack && le.window == m->tcp.window;
      if (m->tcp.seq != le.next_seq || (m->tcp.flags & tcp_flags::kAck) != (le.flags & tcp_flags::kAck) || dup_ack) {
        push_and_replace(le, m);  // out of order, ACK and non-ACK, or a duplicate ACK
        restart = true;
        continue;
      }
      if (len != 0 || seq_gt(m->tcp.ack, le.ack_seq)) {
        le.next_seq += len;
        le.ack_seq = m->tcp.ack;
        le.window = m->tcp.window;
        le.needs_merge = true;
      } else if (m->tcp.ack == le.ack_seq && m->tcp.window > le.window) {  // WIN_GT
        le.window = m->tcp.window;
        le.needs_merge = true;
      }
      if (len == 0) {  // an ACK: absorbed, nsegs unchanged
        ++counters_.acks_absorbed;
        pool_.release(m);
        continue;
      }
      // tcp_lro_mbuf_append_pkthdr: the payload joins the head.
      le.head->payload_bytes += len;
      le.head->segments = static_cast<std::uint16_t>(le.head->segments + m->segments);
      ++le.nsegs;
      le.needs_merge = true;
      pool_.release(m);
    }
    if (!restart) return;
  }
}

// tcp_lro_flush: condense, hand the head up, free the entry.
void TcpLro::flush(std::size_t i) {
  Entry* le = active_[i];
  condense(*le);
  flush_out(*le);
  ++counters_.flushed;
  *le = Entry{};
  active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
  free_.push_back(le);
}

// tcp_lro_rx_done via tcp_lro_flush_all: FreeBSD's active list is newest first.
void TcpLro::flush_all() {
  while (!active_.empty()) flush(active_.size() - 1);
}

// tcp_lro_flush_active flushes the first entry of the active list (the
// newest) and no more: tcp_lro_flush re-links the entry onto the free list,
// so its LIST_FOREACH walks on through free entries, which hold no packets.
void TcpLro::flush_active() {
  if (!active_.empty()) flush(active_.size() - 1);
}

}  // namespace netsim
