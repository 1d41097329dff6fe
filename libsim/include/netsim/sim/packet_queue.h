// Intrusive FIFO of packets with packet and byte counts.
#pragma once

#include <cstddef>
#include <cstdint>

#include "netsim/sim/packet.h"

namespace netsim {

class PacketQueue {
 public:
  void push(Packet* p) {
    p->next = nullptr;
    if (tail_ != nullptr) {
      tail_->next = p;
    } else {
      head_ = p;
    }
    tail_ = p;
    ++packets_;
    bytes_ += p->ip_bytes();
  }

  Packet* pop() {
    Packet* p = head_;
    if (p == nullptr) return nullptr;
    head_ = p->next;
    if (head_ == nullptr) tail_ = nullptr;
    p->next = nullptr;
    --packets_;
    bytes_ -= p->ip_bytes();
    return p;
  }

  Packet* front() const { return head_; }
  bool empty() const { return head_ == nullptr; }
  std::size_t packets() const { return packets_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  Packet* head_ = nullptr;
  Packet* tail_ = nullptr;
  std::size_t packets_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace netsim
