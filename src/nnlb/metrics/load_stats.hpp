#pragma once
// Load distribution statistics. The imbalance factor is Xu et al.'s
// nu = ||W - W_bar||^2 = sum_i (w_i - mean)^2 (1995, sec. 4); on nodes of different speeds the
// balanced state is a load proportional to speed (Jeannot & Vernier 2006, Theorem 1), and nu is
// measured against it: sum_i (w_i - C_i W / sum C)^2. Sums are blocked so that they are
// bit-identical for any thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "nnlb/model/platform.hpp"
#include "nnlb/util/parallel.hpp"

namespace nnlb {

struct LoadStats {
  double total = 0;
  double mean = 0;
  double imbalance = 0;  // nu
  double stddev = 0;     // sqrt(nu / N)
  double min = 0;
  double max = 0;
  double abs_total = 0;  // sum |w_i|, the scale of the conservation check
};

// Each node's share C_i / sum C of the total when balanced relative to speed, for the `nodes`
// nodes of `platform`; empty when all speeds are equal (the target is then the mean, and the
// statistics are exactly Xu et al.'s).
inline std::vector<double> speed_shares(const Platform& platform, std::size_t nodes) {
  if (platform.speed.size() <= 1 || std::all_of(platform.speed.begin(), platform.speed.end(), [&](double c) { return c == platform.speed[0]; }))
    return {};
  double sum = 0;
  for (std::size_t i = 0; i < nodes; ++i) sum += platform.speed[i];
  std::vector<double> share(nodes);
  for (std::size_t i = 0; i < nodes; ++i) share[i] = platform.speed[i] / sum;
  return share;
}

// `share`: speed_shares() of the nodes of w (empty: the mean is every node's target).
template <class L>
LoadStats load_stats(std::span<const L> w, std::span<const double> share = {}) {
  const std::size_t n = w.size();
  const std::size_t blocks = block_count(n);
  std::vector<double> sum(blocks), abs_sum(blocks), sq(blocks), lo(blocks), hi(blocks);
  for_each_block(n, [&](std::size_t b, std::size_t e, std::size_t k) {
    double s = 0, a = 0, mn = std::numeric_limits<double>::infinity(), mx = -mn;
    for (std::size_t i = b; i < e; ++i) {
      const double x = static_cast<double>(w[i]);
      s += x;
      a += std::abs(x);
      mn = std::min(mn, x);
      mx = std::max(mx, x);
    }
    sum[k] = s, abs_sum[k] = a, lo[k] = mn, hi[k] = mx;
  });
  LoadStats st;
  st.min = std::numeric_limits<double>::infinity();
  st.max = -st.min;
  for (std::size_t k = 0; k < blocks; ++k) {
    st.total += sum[k];
    st.abs_total += abs_sum[k];
    st.min = std::min(st.min, lo[k]);
    st.max = std::max(st.max, hi[k]);
  }
  st.mean = n ? st.total / static_cast<double>(n) : 0;
  for_each_block(n, [&](std::size_t b, std::size_t e, std::size_t k) {
    double s = 0;
    if (share.empty())
      for (std::size_t i = b; i < e; ++i) {
        const double d = static_cast<double>(w[i]) - st.mean;
        s += d * d;
      }
    else
      for (std::size_t i = b; i < e; ++i) {
        const double d = static_cast<double>(w[i]) - st.total * share[i];
        s += d * d;
      }
    sq[k] = s;
  });
  for (double s : sq) st.imbalance += s;
  st.stddev = n ? std::sqrt(st.imbalance / static_cast<double>(n)) : 0;
  return st;
}

}  // namespace nnlb
