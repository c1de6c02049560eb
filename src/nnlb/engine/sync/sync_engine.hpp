#pragma once
// The synchronous engine: global rounds, every node acting on the loads of the previous round
// (Xu et al. 1995, Eq. 1 and 6). Diffusion-type policies act on all neighbours in a round;
// dimension exchange acts on the edges of one colour class per round. Step accounting follows
// Xu: a diffusion round costs 1 step all-port and d(G) steps one-port; a colour class of
// dimension exchange costs 1 step, so a full sweep on an n-D mesh or torus costs 2n steps.
#include <cstdint>
#include <optional>
#include <vector>

#include "nnlb/engine/core/faults.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/port.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/model/workload.hpp"
#include "nnlb/policy/policy.hpp"

namespace nnlb {

// Which nodes balance in a round (Xu et al. sec. 2: the set I(t)).
struct Invocation {
  enum class Kind { synchronous, threshold } kind = Kind::synchronous;
  double low = 200, high = 800;  // threshold: a node invokes when its load leaves [low, high]
};


struct StopRule {
  std::uint64_t max_steps = 10000;
  std::optional<double> imbalance;  // stop when nu <= this
  std::optional<double> spread;     // stop when max - min <= this
  bool quiescent = false;           // stop when a whole sweep moves nothing
  // Stop once every node is within `band` of its share (core/balance.hpp), as the program
  // engines do; the experiment layer asks for it under static load when the scenario sets no
  // target of its own (imbalance, spread).
  bool when_balanced = false;
};

struct SyncOptions {
  PortModel port = PortModel::all;
  // Dimension exchange: each colour class costs one step (Xu's stated accounting), or a whole
  // sweep of all classes, done in sequence, counts as one step (the reading under which Xu's
  // Fig. 3 ordering appears; see docs/reproductions/xu1995.md).
  bool de_sweep_is_one_step = false;
  Invocation invocation;
  Workload workload;
  StopRule stop;
  double band = 0.01;  // balanced: every node within band x its share (core/balance.hpp), whatever ended the run
  std::uint64_t seed = 1;
  std::uint64_t series_every = 1;  // record every k-th round (0: only the first and last)
  bool record_final_load = false;
  std::uint64_t load_history_every = 0;  // sample every node's load every k rounds (0: never)
  std::uint64_t series_max_rows = default_series_max_rows;  // rows of the series and load history (core/recorder.hpp; 0: no bound)
  bool allow_fused = true;         // run linear policies as fused sweeps when possible
  // Tests only. This path sends no messages: after the k-th round that moved load, node 0 has
  // one unit less (a lost transfer), one more (a doubled one), or a slightly altered load.
  FaultInjection faults;
};

// Runs `policy` from `initial` (whole numbers in integer mode). `coloring` is needed by
// matching (dimension-exchange) policies. Throws ConservationError if load is not conserved.
RunResult run_sync(const Topology& topo, const Policy& policy, const EdgeColoring* coloring, LoadMode mode,
                   const std::vector<double>& initial, const Platform& platform, const SyncOptions& options);

}  // namespace nnlb
