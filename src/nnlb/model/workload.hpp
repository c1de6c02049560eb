#pragma once
// Load generated and consumed per node per step: phi in Xu et al.'s Eq. 1 (zero when static).
// The synchronous engine applies it to every node after every step; a node program with a dynamic
// load (Jeannot & Vernier's iterative application) applies change() after each of its iterations.
#include <algorithm>
#include <cmath>

#include "nnlb/util/rng.hpp"

namespace nnlb {

struct Workload {
  enum class Kind { fixed, dynamic } kind = Kind::fixed;
  double generation_mean = 100;
  double generation_stddev = 5.477225575051661;  // variance 30
  double consumption = 100;                      // consumed per step, at most what the node holds

  // The change of a node holding `held`: a generation ~ Normal(mean, stddev) clipped at 0 (rounded
  // to whole units in integer mode), minus the consumption, at most what the node then holds.
  double change(double held, Rng& rng, bool integer) const {
    double gen = std::max(0.0, rng.normal(generation_mean, generation_stddev));
    if (integer) gen = std::round(gen);
    const double consumed = std::clamp(integer ? std::floor(consumption) : consumption, 0.0, std::max(held + gen, 0.0));
    return std::max(gen - consumed, -held);  // consuming everything leaves exactly 0, whatever the rounding of held + gen
  }
};

}  // namespace nnlb
