#include "nnlb/engine/sync/grid_stencil.hpp"

#include <algorithm>
#include <vector>

#include "nnlb/engine/sync/linear_kernels.hpp"
#include "nnlb/util/parallel.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NNLB_GRID_AVX2 1
#endif

namespace nnlb {

namespace {

// One interior row segment of `count` nodes; up/row/down point at the first node's neighbours
// above, itself and below (row[-1] and row[count] are its left and right neighbours).
double row_scalar(const double* up, const double* row, const double* down, double* out, std::size_t count, double alpha) {
  double m = 0;
  for (std::size_t c = 0; c < count; ++c) {
    const double wi = row[c];
    const double o1 = alpha * (wi - up[c]), o2 = alpha * (wi - row[c - 1]), o3 = alpha * (wi - row[c + 1]), o4 = alpha * (wi - down[c]);
    out[c] = wi - o1 - o2 - o3 - o4;
    m += positive_part(o1) + positive_part(o2) + positive_part(o3) + positive_part(o4);
  }
  return m;
}

#ifdef NNLB_GRID_AVX2
// Four nodes at a time; the tail (fewer than 4) as row_scalar.
__attribute__((target("avx2"))) double row_avx2(const double* up, const double* row, const double* down, double* out, std::size_t count,
                                                double alpha) {
  const __m256d a = _mm256_set1_pd(alpha), zero = _mm256_setzero_pd();
  __m256d lanes = zero;
  std::size_t c = 0;
  for (; c + 4 <= count; c += 4) {
    const __m256d wi = _mm256_loadu_pd(row + c);
    const __m256d o1 = _mm256_mul_pd(a, _mm256_sub_pd(wi, _mm256_loadu_pd(up + c)));
    const __m256d o2 = _mm256_mul_pd(a, _mm256_sub_pd(wi, _mm256_loadu_pd(row + c - 1)));
    const __m256d o3 = _mm256_mul_pd(a, _mm256_sub_pd(wi, _mm256_loadu_pd(row + c + 1)));
    const __m256d o4 = _mm256_mul_pd(a, _mm256_sub_pd(wi, _mm256_loadu_pd(down + c)));
    _mm256_storeu_pd(out + c, _mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(wi, o1), o2), o3), o4));
    const __m256d p = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_max_pd(o1, zero), _mm256_max_pd(o2, zero)), _mm256_max_pd(o3, zero)),
                                    _mm256_max_pd(o4, zero));
    lanes = _mm256_add_pd(lanes, p);
  }
  alignas(32) double l[4];
  _mm256_store_pd(l, lanes);
  // Clean upper register halves: without this, later SSE code (the scalar tail, every other
  // kernel) pays the AVX-SSE transition penalty (it made the integer sweep 6x slower).
  _mm256_zeroupper();
  return (l[0] + l[1]) + (l[2] + l[3]) + row_scalar(up + c, row + c, down + c, out + c, count - c, alpha);
}
#endif

using RowKernel = double (*)(const double*, const double*, const double*, double*, std::size_t, double);

RowKernel row_kernel() {
#ifdef NNLB_GRID_AVX2
  static const RowKernel k = __builtin_cpu_supports("avx2") ? row_avx2 : row_scalar;
  return k;
#else
  return row_scalar;
#endif
}

}  // namespace

std::optional<GridStencil> fos_grid_stencil(const Topology& topo, const LinearForm& form) {
  if (form.rule != LinearForm::AlphaRule::uniform || form.beta != 1.0) return std::nullopt;
  if (topo.kind != TopologyKind::mesh && topo.kind != TopologyKind::torus) return std::nullopt;
  const auto& dims = topo.shape().dims;
  if (dims.size() != 2 || dims[0] < 3 || dims[1] < 3) return std::nullopt;
  return GridStencil{dims[0], dims[1]};
}

double fos_sweep_grid(const Graph& g, const GridStencil& grid, double alpha, std::span<const double> w, std::span<double> next) {
  const RowKernel row = row_kernel();
  const std::size_t cols = grid.cols;
  std::vector<double> moved(block_count(w.size()));
  for_each_block(w.size(), [&](std::size_t b, std::size_t e, std::size_t blk) {
    double m = 0;
    for (std::size_t i = b; i < e;) {
      const std::size_t r = i / cols, c = i % cols;
      if (r == 0 || r + 1 == grid.rows || c == 0 || c + 1 == cols) {
        // Border node: fos_sweep's loop over its CSR slots.
        const auto node = static_cast<NodeId>(i);
        const double wi = w[i];
        double acc = wi;
        for (Slot s = g.first_slot(node); s < g.end_slot(node); ++s) {
          const double out = alpha * (wi - w[g.target(s)]);
          acc -= out;
          m += positive_part(out);
        }
        next[i] = acc;
        ++i;
        continue;
      }
      const std::size_t end = std::min(e, (r + 1) * cols - 1);  // the row's interior, within the block
      m += row(&w[i - cols], &w[i], &w[i + cols], &next[i], end - i, alpha);
      i = end;
    }
    moved[blk] = m;
  });
  double total = 0;
  for (double x : moved) total += x;
  return total;
}

}  // namespace nnlb
