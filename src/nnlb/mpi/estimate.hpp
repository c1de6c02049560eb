#pragma once
// A quantity measured again and again with noise (a rank's speed C_i, an item's cost): smoothed
// by an exponential moving average whose first 1/alpha samples are averaged plainly (so the first
// sample does not weigh more than the later ones), and a value in force that follows the smoothed
// estimate only once it is warm and has left a dead band around it. What a balancer acts on is
// the value in force: noise inside the band moves nothing (docs/mpi.md, "The weight model").
#include <cmath>
#include <cstdint>

namespace nnlb::mpi {

class Estimate {
 public:
  // `alpha` in (0, 1]: the weight of a new sample once warm (1: no smoothing); `band` >= 0: the
  // relative change of the smoothed estimate that replaces the value in force.
  Estimate(double alpha, double band) : alpha_(alpha), band_(band) {}

  // A new sample; true when the value in force changed.
  bool add(double sample) {
    ++samples_;
    const double a = std::fmax(alpha_, 1.0 / static_cast<double>(samples_));
    smoothed_ += a * (sample - smoothed_);
    if (!warm()) return false;
    if (in_force_ > 0 && std::fabs(smoothed_ - in_force_) <= band_ * in_force_) return false;
    in_force_ = smoothed_;
    return true;
  }
  // Warm once 1/alpha samples were averaged.
  bool warm() const { return static_cast<double>(samples_) * alpha_ >= 1.0 - 1e-12; }
  double smoothed() const { return smoothed_; }
  double in_force() const { return in_force_; }  // 0 until warm
  std::uint64_t samples() const { return samples_; }

 private:
  double alpha_, band_;
  double smoothed_ = 0, in_force_ = 0;
  std::uint64_t samples_ = 0;
};

}  // namespace nnlb::mpi
