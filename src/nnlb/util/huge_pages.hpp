#pragma once
// Large arrays read at random (a big run's store of messages): blocks of 2 MiB on a 2 MiB
// boundary, which the kernel backs with one transparent huge page each when asked to (its
// `madvise` mode): one TLB entry for 512 pages, so that a random access misses the TLB far less.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

namespace nnlb {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

struct FreeMemory {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using HugeArray = std::unique_ptr<T[], FreeMemory>;

// Room for `count` values of T on a huge page boundary, `count * sizeof(T)` a whole number of huge
// pages, untouched (no page is resident until written); with `huge`, a request for transparent
// huge pages, which the kernel may refuse (the array is the same either way). T's objects begin as
// their bytes are written (an implicit-lifetime type: trivially copyable and destructible).
template <class T>
HugeArray<T> huge_array(std::size_t count, bool huge) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  const std::size_t bytes = count * sizeof(T);
  if (bytes == 0 || bytes % huge_page_bytes != 0) throw std::logic_error("huge_array: not a whole number of huge pages");
  void* p = std::aligned_alloc(huge_page_bytes, bytes);
  if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (huge) madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return HugeArray<T>(static_cast<T*>(p));
}

// Asks the kernel to move every anonymous writable mapping of at least `min_bytes` (the heap
// included) to transparent huge pages now (MADV_COLLAPSE, Linux 6.1): for a large run once its
// state is set up, whose pages were faulted in 4 KiB at a time. Returns the bytes asked for; a
// kernel that cannot collapse leaves the pages as they are.
std::size_t collapse_to_huge_pages(std::size_t min_bytes);

}  // namespace nnlb
