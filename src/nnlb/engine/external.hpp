#pragma once
// Engines the core does not link itself: a runtime registers its engine under a name
// (the MPI runtime, src/nnlb/runtime/, as "mpi" when the nnlb command was launched by mpirun),
// and `engine = NAME` runs node programs on it. The built-in engines (sync, des) are called
// directly.
#include <cstdint>
#include <functional>
#include <string>

#include "nnlb/node/agent.hpp"
#include "nnlb/engine/core/initial_state.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/topology.hpp"

namespace nnlb {

struct EngineRun {
  const Topology& topology;
  const Program& program;
  LoadMode mode;
  const InitialState& initial;
  const Platform& platform;
  double time_limit = 1e4;     // seconds
  double work_scale = 1;       // real seconds per second of an item's work (Context::execute)
  std::uint64_t seed = 1;
  bool record_final_load = false;
  std::uint64_t drop_every = 0;  // fault injection: lose every k-th message carrying load or items
  double band = 0.01;            // balanced: every node within band x its share of the total
  bool stop_when_balanced = false;  // stop once every node is in the band (static load only)
  double stall = 0;              // with stop_when_balanced: "stalled" after this many seconds without movement; 0: never
  double sample_period = 0;      // the series every this many seconds; 0: first and last state only
  const EdgeColoring* coloring = nullptr;  // dimension exchange pairs by it (NeighborInfo::color)
};

using Engine = std::function<RunResult(const EngineRun&)>;

void register_engine(const std::string& name, Engine engine);
// The engine registered under `name`, or null.
const Engine* find_engine(const std::string& name);

}  // namespace nnlb
