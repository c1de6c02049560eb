#include "nnlb/util/memory.hpp"

#include <unistd.h>

namespace nnlb {

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : std::uint64_t{1} << 34;
}

}  // namespace nnlb
