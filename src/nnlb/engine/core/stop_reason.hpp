#pragma once
// Why a run ended: one list for every engine, each reason defined once in
// docs/result-schema.md ("summary.stop_reason").
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace nnlb {

enum class StopReason : std::uint8_t {
  balanced,   // every node within the band of its share (or one grain of it: BalanceRule)
  spread,     // max - min <= stop.spread
  imbalance,  // nu <= stop.imbalance
  quiet,      // no event, message or timer left to happen (nothing moves any more)
  stalled,    // out of the band and no load or item moved for stop.stall
  diverged,   // the loads grew beyond any bound the initial total allows
  detected,   // a node detected global termination (a detection protocol)
  finished,   // every node's program ended (an application's last iteration, the last task)
  time,       // the time limit (simulated or wall seconds)
  steps,      // the step or round limit
};

inline constexpr std::array<std::string_view, 10> stop_reason_names = {"balanced", "spread", "imbalance", "quiet",  "stalled",
                                                                        "diverged", "detected", "finished", "time", "steps"};

constexpr std::string_view name(StopReason r) { return stop_reason_names[static_cast<std::size_t>(r)]; }

// The reason a record names, or nothing.
constexpr std::optional<StopReason> stop_reason_named(std::string_view text) {
  for (std::size_t k = 0; k < stop_reason_names.size(); ++k)
    if (stop_reason_names[k] == text) return static_cast<StopReason>(k);
  return std::nullopt;
}

// "diverged": the loads' absolute sum beyond this many times the largest total the run holds by
// conservation (its initial absolute sum, or what the nodes' work added): an unstable iteration
// (FOS with alpha >= 2 / lambda_max). Checked before conservation, whose rounding grows with the
// loads: the tolerance stays relative to the run's scale, not to the blow-up.
inline constexpr double divergence_factor = 1e3;
constexpr bool diverged(double abs_total, double scale) { return abs_total > divergence_factor * scale; }

// Reasons that say the loads reached the target.
constexpr bool reached_balance(StopReason r) { return r == StopReason::balanced || r == StopReason::spread || r == StopReason::imbalance; }

}  // namespace nnlb
