#pragma once
// What is due at a time, the earliest first and, at equal times, in the order it was added: a
// node's timers (SimGrid, MPI), or everything a small engine has pending (the toy engine). The
// order is total, so a run is a pure function of its inputs. (The des engine's EventQueue keeps
// the same order with lanes for its millions of events.)
#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace nnlb {

template <class T>
class Agenda {
 public:
  void add(double at, T what) {
    heap_.push_back({at, added_++, std::move(what)});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  // When the earliest is due (infinity when nothing is).
  double next_time() const { return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_.front().at; }
  const T& next() const { return heap_.front().what; }
  // Removes the earliest and returns it (the agenda is not empty).
  T pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    T what = std::move(heap_.back().what);
    heap_.pop_back();
    return what;
  }
  // Visits what is pending, in no particular order.
  template <class F>
  void for_each(F&& f) const {
    for (const Entry& e : heap_) f(e.what);
  }

 private:
  struct Entry {
    double at;
    std::uint64_t order;  // of adding
    T what;
  };
  static bool later(const Entry& a, const Entry& b) { return a.at != b.at ? a.at > b.at : a.order > b.order; }

  std::vector<Entry> heap_;  // a heap, the earliest on top
  std::uint64_t added_ = 0;
};

}  // namespace nnlb
