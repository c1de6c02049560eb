#pragma once
// load.trace: a run replays an application's recorded load trace (docs/mpi.md): its ranks,
// neighbours and items become the run's nodes, links and items, and its record says when the
// loads were first balanced at a step, recorded and replayed.
#include <nlohmann/json.hpp>

#include "nnlb/engine/core/load_trace.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"

namespace nnlb {

// Reads the trace of load.trace into `p` (topology, items, the trace), its memory estimated first.
void prepare_trace(const Scenario& s, PreparedRun& p, const MemoryUse& use);
// The replay's summary entries.
nlohmann::json replay_summary(const LoadTrace& trace, const RunSummary& sum);

}  // namespace nnlb
