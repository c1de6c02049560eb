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

// Refuses, with the estimate, a run whose nodes would keep more messages on their way than its
// engine takes (EngineEntry::in_flight_limit): a program that reports every async.lb_period over
// links of the platform's latency.
void check_in_flight(const Scenario& s, const PreparedRun& p);

}  // namespace nnlb
