#include "nnlb/policy/sender_initiated.hpp"

namespace nnlb {

void SenderInitiated::decide(const LocalView& view, std::vector<Transfer>& out) const {
  if (view.neighbors.empty()) return;
  std::uint32_t least = 0;
  for (std::uint32_t k = 1; k < view.neighbors.size(); ++k)
    if (view.neighbors[k].load < view.neighbors[least].load) least = k;
  if (const double d = view.load - view.neighbors[least].load; d > 0) out.push_back({least, d / 2});
}

}  // namespace nnlb
