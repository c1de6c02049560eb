#pragma once
// What a run will hold, estimated from its keys before anything is built (util/memory.hpp refuses
// a run over the limit with this estimate).
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/util/memory.hpp"

namespace nnlb {

// The graph (from the topology spec), the engine's arrays or, for an analysis, the spectrum
// solver's, and the recording, which grows with the run's length (series, load history).
MemoryEstimate run_memory(const Scenario& s, const TopologySize& size, const MemoryUse& use);

}  // namespace nnlb
