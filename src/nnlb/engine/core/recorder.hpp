#pragma once
// The record's series and load history, filled the same way by every engine: a sample is the
// loads the live nodes hold (divisible load plus item weights) at one moment, and the load and
// item weight moved since the run began; a row of the series gives the statistics of the loads
// against their speed-proportional shares and what moved since the previous row.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "nnlb/engine/core/result.hpp"
#include "nnlb/metrics/load_stats.hpp"

namespace nnlb {

// When a sample was taken: the engine's iteration and steps (rounds) and its time (seconds).
struct SamplePoint {
  std::uint64_t round = 0;
  std::uint64_t steps = 0;
  double time = 0;
};

class Recorder {
 public:
  explicit Recorder(std::vector<double> shares) : shares_(std::move(shares)) {}

  std::span<const double> shares() const { return shares_; }

  // The statistics of `held`; a row of the series when `keep`. `shares`: those of the live nodes
  // when nodes have left or joined (default: the run's).
  LoadStats sample(RunResult& r, const SamplePoint& at, std::span<const double> held, double moved, bool keep) {
    return sample(r, at, held, moved, keep, shares_);
  }
  LoadStats sample(RunResult& r, const SamplePoint& at, std::span<const double> held, double moved, bool keep,
                   std::span<const double> shares) {
    const LoadStats st = load_stats<double>(held, shares);
    if (keep) row(r, at, st, moved);
    return st;
  }

  // A row from statistics the engine computed itself (its fused kernels).
  void row(RunResult& r, const SamplePoint& at, const LoadStats& st, double moved) {
    r.series.push_back({at.round, at.steps, at.time, st.imbalance, st.stddev, st.min, st.max, st.mean, moved - moved_at_row_});
    moved_at_row_ = moved;
  }

  // Every node's load at `at` (communication steps or seconds) for the load history.
  static void history(RunResult& r, double at, std::vector<double> held) {
    r.load_history.steps.push_back(at);
    r.load_history.loads.push_back(std::move(held));
  }

 private:
  std::vector<double> shares_;  // speed_shares(): empty when the speeds are equal
  double moved_at_row_ = 0;
};

}  // namespace nnlb
