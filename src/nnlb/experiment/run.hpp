#pragma once
// One run of a scenario: builds the topology, initial load, policy and engine from the keys,
// runs it and returns the result record (docs/result-schema.md).
#include <cstdint>
#include <memory>

#include <nlohmann/json.hpp>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/engine/core/result.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/topology.hpp"

namespace nnlb {

// Seeds of the random parts of a run, derived from its seed: the topology, the initial load and
// the engine draw from independent streams.
struct RunSeeds {
  std::uint64_t topology, load, engine, platform;
  explicit RunSeeds(std::uint64_t seed);
};

// Everything a run is built from, as the scenario describes it.
struct PreparedRun {
  Topology topology;
  LoadMode mode = LoadMode::real;
  std::vector<double> initial;
  std::vector<std::vector<Item>> items;  // per node (task scheduling: the tasks), or empty
  BuiltPolicy policy;
  Platform platform;
  std::shared_ptr<const LoadTrace> trace;  // load.trace: the application's trace, replayed (its items are `items`)
};

// What a prepared run's memory is for: a run holds the engine's arrays, an analysis the
// spectrum solver's; `side_by_side` runs share the memory limit (a sweep's threads).
struct MemoryUse {
  bool analysis = false;
  unsigned side_by_side = 1;
};

// What a caller of run_scenario may give beyond the keys (the Python module).
struct RunHooks {
  // Runs instead of the policy `algorithm` names (which stays at its default, as does every
  // policy key); the record names the algorithm policy->name().
  std::shared_ptr<const Policy> policy;
  // Keeps every node's final load in RunResult::final_load, as output.final_load does, without
  // adding it to the record.
  bool final_load = false;
};

// Builds the topology, initial load, policy and platform of `scenario` for `seed`; errors name
// the scenario's source and key. Before building anything, the memory the run needs is estimated
// from the keys and refused, with the estimate, when over the limit (util/memory.hpp:
// MemoryEstimateError).
PreparedRun prepare_run(const Scenario& scenario, std::uint64_t seed, const MemoryUse& use = {}, const RunHooks& hooks = {});

// stop.time as the engine reads it: simulated seconds, or wall-clock seconds on mpi (600 by default).
double time_limit(const Scenario& scenario);
// stop.stall in seconds for a balancing run (0: off): off by default in simulation, 10 s on mpi.
double stall_limit(const Scenario& scenario);

struct RunRecord {
  nlohmann::json scenario;    // every key as run
  nlohmann::json summary_extra = nlohmann::json::object();  // summary entries of a run kind (task scheduling)
  std::uint64_t seed = 0;
  nlohmann::json topology;    // {"spec", "nodes", "edges", "max_degree", "min_degree", "dims"}
  nlohmann::json parameters;  // resolved policy parameters: {"alpha": 0.2}
  RunResult result;
};

// Throws InputError for bad keys or combinations.
RunRecord run_scenario(const Scenario& scenario, std::uint64_t seed, const MemoryUse& use = {}, const RunHooks& hooks = {});

// The run description of `program` on a program engine, from the scenario's keys (stop rules,
// recording, the engine's own keys); callers set what their program decides (the balance stop,
// the colouring, a sampling period of their own).
EngineRun engine_run(const Scenario& s, const PreparedRun& p, const Program& program, const InitialState& initial,
                     std::uint64_t engine_seed);
// Runs it on the program engine registered as `engine` (engine/registry.hpp); InputError when
// that engine cannot run here (mpi outside mpirun).
RunResult run_engine(const Scenario& s, std::string_view engine, const EngineRun& run);

nlohmann::json to_json(const RunRecord& record);
nlohmann::json summary_json(const RunSummary& summary);

}  // namespace nnlb
