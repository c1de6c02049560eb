#pragma once
// n whole things shared in proportion to weights by largest remainders (Hamilton's method): each
// share is its quota rounded down, and the remaining units go to the largest fractional parts
// (ties: the lower index). Equal shares when the weights sum to 0.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

namespace nnlb {

inline std::vector<std::size_t> apportion(std::span<const double> weight, std::size_t n) {
  const std::size_t k = weight.size();
  std::vector<std::size_t> count(k, 0);
  if (k == 0) return count;
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  std::vector<std::pair<double, std::size_t>> rest(k);
  std::size_t given = 0;
  for (std::size_t c = 0; c < k; ++c) {
    const double quota = static_cast<double>(n) * (total > 0 ? weight[c] / total : 1.0 / static_cast<double>(k));
    count[c] = std::min(n - given, static_cast<std::size_t>(std::floor(quota)));
    given += count[c];
    rest[c] = {quota - static_cast<double>(count[c]), c};
  }
  std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  for (std::size_t j = 0; given < n; ++j, ++given) ++count[rest[j % k].second];
  return count;
}

}  // namespace nnlb
