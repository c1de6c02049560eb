#pragma once
// Runs of independent tasks (Filipović & Krstajić 2016; algorithm = dd | ms | ca): the cores are
// the nodes of complete:tasks.cores, the tasks items split among them (tasks.init, tasks.split),
// and the summary gives the makespan, the efficiency, the lower bound and CA's phases.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "nnlb/engine/core/result.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"

namespace nnlb {

bool is_task_algorithm(const std::string& algorithm);

// The topology spec of a task run (complete:P), after refusing the keys it replaces.
std::string task_topology(const Scenario& s);
// An upper bound on the number of tasks of tasks.init, before reading or generating them.
double task_count_bound(const Scenario& s);
// The tasks, split among the cores, and the platform's links and background load.
void prepare_tasks(const Scenario& s, PreparedRun& p, std::uint64_t seed);
// Runs a prepared task run on the discrete-event engine.
RunResult run_tasks(const Scenario& s, const PreparedRun& p, std::uint64_t engine_seed);
// The summary entries of a finished task run (makespan, efficiency, idle time per core, lower
// bound, tasks executed, CA's choice and phases); throws std::logic_error if a task did not run.
// `time_scale`: seconds of the run per second of work (mpi.work_scale on real runs).
nlohmann::json task_summary(const PreparedRun& p, const RunSummary& summary, double time_scale = 1);

}  // namespace nnlb
