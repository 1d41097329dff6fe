// Recycles Packet objects so the steady state performs no heap allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "netsim/sim/packet.h"

namespace netsim {

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

 private:
  void grow() {
    chunks_.push_back(std::make_unique<Packet[]>(chunk_size_));
    Packet* chunk = chunks_.back().get();
    for (std::size_t i = chunk_size_; i-- > 0;) {
      chunk[i].next = free_;
      free_ = &chunk[i];
    }
  }

  std::size_t chunk_size_;
  std::vector<std::unique_ptr<Packet[]>> chunks_;
  Packet* free_ = nullptr;
  std::size_t in_use_ = 0;
  std::size_t high_water_ = 0;
  std::uint64_t next_id_ = 1;
};

}  // namespace netsim
