#pragma once
// The built-in discrete-event engine: a transport for node programs (agent/agent.hpp) in
// simulated seconds. Nodes have speeds; links of the topology have latency and bandwidth: a
// message of s bytes takes latency + s / bandwidth, and messages on one link and direction queue
// behind each other (no contention model; SimGrid brings one). Events are ordered by (time,
// insertion sequence), so a run is a pure function of its inputs.
//
// The engine holds each node's load and items and the messages on the wires, and checks at every
// sample that load held plus load on the wires equals the initial total (exactly for integer
// loads, to 1e-9 relative for real ones) and that every item identity is held or on a wire
// exactly once: recounted from the nodes and the wires themselves, not from running totals.
// Nodes may leave and join (`GraphChange`, listed or drawn by `Churn` a step each second); a
// leaving node's load and items go to its neighbours (engine/core/hand_over.hpp). A joining node
// may take the id of one that left: that one's timers and the messages sent to it never reach it.
//
// The metrics are those of Couturier, Giersch & Hakem sec. 7.2: idle time (holding no load),
// each node's last entry into the band of `band` x mean around the mean, messages and load moved.
#include <cstdint>
#include <optional>
#include <vector>

#include "nnlb/node/agent.hpp"
#include "nnlb/engine/core/faults.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/initial_state.hpp"
#include "nnlb/engine/core/load_trace.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/churn.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

struct DesOptions {
  double band = 0.01;              // balanced: every node within band x its share (core/balance.hpp)
  double time_limit = 1e4;         // simulated seconds
  double sample_period = 1e-2;     // series and load-history sampling (s), > 0
  bool stop_when_balanced = true;  // the simulator's oracle: stop when every node is in the band
  // Another oracle, checked at every sample: balanced when max - min <= spread. For integer
  // loads, whose floor-rounded transfers can freeze short of the band (docs/reproductions/
  // couturier.md, "Integer load").
  std::optional<double> spread;
  bool stop_on_detection = false;  // stop when a node reports detected termination
  // With stop_when_balanced, "stalled": out of the band and no load or item moved for this many
  // seconds, checked at each sample; 0: never.
  double stall = 0;
  bool record_series = true;       // every sample in the series (false: the first and last only)
  bool record_load_history = false;
  std::uint64_t series_max_rows = default_series_max_rows;  // rows of the series and load history (core/recorder.hpp; 0: no bound)
  bool record_final_load = false;
  std::uint64_t seed = 1;
  // Control messages travel on a lane of their own instead of queueing behind data on the same
  // link and direction (a choice Couturier et al. leave open).
  bool separate_control = false;
  FaultInjection faults;
  // Churn of the graph, a step at each whole second (model/churn.hpp); under churn a balanced
  // state does not end the run.
  Churn* churn = nullptr;
  // An application's load trace, replayed (engine/core/load_trace.hpp): at each recorded time its
  // items change weight wherever they are now, new items appear on their rank's node, and a
  // rank's balancing step fires on its node (Agent::timer with `trace_step_tag`). The run's notes
  // give when the loads first were balanced at a step, on the trace and in the replay.
  const LoadTrace* trace = nullptr;
  std::uint32_t trace_step_tag = 0;
};

// Runs `program` on every node of `topo` until a stop rule holds (core/stop_reason.hpp): balanced,
// spread, stalled, detected, every node finished, no event but the sampling left ("quiet"), or
// the time limit. `coloring` is needed when the program asks for it. `changes`: leaves and joins
// at given times (in time order; a joining node's id is one that left, or the next new id).
RunResult run_des(const Topology& topo, const Program& program, LoadMode mode, const InitialState& initial,
                  const Platform& platform, const DesOptions& options, const EdgeColoring* coloring = nullptr,
                  const std::vector<GraphChange>& changes = {});

}  // namespace nnlb
