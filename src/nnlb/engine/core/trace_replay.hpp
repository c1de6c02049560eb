#pragma once
// Replaying a load trace (load_trace.hpp) on an engine: the recorded weight changes applied to
// items wherever they are now, and "time to balance" measured the same way on the recorded run
// and on its replay.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "nnlb/engine/core/balance.hpp"
#include "nnlb/engine/core/load_trace.hpp"

namespace nnlb {

// New weights by identity, from a TraceAction of kind weights.
using Reweighing = std::unordered_map<ItemId, double>;

// Gives the items of `items` named in `to` their new weight; returns the change of their total.
inline double reweigh(std::span<Item> items, const Reweighing& to) {
  double delta = 0;
  for (Item& it : items)
    if (const auto w = to.find(it.id); w != to.end()) delta += w->second - it.weight, it.weight = w->second;
  return delta;
}

// The first balancing step k at which every rank's load, as it took its k-th step, is within the
// rule's band of the mean of those loads; and when that was (the last rank's k-th step). None when
// no step is.
struct BalancedStep {
  std::uint64_t step = 0;
  double time = 0;
};
inline std::optional<BalancedStep> first_balanced_step(const std::vector<std::vector<StepSnapshot>>& steps, const BalanceRule& rule) {
  if (steps.empty()) return std::nullopt;
  std::size_t common = steps.front().size();
  for (const auto& s : steps) common = std::min(common, s.size());
  std::vector<double> held(steps.size());
  for (std::size_t k = 0; k < common; ++k) {
    double total = 0, when = 0;
    for (std::size_t r = 0; r < steps.size(); ++r) held[r] = steps[r][k].load, total += held[r], when = std::max(when, steps[r][k].time);
    if (rule.all_within(held, total, {})) return BalancedStep{k, when};
  }
  return std::nullopt;
}

}  // namespace nnlb
