#pragma once
// Pending events in time order. Ties are broken by insertion order (a global sequence number),
// so a run is a pure function of its inputs: same seed, same events, same result.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace nnlb {

struct Event {
  double time;
  std::uint64_t seq;
  std::uint32_t kind;
  std::uint32_t target;  // node, or message index, by kind
};

class EventQueue {
 public:
  void push(double time, std::uint32_t kind, std::uint32_t target) {
    const Event e{time, next_seq_++, kind, target};
    heap_.emplace_back();
    sift_up(heap_.size() - 1, e);
  }
  Event pop() {
    const Event first = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return first;
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  double next_time() const { return heap_.front().time; }
  std::uint64_t pushed() const { return next_seq_; }

 private:
  // A 4-ary heap: half the levels of a binary one, and a node's children side by side, so that a
  // pop from a queue larger than the cache misses about half as often (issue 37).
  static constexpr std::size_t arity = 4;
  static bool earlier(const Event& a, const Event& b) { return a.time < b.time || (a.time == b.time && a.seq < b.seq); }

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
  std::uint64_t next_seq_ = 0;
};

}  // namespace nnlb
