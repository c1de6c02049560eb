#pragma once
// How much memory a run may take: the machine's physical memory.
#include <cstdint>

namespace nnlb {

std::uint64_t physical_memory_bytes();

}  // namespace nnlb
