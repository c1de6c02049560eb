#pragma once
// Objects of one type by index, in blocks that never move (util/huge_pages.hpp): a pool grows a
// block at a time, without the copy of a vector that doubles, during which the old array and the
// new one, twice its size, are both resident. An index names `width` objects side by side (a
// width set at construction: a mailbox's chunk of cache lines). A block holds a power of two of
// indices (an index is split with a shift, not a division) in whole huge pages: 2 MiB times the
// width and the odd factor of the object's size. Indices given back are reused, the last given
// back first. Past `small_blocks` blocks, or from the first in a pool told that it serves a large
// run, a block asks for transparent huge pages: a large run reads its pools at random, and a small
// run keeps 4 KiB pages, resident only where written.
//
// A pool told to compact instead hands out indices from its lowest block with room, and gives an
// upper block's memory back to the system once nothing in it is in use (and the block below is
// at most half full, so that a count hovering at a block's edge does not map and unmap it over
// and over): a burst's blocks do not stay resident for the rest of the run. Its users must not
// depend on which index they get (the discrete-event engine's messages in flight: a burst at
// t = 0, then a few percent of it).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "nnlb/util/huge_pages.hpp"

namespace nnlb {

template <class T>
class BlockPool {
 public:
  static constexpr std::uint32_t per_block = static_cast<std::uint32_t>(huge_page_bytes >> std::countr_zero(sizeof(T)));
  static_assert(per_block >= 1, "an object larger than a block");
  static constexpr std::size_t small_blocks = 4;

  // With `huge_now`, every block asks for huge pages, the first ones too (a large run's pool);
  // with `compact`, indices come from the lowest block with room and emptied blocks are given back.
  explicit BlockPool(std::uint32_t width = 1, bool huge_now = false, bool compact = false)
      : width_(width), small_blocks_(huge_now ? 0 : small_blocks), compact_(compact) {
    if (width == 0) throw std::invalid_argument("a pool of objects of width 0");
  }

  // An index not in use; its object holds what was last written there.
  std::uint32_t make() {
    if (compact_) return make_low();
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    if (made_ == std::numeric_limits<std::uint32_t>::max()) throw std::length_error("a pool of more than 2^32 - 1 objects");
    if (made_ % per_block == 0) blocks_.push_back(huge_array<T>(std::size_t{per_block} * width_, blocks_.size() >= small_blocks_));
    return made_++;
  }
  void give_back(std::uint32_t i) {
    if (compact_) return give_back_low(i);
    free_.push_back(i);
  }

  // The first of index i's objects.
  T& operator[](std::uint32_t i) { return blocks_[i / per_block][std::size_t{i % per_block} * width_]; }
  const T& operator[](std::uint32_t i) const { return blocks_[i / per_block][std::size_t{i % per_block} * width_]; }
  std::uint32_t width() const { return width_; }
  // Indices made so far, in use or given back: 0 to made() - 1 (a compacting pool: one past the
  // highest made; some may have left memory with their block, see for_each_made).
  std::uint32_t made() const { return made_; }
  std::size_t in_use() const { return compact_ ? in_use_ : made_ - free_.size(); }
  // Visits every index made and still in memory, in use or given back, in order.
  template <class F>
  void for_each_made(F&& f) const {
    if (!compact_) {
      for (std::uint32_t i = 0; i < made_; ++i) f(i);
      return;
    }
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      for (std::uint32_t k = 0; k < low_[b].made; ++k) f(static_cast<std::uint32_t>(b * per_block + k));
  }
  // Blocks in memory now.
  std::size_t blocks_held() const {
    std::size_t n = 0;
    for (const HugeArray<T>& b : blocks_) n += b != nullptr;
    return n;
  }

 private:
  // A compacting pool's block: its indices given back (the last first), how many it made, and
  // how many are in use.
  struct LowBlock {
    HugeVector<std::uint32_t> free;
    std::uint32_t made = 0, in_use = 0;
  };

  std::uint32_t make_low() {
    while (lowest_ < blocks_.size() && low_[lowest_].free.empty() && low_[lowest_].made == per_block) ++lowest_;
    if (lowest_ == blocks_.size()) {
      if (blocks_.size() == std::numeric_limits<std::uint32_t>::max() / per_block) throw std::length_error("a pool of more than 2^32 - 1 objects");
      blocks_.emplace_back(), low_.emplace_back();
    }
    LowBlock& b = low_[lowest_];
    if (blocks_[lowest_] == nullptr) blocks_[lowest_] = huge_array<T>(std::size_t{per_block} * width_, lowest_ >= small_blocks_);
    std::uint32_t i;
    if (!b.free.empty()) i = b.free.back(), b.free.pop_back();
    else i = static_cast<std::uint32_t>(lowest_ * per_block + b.made++);
    ++b.in_use, ++in_use_;
    made_ = std::max(made_, i + 1);
    return i;
  }
  void give_back_low(std::uint32_t i) {
    const std::size_t k = i / per_block;
    LowBlock& b = low_[k];
    b.free.push_back(i);
    --b.in_use, --in_use_;
    lowest_ = std::min(lowest_, k);
    if (b.in_use == 0 && k > 0 && low_[k - 1].in_use <= per_block / 2) {
      blocks_[k].reset();
      b = LowBlock{};
    }
  }

  std::uint32_t width_;
  std::size_t small_blocks_;
  bool compact_;
  std::vector<HugeArray<T>> blocks_;
  HugeVector<std::uint32_t> free_;
  std::uint32_t made_ = 0;
  std::vector<LowBlock> low_;  // a compacting pool's, per block
  std::size_t lowest_ = 0;     // no block below it has room
  std::size_t in_use_ = 0;
};

}  // namespace nnlb
