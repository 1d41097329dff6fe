// A double-ended queue of trivially copyable values in one power-of-two
// ring: O(1) push and pop at both ends and indexed access, no allocation
// once reserve() has sized it for the steady state (it doubles when full).
// std::deque would allocate a block every few hundred pushes.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

namespace netsim {

template <typename T>
class RingDeque {
 public:
  // Empties the deque and makes room for at least `capacity` values.
  void reset(std::size_t capacity) {
    slots_.assign(std::bit_ceil(std::max<std::size_t>(capacity, 1)), T{});
    head_ = size_ = 0;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](std::size_t i) {
    assert(i < size_);
    return slots_[(head_ + i) & (slots_.size() - 1)];
  }
  const T& operator[](std::size_t i) const {
    assert(i < size_);
    return slots_[(head_ + i) & (slots_.size() - 1)];
  }
  T& front() { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = v;
    ++size_;
  }
  void push_front(const T& v) {
    if (size_ == slots_.size()) grow();
    head_ = (head_ + slots_.size() - 1) & (slots_.size() - 1);
    slots_[head_] = v;
    ++size_;
  }
  void pop_front() {
    assert(size_ > 0);
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }
  void pop_back() {
    assert(size_ > 0);
    --size_;
  }

 private:
  // Unrolls the ring to the front of a buffer twice the size.
  void grow() {
    std::vector<T> bigger(std::max<std::size_t>(slots_.size() * 2, 1));
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = (*this)[i];
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace netsim
