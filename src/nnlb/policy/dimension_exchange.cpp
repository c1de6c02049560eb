#include "nnlb/policy/dimension_exchange.hpp"

namespace nnlb {

void DimensionExchange::decide(const LocalView& view, std::vector<Transfer>& out) const {
  for (std::uint32_t k = 0; k < view.neighbors.size(); ++k)
    if (view.load > view.neighbors[k].load) out.push_back({k, lambda_ * (view.load - view.neighbors[k].load)});
}

}  // namespace nnlb
