#pragma once
// Sender-initiated diffusion on divisible load (Douglas & Harwood sec. 2.3, after Cortés et al.):
// a node more loaded than its least loaded neighbour j sends it (w_i - w_j) / 2, the optimal move
// for a domain of two when load is continuous. In integer mode the engines round the transfer
// down, which is the stable variant that leaves a difference of one; the discrete variant that
// rounds up and over-migrates is the job strategy `sid` (policy/domain_policy.hpp).
#include "nnlb/policy/policy.hpp"

namespace nnlb {

class SenderInitiated final : public Policy {
 public:
  std::string name() const override { return "sid-continuous"; }
  bool reads_last_flow() const override { return false; }
  void decide(const LocalView& view, std::vector<Transfer>& out) const override;
};

}  // namespace nnlb
