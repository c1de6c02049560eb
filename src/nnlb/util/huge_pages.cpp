#include "nnlb/util/huge_pages.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace nnlb {

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
