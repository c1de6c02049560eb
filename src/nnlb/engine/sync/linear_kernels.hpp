#pragma once
// Fused synchronous sweeps for linear policies (FOS, SOS) over the CSR arrays: each node gathers
// its neighbours' loads and writes its new load. They perform the per-node path's arithmetic in
// the same order (w_i, then minus the net outflow slot by slot), so both paths give
// bit-identical results.
#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/policy/policy.hpp"
#include "nnlb/policy/relative_speed.hpp"
#include "nnlb/util/parallel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace nnlb {

// max(x, 0) without a branch: with unbalanced loads a compare-and-jump mispredicts about half the
// time, which made the sweep compute-bound (docs/benchmarks.md).
inline double positive_part(double x) {
#if defined(__SSE2__)
  return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(x), _mm_setzero_pd()));
#else
  return x > 0.0 ? x : 0.0;
#endif
}

// next_i = w_i - sum_s outflow(i, d_i, s, w_i) over i's slots; returns the load moved (the sum of
// positive outflows). `outflow` gives the net load leaving i over slot s, decided by the more
// loaded end and rounded down to whole units in integer mode.
template <class L, class Outflow>
double linear_sweep(const Graph& g, std::span<const L> w, std::span<L> next, Outflow&& outflow) {
  std::vector<double> moved(block_count(w.size()));
  for_each_block(w.size(), [&](std::size_t b, std::size_t e, std::size_t blk) {
    double m = 0;
    for (std::size_t i = b; i < e; ++i) {
      const auto node = static_cast<NodeId>(i);
      const L wi = w[i];
      const auto di = g.degree(node);
      L acc = wi;
      for (Slot s = g.first_slot(node); s < g.end_slot(node); ++s) {
        const L out = outflow(di, s, wi);
        acc -= out;
        m += positive_part(static_cast<double>(out));
      }
      next[i] = acc;
    }
    moved[blk] = m;
  });
  double total = 0;
  for (double x : moved) total += x;
  return total;
}

// Signed flow alpha * (w_i - w_j) in the load's unit, as its sender rounds it: down to whole units
// for the positive amount, i.e. truncation toward zero for either sign; so both ends of an edge
// compute the same amount with opposite signs (exactly, also for doubles). Branch-free.
template <class L>
inline L signed_flow(double y) {
  if constexpr (std::is_integral_v<L>) return static_cast<L>(y);
  else return y;
}

// One FOS round (Xu et al. Eq. 3).
template <class L>
double fos_sweep(const Graph& g, const LinearForm& f, std::span<const L> w, std::span<L> next) {
  if (f.rule == LinearForm::AlphaRule::relative) {
    // Jeannot & Vernier 2006 sec. 3.2: W(t+1) = M_r^T W(t), as flows M_r,ij w_i - M_r,ji w_j.
    const double* out = f.relative->out.data();
    const double* in = f.relative->in.data();
    return linear_sweep<L>(g, w, next, [&](std::uint32_t, Slot s, L wi) {
      return signed_flow<L>(mr_flow(out[s], in[s], static_cast<double>(wi), static_cast<double>(w[g.target(s)])));
    });
  }
  return linear_sweep<L>(g, w, next, [&](std::uint32_t di, Slot s, L wi) {
    const NodeId j = g.target(s);
    const double a = f.rule == LinearForm::AlphaRule::uniform ? f.alpha : f.alpha_ij(di, g.degree(j));
    return signed_flow<L>(a * static_cast<double>(wi - w[j]));
  });
}

// One SOS round (Ghosh, Muthukrishnan & Schultz 1996): the flow on edge (i, j) is
// y_ij = beta * alpha_ij * (w_i - w_j) + (beta - 1) * y_ij(t-1), a plain FOS flow when `first`.
// `net` holds y(t-1) per slot (sender's sign) and receives y(t) in `next_net`.
template <class L>
double sos_sweep(const Graph& g, const LinearForm& f, bool first, std::span<const L> w, std::span<L> next,
                 std::span<const L> net, std::span<L> next_net) {
  return linear_sweep<L>(g, w, next, [&](std::uint32_t di, Slot s, L wi) {
    const double fos = f.alpha_ij(di, g.degree(g.target(s))) * (static_cast<double>(wi) - static_cast<double>(w[g.target(s)]));
    const double y = first ? fos : f.beta * fos + (f.beta - 1.0) * static_cast<double>(net[s]);
    return next_net[s] = signed_flow<L>(y);
  });
}

}  // namespace nnlb
