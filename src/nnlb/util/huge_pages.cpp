#include "nnlb/util/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

namespace nnlb {

void Unmap::operator()(void* p) const { munmap(p, bytes); }

void* map_huge_pages(std::size_t bytes, bool huge) {
  if (bytes == 0 || bytes % huge_page_bytes != 0) throw std::logic_error("map_huge_pages: not a whole number of huge pages");
  // One huge page more than asked for, then the ends cut off around the boundary inside it.
  void* raw = mmap(nullptr, bytes + huge_page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto from = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t begin = (from + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes, end = begin + bytes;
  if (begin > from) munmap(raw, begin - from);
  if (from + bytes + huge_page_bytes > end) munmap(reinterpret_cast<void*>(end), from + bytes + huge_page_bytes - end);
#ifdef MADV_HUGEPAGE
  if (huge) madvise(reinterpret_cast<void*>(begin), bytes, MADV_HUGEPAGE);
#else
  (void)huge;
#endif
  return reinterpret_cast<void*>(begin);
}

std::size_t collapse_to_huge_pages(std::size_t min_bytes) {
  std::size_t asked = 0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr int collapse = 25;  // MADV_COLLAPSE, which glibc 2.36's headers do not name yet
  struct Mapping {
    std::uintptr_t begin = 0, end = 0;
    bool anonymous = false;
  } m;
  std::ifstream smaps("/proc/self/smaps");
  for (std::string line; std::getline(smaps, line);) {
    std::istringstream fields(line);
    std::string first;
    fields >> first;
    if (const auto dash = first.find('-'); dash != std::string::npos && first.find(':') == std::string::npos) {  // a mapping's header
      std::string perms, offset, device, inode, path;
      fields >> perms >> offset >> device >> inode >> path;
      m.begin = std::stoull(first.substr(0, dash), nullptr, 16);
      m.end = std::stoull(first.substr(dash + 1), nullptr, 16);
      m.anonymous = perms.compare(0, 2, "rw") == 0 && inode == "0" && (path.empty() || path == "[heap]");
      continue;
    }
    if (first != "Rss:" || !m.anonymous) continue;
    std::size_t rss_kb = 0;
    fields >> rss_kb;
    // Only a mapping that is large and written nearly throughout: a collapse fills the holes of
    // every huge page it makes, which in a sparse one (a sanitizer's shadow) would cost memory.
    const std::uintptr_t begin = (m.begin + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes, end = m.end / huge_page_bytes * huge_page_bytes;
    if (end <= begin || end - begin < min_bytes || rss_kb * 1024 * 10 < (m.end - m.begin) * 9) continue;
    auto* at = reinterpret_cast<void*>(begin);
    madvise(at, end - begin, MADV_HUGEPAGE);  // and pages faulted from now on
    madvise(at, end - begin, collapse);
    asked += end - begin;
  }
#else
  (void)min_bytes;
#endif
  return asked;
}

}  // namespace nnlb
