#pragma once
// An event of the discrete-event engine, and a 4-ary heap of them in (time, insertion) order: the
// part of the event queue (event_queue.hpp) for events that come out of order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "nnlb/util/fifo.hpp"

namespace nnlb {

struct Event {
  double time;
  std::uint64_t seq;
  std::uint32_t kind;
  std::uint32_t target;  // node, or message index, by kind
};

// Time order; ties by insertion (the global sequence number), so that a run is a pure function of
// its inputs: same seed, same events, same result.
inline bool earlier(const Event& a, const Event& b) { return a.time < b.time || (a.time == b.time && a.seq < b.seq); }

// A 4-ary heap: half the levels of a binary one, and a node's children side by side.
class EventHeap {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  // The least of the top's children: the second pop from now, or null.
  const Event* second() const {
    const Event* best = nullptr;
    for (std::size_t c = 1; c < std::min(arity + 1, heap_.size()); ++c)
      if (best == nullptr || earlier(heap_[c], *best)) best = &heap_[c];
    return best;
  }

  void push(const Event& e) {
    heap_.emplace_back();
    sift_up(heap_.size() - 1, e);
  }
  Event pop() {
    const Event first = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    if (heap_.capacity() > Fifo<Event>::kept && heap_.size() < heap_.capacity() / 4) {
      // The room of a burst (every node's first events at t = 0: 5 a node, against 1.2 later at
      // `hypercube:16`) back, half of it at a time.
      std::vector<Event> smaller;
      smaller.reserve(heap_.capacity() / 2);
      smaller.assign(heap_.begin(), heap_.end());
      heap_.swap(smaller);
    }
    return first;
  }
  // Every event, in no order; the heap is left empty.
  std::vector<Event> release() { return std::exchange(heap_, {}); }

 private:
  static constexpr std::size_t arity = 4;

  // Puts e at place i, or higher up where it belongs.
  void sift_up(std::size_t i, const Event& e) {
    while (i > 0) {
      const std::size_t parent = (i - 1) / arity;
      if (!earlier(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Puts e at the root's place and moves it down to where it belongs.
  void sift_down(const Event& e) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    while (true) {
      const std::size_t first = arity * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < std::min(first + arity, n); ++c)
        if (earlier(heap_[c], heap_[best])) best = c;
      if (!earlier(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
};

}  // namespace nnlb
