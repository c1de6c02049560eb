#include "nnlb/policy/diffusion.hpp"

namespace nnlb {

void Diffusion::decide(const LocalView& view, std::vector<Transfer>& out) const {
  for (std::uint32_t k = 0; k < view.neighbors.size(); ++k) {
    const auto& nb = view.neighbors[k];
    if (view.load > nb.load) out.push_back({k, form_.alpha_ij(view.degree, nb.degree) * (view.load - nb.load)});
  }
}

void SecondOrderDiffusion::decide(const LocalView& view, std::vector<Transfer>& out) const {
  const bool first = view.step == 0;
  for (std::uint32_t k = 0; k < view.neighbors.size(); ++k) {
    const auto& nb = view.neighbors[k];
    const double fos = form_.alpha_ij(view.degree, nb.degree) * (view.load - nb.load);
    const double y = first ? fos : form_.beta * fos + (form_.beta - 1.0) * nb.last_flow;
    if (y > 0) out.push_back({k, y});
  }
}

}  // namespace nnlb
