#pragma once
// A node's mailbox of one channel: its messages oldest first, in one block that a take reads in
// one stream. The block grows by doubling and goes back to the allocator when a take empties it
// and it had grown past what a mailbox keeps (`kept_capacity`), so a run's memory follows the
// messages it holds, not every mailbox's largest burst (issue 37; docs/benchmarks.md).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace nnlb::des {

template <class Record>
class Mailbox {
 public:
  // Records a mailbox keeps room for when a take empties it: a control mailbox's steady traffic
  // (a report from each neighbour a period) keeps its block; a burst of data waiting for the end
  // of a computation does not.
  static constexpr std::size_t kept_capacity = 64;
  static constexpr std::size_t first_block = 16;

  void put(const Record& r) {
    if (records_.size() == records_.capacity()) [[unlikely]]
      records_.reserve(std::max(first_block, 2 * records_.capacity()));
    records_.push_back(r);
  }
  std::size_t size() const { return records_.size(); }
  std::size_t capacity() const { return records_.capacity(); }
  auto begin() const { return records_.begin(); }
  auto end() const { return records_.end(); }
  auto begin() { return records_.begin(); }
  auto end() { return records_.end(); }

  // Visits the records oldest first; those for which `take(record)` is true leave the mailbox,
  // the others stay in order. Returns how many left.
  template <class Take>
  std::size_t take_if(Take&& take) {
    const std::size_t n = records_.size();
    std::size_t kept = 0;
    for (std::size_t k = 0; k < n; ++k) {
      Record& r = records_[k];
      if (take(r)) continue;
      if (kept != k) records_[kept] = r;
      ++kept;
    }
    if (kept == 0 && records_.capacity() > kept_capacity) std::vector<Record>().swap(records_);
    else records_.resize(kept);
    return n - kept;
  }

  // Empties the mailbox and gives back its block; returns what it held, oldest first.
  std::vector<Record> release() { return std::exchange(records_, {}); }

 private:
  std::vector<Record> records_;
};

}  // namespace nnlb::des
