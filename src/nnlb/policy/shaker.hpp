#pragma once
// The "shaker" of Jeannot & Vernier 2006, sec. 3.3.1: with indivisible loads, diffusion can stop
// on a stairway ({3, 2, 1, 0} on a line) where every rounded flow is zero. When i is more loaded
// than j (relative to speed) and they exchange nothing, i draws alea in [0, 1) and moves one unit
// when alea < exp(-kappa U_ij); U_ij counts the shaker's previous moves over that edge, so the
// perturbation cools down like simulated annealing. The paper gives kappa = ln(p) / tau for a
// probability p at the tau-th move; with kappa > 0 the exponent needs -ln(p) / tau, which is what
// `shaker_kappa` computes.
#include <cmath>

#include "nnlb/util/rng.hpp"

namespace nnlb {

struct Shaker {
  double kappa = 0;  // 0: no shaker
};

// kappa such that exp(-kappa tau) = p.
inline double shaker_kappa(double p, double tau) { return -std::log(p) / tau; }

// One draw for an unbalanced edge that exchanges nothing; `moves` is U_ij, counted up on a move.
inline bool shaker_moves(const Shaker& s, double& moves, Rng& rng) {
  if (rng.uniform() >= std::exp(-s.kappa * moves)) return false;
  moves += 1;
  return true;
}

}  // namespace nnlb
