#pragma once
// Pending events in time order. Ties are broken by insertion order (a global sequence number),
// so a run is a pure function of its inputs: same seed, same events, same result.
#include <bit>
#include <cstdint>
#include <optional>

#include "nnlb/engine/des/event_calendar.hpp"
#include "nnlb/engine/des/event_heap.hpp"
#include "nnlb/util/fifo.hpp"

namespace nnlb {

// Most events come in runs already in order: a node's balancing timer is set one period after it
// fires, and the nodes fire in time order, so each such timer is later than every one set before
// it. An event of a small kind that is not earlier than the last one of its kind is appended to
// that kind's lane, a ring FIFO; any other goes into a 4-ary heap. A pop takes the earliest of the
// lanes' fronts and the heap's top: the same order as one heap, without a heap's walk through
// memory at every pop, which at 2^20 nodes was a cache miss a level (issue 37). A heap grown
// larger than the L2 cache keeps only its events due soon, the others wait in a calendar of
// buckets (event_calendar.hpp) that fills it a bucket at a time, two events at least.
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
    if (!calendar_) {
      heap_.push(e);
      if (heap_.size() > deep) {
        calendar_.emplace().rebuild(heap_);
        refill();
      }
    } else if (calendar_->due(e.time)) {
      heap_.push(e);
    } else {
      calendar_->put(e);
      refill();
    }
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
    const Event first = heap_.pop();
    if (calendar_) refill();
    return first;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Events waiting in the calendar (event_calendar.hpp), not in a lane or the heap.
  std::size_t in_calendar() const { return calendar_ ? calendar_->size() : 0; }
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
      if (!heap_.empty()) consider(heap_.top());
    } else if (const Event* second = heap_.second()) {
      consider(*second);
    }
    return best;
  }

 private:
  static constexpr std::uint32_t lane_count = 32;  // kinds 0-31: the engine's and the first timers' tags
  static constexpr std::uint32_t from_heap = lane_count, unknown = lane_count + 1;
  static constexpr std::size_t deep = std::size_t{1} << 16;  // events: a heap larger than the L2 cache
  const Event& front(std::uint32_t source) const { return source == from_heap ? heap_.top() : lanes_[source].front(); }
  // Where the earliest event is: a lane, or the heap (the queue is not empty).
  std::uint32_t next_source() const {
    if (next_ != unknown) return next_;
    std::uint32_t best = from_heap;
    for (std::uint32_t busy = busy_lanes_; busy != 0; busy &= busy - 1) {
      const auto k = static_cast<std::uint32_t>(std::countr_zero(busy));
      if (best == from_heap ? heap_.empty() || earlier(lanes_[k].front(), heap_.top()) : earlier(lanes_[k].front(), lanes_[best].front()))
        best = k;
    }
    return next_ = best;
  }

  // Keeps two events at least in the heap while the calendar holds any, so that the heap's top and
  // after_next() are what the next two pops hand out; a calendar whose width no longer fits its
  // events is built again.
  void refill() {
    if (calendar_->out_of_shape()) calendar_->rebuild(heap_);
    while (heap_.size() < 2 && calendar_->load_next(heap_)) {
    }
  }

  Fifo<Event> lanes_[lane_count];  // rings: a steady flow allocates nothing
  std::uint32_t busy_lanes_ = 0;  // bit k: lane k holds events
  EventHeap heap_;                      // the events due soon, in a calendar's current bucket
  std::optional<EventCalendar> calendar_;  // the others, once the heap grew larger than `deep`
  std::size_t size_ = 0;
  std::uint64_t next_seq_ = 0;
  mutable std::uint32_t next_ = unknown;  // next_source(), until the next push or pop
};

}  // namespace nnlb
