#pragma once
// First-order diffusion scheme (FOS): Cybenko 1989; Xu et al. 1995, Eq. 3; Jeannot & Vernier
// 2006, Eq. 1. Node i sends alpha_ij * (w_i - w_j) to every less loaded neighbour j; the more
// loaded side decides, so both ends agree on every flow.
#include "nnlb/policy/policy.hpp"

namespace nnlb {

class Diffusion final : public Policy {
 public:
  explicit Diffusion(LinearForm form, std::string label = "fos") : form_(form), label_(std::move(label)) {}
  std::string name() const override { return label_; }
  bool reads_last_flow() const override { return false; }
  std::optional<LinearForm> linear_form() const override { return form_; }
  void decide(const LocalView& view, std::vector<Transfer>& out) const override;

 private:
  LinearForm form_;
  std::string label_;
};

// Second-order scheme (SOS, Ghosh, Muthukrishnan & Schultz 1996): the flow over each edge
// remembers the previous one, y_ij(t) = beta * alpha_ij * (w_i - w_j) + (beta - 1) * y_ij(t-1),
// with a first FOS step. Loads may go negative on the way; beta = 1 is FOS.
class SecondOrderDiffusion final : public Policy {
 public:
  explicit SecondOrderDiffusion(LinearForm form) : form_(form) {}
  std::string name() const override { return "sos"; }
  bool needs_net_flow() const override { return true; }
  std::optional<LinearForm> linear_form() const override { return form_; }
  void decide(const LocalView& view, std::vector<Transfer>& out) const override;

 private:
  LinearForm form_;
};

}  // namespace nnlb
