#pragma once
// "Balanced", one rule for every engine (docs/result-schema.md): node i is within the band of
// its share of the current total T, |w_i - T s_i| <= band x T s_i, with s_i = 1/N on equal
// speeds and C_i / sum C otherwise (Jeannot & Vernier 2006, Theorem 1). The current total counts
// divisible load and item weights, held or in flight. Where whole units or items make the band
// finer than they can be split, a node is also balanced when it is less than one grain from its
// share (one unit in integer mode, the heaviest item with items): as close as the grain allows.
#include <algorithm>
#include <cmath>
#include <span>
#include <type_traits>
#include <vector>

#include "nnlb/node/message.hpp"
#include "nnlb/engine/core/initial_state.hpp"

namespace nnlb {

struct BalanceRule {
  double band = 0.01;
  double grain = 0;  // 0: divisible load only

  bool within(double held, double target) const {
    const double d = std::abs(held - target);
    return d <= band * target || d < grain;
  }

  // Every node of `held` within the band, its share of `total` from `shares` (empty: equal);
  // `held` as doubles, or as a fast loop keeps its loads (whole units in integer mode).
  template <class L = double>
  bool all_within(std::span<const std::type_identity_t<L>> held, double total, std::span<const double> shares) const {
    for (std::size_t i = 0; i < held.size(); ++i)
      if (!within(static_cast<double>(held[i]), total * (shares.empty() ? 1.0 / static_cast<double>(held.size()) : shares[i])))
        return false;
    return true;
  }
};

// The grain of a run's load: one unit in integer mode, and at least the heaviest item.
inline double load_grain(bool integer, const InitialState& initial) {
  double grain = integer ? 1.0 : 0.0;
  for (const auto& node : initial.items)
    for (const Item& it : node) grain = std::max(grain, it.weight);
  return grain;
}

}  // namespace nnlb
