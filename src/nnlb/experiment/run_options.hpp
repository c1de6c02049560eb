#pragma once
// A run's options from its scenario keys: the synchronous engine's, the balancing programs' and
// the iterative application's (the run description of a program engine, engine_run, is in run.hpp).
#include <cstdint>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/sync/sync_engine.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/workload.hpp"
#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/programs/iterative_application.hpp"

namespace nnlb {

// output.series_max_rows, checked: 0 (no bound) or room for the first and the last row.
std::uint64_t series_max_rows(const Scenario& s);
// The rows a series of `samples` samples keeps under that bound.
double series_rows(double samples, const Scenario& s);
// Xu et al.'s phi from the workload.* keys (Kind::fixed when static).
Workload workload(const Scenario& s);
// The synchronous engine's options (port, invocation, workload, stop rules, recording).
SyncOptions sync_options(const Scenario& s, std::uint64_t engine_seed);
// Jeannot & Vernier's application (agent = "iterative") from the app.* keys; it runs M_r.
IterativeApplicationOptions application_options(const Scenario& s, const BuiltPolicy& built);
// The balancing programs' options (AsyncBalancer, and the sizes RoundBalancer and the iterative
// application use), from the async.* and message.* keys.
AsyncBalancerOptions balancer_options(const Scenario& s, const Platform& platform);

}  // namespace nnlb
