#pragma once
// Generalized dimension exchange (Xu & Lau; Xu et al. 1995, Eq. 2): in each exchange step a node
// balances with one partner, w_i <- w_i + lambda * (w_j - w_i). lambda = 1/2 is ADE; ODE uses
// the topology's optimum. Pairs come from an edge colouring (Pairing::matching).
#include "nnlb/policy/policy.hpp"

namespace nnlb {

class DimensionExchange final : public Policy {
 public:
  explicit DimensionExchange(double lambda, std::string label = "de") : lambda_(lambda), label_(std::move(label)) {}
  std::string name() const override { return label_; }
  bool reads_last_flow() const override { return false; }
  Pairing pairing() const override { return Pairing::matching; }
  std::optional<double> exchange_lambda() const override { return lambda_; }
  void decide(const LocalView& view, std::vector<Transfer>& out) const override;

 private:
  double lambda_;
  std::string label_;
};

}  // namespace nnlb
