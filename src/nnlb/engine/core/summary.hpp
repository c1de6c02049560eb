#pragma once
// The summary's load fields, written once for every engine (docs/result-schema.md): totals
// count divisible load plus item weights; load_moved counts both; balanced is the BalanceRule on
// the final state, or a stop that reached the target.
#include <cstdint>
#include <span>

#include "nnlb/engine/core/result.hpp"
#include "nnlb/engine/core/stop_reason.hpp"
#include "nnlb/metrics/load_stats.hpp"

namespace nnlb {

// At the start: the loads' statistics and the run's total (held and in flight).
inline void open_summary(RunSummary& s, const LoadStats& first, double total) {
  s.initial_total = total;
  s.initial_imbalance = first.imbalance;
}

// At the stop: why, whether the final state is balanced, the final loads (`held`, live nodes)
// and their statistics, and the load and item weight moved over the run.
inline void close_summary(RunSummary& s, StopReason reason, bool balanced, const LoadStats& last, std::span<const double> held,
                          double moved) {
  s.stop_reason = reason;
  s.balanced = balanced || reached_balance(reason);
  s.final_imbalance = last.imbalance;
  s.final_stddev = last.stddev;
  s.final_spread = last.max - last.min;
  s.load_moved = moved;
  s.nodes_with_load = 0;
  for (const double w : held) s.nodes_with_load += w > 0;
}

// A run counted in rounds (sync, rounds, p2p's time units): the rounds and communication steps it
// took, and the step at which it reached its stop target.
inline void close_rounds(RunSummary& s, StopReason reason, std::uint64_t rounds, std::uint64_t steps) {
  if (reached_balance(reason)) s.steps_to_balance = steps;
  s.rounds = rounds;
  s.steps = steps;
}

}  // namespace nnlb
