#pragma once
// Diffusion on heterogeneous nodes with the relative-speed matrix M_r (Jeannot & Vernier 2006,
// sec. 3.2): C_r,ij = C_j / (C_i + C_j), delta_i = 1 / sum_j C_r,ij, M_r,ij = min(delta_i, delta_j)
// C_r,ij and M_r,ii = 1 - sum_j M_r,ij. Loads converge to shares proportional to speed (their
// Theorem 1) on connected non-bipartite graphs; the second definition adds the self term
// C_r,ii = C_i / (2 C_i) to delta_i, which keeps the diagonal positive (aperiodic on any connected
// graph). The flow over (i, j) is L_ij = M_r,ij w_i - M_r,ji w_j, sent by its positive end.
#include <memory>
#include <span>
#include <vector>

#include "nnlb/policy/policy.hpp"
#include "nnlb/policy/shaker.hpp"

namespace nnlb {

// C_r,ij: the relative speed of j seen from i.
inline double relative_speed(double ci, double cj) { return cj / (ci + cj); }

// delta_i from C_i and the speeds of i's neighbours; `self_term` adds C_r,ii = 1/2.
double mr_delta(double ci, std::span<const double> neighbor_speeds, bool self_term);

// M_r,ij from both ends' speeds and deltas: what the negotiation of Algorithm 1 (right) agrees on.
inline double mr_coefficient(double ci, double cj, double delta_i, double delta_j) {
  return (delta_i < delta_j ? delta_i : delta_j) * relative_speed(ci, cj);
}

// L_ij, the load i should send to j (negative: j sends to i).
inline double mr_flow(double mr_ij, double mr_ji, double wi, double wj) { return mr_ij * wi - mr_ji * wj; }

// M_r of a whole graph by slot, from the closed form: out[s] = M_r,ij and in[s] = M_r,ji for slot
// s = i -> j. `speed` holds one value for all nodes or one per node.
struct RelativeSpeedMatrix {
  std::vector<double> out, in;
  std::vector<double> speed;  // per node
  bool self_term = false;
};
RelativeSpeedMatrix relative_speed_matrix(const Graph& g, std::span<const double> speed, bool self_term);

// Policy `mr`: node i sends max(L_ij, 0) to each neighbour j. With a shaker (integer loads), an
// edge whose flow rounds down to nothing while i is more loaded than j relative to speed moves a
// part of i's load with probability exp(-kappa U_ij) (sec. 3.3.1, shaker.hpp).
//
// Two ways to know M_r: the closed form over the whole graph from speeds known at set-up (the
// simulation engines), or from reported speeds (the second constructor: the MPI library, whose
// ranks measure their speeds while they run). Then node i computes delta_i from C_i and the
// speeds its neighbours reported, tells it to them (reported_delta), and takes
// M_r,ij = min(delta_i, delta_j) C_r,ij from j's report; until j's delta is heard, delta_i
// alone, which still never sends more than i holds (sum_j delta_i C_r,ij <= 1).
class RelativeSpeedDiffusion final : public Policy {
 public:
  RelativeSpeedDiffusion(const Graph& g, std::shared_ptr<const RelativeSpeedMatrix> mr, Shaker shaker);
  RelativeSpeedDiffusion(bool self_term, Shaker shaker);  // M_r from reported speeds
  std::string name() const override { return "mr"; }
  bool reads_last_flow() const override { return false; }
  std::uint32_t edge_memory() const override { return shaker_.kappa ? 1 : 0; }
  std::optional<LinearForm> linear_form() const override;
  std::optional<double> reported_delta(double speed, std::span<const double> neighbor_speeds) const override;
  void decide(const LocalView& view, std::vector<Transfer>& out) const override;

 private:
  // The transfer over neighbour k for flow L_ij (the shaker's move when it rounds to nothing).
  void transfer(const LocalView& view, std::uint32_t k, double flow, std::vector<Transfer>& out) const;
  const Graph* g_ = nullptr;
  std::shared_ptr<const RelativeSpeedMatrix> mr_;  // null: from reported speeds
  bool self_term_ = false;
  Shaker shaker_;
};

}  // namespace nnlb
