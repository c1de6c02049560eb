#include "nnlb/experiment/run.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "nnlb/experiment/p2p_run.hpp"
#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/experiment/store.hpp"
#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/programs/iterative_application.hpp"
#include "nnlb/programs/round_balancer.hpp"
#include "nnlb/catalog/programs.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/engine/sync/rounds_engine.hpp"
#include "nnlb/engine/sync/sync_engine.hpp"
#include "nnlb/experiment/task_run.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/spectral/spectrum.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/memory.hpp"
#include "nnlb/util/rng.hpp"
#include "nnlb/version.hpp"

namespace nnlb {

using nlohmann::json;

RunSeeds::RunSeeds(std::uint64_t seed)
    : topology(mix_seed(seed, 1)), load(mix_seed(seed, 2)), engine(mix_seed(seed, 3)), platform(mix_seed(seed, 4)) {}

namespace {

// Xu et al.'s phi from the workload.* keys (Kind::fixed when static).
Workload workload(const Scenario& s) {
  Workload w;
  if (s.text("workload.kind") != "dynamic") return w;
  w.kind = Workload::Kind::dynamic;
  // At most 1e9 units generated a node and step: a run's totals stay exact (below 2^53) and
  // integer loads cannot overflow.
  constexpr double most = 1e9;
  w.generation_mean = s.number("workload.generation_mean");
  require(std::abs(w.generation_mean) <= most, s, "workload.generation_mean", "must be within +-1e9 units a step");
  const double var = s.number("workload.generation_variance");
  require(var >= 0 && var <= most * most, s, "workload.generation_variance", "must be in 0 .. 1e18 (a standard deviation of at most 1e9)");
  w.generation_stddev = std::sqrt(var);
  w.consumption = s.number("workload.consumption");
  require(w.consumption >= 0, s, "workload.consumption", "must be >= 0");  // at most what a node holds is consumed
  return w;
}

SyncOptions sync_options(const Scenario& s, std::uint64_t engine_seed) {
  SyncOptions o;
  o.port = s.text("port") == "one" ? PortModel::one : PortModel::all;
  o.de_sweep_is_one_step = s.text("de.sweep_cost") == "one";
  if (s.text("invocation") == "threshold") {
    o.invocation.kind = Invocation::Kind::threshold;
    o.invocation.low = s.number("threshold.low");
    o.invocation.high = s.number("threshold.high");
    require(o.invocation.low <= o.invocation.high, s, "threshold.low", "must not exceed threshold.high");
  }
  o.workload = workload(s);
  o.stop.max_steps = static_cast<std::uint64_t>(s.integer("stop.steps"));
  o.stop.imbalance = s.optional_number("stop.imbalance");
  o.stop.spread = s.optional_number("stop.spread");
  o.stop.quiescent = s.boolean("stop.quiescent");
  require(!o.stop.imbalance || *o.stop.imbalance >= 0, s, "stop.imbalance", "must be >= 0");
  require(!o.stop.spread || *o.stop.spread >= 0, s, "stop.spread", "must be >= 0");
  o.band = s.number("stop.band");
  require(o.band > 0, s, "stop.band", "must be > 0");
  // As the program engines: stop in the band under static load, unless the scenario names a target.
  o.stop.when_balanced = o.workload.kind == Workload::Kind::fixed && !o.stop.imbalance && !o.stop.spread;
  o.seed = engine_seed;
  o.series_every = static_cast<std::uint64_t>(s.integer("output.series_every"));
  o.record_final_load = s.boolean("output.final_load");
  o.load_history_every = static_cast<std::uint64_t>(s.integer("output.load_history"));
  return o;
}

// Jeannot & Vernier's application (agent = "iterative") from the app.* keys; it runs M_r.
IterativeApplicationOptions application_options(const Scenario& s, const BuiltPolicy& built) {
  require(s.text("algorithm") == "mr", s, "agent", "the iterative application balances with M_r: set algorithm = \"mr\"");
  IterativeApplicationOptions o;
  o.iterations = static_cast<std::uint64_t>(s.integer("app.iterations"));
  o.lb_every = static_cast<std::uint64_t>(s.integer("app.lb_every"));
  o.work_per_unit = s.number("app.work_per_unit");
  o.pre_cost = s.number("app.pre_cost");
  o.post_cost = s.number("app.post_cost");
  o.k0 = s.number("app.k");
  o.detection = s.boolean("app.detection");
  o.mr_self = s.boolean("mr.self");
  const std::string cb = s.text("app.cost_benefit");
  o.cost_benefit = cb == "constant"     ? CostBenefit::constant
                   : cb == "decreasing" ? CostBenefit::decreasing
                   : cb == "adaptive"   ? CostBenefit::adaptive
                                        : CostBenefit::off;
  for (const auto& [name, value] : built.parameters)
    if (name == "kappa") o.shaker.kappa = value;
    else if (name == "shaker_part") o.shaker.part = value;
  o.workload = workload(s);
  o.lb_every_max = static_cast<std::uint64_t>(s.integer("app.lb_every_max"));
  const bool adapts = o.detection && o.workload.kind == Workload::Kind::dynamic;
  require(!adapts || o.lb_every_max >= o.lb_every, s, "app.lb_every_max", "must be >= app.lb_every");
  require(adapts || s.is_default("app.lb_every_max"), s, "app.lb_every_max",
          "applies only with app.detection = true and workload.kind = \"dynamic\"");
  require(o.iterations >= 1, s, "app.iterations", "must be >= 1");
  require(o.lb_every >= 1, s, "app.lb_every", "must be >= 1");
  require(o.work_per_unit > 0, s, "app.work_per_unit", "must be > 0");
  require(o.pre_cost >= 0, s, "app.pre_cost", "must be >= 0");
  require(o.post_cost >= 0, s, "app.post_cost", "must be >= 0");
  require(o.k0 > 0, s, "app.k", "must be > 0");
  return o;
}

// The balancing programs' options (AsyncBalancer, and the sizes RoundBalancer and the iterative
// application use), from the async.* and message.* keys.
AsyncBalancerOptions balancer_options(const Scenario& s, const Platform& platform) {
  AsyncBalancerOptions b;
  b.virtual_load = s.boolean("async.virtual_load");
  b.bytes_per_unit = s.number("message.bytes_per_unit");
  b.flops_per_unit = s.number("async.flops_per_unit");
  if (const auto ratio = s.optional_number("async.comp_comm_ratio")) {
    require(*ratio > 0, s, "async.comp_comm_ratio", "must be > 0");
    // comp time of a unit = ratio * comm time of a unit, on the first node's speed and link.
    b.flops_per_unit = *ratio * b.bytes_per_unit / platform.link_bandwidth(0) * platform.node_speed(0);
  }
  b.control_bytes = s.number("message.control_bytes");
  b.lb_period = s.number("async.lb_period");
  b.comp_min_period = s.number("async.comp_min_period");
  b.compute_first = s.boolean("async.compute_first");
  b.stagger = s.boolean("async.stagger");
  b.initial_knowledge = s.boolean("async.initial_knowledge");
  b.compute_chunk = s.number("async.compute_chunk");
  const std::string detection = s.text("async.detection");
  b.detection = detection == "stop" ? Detection::stop : detection == "continuous" ? Detection::continuous : Detection::off;
  require(s.integer("async.quiet_every_max") >= 1, s, "async.quiet_every_max", "must be >= 1");
  b.quiet_every_max = static_cast<std::uint64_t>(s.integer("async.quiet_every_max"));
  require(b.compute_chunk >= 0, s, "async.compute_chunk", "must be >= 0");
  for (const char* key : {"message.bytes_per_unit", "async.flops_per_unit", "async.lb_period", "async.comp_min_period"})
    require(s.number(key) > 0, s, key, "must be > 0");
  require(b.control_bytes >= 0, s, "message.control_bytes", "must be >= 0");
  return b;
}

// A SimGrid XML platform (engine = "simgrid", docs/simgrid.md): the nodes' hosts, speeds and
// routes come from the file, read by the engine's platform reader.
Platform simgrid_platform(const Scenario& s, const Graph& g, std::uint64_t seed, const std::string& path) {
  require(s.text("engine") == "simgrid", s, "platform.file", "a SimGrid platform (.xml) needs engine = \"simgrid\"");
  for (const char* key : {"platform.preset", "platform.speed", "platform.latency", "platform.bandwidth"})
    require(s.is_default(key), s, key, "is given by the SimGrid platform.file");
  const PlatformReader* read = platform_reader("simgrid");
  if (read == nullptr) throw InputError(s.source(), "engine", find_engine("simgrid")->unavailable);
  return located(s, "platform.file", [&] { return (*read)({path, s.text("simgrid.mapping"), seed, s.base_dir()}, g); });
}

// Where the nodes run: speeds and links from the platform.* keys, or a preset of Jeannot &
// Vernier's networks, then a platform file's lines on top; or a SimGrid XML platform.
Platform make_platform(const Scenario& s, const Graph& g, std::uint64_t seed) {
  std::filesystem::path file(s.is_set("platform.file") ? s.text("platform.file") : "");
  if (file.is_relative() && !s.base_dir().empty()) file = std::filesystem::path(s.base_dir()) / file;
  const bool xml = file.extension() == ".xml";
  require(xml || s.is_default("simgrid.mapping"), s, "simgrid.mapping", "applies only with a SimGrid platform.file (.xml)");
  if (xml) return simgrid_platform(s, g, seed, file.string());
  const std::string preset = s.text("platform.preset");
  Platform p;
  if (preset == "none") {
    p.latency = {s.number("platform.latency")};
    p.bandwidth = {s.number("platform.bandwidth")};
    require(p.latency[0] >= 0, s, "platform.latency", "must be >= 0");
    require(p.bandwidth[0] > 0, s, "platform.bandwidth", "must be > 0");
  } else {
    p = located(s, "platform.preset", [&] { return preset_platform(preset, g); });
    for (const char* key : {"platform.latency", "platform.bandwidth"})
      require(s.is_default(key), s, key, "is given by platform.preset = \"" + preset + "\": change the links in a platform.file instead");
  }
  if (preset != "two-cluster")
    p.speed = located(s, "platform.speed", [&] { return make_speeds(s.text("platform.speed"), g.num_nodes(), seed, s.base_dir()); });
  else
    require(s.is_default("platform.speed"), s, "platform.speed", "is given by platform.preset = \"two-cluster\"");
  if (s.is_set("platform.file")) located(s, "platform.file", [&] { apply_platform_file(file.string(), g, p); });
  return p;
}

// Keys a program reads itself, on any engine: the iterative application its app.* and its
// workload, a job strategy its guest graph, a task program its tasks.
bool program_reads(const Scenario& s, std::string_view key) {
  if (s.text("agent") == "iterative" && (key.starts_with("app.") || key.starts_with("workload."))) return true;
  if (is_job_strategy(s.text("algorithm")) && key.starts_with("guest.")) return true;
  return is_task_algorithm(s.text("algorithm")) && key.starts_with("tasks.") && key != "tasks.latency" && key != "tasks.background";
}

// The program a scenario runs (catalog/programs.hpp): a task program, a job strategy, the
// iterative application, the rounds program (asked for, or the default of the round engines), or
// the asynchronous balancer.
const ProgramEntry& running_program(const Scenario& s) {
  const std::string agent = s.text("agent"), engine = s.text("engine");
  const char* name = is_task_algorithm(s.text("algorithm"))                                ? "tasks"
                     : is_job_strategy(s.text("algorithm"))                                ? "jobs"
                     : agent == "iterative"                                                ? "iterative"
                     : agent == "rounds" || (agent == "auto" && (engine == "rounds" || engine == "sync")) ? "rounds"
                                                                                           : "async";
  return *find_program(name);
}

// The engine that runs the scenario's program: the one it names, or the program engine that one
// hands node programs to (sync's fast loop runs the policies, not the iterative application).
const EngineEntry& running_engine(const Scenario& s) {
  const std::string engine = s.text("engine");
  const EngineEntry* chosen = find_engine(engine);
  if (chosen == nullptr) throw InputError(s.source(), "engine", "engine '" + engine + "' is not available");
  if (!chosen->runs_programs && !chosen->programs_on.empty() && s.text("agent") == "iterative") return *find_engine(chosen->programs_on);
  return *chosen;
}

// A key set away from its default would be silently ignored, so it is an input error naming
// those that read it, when it is engine-specific (engine/registry.hpp) and the engine that runs
// does not honour it, or when it is a program's (catalog/programs.hpp) and a node program that
// does not read it runs.
void check_engine_keys(const Scenario& s) {
  const EngineEntry& engine = running_engine(s);
  const ProgramEntry& program = running_program(s);
  const std::string runs = engine.name == s.text("engine") ? "engine = \"" + engine.name + "\""
                                                            : "engine = \"" + engine.name + "\" (which runs programs for " + s.text("engine") + ")";
  for (const auto& key : scenario_keys()) {
    if (s.get(key.name) == key.default_value) continue;
    if (engine_specific(key.name) && !engine.honours_key(key.name) && !program_reads(s, key.name)) {
      std::string readers;
      for (const EngineEntry& e : engines())
        if (e.honours_key(key.name)) readers += (readers.empty() ? "" : ", ") + e.name;
      throw InputError(s.source(), key.name, "is not honoured by " + runs + " (engines that read it: " + readers + ")");
    }
    if (engine.runs_programs && program_key(key.name) && !program.reads_key(key.name)) {
      std::string readers;
      for (const ProgramEntry& p : programs())
        if (p.reads_key(key.name)) readers += (readers.empty() ? "" : ", ") + p.name;
      throw InputError(s.source(), key.name, "is not read by the program that runs (" + program.name + ": " + program.summary +
                                                 "; programs that read it: " + readers + ")");
    }
  }
}

// Keys that mean something only when another key has a given value. Set away from its default
// otherwise, such a key would be silently ignored, so it is an input error instead.
void check_dependent_keys(const Scenario& s) {
  struct Dependent {
    const char* key;
    const char* on;
    const char* value;
  };
  static const Dependent dependents[] = {
      {"threshold.low", "invocation", "threshold"},
      {"threshold.high", "invocation", "threshold"},
      {"workload.generation_mean", "workload.kind", "dynamic"},
      {"workload.generation_variance", "workload.kind", "dynamic"},
      {"workload.consumption", "workload.kind", "dynamic"},
      {"app.iterations", "agent", "iterative"},
      {"app.lb_every", "agent", "iterative"},
      {"app.work_per_unit", "agent", "iterative"},
      {"app.pre_cost", "agent", "iterative"},
      {"app.post_cost", "agent", "iterative"},
      {"app.cost_benefit", "agent", "iterative"},
      {"app.k", "agent", "iterative"},
      {"app.detection", "agent", "iterative"},
      {"app.lb_every_max", "agent", "iterative"},
      {"async.quiet_every_max", "async.detection", "continuous"},
  };
  for (const Dependent& d : dependents) {
    const auto& keys = scenario_keys();
    const auto info = std::find_if(keys.begin(), keys.end(), [&](const KeyInfo& k) { return k.name == d.key; });
    if (s.get(d.key) != info->default_value && s.text(d.on) != d.value)
      throw InputError(s.source(), d.key, std::string("applies only with ") + d.on + " = \"" + d.value + "\"");
  }
  for (const char* key : {"tasks.init", "tasks.cores", "tasks.latency", "tasks.background"})
    if (!s.is_default(key) && !is_task_algorithm(s.text("algorithm")))
      throw InputError(s.source(), key, "applies only to task scheduling (algorithm = \"dd\", \"ms\" or \"ca\")");
  if (s.is_set("async.comp_comm_ratio") && s.number("async.flops_per_unit") != 1e5)
    throw InputError(s.source(), "async.comp_comm_ratio", "sets async.flops_per_unit, which is set too: keep one of them");
}

// A period so short against the run's time limit that the run could not end, or would record
// without bound, is refused.
void check_des_periods(const Scenario& s) {
  const double horizon = s.number("stop.time");
  auto bound = [&](const char* key, double max_count, const char* what) {
    const double period = s.number(key);
    if (period > 0 && horizon / period > max_count) {
      std::ostringstream text;
      text << period << " s gives " << horizon / period << " " << what << " within stop.time = " << horizon << " s; at most "
           << max_count << " (raise it or lower stop.time)";
      throw InputError(s.source(), key, text.str());
    }
  };
  for (const char* key : {"async.lb_period", "async.comp_min_period"})  // before the memory estimate divides by them
    require(s.number(key) > 0, s, key, "must be > 0");
  bound("async.lb_period", 1e9, "balancing steps per node");
  bound("async.comp_min_period", 1e9, "computing steps per node");
  bound("output.sample_period", 1e6, "samples");
}

// Bytes per node and per slot (directed edge) that an engine holds besides the graph: loads,
// flows, colours, the policy's state (and its parameters' spectrum solve) on sync; agents, their
// knowledge and mailboxes on des. Peaks measured with GNU time stay below the estimates, e.g.
// ade on hypercube:20 (sync) 0.66 GB of 0.72, complete:1000 on des 0.47 GB of 0.52.
struct EngineCost {
  double per_node, per_slot;
};
// simgrid: an actor per node (its context, the pages of its stack it touches) and per slot two
// mailboxes with a get posted on each; hypercube:10 measured 48 MB over the process's base.
constexpr EngineCost sync_cost{32, 16}, des_cost{512, 512}, simgrid_cost{16384, 4096};

// What a run of `s` will hold, estimated from its keys before anything is built: the graph
// (from the topology spec), the engine's arrays or, for an analysis, the spectrum solver's, and
// the recording, which grows with the run's length (series, load history).
MemoryEstimate run_memory(const Scenario& s, const TopologySize& size, const MemoryUse& use) {
  const EngineEntry* engine = find_engine(s.text("engine"));
  // Timed engines sample every period (mpi as des does); round engines every round.
  const bool des = engine != nullptr && (engine->time == TimeModel::simulated_seconds || engine->time == TimeModel::wall_seconds);
  MemoryEstimate m;
  const std::string smaller = "use a smaller topology";
  m.add("graph", "topology", smaller, size.build_bytes());
  if (use.analysis) {
    m.add("spectrum", "topology", smaller, spectrum_memory_bytes(size.nodes, size.slots()));
    return m;
  }
  if (s.text("platform.preset") != "none" || s.is_set("platform.file"))
    m.add("platform", "topology", smaller, 2 * sizeof(double) * size.slots() + sizeof(double) * size.nodes);  // per-slot links, speeds
  if (is_task_algorithm(s.text("algorithm")))
    m.add("tasks", "tasks.init", "run fewer tasks", 160 * task_count_bound(s));  // held, in the recounts, completed
  if (is_job_strategy(s.text("algorithm"))) {
    // Per job: host, position, phase, work, clock, iterations and its list entry (p2p), or an
    // item held, in flight and in the recounts (des, mpi); the guest graph's CSR.
    const TopologySize guest = topology_size(located(s, "guest.graph", [&] { return parse_topology(s.text("guest.graph"), s.base_dir()); }));
    m.add("jobs", "guest.graph", "use a smaller guest graph", guest.build_bytes() + 96 * guest.nodes);
    if (s.text("engine") == "p2p") {
      m.add("hosts", "topology", smaller, p2p_memory_bytes(s, size.nodes));  // adjacency, scratch, the series
      return m;
    }
  }
  // Node programs: agents and mailboxes (and on simgrid actors).
  const std::string name = s.text("engine");
  const EngineCost cost = name == "simgrid" ? simgrid_cost : des || name == "rounds" ? des_cost : sync_cost;
  m.add("engine", "topology", smaller, cost.per_node * size.nodes + cost.per_slot * size.slots());
  if (engine != nullptr && engine->time == TimeModel::simulated_seconds && !is_task_algorithm(s.text("algorithm")) &&
      s.number("async.lb_period") > 0) {  // (a period <= 0 is refused on engines that read it)
    // A link holds what its sender sent within one latency: about a control and a data message
    // (64 bytes each) a balancing period.
    const double on_a_link = std::min(s.number("platform.latency"), s.number("stop.time")) / s.number("async.lb_period") + 1;
    m.add("messages in flight", "platform.latency",
          "a link holds platform.latency / async.lb_period messages at once: use a shorter latency or a longer period",
          2 * 64 * on_a_link * static_cast<double>(size.slots()));
  }
  double samples = 0;
  if (des) {
    const double period = s.number("output.sample_period") > 0 ? s.number("output.sample_period") : 10 * s.number("async.lb_period");
    samples = s.number("stop.time") / period + 2;
  } else {
    samples = static_cast<double>(s.integer("stop.steps")) + 2;
  }
  const auto series_every = s.integer("output.series_every");
  if (!des && series_every > 0)
    m.add("series", "output.series_every", "record the series less often (output.series_every) or lower stop.steps",
          samples / static_cast<double>(series_every) * sizeof(StepRecord));
  // A timed engine keeps every sample: a row, and its JSON text and tree in the record (about
  // 512 bytes in all, measured on des records).
  if (des && series_every > 0)
    m.add("series", "output.sample_period", "sample less often (output.sample_period), lower stop.time, or set output.series_every = 0",
          samples * 512);
  if (const auto every = s.integer("output.load_history"); every > 0)
    m.add("load history", "output.load_history", "record every node's load less often (output.load_history) or not at all",
          (des ? samples : samples / static_cast<double>(every)) * size.nodes * sizeof(double));
  return m;
}

// Dimension exchange pairs nodes by an edge colouring; other policies get none.
EdgeColoring coloring_for(const BuiltPolicy& built, const Topology& topo) {
  return built.policy->pairing() == Pairing::matching ? edge_coloring_for(topo) : EdgeColoring{};
}

}  // namespace

double time_limit(const Scenario& s) {
  const EngineEntry* e = find_engine(s.text("engine"));
  if (s.is_default("stop.time") && e != nullptr && e->default_time_limit > 0) return e->default_time_limit;
  return s.number("stop.time");
}

double stall_limit(const Scenario& s) {
  const auto stall = s.optional_number("stop.stall");
  require(!stall || *stall > 0, s, "stop.stall", "must be > 0");
  if (stall) return *stall;
  return s.text("engine") == "mpi" ? 10.0 : 0.0;
}

EngineRun engine_run(const Scenario& s, const PreparedRun& p, const Program& program, const InitialState& initial, std::uint64_t engine_seed) {
  EngineRun r{p.topology, program, p.mode, initial, p.platform};
  r.time_limit = time_limit(s);
  require(r.time_limit > 0, s, "stop.time", "must be > 0");
  r.max_rounds = static_cast<std::uint64_t>(s.integer("stop.steps"));
  r.band = s.number("stop.band");
  require(r.band > 0, s, "stop.band", "must be > 0");
  r.stall = stall_limit(s);
  r.spread = s.optional_number("stop.spread");
  require(!r.spread || *r.spread >= 0, s, "stop.spread", "must be >= 0");
  r.sample_period = s.number("output.sample_period");
  require(r.sample_period >= 0, s, "output.sample_period", "must be >= 0");
  r.series_every = static_cast<std::uint64_t>(std::max<std::int64_t>(0, s.integer("output.series_every")));
  r.record_load_history = s.integer("output.load_history") > 0;
  r.record_final_load = s.boolean("output.final_load");
  r.separate_control = s.boolean("des.separate_control");
  r.work_scale = s.number("mpi.work_scale");
  r.faults.drop_every = static_cast<std::uint64_t>(s.integer("mpi.drop_every"));
  r.simgrid.network = s.text("simgrid.network");
  r.seed = engine_seed;
  return r;
}

RunResult run_engine(const Scenario& s, std::string_view engine, const EngineRun& run) {
  const EngineEntry* e = find_engine(engine);
  if (e == nullptr || !e->runs_programs) throw InputError(s.source(), "engine", "engine '" + std::string(engine) + "' does not run node programs");
  if (!e->run) throw InputError(s.source(), "engine", e->unavailable);
  return e->run(run);
}

// load.trace: the application's ranks, neighbours and items, from its trace (docs/mpi.md).
namespace {

// A replayed trace's record: when the loads first were balanced at a step (the band of
// stop.band), on the recorded run and in the replay, and what the recorded run was.
json replay_summary(const LoadTrace& trace, const RunSummary& sum) {
  auto note = [&](const char* key) { return sum.notes.contains(key) ? json(sum.notes.at(key)) : json(nullptr); };
  json j = {{"trace_balanced_at", note("trace_balanced_at")},
            {"trace_balanced_step", note("trace_balanced_step")},
            {"replay_balanced_at", note("replay_balanced_at")},
            {"replay_balanced_step", note("replay_balanced_step")},
            {"trace_end", trace.end}};
  if (const auto p = trace.meta.find("policy"); p != trace.meta.end()) j["trace_policy"] = p->second;
  return j;
}

void prepare_trace(const Scenario& s, PreparedRun& p, const MemoryUse& use) {
  for (const char* key : {"topology", "load.init"}) require(s.is_default(key), s, key, "is given by load.trace");
  require(p.mode == LoadMode::real, s, "load.mode", "a trace's items have real weights: load.mode = \"real\"");
  std::filesystem::path path(s.text("load.trace"));
  if (path.is_relative() && !s.base_dir().empty()) path = std::filesystem::path(s.base_dir()) / path;
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  MemoryEstimate reading;
  reading.add("load trace", "load.trace", "replay a shorter trace", ec ? 0.0 : load_trace_memory_bytes(static_cast<double>(bytes)));
  check_memory(reading, s.source(), use.side_by_side);
  auto trace = std::make_shared<LoadTrace>(located(s, "load.trace", [&] { return read_load_trace(path.string()); }));
  if (s.text("load.trace_steps") == "lockstep") lock_steps(*trace);
  // Each batch of weight changes passes over every item once (des_engine.cpp, reweigh_everywhere).
  double items = 0, batches = 0;
  for (const auto& held : trace->initial) items += static_cast<double>(held.size());
  for (const TraceAction& a : trace->actions) {
    if (a.kind == TraceAction::Kind::add) items += static_cast<double>(a.items.size());
    if (a.kind == TraceAction::Kind::weights) batches += 1;
  }
  require(items * batches <= 1e10, s, "load.trace",
          "replaying " + std::to_string(static_cast<long long>(batches)) + " batches of weight changes over " + std::to_string(static_cast<long long>(items)) +
              " items would take over 1e10 item visits (record fewer steps or fewer items)");
  check_memory(run_memory(s, {static_cast<double>(trace->ranks), static_cast<double>(trace->edges.size())}, use), s.source(), use.side_by_side);
  p.topology = Topology{"trace:" + path.string(), TopologyKind::file, Graph::from_edges(trace->ranks, trace->edges), {}};
  p.initial.assign(trace->ranks, 0.0);
  p.items = trace->initial;
  p.trace = std::move(trace);
}

}  // namespace

PreparedRun prepare_run(const Scenario& s, std::uint64_t seed, const MemoryUse& use) {
  check_engine_keys(s);
  stall_limit(s);
  check_dependent_keys(s);
  if (const EngineEntry* e = find_engine(s.text("engine")); e != nullptr && e->honours_key("async.lb_period")) check_des_periods(s);
  require(s.number("mpi.work_scale") > 0, s, "mpi.work_scale", "must be > 0");
  const RunSeeds seeds(seed);
  PreparedRun p;
  const bool tasks = is_task_algorithm(s.text("algorithm"));
  const bool jobs = s.text("engine") == "p2p";
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
  if (tasks) prepare_tasks(s, p, seed);
  PolicySpec policy{s.text("algorithm"), {}, p.platform.speed};
  for (const PolicyKey& key : policy_catalog().keys())
    if (s.is_set(key.name)) policy.values[key.name] = s.text(key.name);
  p.policy = located(s, "", [&] { return make_policy(policy, p.topology); });
  require(!jobs || p.policy.domain, s, "algorithm", "engine = \"p2p\" runs the job strategies: algorithm = en | dasud | pm | sid | push | pull");
  require(!p.policy.domain || s.text("engine") != "sync", s, "engine",
          "algorithm = \"" + s.text("algorithm") + "\" moves whole jobs: engine = \"p2p\" (the loosely-synchronous engine), or \"des\" / "
          "\"simgrid\" / \"mpi\" (as node programs over messages)");
  if (p.policy.program || p.policy.domain) return p;
  require(s.text("de.sweep_cost") == "colours" || p.policy.policy->pairing() == Pairing::matching, s, "de.sweep_cost",
          "applies only to dimension exchange");
  require((!s.is_set("shaker.kappa") && !s.is_set("shaker.p")) || p.mode == LoadMode::integer, s, "shaker.kappa",
          "the shaker moves whole units: it needs load.mode = \"integer\"");
  return p;
}

RunRecord run_scenario(const Scenario& s, std::uint64_t seed, const MemoryUse& use) {
  const RunSeeds seeds(seed);
  PreparedRun prepared = prepare_run(s, seed, use);
  const Topology& topo = prepared.topology;
  const BuiltPolicy& built = prepared.policy;
  RunRecord rec;
  rec.scenario = s.to_json();
  rec.scenario["seed"] = seed;
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

  const std::string engine = s.text("engine");
  const std::string agent = s.text("agent");
  if (built.domain) {
    if (engine == "p2p") {
      rec.result = run_jobs(s, prepared, seed);
      rec.summary_extra = p2p_summary(rec.result.summary);
    } else {
      rec.result = run_job_agents(s, prepared, seed);
    }
    return rec;
  }
  if (built.program) {
    rec.result = run_tasks(s, prepared, seeds.engine);
    if (rec.result.reported)
      rec.summary_extra =
          located(s, "", [&] { return task_summary(prepared, rec.result.summary, engine == "mpi" ? s.number("mpi.work_scale") : 1.0); });
    return rec;
  }
  if (engine == "sync" && s.text("agent") != "iterative") {
    // The engine's synchronous steps are the rounds program with exact views, taken directly
    // (tests/test_agent_layer.cpp checks they give the same loads).
    require(s.text("agent") != "async", s, "agent", "the asynchronous balancer needs time: use engine = \"des\"");
    const EdgeColoring coloring = coloring_for(built, topo);
    rec.result = run_sync(topo, *built.policy, &coloring, prepared.mode, prepared.initial, prepared.platform, sync_options(s, seeds.engine));
    return rec;
  }
  // A node program on a program engine, found by name: the asynchronous balancer (agent = async,
  // or auto on a timed engine), the rounds program, or the iterative application; on sync the
  // application runs in lock-step rounds (a message takes a round, a computation at least one).
  AsyncBalancerOptions balancer = balancer_options(s, prepared.platform);
  const EdgeColoring coloring = coloring_for(built, topo);
  balancer.colors = coloring.num_colors;
  if (prepared.trace) {
    require(s.text("agent") == "auto" || s.text("agent") == "async", s, "agent", "a trace replays on the asynchronous balancer");
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
  std::unique_ptr<Program> program;
  if (agent == "iterative") {
    IterativeApplicationOptions ao = application_options(s, built);
    ao.bytes_per_unit = balancer.bytes_per_unit;
    ao.control_bytes = balancer.control_bytes;
    program = std::make_unique<IterativeApplication>(ao);
  } else if (agent == "rounds" || (agent == "auto" && engine == "rounds")) {
    const RoundBalancerOptions ro{.colors = coloring.num_colors, .control_bytes = balancer.control_bytes, .bytes_per_unit = balancer.bytes_per_unit};
    program = located(s, "algorithm", [&] { return std::make_unique<RoundBalancer>(*built.policy, ro); });
  } else {
    program = located(s, "algorithm", [&] { return std::make_unique<AsyncBalancer>(*built.policy, balancer); });
  }
  // Under churn (des): the asynchronous balancer hears of neighbours leaving and joining.
  std::optional<Churn> churn = churn_of(s, topo.graph, seeds.engine);
  require(!churn || agent == "async" || (agent == "auto" && engine == "des"), s, s.is_set("churn.half_life") ? "churn.half_life" : "churn.events",
          "hosts that leave and enter need a program that hears of it: the asynchronous balancer (agent = \"async\") or a job strategy");
  require(!churn || s.is_default("async.detection"), s, "async.detection", "needs a graph that does not change, and churn.* is set");
  EngineRun r = engine_run(s, prepared, *program, initial, seeds.engine);
  r.coloring = &coloring;
  if (churn) r.churn = &*churn;
  r.stop_when_balanced = agent != "iterative" && !prepared.trace;  // the application runs to its end
  if (prepared.trace) {
    r.trace = prepared.trace.get();
    r.trace_step_tag = AsyncBalancer::balance_timer;
    // The replay covers the recorded run (a recorded period's timers would go on to stop.time).
    if (s.is_default("stop.time") && prepared.trace->end > 0) r.time_limit = std::min(r.time_limit, prepared.trace->end);
    if (r.sample_period == 0) r.sample_period = std::max(prepared.trace->end / 500, 1e-4);
  }
  if (r.sample_period == 0) r.sample_period = 10 * balancer.lb_period;
  rec.result = run_engine(s, running_engine(s).name, r);
  if (prepared.trace) rec.summary_extra = replay_summary(*prepared.trace, rec.result.summary);
  return rec;
}

json summary_json(const RunSummary& m) {
  json j = {{"stop_reason", std::string(name(m.stop_reason))},
            {"balanced", m.balanced},
            {"steps_to_balance", m.steps_to_balance ? json(*m.steps_to_balance) : json(nullptr)},
            {"rounds", m.rounds},
            {"steps", m.steps},
            {"initial_imbalance", m.initial_imbalance},
            {"final_imbalance", m.final_imbalance},
            {"final_stddev", m.final_stddev},
            {"final_spread", m.final_spread},
            {"load_moved", m.load_moved},
            {"initial_total", m.initial_total},
            {"final_total", m.final_total},
            {"max_conservation_error", m.max_conservation_error}};
  if (m.timing) {
    const TimeMetrics& t = *m.timing;
    j["time"] = t.time;
    j["avg_idle_time"] = t.avg_idle_time;
    // Without convergence there is no convergence time (the paper leaves such bars out).
    j["avg_convergence_time"] = m.balanced ? json(t.avg_convergence_time) : json(nullptr);
    j["max_convergence_time"] = m.balanced ? json(t.max_convergence_time) : json(nullptr);
    j["data_transferred"] = t.data_transferred;
    j["control_messages"] = t.control_messages;
    j["data_messages"] = t.data_messages;
    j["events"] = t.events;
  }
  if (m.detected_at) j["detected_at"] = *m.detected_at;
  if (m.finished_at) j["finished_at"] = *m.finished_at;
  j["nodes_with_load"] = m.nodes_with_load;
  return j;
}

json to_json(const RunRecord& r) {
  // Simulated time only where there is some (des); sync counts rounds and steps.
  const bool timed = r.result.summary.timing.has_value() || r.scenario.value("engine", "") == "p2p";  // p2p: time units
  json series = {{"round", json::array()}, {"steps", json::array()}, {"imbalance", json::array()}, {"stddev", json::array()},
                 {"min", json::array()},   {"max", json::array()},   {"mean", json::array()},      {"moved", json::array()}};
  if (timed) series["time"] = json::array();
  for (const auto& p : r.result.series) {
    series["round"].push_back(p.round);
    series["steps"].push_back(p.steps);
    if (timed) series["time"].push_back(p.time);
    series["imbalance"].push_back(p.imbalance);
    series["stddev"].push_back(p.stddev);
    series["min"].push_back(p.min);
    series["max"].push_back(p.max);
    series["mean"].push_back(p.mean);
    series["moved"].push_back(p.moved);
  }
  for (const auto& [name, values] : r.result.columns) series[name] = values;
  json summary = summary_json(r.result.summary);
  summary.update(r.summary_extra);
  // The iterative application's time per iteration (Jeannot & Vernier sec. 4.2).
  if (r.result.summary.finished_at && r.scenario.value("agent", "") == "iterative")
    summary["time_per_iteration"] = *r.result.summary.finished_at / r.scenario["app.iterations"].get<double>();
  json j = {{"nnlb_version", version},
            {"schema_version", record_schema_version},
            {"seed", r.seed},
            {"scenario", r.scenario},
            {"topology", r.topology},
            {"parameters", r.parameters},
            {"summary", std::move(summary)},
            {"series", series}};
  if (!r.result.engine_info.empty()) j["engine_info"] = r.result.engine_info;
  if (!r.result.final_load.empty()) j["final_load"] = r.result.final_load;
  if (!r.result.load_history.steps.empty())
    j["load_history"] = {{"steps", r.result.load_history.steps}, {"loads", r.result.load_history.loads}};
  return j;
}

}  // namespace nnlb
