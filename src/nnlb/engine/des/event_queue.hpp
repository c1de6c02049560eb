#pragma once
// Pending events in time order. Ties are broken by insertion order (a global sequence number),
// so a run is a pure function of its inputs: same seed, same events, same result.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "nnlb/util/fifo.hpp"
#include "nnlb/util/prefetch.hpp"

namespace nnlb {

struct Event {
  double time;
  std::uint64_t seq;
  std::uint32_t kind;
  std::uint32_t target;  // node, or message index, by kind
};

// Most events come in runs already in order: a node's balancing timer is set one period after it
// fires, and the nodes fire in time order, so each such timer is later than every one set before
// it. An event of a small kind that is not earlier than the last one of its kind is appended to
// that kind's lane, a ring FIFO; any other goes into a 4-ary heap. A pop takes the earliest of the
// lanes' fronts and the heap's top: the same order as one heap, without a heap's walk through
// memory at every pop, which at 2^20 nodes was a cache miss a level (issue 37).
class EventQueue {
 public:
  void push(double time, std::uint32_t kind, std::uint32_t target) {
    const Event e{time, next_seq_++, kind, target};
    ++size_;
    next_ = unknown;
    if (kind < lane_count) {
      Fifo<Event>& lane = lanes_[kind];
      if (lane.empty() || lane.back().time <= time) {  // later seq: not earlier than the back
        lane.push_back(e);
        busy_lanes_ |= 1u << kind;
        return;
      }
    }
    heap_.emplace_back();
    sift_up(heap_.size() - 1, e);
  }
  Event pop() {
    const std::uint32_t from = next_source();
    next_ = unknown;
    --size_;
    if (from != from_heap) {
      Fifo<Event>& lane = lanes_[from];
      const Event first = lane.front();
      lane.pop_front();
      if (lane.empty()) busy_lanes_ &= ~(1u << from);
      return first;
    }
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
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const Event& next() const { return front(next_source()); }  // the queue is not empty
  double next_time() const { return next().time; }
  std::uint64_t pushed() const { return next_seq_; }
  // The k-th event of next()'s lane (0: next() itself), or null if next() is the heap's or its
  // lane is shorter: further ahead than after_next(), along the balancing timers' lane.
  const Event* in_next_lane(std::size_t k) const {
    if (size_ == 0) return nullptr;
    const std::uint32_t first = next_source();
    if (first == from_heap || lanes_[first].size() <= k) return nullptr;
    return &lanes_[first][k];
  }
  // The event after next(), or null: the earliest of the lanes' fronts and the heap's top once
  // next() is gone (the second of its lane, or the least of the heap root's children). A hint for
  // asking ahead, wherever the events come from (most arrivals come from the heap).
  const Event* after_next() const {
    if (size_ < 2) return nullptr;
    const std::uint32_t first = next_source();
    const Event* best = nullptr;
    auto consider = [&](const Event& e) {
      if (best == nullptr || earlier(e, *best)) best = &e;
    };
    for (std::uint32_t busy = busy_lanes_; busy != 0; busy &= busy - 1) {
      const auto k = static_cast<std::uint32_t>(std::countr_zero(busy));
      if (k != first) consider(lanes_[k].front());
      else if (lanes_[k].size() > 1) consider(lanes_[k][1]);
    }
    if (first != from_heap) {
      if (!heap_.empty()) consider(heap_.front());
    } else {
      for (std::size_t c = 1; c < std::min(arity + 1, heap_.size()); ++c) consider(heap_[c]);
    }
    return best;
  }

 private:
  static constexpr std::uint32_t lane_count = 32;  // kinds 0-31: the engine's and the first timers' tags
  static constexpr std::uint32_t from_heap = lane_count, unknown = lane_count + 1;
  // A 4-ary heap: half the levels of a binary one, and a node's children side by side.
  static constexpr std::size_t arity = 4;
  static constexpr std::size_t deep = std::size_t{1} << 16;  // events: a heap larger than the L2 cache
  static bool earlier(const Event& a, const Event& b) { return a.time < b.time || (a.time == b.time && a.seq < b.seq); }

  const Event& front(std::uint32_t source) const { return source == from_heap ? heap_.front() : lanes_[source].front(); }
  // Where the earliest event is: a lane, or the heap (the queue is not empty).
  std::uint32_t next_source() const {
    if (next_ != unknown) return next_;
    std::uint32_t best = from_heap;
    for (std::uint32_t busy = busy_lanes_; busy != 0; busy &= busy - 1) {
      const auto k = static_cast<std::uint32_t>(std::countr_zero(busy));
      if (best == from_heap ? heap_.empty() || earlier(lanes_[k].front(), heap_.front()) : earlier(lanes_[k].front(), lanes_[best].front()))
        best = k;
    }
    return next_ = best;
  }

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
      // The grandchildren, asked for while the children are compared: in a heap larger than the
      // cache (`hypercube:20`, about 1.4 M events on average), each of the lowest levels is a miss,
      // and this overlaps them two by two instead of one after the other.
      if (const std::size_t grandchildren = arity * first + 1; n > deep && grandchildren < n) {
        const auto from = reinterpret_cast<std::uintptr_t>(heap_.data() + grandchildren) & ~std::uintptr_t{63};
        const auto to = reinterpret_cast<std::uintptr_t>(heap_.data() + std::min(grandchildren + arity * arity, n));
        for (std::uintptr_t line = from; line < to; line += 64) prefetch(reinterpret_cast<const void*>(line));
      }
      std::size_t best = first;
      for (std::size_t c = first + 1; c < std::min(first + arity, n); ++c)
        if (earlier(heap_[c], heap_[best])) best = c;
      if (!earlier(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  Fifo<Event> lanes_[lane_count];  // rings: a steady flow allocates nothing
  std::uint32_t busy_lanes_ = 0;  // bit k: lane k holds events
  std::vector<Event> heap_;
  std::size_t size_ = 0;
  std::uint64_t next_seq_ = 0;
  mutable std::uint32_t next_ = unknown;  // next_source(), until the next push or pop
};

}  // namespace nnlb
