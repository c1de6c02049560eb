#include "nnlb/policy/best_effort.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>

#include "nnlb/util/uint128.hpp"

namespace nnlb {

namespace {

using OrderKey = uint128;

// A neighbour's place in the order (load, id, port) as one unsigned 128-bit number: the load's bits
// mapped so that the numbers compare as the doubles do (-0.0 as +0.0), then the id and the port.
// Comparing fields took a mispredicted branch each; at hypercube:14 the order was 14 % of a
// Bertsekas-Tsitsiklis run (docs/benchmarks.md).
OrderKey order_key(double load, NodeId id, std::uint32_t port) {
  std::uint64_t bits = std::bit_cast<std::uint64_t>(load == 0 ? 0.0 : load);
  bits = bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63);
  return static_cast<OrderKey>(bits) << 64 | std::uint64_t{id} << 32 | port;
}

}  // namespace

const std::vector<std::uint32_t>& less_loaded_by_load(const LocalView& view) {
  thread_local std::vector<OrderKey> keys;
  thread_local std::vector<std::uint32_t> order;
  keys.resize(view.neighbors.size());
  std::size_t n = 0;
  for (std::uint32_t j = 0; j < view.neighbors.size(); ++j) {  // a NaN is never less loaded
    keys[n] = order_key(view.neighbors[j].load, view.neighbors[j].id, j);
    n += view.neighbors[j].load < view.load;
  }
  order.resize(n);
  if (n <= 32) {  // each key's rank, counted without a branch: the keys are distinct
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t rank = 0;
      for (std::size_t m = 0; m < n; ++m) rank += keys[m] < keys[k];
      order[rank] = static_cast<std::uint32_t>(keys[k]);
    }
    return order;
  }
  std::sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
  for (std::size_t k = 0; k < n; ++k) order[k] = static_cast<std::uint32_t>(keys[k]);
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
