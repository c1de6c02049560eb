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
    heap_.push_back({time, next_seq_++, kind, target});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  double next_time() const { return heap_.front().time; }
  std::uint64_t pushed() const { return next_seq_; }

 private:
  // A function object (not a function pointer), so the heap operations inline the comparison.
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return a.time > b.time || (a.time == b.time && a.seq > b.seq); }
  };
  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace nnlb
