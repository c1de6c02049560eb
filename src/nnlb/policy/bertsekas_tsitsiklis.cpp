#include "nnlb/policy/bertsekas_tsitsiklis.hpp"

#include <algorithm>

#include "nnlb/policy/best_effort.hpp"

namespace nnlb {

void BertsekasTsitsiklis::decide(const LocalView& view, std::vector<Transfer>& out) const {
  const auto& order = less_loaded_by_load(view);  // a node sends only to less loaded neighbours
  const double share = 1.0 / static_cast<double>(view.neighbors.size() + 1);
  thread_local std::vector<double> sent;  // per neighbour in `order`: amount decided so far
  sent.assign(order.size(), 0.0);
  double remaining = view.load;
  for (std::size_t p = 0; p < order.size(); ++p) {
    const double xj = view.neighbors[order[p]].load;
    if (!(remaining > xj)) break;
    double s = share * (view.load - xj);
    if (ping_pong_) {
      // Eq. 2 for this neighbour and for every other less loaded one: after all sends, i keeps
      // at least x_k + s_ik for each k with x_i > x_k.
      s = std::min(s, (remaining - xj) / 2.0);
      for (std::size_t q = 0; q < order.size(); ++q) {
        const double xk = view.neighbors[order[q]].load;
        if (q != p && view.load > xk) s = std::min(s, remaining - (xk + sent[q]));
      }
    }
    if (s <= 0) continue;
    sent[p] = s;
    remaining -= s;
    out.push_back({order[p], s});
  }
}

}  // namespace nnlb
