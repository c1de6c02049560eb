#pragma once
// Deterministic data parallelism: work is cut into fixed-size blocks whatever the thread count,
// and reductions combine per-block partials in block order, so sums are bit-identical for any
// number of threads.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <vector>

namespace nnlb {

inline constexpr std::size_t reduction_block = 4096;

inline std::size_t block_count(std::size_t n) { return (n + reduction_block - 1) / reduction_block; }

// Calls body(begin, end, block) for each block, in parallel with OpenMP. An exception cannot
// leave a parallel region, so the first block's (in block order) is rethrown after it.
template <class Body>
void for_each_block(std::size_t n, Body&& body) {
  const auto blocks = static_cast<long long>(block_count(n));
  std::exception_ptr error;
  long long error_block = blocks;
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (long long b = 0; b < blocks; ++b) {
    const std::size_t begin = static_cast<std::size_t>(b) * reduction_block;
    try {
      body(begin, std::min(n, begin + reduction_block), static_cast<std::size_t>(b));
    } catch (...) {
#pragma omp critical(nnlb_for_each_block)
      if (b < error_block) error_block = b, error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

// Sets the number of threads used by for_each_block in the calling thread (0 = the default:
// OMP_NUM_THREADS or the core count).
void set_thread_count(int threads);
int thread_count();

}  // namespace nnlb
