#pragma once
// A first-in first-out queue in one ring buffer: a power-of-two capacity that doubles when full
// and is kept afterwards, so a queue that fills and drains at a steady rate allocates nothing
// (std::deque allocates a block and frees one every few hundred bytes pushed through it).
#include <algorithm>
#include <cstddef>
#include <vector>

namespace nnlb {

template <class T>
class Fifo {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The k-th element from the front (k < size()).
  const T& operator[](std::size_t k) const { return ring_[(head_ + k) & mask()]; }
  const T& front() const { return ring_[head_]; }
  const T& back() const { return (*this)[size_ - 1]; }

  void push_back(const T& value) {
    if (size_ == ring_.size()) grow();
    ring_[(head_ + size_) & mask()] = value;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask();
    --size_;
  }

 private:
  std::size_t mask() const { return ring_.size() - 1; }
  // Twice the capacity, the elements unwrapped to its start.
  void grow() {
    std::vector<T> bigger(std::max<std::size_t>(16, 2 * ring_.size()));
    for (std::size_t k = 0; k < size_; ++k) bigger[k] = (*this)[k];
    ring_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> ring_;  // empty, or a power of two long
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace nnlb
