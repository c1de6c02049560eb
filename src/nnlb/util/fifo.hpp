#pragma once
// A first-in first-out queue in one ring buffer: a power-of-two capacity that doubles when full
// and halves when a quarter full (from `kept` elements up), so a queue that fills and drains at a
// steady rate allocates nothing (std::deque allocates a block and frees one every few hundred
// bytes pushed through it), and one that held a burst once does not keep its room for good.
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

  static constexpr std::size_t kept = 1024;

  void push_back(const T& value) {
    if (size_ == ring_.size()) reshape(std::max<std::size_t>(16, 2 * ring_.size()));
    ring_[(head_ + size_) & mask()] = value;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask();
    --size_;
    if (ring_.size() > kept && size_ < ring_.size() / 4) reshape(ring_.size() / 2);
  }
  std::size_t capacity() const { return ring_.size(); }

 private:
  std::size_t mask() const { return ring_.size() - 1; }
  // A ring of `capacity` (a power of two, at least size_), the elements unwrapped to its start.
  void reshape(std::size_t capacity) {
    std::vector<T> ring(capacity);
    for (std::size_t k = 0; k < size_; ++k) ring[k] = (*this)[k];
    ring_.swap(ring);
    head_ = 0;
  }

  std::vector<T> ring_;  // empty, or a power of two long
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace nnlb
