#pragma once
// When a run ends, and why: every stop rule of every engine in one function (docs/result-schema.md,
// "summary.stop_reason"). An engine never decides a stop; the driver (driver.hpp, or a fast loop
// such as sync's) describes the moment and this function names the reason, or none.
#include <cstdint>
#include <limits>
#include <optional>

#include "nnlb/engine/core/interrupt.hpp"
#include "nnlb/engine/core/stop_reason.hpp"
#include "nnlb/metrics/load_stats.hpp"

namespace nnlb {

// What a scenario asks a run to stop on (its stop.* keys, resolved by the experiment layer).
struct StopRules {
  bool when_balanced = false;       // every live node within the band of its share (BalanceRule)
  bool graph_changes = false;       // nodes leave and join: a balanced state then ends no run
  std::optional<double> imbalance;  // nu <= this, at a sample
  std::optional<double> spread;     // max - min <= this, at a sample
  double stall = 0;                 // with when_balanced: out of the band, nothing moved for this long (at a sample); 0: never
  bool on_detection = false;        // a node reported detected termination
  double time_limit = std::numeric_limits<double>::infinity();   // seconds (simulated, wall) or time units
  std::uint64_t max_rounds = std::numeric_limits<std::uint64_t>::max();  // rounds or communication steps
};

// The run at one decision point, as the driver sees it.
struct RunMoment {
  double now = 0;
  std::uint64_t rounds = 0;            // rounds or steps done (round engines)
  const LoadStats* sample = nullptr;   // the statistics of a sample taken at this moment, if one was
  bool balanced = false;               // every live node within its band
  bool diverged = false;               // the loads grew beyond any bound conservation allows
  double last_move = 0;                // when load or an item last moved
  bool detected = false;               // a node reported termination
  bool finished = false;               // every live node's program ended
  bool quiet = false;                  // nothing is left to happen
  double next = -std::numeric_limits<double>::infinity();  // when the next thing would happen (timed engines)
};

// The one stop rule. Reasons that need statistics hold only at a sample; the order settles
// moments where several hold (a target reached before a limit). A run its caller interrupts
// ends here by throwing Interrupted (interrupt.hpp).
[[gnu::always_inline]] inline std::optional<StopReason> decide(const StopRules& r, const RunMoment& m) {
  poll_interrupt();
  const LoadStats* st = m.sample;
  if (m.diverged) return StopReason::diverged;
  if (st && r.imbalance && st->imbalance <= *r.imbalance) return StopReason::imbalance;
  if (r.when_balanced && !r.graph_changes && m.balanced) return StopReason::balanced;
  if (st && r.spread && st->max - st->min <= *r.spread) return StopReason::spread;
  if (st && r.when_balanced && r.stall > 0 && !m.balanced && m.now - m.last_move >= r.stall) return StopReason::stalled;
  if (r.on_detection && m.detected) return StopReason::detected;
  if (m.finished) return StopReason::finished;
  if (m.quiet) return StopReason::quiet;
  if (m.rounds >= r.max_rounds) return StopReason::steps;
  if (m.next > r.time_limit) return StopReason::time;
  return std::nullopt;
}

}  // namespace nnlb
