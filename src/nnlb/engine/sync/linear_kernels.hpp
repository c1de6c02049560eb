#pragma once
// Fused synchronous sweeps for linear policies (FOS, SOS) over the CSR arrays: each node gathers
// its neighbours' loads and writes its new load. They perform the per-node path's arithmetic in
// the same order (w_i, then + (in - out) slot by slot), so both paths give bit-identical results.
#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/policy/policy.hpp"
#include "nnlb/util/parallel.hpp"

namespace nnlb {

// One FOS round (Xu et al. Eq. 3): next_i = w_i - sum_j q(alpha_ij (w_i - w_j)), the flow on each
// edge decided by its more loaded end and rounded down in integer mode. Returns the load moved.
template <class L>
double fos_sweep(const Graph& g, const LinearForm& f, std::span<const L> w, std::span<L> next) {
  std::vector<double> moved(block_count(w.size()));
  const bool uniform = f.rule == LinearForm::AlphaRule::uniform;
  for_each_block(w.size(), [&](std::size_t b, std::size_t e, std::size_t blk) {
    double m = 0;
    for (std::size_t i = b; i < e; ++i) {
      const auto node = static_cast<NodeId>(i);
      const L wi = w[i];
      const auto di = g.degree(node);
      L acc = wi;
      for (Slot s = g.first_slot(node); s < g.end_slot(node); ++s) {
        const NodeId j = g.target(s);
        const L wj = w[j];
        const double a = uniform ? f.alpha : f.alpha_ij(di, g.degree(j));
        if constexpr (std::is_integral_v<L>) {
          if (wi > wj) {
            const L x = quantize<L>(a * static_cast<double>(wi - wj));
            acc -= x;
            m += static_cast<double>(x);
          } else if (wj > wi) {
            acc += quantize<L>(a * static_cast<double>(wj - wi));
          }
        } else {
          // Real loads: a * (w_j - w_i) == -(a * (w_i - w_j)) exactly, so the branch-free update
          // equals the sender-decides path bit for bit.
          const double x = a * (wi - wj);
          acc -= x;
          m += std::max(x, 0.0);
        }
      }
      next[i] = acc;
    }
    moved[blk] = m;
  });
  double total = 0;
  for (double x : moved) total += x;
  return total;
}

// One SOS round (Ghosh, Muthukrishnan & Schultz 1996): the flow on edge (i, j) is
// y_ij = beta * alpha_ij * (w_i - w_j) + (beta - 1) * y_ij(t-1), a plain FOS flow when `first`.
// `net` holds y(t-1) per slot (sender's sign) and receives y(t). Returns the load moved.
template <class L>
double sos_sweep(const Graph& g, const LinearForm& f, bool first, std::span<const L> w, std::span<L> next,
                 std::span<const L> net, std::span<L> next_net) {
  std::vector<double> moved(block_count(w.size()));
  for_each_block(w.size(), [&](std::size_t b, std::size_t e, std::size_t blk) {
    double m = 0;
    for (std::size_t i = b; i < e; ++i) {
      const auto node = static_cast<NodeId>(i);
      const L wi = w[i];
      const auto di = g.degree(node);
      L acc = wi;
      for (Slot s = g.first_slot(node); s < g.end_slot(node); ++s) {
        const NodeId j = g.target(s);
        const double fos = f.alpha_ij(di, g.degree(j)) * (static_cast<double>(wi) - static_cast<double>(w[j]));
        const double y = first ? fos : f.beta * fos + (f.beta - 1.0) * static_cast<double>(net[s]);
        L flow{0};
        if (y > 0) {
          flow = quantize<L>(y);
          acc = acc + (L{0} - flow);
          m += static_cast<double>(flow);
        } else if (y < 0) {
          const L x = quantize<L>(-y);
          acc = acc + (x - L{0});
          flow = L{0} - x;
        }
        next_net[s] = flow;
      }
      next[i] = acc;
    }
    moved[blk] = m;
  });
  double total = 0;
  for (double x : moved) total += x;
  return total;
}

}  // namespace nnlb
