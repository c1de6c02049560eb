#pragma once
// The synchronous engine as a transport for node programs (agent/agent.hpp): global rounds, as
// in the bulk-synchronous model. In round r every node first hears of the messages sent to it in
// round r - 1, then its timers due at r fire; a message sent in round r arrives in round r + 1;
// a timer set with delay d fires in round r + max(1, ceil(d)). Context::now() is the round.
// Nodes act in parallel within a round and only on their own state, so results are the same
// for any thread count. Conservation (load and item identities, counting messages not yet
// taken) is recounted and checked after every round.
#include <cstdint>
#include <optional>

#include "nnlb/node/agent.hpp"
#include "nnlb/engine/core/faults.hpp"
#include "nnlb/engine/core/recorder.hpp"
#include "nnlb/engine/core/initial_state.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/topology.hpp"

namespace nnlb {

struct RoundsOptions {
  std::uint64_t max_rounds = 10000;
  std::optional<double> imbalance;  // the oracle: stop when nu <= this
  bool stop_when_balanced = false;  // the oracle: stop when every node is within band * mean of the mean
  double band = 0.01;
  bool stop_on_detection = false;   // stop when a node reports detected termination
  std::uint64_t seed = 1;
  std::uint64_t series_every = 1;   // record every k-th round (0: only the first and last)
  std::uint64_t series_max_rows = default_series_max_rows;  // rows of the series and load history (core/recorder.hpp; 0: no bound)
  bool record_final_load = false;
  FaultInjection faults;            // tests only: lose, double or alter load-carrying messages
};

// Runs until no message is in flight and no timer is pending ("quiet"), or a stop rule holds.
RunResult run_rounds(const Topology& topo, const Program& program, LoadMode mode, const InitialState& initial,
                     const Platform& platform, const RoundsOptions& options, const EdgeColoring* coloring = nullptr);

}  // namespace nnlb
