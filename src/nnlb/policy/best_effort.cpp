#include "nnlb/policy/best_effort.hpp"

#include <algorithm>
#include <numeric>

namespace nnlb {

const std::vector<std::uint32_t>& less_loaded_by_load(const LocalView& view) {
  thread_local std::vector<std::uint32_t> order;
  order.clear();
  for (std::uint32_t j = 0; j < view.neighbors.size(); ++j)
    if (view.neighbors[j].load < view.load) order.push_back(j);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto &na = view.neighbors[a], &nb = view.neighbors[b];
    return na.load < nb.load || (na.load == nb.load && (na.id < nb.id || (na.id == nb.id && a < b)));
  });
  return order;
}

void BestEffort::decide(const LocalView& view, std::vector<Transfer>& out) const {
  const auto& order = less_loaded_by_load(view);  // no other neighbour can join S
  double sum = view.load;
  std::size_t selected = 0;
  // Grow the prefix while the next neighbour stays below x_i and below the mean it would join.
  for (; selected < order.size(); ++selected) {
    const double xj = view.neighbors[order[selected]].load;
    const double mean = (sum + xj) / static_cast<double>(selected + 2);
    if (!(xj < view.load && xj < mean)) break;
    sum += xj;
  }
  const double mean = sum / static_cast<double>(selected + 1);
  for (std::size_t p = 0; p < selected; ++p) {
    const double amount = (mean - view.neighbors[order[p]].load) / k_;
    if (amount > 0) out.push_back({order[p], amount});
  }
}

}  // namespace nnlb
