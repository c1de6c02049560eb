#pragma once
// Large arrays read at random (a big run's store of messages): blocks of 2 MiB on a 2 MiB
// boundary, which the kernel backs with one transparent huge page each when asked to (its
// `madvise` mode): one TLB entry for 512 pages, so that a random access misses the TLB far less.
#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

namespace nnlb {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

// An array's own mapping, unmapped when the array goes.
struct Unmap {
  std::size_t bytes = 0;
  void operator()(void* p) const;
};
template <class T>
using HugeArray = std::unique_ptr<T[], Unmap>;

// A fresh mapping of `bytes` (a whole number of huge pages) on a huge page boundary, untouched (no
// page is resident until written); with `huge`, a request for transparent huge pages, which the
// kernel may refuse. Fresh, because memory the allocator hands out again may already be backed by
// small pages, which a request does not change (`hypercube:20`: 600 MB of blocks from glibc's heap
// stayed on 4 KiB pages); its own, so that it goes back to the system when freed.
void* map_huge_pages(std::size_t bytes, bool huge);

// Room for `count` values of T (`count * sizeof(T)` a whole number of huge pages) as above. T's
// objects begin as their bytes are written (an implicit-lifetime type: trivially copyable and
// destructible).
template <class T>
HugeArray<T> huge_array(std::size_t count, bool huge) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  const std::size_t bytes = count * sizeof(T);
  return HugeArray<T>(static_cast<T*>(map_huge_pages(bytes, huge)), Unmap{bytes});
}

// A vector's allocator for arrays that grow with a large run (a store's links, its free list):
// from 4 MiB on, an array of its own on huge pages, as above; smaller ones from the heap.
template <class T>
struct HugeAllocator {
  using value_type = T;
  HugeAllocator() = default;
  template <class U>
  HugeAllocator(const HugeAllocator<U>&) {}
  T* allocate(std::size_t n) {
    if (n * sizeof(T) < least_bytes) return std::allocator<T>().allocate(n);
    return static_cast<T*>(map_huge_pages(mapped(n), true));
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < least_bytes) return std::allocator<T>().deallocate(p, n);
    Unmap{mapped(n)}(p);
  }
  friend bool operator==(const HugeAllocator&, const HugeAllocator&) { return true; }

 private:
  static constexpr std::size_t least_bytes = 2 * huge_page_bytes;
  static std::size_t mapped(std::size_t n) { return (n * sizeof(T) + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes; }
};
template <class T>
using HugeVector = std::vector<T, HugeAllocator<T>>;

// Asks the kernel to move every anonymous writable mapping of at least `min_bytes` (the heap
// included) to transparent huge pages now (MADV_COLLAPSE, Linux 6.1): for a large run once its
// state is set up, whose pages were faulted in 4 KiB at a time. Returns the bytes asked for; a
// kernel that cannot collapse leaves the pages as they are.
std::size_t collapse_to_huge_pages(std::size_t min_bytes);

}  // namespace nnlb
