#include "nnlb/experiment/key_checks.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <string_view>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/experiment/p2p_run.hpp"
#include "nnlb/experiment/programs.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/experiment/task_run.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

namespace {

const EngineEntry& named_engine(const Scenario& s) {
  const EngineEntry* e = find_engine(s.text("engine"));
  if (e == nullptr) throw InputError(s.source(), "engine", "engine '" + s.text("engine") + "' is not available");
  return *e;
}

}  // namespace

// The program the algorithm brings (task scheduling, job strategies: PolicyEntry::program), or
// the one `agent` names, or the engine's default.
const ProgramEntry& running_program(const Scenario& s) {
  const PolicyEntry* policy = policy_catalog().find(s.text("algorithm"));
  if (policy != nullptr && !policy->program.empty()) {
    require(s.is_default("agent"), s, "agent", "algorithm = \"" + s.text("algorithm") + "\" runs its own node programs: leave agent = \"auto\"");
    return *find_program(policy->program);
  }
  const std::string agent = s.text("agent");
  const EngineEntry& named = named_engine(s);
  const ProgramEntry* p = find_program(agent == "auto" ? named.default_program : agent);
  if (p == nullptr || (agent != "auto" && !p->by_agent)) {
    std::string names;
    for (const ProgramEntry& e : programs())
      if (e.by_agent) names += ", " + e.name;
    throw InputError(s.source(), "agent", "'" + agent + "' is not a node program (auto" + names + ")");
  }
  if (!p->by_agent) {  // an engine of job strategies: the algorithm must be one
    std::string algorithms;
    for (const PolicyEntry& e : policy_catalog().entries())
      if (e.program == p->name) algorithms += (algorithms.empty() ? "" : " | ") + e.name;
    throw InputError(s.source(), "algorithm", "engine = \"" + named.name + "\" runs the " + p->name + " program (" + p->summary +
                                                  "): algorithm = " + algorithms);
  }
  return *p;
}

// The engine named, or the one it hands the program to (sync: the iterative application to rounds).
const EngineEntry& running_engine(const Scenario& s) {
  const std::string engine = s.text("engine");
  const EngineEntry* named = &named_engine(s);
  const ProgramEntry& program = running_program(s);
  if (!named->runs_programs && named->default_program != program.name && !named->programs_on.empty()) {
    const EngineEntry* on = find_engine(named->programs_on);
    if (engine_runs(*named, program)) return *on;
  }
  require(engine_runs(*named, program), s, "engine",
          "engine = \"" + engine + "\" does not run the " + program.name + " program (" + program.summary + "); engines that do: " +
              engines_running(program));
  return *named;
}

namespace {

// A key set away from its default would be silently ignored, so it is an input error naming
// those that read it, when it is engine-specific (engine/registry.hpp) and the engine that runs
// does not honour it (nor the program read it itself), or when it is a program's (programs.hpp)
// and a node program that does not read it runs on a program engine.
void check_engine_keys(const Scenario& s) {
  const EngineEntry& engine = running_engine(s);
  const ProgramEntry& program = running_program(s);
  const std::string runs = engine.name == s.text("engine") ? "engine = \"" + engine.name + "\""
                                                            : "engine = \"" + engine.name + "\" (which runs programs for " + s.text("engine") + ")";
  for (const auto& key : scenario_keys()) {
    if (s.get(key.name) == key.default_value) continue;
    if (engine_specific(key.name) && !engine.honours_key(key.name) && !program.reads_key(key.name)) {
      std::string readers;
      for (const EngineEntry& e : engines())
        if (e.honours_key(key.name)) readers += (readers.empty() ? "" : ", ") + e.name;
      throw InputError(s.source(), key.name, "is not honoured by " + runs + " (engines that read it: " + readers + ")");
    }
    if (engine.ignores_key(key.name))
      throw InputError(s.source(), key.name, "means nothing on " + runs + " (" + engine.summary + ")");
    if (program.ignores_key(key.name) || (key.name.starts_with("churn.") && !program.hears_churn))
      throw InputError(s.source(), key.name, "means nothing to the program that runs (" + program.name + ": " + program.summary + ")");
    if (engine.runs_programs && program_key(key.name) && !program.reads_key(key.name) && !program.uses_key(key.name)) {
      std::string readers;
      for (const ProgramEntry& p : programs())
        if (p.reads_key(key.name) || p.uses_key(key.name)) readers += (readers.empty() ? "" : ", ") + p.name;
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
  require(s.is_default("app.k") || s.text("app.cost_benefit") != "off", s, "app.k",
          "applies only with app.cost_benefit = \"constant\", \"decreasing\" or \"adaptive\" (k weighs the benefit)");
  require(s.is_default("churn.repair") || s.is_set("churn.half_life") || !s.is_default("churn.events"), s, "churn.repair",
          "applies only with churn (churn.half_life or churn.events)");
  // Keys of a replayed trace: nothing to apply them to without one.
  for (const char* key : {"load.trace_choice", "load.trace_steps"})
    require(s.is_default(key) || s.is_set("load.trace"), s, key, "applies only with load.trace");
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

// An application runs to its own end (its last iteration, its last task): a spread target would
// cut it short, and the stall rule is a balancer's.
void check_application_keys(const Scenario& s) {
  const ProgramEntry& program = running_program(s);
  if (!program.application) return;
  for (const char* key : {"stop.spread", "stop.stall"})
    require(!s.is_set(key), s, key, "does not apply to the " + program.name + " program, which runs to its own end (" + program.summary + ")");
}

}  // namespace

void check_scenario_keys(const Scenario& s) {
  check_engine_keys(s);
  check_application_keys(s);
  stall_limit(s);
  check_dependent_keys(s);
  if (const EngineEntry* e = find_engine(s.text("engine")); e != nullptr && e->honours_key("async.lb_period")) check_des_periods(s);
  require(s.number("mpi.work_scale") > 0, s, "mpi.work_scale", "must be > 0");
}

}  // namespace nnlb
