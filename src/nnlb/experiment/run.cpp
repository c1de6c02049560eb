#include "nnlb/experiment/run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/experiment/key_checks.hpp"
#include "nnlb/experiment/p2p_run.hpp"
#include "nnlb/experiment/programs.hpp"
#include "nnlb/experiment/replay_setup.hpp"
#include "nnlb/experiment/run_memory.hpp"
#include "nnlb/experiment/run_options.hpp"
#include "nnlb/experiment/run_platform.hpp"
#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/experiment/task_run.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/programs/iterative_application.hpp"
#include "nnlb/programs/round_balancer.hpp"
#include "nnlb/engine/sync/sync_engine.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/memory.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

using nlohmann::json;

RunSeeds::RunSeeds(std::uint64_t seed)
    : topology(mix_seed(seed, 1)), load(mix_seed(seed, 2)), engine(mix_seed(seed, 3)), platform(mix_seed(seed, 4)) {}

namespace {

// Dimension exchange pairs nodes by an edge colouring; other policies get none.
EdgeColoring coloring_for(const BuiltPolicy& built, const Topology& topo) {
  return built.policy->pairing() == Pairing::matching ? edge_coloring_for(topo) : EdgeColoring{};
}

}  // namespace

RunResult run_engine(const Scenario& s, std::string_view engine, const EngineRun& run) {
  const EngineEntry* e = find_engine(engine);
  if (e == nullptr || !e->runs_programs) throw InputError(s.source(), "engine", "engine '" + std::string(engine) + "' does not run node programs");
  if (!e->run) throw InputError(s.source(), "engine", e->unavailable);
  return e->run(run);
}

PreparedRun prepare_run(const Scenario& s, std::uint64_t seed, const MemoryUse& use, const RunHooks& hooks) {
  check_scenario_keys(s);
  const RunSeeds seeds(seed);
  PreparedRun p;
  const bool tasks = is_task_algorithm(s.text("algorithm"));
  const bool jobs = !running_engine(s).runs_programs && is_job_strategy(s.text("algorithm"));  // the loosely-synchronous engine's own loop
  if (jobs) check_p2p_keys(s);
  p.mode = located(s, "load.mode", [&] { return parse_load_mode(s.text("load.mode")); });
  if (s.is_set("load.trace")) {
    prepare_trace(s, p, use);
  } else {
    const std::string topology = tasks ? task_topology(s) : s.text("topology");
    const TopologySpec spec = located(s, tasks ? "tasks.cores" : "topology", [&] { return parse_topology(topology, s.base_dir()); });
    check_memory(run_memory(s, topology_size(spec), use), s.source(), use.side_by_side);
    p.topology = located(s, "topology", [&] { return build_topology(spec, seeds.topology); });
  }
  const NodeId n = p.topology.graph.num_nodes();
  if (!tasks && !jobs && !p.trace)
    p.initial = located(s, "load.init", [&] { return make_initial_load(s.text("load.init"), n, p.mode, seeds.load, s.base_dir()); });
  p.platform = make_platform(s, p.topology.graph, seeds.platform);
  check_in_flight(s, p);
  if (tasks) prepare_tasks(s, p, seed);
  PolicySpec policy{s.text("algorithm"), {}, p.platform.speed};
  for (const PolicyKey& key : policy_catalog().keys())
    if (s.is_set(key.name)) policy.values[key.name] = s.text(key.name);
  if (hooks.policy) {
    const std::string given = "is not read by " + hooks.policy->name() + ", which runs instead of the built-in policies";
    require(s.is_default("algorithm"), s, "algorithm", given);
    for (const PolicyKey& key : policy_catalog().keys()) require(s.is_default(key.name), s, key.name, given);
    p.policy.policy = hooks.policy;
  } else {
    p.policy = located(s, "", [&] { return make_policy(policy, p.topology); });
  }
  if (p.policy.program || p.policy.domain) return p;
  require(s.text("de.sweep_cost") == "colours" || p.policy.policy->pairing() == Pairing::matching, s, "de.sweep_cost",
          "applies only to dimension exchange");
  require((!s.is_set("shaker.kappa") && !s.is_set("shaker.p")) || p.mode == LoadMode::integer, s, s.is_set("shaker.kappa") ? "shaker.kappa" : "shaker.p",
          "the shaker moves whole units: it needs load.mode = \"integer\"");
  return p;
}

RunRecord run_scenario(const Scenario& s, std::uint64_t seed, const MemoryUse& use, const RunHooks& hooks) {
  const RunSeeds seeds(seed);
  PreparedRun prepared = prepare_run(s, seed, use, hooks);
  const Topology& topo = prepared.topology;
  const BuiltPolicy& built = prepared.policy;
  RunRecord rec;
  rec.scenario = s.to_json();
  rec.scenario["seed"] = seed;
  if (hooks.policy) rec.scenario["algorithm"] = hooks.policy->name();
  rec.seed = seed;
  rec.topology = {{"spec", topo.spec},
                  {"kind", topo.spec.substr(0, topo.spec.find(':'))},
                  {"nodes", topo.graph.num_nodes()},
                  {"edges", topo.graph.num_edges()},
                  {"max_degree", topo.graph.max_degree()},
                  {"min_degree", topo.graph.min_degree()}};
  if (topo.is_grid()) {
    rec.topology["dims"] = topo.shape().dims;
    rec.topology["k"] = topo.shape().k_max();
    rec.topology["k_min"] = *std::min_element(topo.shape().dims.begin(), topo.shape().dims.end());
  }
  rec.parameters = json::object();
  for (const auto& [k, v] : built.parameters) rec.parameters[k] = v;

  // The program and the engine that run it, looked up (programs.hpp, engine/registry.hpp).
  const ProgramEntry& program = running_program(s);
  const EngineEntry& engine = running_engine(s);
  if (built.domain) {
    if (!engine.runs_programs) {
      rec.result = run_jobs(s, prepared, seed);
      rec.summary_extra = p2p_summary(rec.result.summary);
    } else {
      rec.result = run_job_agents(s, prepared, seed);
    }
    return rec;
  }
  if (built.program) {
    rec.result = run_tasks(s, prepared, seeds.engine);
    const double scale = engine.time == TimeModel::wall_seconds ? s.number("mpi.work_scale") : 1.0;  // real seconds per second of work
    if (rec.result.reported) rec.summary_extra = located(s, "", [&] { return task_summary(prepared, rec.result.summary, scale); });
    return rec;
  }
  if (!engine.runs_programs) {
    // The engine's synchronous steps are the rounds program with exact views, taken directly
    // (tests/test_agent_layer.cpp checks they give the same loads).
    const EdgeColoring coloring = coloring_for(built, topo);
    SyncOptions options = sync_options(s, seeds.engine);
    options.record_final_load |= hooks.final_load;
    rec.result = run_sync(topo, *built.policy, &coloring, prepared.mode, prepared.initial, prepared.platform, options);
    return rec;
  }
  // A node program on a program engine: the registry's factory builds it.
  AsyncBalancerOptions balancer = balancer_options(s, prepared.platform);
  const EdgeColoring coloring = coloring_for(built, topo);
  balancer.colors = coloring.num_colors;
  if (prepared.trace) {
    require(program.replays, s, "agent", "a trace replays on a program that replays traces: the asynchronous balancer (agent = \"async\")");
    require(s.is_default("async.detection"), s, "async.detection",
            "does not run on a replayed trace: it compares the weight a node sent with the weight its neighbour received, which the "
            "trace changes on the way");
    balancer.items = true;
    balancer.computing = false;
    // The recorded steps (a loosely-synchronous application's balance() calls), or the recorded period.
    const auto period = prepared.trace->meta.find("period");
    const double every = period == prepared.trace->meta.end() ? 0.0 : std::strtod(period->second.c_str(), nullptr);
    require(!(every > 0) || prepared.trace->end / every <= 1e9, s, "load.trace", "the trace's period gives more than 1e9 balancing steps");
    balancer.lb_period = every > 0 ? every : std::numeric_limits<double>::infinity();
    if (s.text("load.trace_choice") == "line-blocks") balancer.choose = line_blocks;
  }
  const InitialState initial{prepared.initial, prepared.trace ? prepared.items : std::vector<std::vector<Item>>{}};
  const std::unique_ptr<Program> node_program = program.make({s, prepared, coloring, balancer});
  // Under churn (des; a program that does not hear of it was refused with the keys).
  std::optional<Churn> churn = churn_of(s, topo.graph, seeds.engine);
  require(!churn || s.is_default("async.detection"), s, "async.detection", "needs a graph that does not change, and churn.* is set");
  EngineRun r = engine_run(s, prepared, *node_program, initial, seeds.engine);
  r.coloring = &coloring;
  if (churn) r.churn = &*churn;
  r.stop_when_balanced = !program.application && !prepared.trace;  // an application runs to its end
  r.record_final_load |= hooks.final_load;
  if (prepared.trace) {
    r.trace = prepared.trace.get();
    r.trace_step_tag = AsyncBalancer::balance_timer;
    // The replay covers the recorded run (a recorded period's timers would go on to stop.time).
    if (s.is_default("stop.time") && prepared.trace->end > 0) r.time_limit = std::min(r.time_limit, prepared.trace->end);
    if (r.sample_period == 0) r.sample_period = std::max(prepared.trace->end / 500, 1e-4);
  }
  if (r.sample_period == 0) r.sample_period = 10 * balancer.lb_period;
  rec.result = run_engine(s, engine.name, r);
  // An application of iterations: its time per iteration (Jeannot & Vernier sec. 4.2).
  if (rec.result.summary.finished_at && program.reads_key("app.iterations"))
    rec.summary_extra["time_per_iteration"] = *rec.result.summary.finished_at / s.number("app.iterations");
  if (prepared.trace) rec.summary_extra = replay_summary(*prepared.trace, rec.result.summary);
  return rec;
}

}  // namespace nnlb
