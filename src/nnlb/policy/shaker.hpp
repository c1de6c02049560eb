#pragma once
// The "shaker" of Jeannot & Vernier 2006, sec. 3.3.1: with indivisible loads, diffusion can stop
// on a stairway ({3, 2, 1, 0} on a line) where every rounded flow is zero. When node i is
// unbalanced with respect to its neighbour j and they exchange no load, i draws alea in [0, 1)
// and moves a part of its load to j when alea < exp(-kappa U_ij). U_ij counts the successive
// balancing steps in which i and j are unbalanced and exchange nothing; an exchange (the
// shaker's own included) or a balanced step ends the run and resets it. The paper writes
// kappa = ln(p) / tau for a probability p at the tau-th such step; with kappa > 0 the exponent
// needs -ln(p) / tau, which is what `shaker_kappa` computes.
//
// "Unbalanced" is seen from the end that would send: i holds more than j relative to speed,
// w_i C_j > w_j C_i (then L_ij > 0 under M_r, and only i may send over the edge in this step).
// How much "a part of the load" is, the paper does not say: `part` = 0 moves one unit (our
// default); part in (0, 1] moves that fraction of the amount that levels the pair relative to
// speed, (w_i C_j - w_j C_i) / (C_i + C_j), rounded down, at least one unit.
//
// Two readings the paper leaves open, each a key (the defaults are the readings above):
// `cool` (shaker.counter = "cool"): the shaker's own move does not reset U_ij, only an exchange
// by the diffusion or a balanced step does, so on an edge that stays stuck the probability falls
// step after step, as a simulated annealing cools; `unit` (shaker.unbalanced = "unit"): i is
// unbalanced with respect to j only when moving one unit to j brings the pair closer to balance
// relative to speed, |(w_i - 1) / C_i - (w_j + 1) / C_j| < w_i / C_i - w_j / C_j, that is
// 2 (w_i C_j - w_j C_i) > C_i + C_j (on equal speeds: w_i - w_j >= 2, so a stairway of one-unit
// steps is balanced).
#include <algorithm>
#include <cmath>

#include "nnlb/util/rng.hpp"

namespace nnlb {

struct Shaker {
  double kappa = 0;  // 0: no shaker
  double part = 0;   // 0: one unit; else the fraction of the pair's levelling amount
  bool cool = false;  // the shaker's own move leaves U_ij counting (shaker.counter = "cool")
  bool unit = false;  // unbalanced: a one-unit move would narrow the pair's gap (shaker.unbalanced = "unit")
};

// kappa such that exp(-kappa tau) = p.
inline double shaker_kappa(double p, double tau) { return -std::log(p) / tau; }

// One balancing step of edge (i, j) as i sees it, i holding w_i at speed C_i and j w_j at C_j;
// `exchanged`: the diffusion moves load over the edge in this step. Updates U_ij (`stuck`) and
// returns the whole units the shaker moves from i to j (0: none).
inline double shaker_step(const Shaker& s, double& stuck, bool exchanged, double wi, double ci, double wj, double cj, Rng& rng) {
  const bool unbalanced = s.unit ? 2 * (wi * cj - wj * ci) > ci + cj : wi * cj > wj * ci;
  if (exchanged || !(wi >= 1 && unbalanced)) {
    stuck = 0;
    return 0;
  }
  stuck += 1;
  if (rng.uniform() >= std::exp(-s.kappa * stuck)) return 0;
  if (!s.cool) stuck = 0;  // the shaker's move is an exchange
  if (s.part == 0) return 1;
  const double level = (wi * cj - wj * ci) / (ci + cj);
  return std::min(std::floor(wi), std::max(1.0, std::floor(s.part * level)));
}

}  // namespace nnlb
