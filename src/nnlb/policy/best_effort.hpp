#pragma once
// Best effort (Couturier, Giersch & Hakem, sec. 5): node i takes the largest prefix S of its
// neighbours sorted by non-decreasing known load such that every j in S is below both x_i and the
// mean x_bar of S and i, and sends (x_bar - x_j) / k to each, k being the leveling parameter.
// With k = 1, i and every selected neighbour end at x_bar if nothing else moves.
#include "nnlb/policy/policy.hpp"

namespace nnlb {

class BestEffort final : public Policy {
 public:
  explicit BestEffort(double k) : k_(k) {}
  std::string name() const override { return "best-effort"; }
  bool reads_last_flow() const override { return false; }
  double leveling() const { return k_; }
  void decide(const LocalView& view, std::vector<Transfer>& out) const override;

 private:
  double k_;
};

// The indices of the neighbours known to hold less than the node (the only ones its sends can
// reach), sorted by non-decreasing known load, ties by node id (then port), so every engine visits them in
// the same order. The result lives in per-thread scratch storage, valid until the thread's next
// call (decisions run millions of times; this spares an allocation each).
const std::vector<std::uint32_t>& less_loaded_by_load(const LocalView& view);

}  // namespace nnlb
