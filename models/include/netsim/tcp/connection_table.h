// The connection lookup of a TCP endpoint that holds many connections on
// one local port: a hash from the peer's (node, port) to the connection's
// slot, as the kernels' established hash (Linux inet_ehash, FreeBSD's
// inpcb hash) finds a socket from the 4-tuple in O(1) expected time. The
// local address and port are the endpoint's own, so the peer's pair is the
// whole key.
//
// The endpoint owns the slots and their states; this table is a cache the
// endpoint fills when a slot takes a peer (add) and checks on every lookup
// with the endpoint's own predicate (`holds(slot)`: the slot is in use with
// that peer). A slot that has since left its peer is found stale and the
// slots are scanned once for another holder, so the answer is always the one
// a scan of the slots in order would give: the lowest slot that holds the
// peer (add keeps the lowest of several holders for that reason).
#pragma once

#include <cstdint>

#include "netsim/sim/key_table.h"
#include "netsim/sim/packet.h"

namespace netsim::tcp {

class ConnectionTable {
 public:
  void reserve(int slots) { slots_.reserve(static_cast<std::size_t>(slots)); }

  // The lowest of `count` slots for which holds(slot) is true, or -1;
  // `holds` must test the slot against (peer, peer_port).
  template <typename Holds>
  int find(NodeId peer, std::uint16_t peer_port, int count, Holds holds) const {
    const std::uint64_t key = peer_key(peer, peer_port);
    const int* slot = slots_.find(key);
    if (slot == nullptr) return -1;
    if (holds(*slot)) return *slot;
    for (int i = 0; i < count; ++i) {  // stale: the slot left this peer
      if (holds(i)) {
        slots_.set(key, i);
        return i;
      }
    }
    slots_.erase(key);
    return -1;
  }

  // Slot `slot` (one of `count`) now holds (peer, peer_port); `holds` as
  // for find. When the entry it replaces is stale, a lower slot may still
  // hold the peer unseen, so the slots are scanned for the lowest holder.
  template <typename Holds>
  void add(NodeId peer, std::uint16_t peer_port, int slot, int count, Holds holds) {
    const std::uint64_t key = peer_key(peer, peer_port);
    const int* current = slots_.find(key);
    if (current != nullptr && holds(*current)) {
      if (*current > slot) slots_.set(key, slot);
      return;
    }
    if (current != nullptr) {
      for (int i = 0; i < slot && i < count; ++i) {
        if (holds(i)) {
          slots_.set(key, i);
          return;
        }
      }
    }
    slots_.set(key, slot);
  }

  std::size_t size() const { return slots_.size(); }

 private:
  mutable KeyTable<int> slots_;
};

}  // namespace netsim::tcp
