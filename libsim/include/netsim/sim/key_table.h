// An open-addressing hash table from 64-bit keys to small values: the
// demultiplexing tables (host port bindings, connection lookup by peer,
// per-flow callbacks) that a packet consults on its way in. Linear probing
// in one power-of-two array with a mixed hash, kept at most half full;
// erase shifts the following entries back (no tombstones), so lookups stay
// O(1) expected however many inserts and erases a run does. Inserting
// allocates only when the table doubles; lookups never allocate. Nothing
// iterates the table, so its order cannot reach a result.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "netsim/sim/packet.h"

namespace netsim {

// Packed demultiplexing keys: (peer node, peer port) and (protocol, port).
constexpr std::uint64_t peer_key(NodeId node, std::uint16_t port) {
  return (static_cast<std::uint64_t>(node) << 16) | port;
}
constexpr std::uint64_t binding_key(IpProtocol protocol, std::uint16_t port) {
  return (static_cast<std::uint64_t>(protocol) << 16) | port;
}

template <typename V>
class KeyTable {
 public:
  // Makes room for `n` entries without growing.
  void reserve(std::size_t n) {
    if (n * 2 > slots_.size()) rehash(std::bit_ceil(std::max<std::size_t>(n * 2, 8)));
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The value for `key`, or nullptr.
  const V* find(std::uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = next(i)) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  V* find(std::uint64_t key) { return const_cast<V*>(static_cast<const KeyTable&>(*this).find(key)); }
  bool contains(std::uint64_t key) const { return find(key) != nullptr; }

  // Sets the value for `key` (inserting it if absent).
  void set(std::uint64_t key, const V& value) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(std::max<std::size_t>(slots_.size() * 2, 8));
    for (std::size_t i = home(key);; i = next(i)) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = Slot{key, value, true};
        ++size_;
        return;
      }
      if (s.key == key) {
        s.value = value;
        return;
      }
    }
  }

  // Removes `key`; false if it was absent.
  bool erase(std::uint64_t key) {
    if (slots_.empty()) return false;
    std::size_t i = home(key);
    for (;; i = next(i)) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) break;
    }
    // Backward shift: move up every later entry of the probe run whose home
    // does not lie cyclically in (hole, j], so every key stays reachable.
    std::size_t hole = i;
    for (std::size_t j = next(i); slots_[j].used; j = next(j)) {
      const std::size_t h = home(slots_[j].key);
      const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole].used = false;
    --size_;
    return true;
  }

  void clear() {
    for (Slot& s : slots_) s.used = false;
    size_ = 0;
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    V value{};
    bool used = false;
  };
  // splitmix64's finalizer: packed keys differ in few low bits.
  static std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
  }
  std::size_t home(std::uint64_t key) const { return static_cast<std::size_t>(mix(key)) & (slots_.size() - 1); }
  std::size_t next(std::size_t i) const { return (i + 1) & (slots_.size() - 1); }
  void rehash(std::size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    size_ = 0;
    for (const Slot& s : old) {
      if (s.used) set(s.key, s.value);
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace netsim
