// Recycles Packet objects so the steady state performs no heap allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "netsim/sim/packet.h"

namespace netsim {

// Thrown by PacketPool::alloc when the pool would grow past its limit: some
// queue without a limit is growing (a source faster than its link, say), and
// the run is stopped with a message instead of taking all memory.
class PacketLimitError : public std::runtime_error {
 public:
  explicit PacketLimitError(std::size_t limit)
      : std::runtime_error("more than " + std::to_string(limit) + " packets in flight"), limit_(limit) {}
  std::size_t limit() const { return limit_; }

 private:
  std::size_t limit_;
};

// Packets are handed out as raw pointers: whoever holds one owns it and must
// either pass it on or release() it. The pool grows in chunks and never
// shrinks; after warm-up every alloc() is a free-list pop.
class PacketPool {
 public:
  explicit PacketPool(std::size_t chunk_size = 1024) : chunk_size_(chunk_size) {}
  PacketPool(const PacketPool&) = delete;
  PacketPool& operator=(const PacketPool&) = delete;

  Packet* alloc() {
    if (free_ == nullptr) grow();
    Packet* p = free_;
    free_ = p->next;
    *p = Packet{};
    p->id = next_id_++;
    ++in_use_;
    if (in_use_ > high_water_) high_water_ = in_use_;
    return p;
  }

  // A copy with its own id (a hub repeating a frame, a retransmission).
  Packet* clone(const Packet& src) {
    Packet* p = alloc();
    std::uint64_t id = p->id;
    *p = src;
    p->id = id;
    p->next = nullptr;
    return p;
  }

  void release(Packet* p) {
    p->next = free_;
    free_ = p;
    --in_use_;
  }

  std::size_t in_use() const { return in_use_; }
  std::size_t high_water() const { return high_water_; }
  std::size_t capacity() const { return chunks_.size() * chunk_size_; }
  // At most this many packets exist at once (rounded up to whole chunks);
  // alloc() throws PacketLimitError beyond it. 2^24 (2.4 GB) by default.
  static constexpr std::size_t kDefaultLimit = std::size_t{1} << 24;
  void set_limit(std::size_t packets) { limit_ = packets; }
  std::size_t limit() const { return limit_; }

 private:
  // Off the hot path: once per chunk_size_ packets, until the steady state.
  void grow() {
    if (capacity() >= limit_) throw_limit(limit_);
    chunks_.push_back(std::make_unique<Packet[]>(chunk_size_));
    Packet* chunk = chunks_.back().get();
    for (std::size_t i = chunk_size_; i-- > 0;) {
      chunk[i].next = free_;
      free_ = &chunk[i];
    }
  }

  [[noreturn, gnu::cold, gnu::noinline]] static void throw_limit(std::size_t limit) { throw PacketLimitError(limit); }

  std::size_t chunk_size_;
  std::size_t limit_ = kDefaultLimit;
  std::vector<std::unique_ptr<Packet[]>> chunks_;
  Packet* free_ = nullptr;
  std::size_t in_use_ = 0;
  std::size_t high_water_ = 0;
  std::uint64_t next_id_ = 1;
};

}  // namespace netsim
