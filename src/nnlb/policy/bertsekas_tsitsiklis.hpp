#pragma once
// Bertsekas & Tsitsiklis' asynchronous balancing as implemented by Bahi, Giersch & Makhoul
// (their algorithm 2; "naive" in Couturier, Giersch & Hakem, sec. 4): take the neighbours by
// non-decreasing known load and send each 1/(|V(i)| + 1) of the load difference, as long as i
// remains more loaded than the neighbour considered.
//
// With `ping_pong` the sends are also capped so that the ping-pong condition (Eq. 2) holds:
// x_i - sum_k s_ik >= x_j + s_ij for every neighbour j with x_i > x_j. It can stall balancing:
// on a chain x1 = 10, x2 = 100, x3 = 99.99, node 2 may send node 1 only 0.01 (sec. 4).
#include "nnlb/policy/policy.hpp"

namespace nnlb {

class BertsekasTsitsiklis final : public Policy {
 public:
  explicit BertsekasTsitsiklis(bool ping_pong) : ping_pong_(ping_pong) {}
  std::string name() const override { return "bertsekas-tsitsiklis"; }
  bool reads_last_flow() const override { return false; }
  void decide(const LocalView& view, std::vector<Transfer>& out) const override;

 private:
  bool ping_pong_;
};

}  // namespace nnlb
