#include "nnlb/engine/sync/grid_stencil.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "nnlb/engine/sync/linear_kernels.hpp"
#include "nnlb/util/parallel.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NNLB_GRID_AVX2 1
#endif

namespace nnlb {

namespace {

// The flow over an interior edge: FOS's a (w_i - w_j), or M_r's a w_i - a w_j with aw = a w_i
// (mr_flow's operations).
template <bool Split>
inline double edge_flow(double a, double wi, double aw, double wj) {
  if constexpr (Split) return aw - a * wj;
  else return a * (wi - wj);
}

// One interior row segment of `count` nodes; up/row/down point at the first node's neighbours
// above, itself and below (row[-1] and row[count] are its left and right neighbours).
template <bool Split>
double row_scalar(const double* up, const double* row, const double* down, double* out, std::size_t count, double alpha) {
  double m = 0;
  for (std::size_t c = 0; c < count; ++c) {
    const double wi = row[c], aw = alpha * wi;
    const double o1 = edge_flow<Split>(alpha, wi, aw, up[c]), o2 = edge_flow<Split>(alpha, wi, aw, row[c - 1]);
    const double o3 = edge_flow<Split>(alpha, wi, aw, row[c + 1]), o4 = edge_flow<Split>(alpha, wi, aw, down[c]);
    out[c] = wi - o1 - o2 - o3 - o4;
    m += positive_part(o1) + positive_part(o2) + positive_part(o3) + positive_part(o4);
  }
  return m;
}

#ifdef NNLB_GRID_AVX2
template <bool Split>
__attribute__((target("avx2"))) inline __m256d edge_flow4(__m256d a, __m256d wi, __m256d aw, __m256d wj) {
  if constexpr (Split) return _mm256_sub_pd(aw, _mm256_mul_pd(a, wj));
  else return _mm256_mul_pd(a, _mm256_sub_pd(wi, wj));
}

// Four nodes at a time; the tail (fewer than 4) as row_scalar.
template <bool Split>
__attribute__((target("avx2"))) double row_avx2(const double* up, const double* row, const double* down, double* out, std::size_t count,
                                                double alpha) {
  const __m256d a = _mm256_set1_pd(alpha), zero = _mm256_setzero_pd();
  __m256d lanes = zero;
  std::size_t c = 0;
  for (; c + 4 <= count; c += 4) {
    const __m256d wi = _mm256_loadu_pd(row + c), aw = _mm256_mul_pd(a, wi);
    const __m256d o1 = edge_flow4<Split>(a, wi, aw, _mm256_loadu_pd(up + c));
    const __m256d o2 = edge_flow4<Split>(a, wi, aw, _mm256_loadu_pd(row + c - 1));
    const __m256d o3 = edge_flow4<Split>(a, wi, aw, _mm256_loadu_pd(row + c + 1));
    const __m256d o4 = edge_flow4<Split>(a, wi, aw, _mm256_loadu_pd(down + c));
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
  return (l[0] + l[1]) + (l[2] + l[3]) + row_scalar<Split>(up + c, row + c, down + c, out + c, count - c, alpha);
}
#endif

using RowKernel = double (*)(const double*, const double*, const double*, double*, std::size_t, double);

template <bool Split>
RowKernel row_kernel() {
#ifdef NNLB_GRID_AVX2
  static const RowKernel k = __builtin_cpu_supports("avx2") ? row_avx2<Split> : row_scalar<Split>;
  return k;
#else
  return row_scalar<Split>;
#endif
}

// The one coefficient of every edge of the grid's interior nodes under M_r, if there is one.
std::optional<double> interior_coefficient(const Graph& g, const GridStencil& grid, const RelativeSpeedMatrix& m) {
  std::optional<double> a;
  for (std::size_t r = 1; r + 1 < grid.rows; ++r)
    for (std::size_t c = 1; c + 1 < grid.cols; ++c) {
      const auto i = static_cast<NodeId>(r * grid.cols + c);
      for (Slot s = g.first_slot(i); s < g.end_slot(i); ++s) {
        if (!a) a = m.out[s];
        if (m.out[s] != *a || m.in[s] != *a) return std::nullopt;
      }
    }
  return a;
}

}  // namespace

std::optional<GridStencil> fos_grid_stencil(const Topology& topo, const LinearForm& form) {
  if (form.rule == LinearForm::AlphaRule::boillat || form.beta != 1.0) return std::nullopt;
  if (topo.kind != TopologyKind::mesh && topo.kind != TopologyKind::torus) return std::nullopt;
  const auto& dims = topo.shape().dims;
  if (dims.size() != 2 || dims[0] < 3 || dims[1] < 3) return std::nullopt;
  GridStencil grid{dims[0], dims[1], form.alpha, nullptr};
  if (form.rule == LinearForm::AlphaRule::relative) {
    const auto a = interior_coefficient(topo.graph, grid, *form.relative);
    if (!a) return std::nullopt;  // speeds differ: the CSR sweep with the matrix
    grid.alpha = *a;
    grid.relative = form.relative.get();
  }
  return grid;
}

double fos_sweep_grid(const Graph& g, const GridStencil& grid, std::span<const double> w, std::span<double> next) {
  const bool split = grid.relative != nullptr;
  const RowKernel row = split ? row_kernel<true>() : row_kernel<false>();
  const double alpha = grid.alpha;
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
          const double out = split ? mr_flow(grid.relative->out[s], grid.relative->in[s], wi, w[g.target(s)]) : alpha * (wi - w[g.target(s)]);
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
