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

  // With `huge_now`, every block asks for huge pages, the first ones too (a large run's pool).
  explicit BlockPool(std::uint32_t width = 1, bool huge_now = false) : width_(width), small_blocks_(huge_now ? 0 : small_blocks) {
    if (width == 0) throw std::invalid_argument("a pool of objects of width 0");
  }

  // An index not in use; its object holds what was last written there.
  std::uint32_t make() {
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    if (made_ == std::numeric_limits<std::uint32_t>::max()) throw std::length_error("a pool of more than 2^32 - 1 objects");
    if (made_ % per_block == 0) blocks_.push_back(huge_array<T>(std::size_t{per_block} * width_, blocks_.size() >= small_blocks_));
    return made_++;
  }
  void give_back(std::uint32_t i) { free_.push_back(i); }

  // The first of index i's objects.
  T& operator[](std::uint32_t i) { return blocks_[i / per_block][std::size_t{i % per_block} * width_]; }
  const T& operator[](std::uint32_t i) const { return blocks_[i / per_block][std::size_t{i % per_block} * width_]; }
  std::uint32_t width() const { return width_; }
  // Indices made so far, in use or given back: 0 to made() - 1.
  std::uint32_t made() const { return made_; }
  std::size_t in_use() const { return made_ - free_.size(); }

 private:
  std::uint32_t width_;
  std::size_t small_blocks_;
  std::vector<HugeArray<T>> blocks_;
  HugeVector<std::uint32_t> free_;
  std::uint32_t made_ = 0;
};

}  // namespace nnlb
