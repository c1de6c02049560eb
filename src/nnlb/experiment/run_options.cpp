#include "nnlb/experiment/run_options.hpp"

#include <algorithm>
#include <cmath>

#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/util/error.hpp"

namespace nnlb {

std::uint64_t series_max_rows(const Scenario& s) {
  const std::int64_t rows = s.integer("output.series_max_rows");
  require(rows == 0 || rows >= 2, s, "output.series_max_rows", "must be 0 (no bound) or >= 2 (the first and the last row)");
  return static_cast<std::uint64_t>(rows);
}

double series_rows(double samples, const Scenario& s) {
  const std::uint64_t most = series_max_rows(s);
  return most > 0 ? std::min(samples, static_cast<double>(most)) : samples;
}

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
  o.series_max_rows = series_max_rows(s);
  return o;
}

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
    else if (name == "shaker_cool") o.shaker.cool = value != 0;
    else if (name == "shaker_unit") o.shaker.unit = value != 0;
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

double time_limit(const Scenario& s) {
  const EngineEntry* e = find_engine(s.text("engine"));
  if (s.is_default("stop.time") && e != nullptr && e->default_time_limit > 0) return e->default_time_limit;
  return s.number("stop.time");
}

double stall_limit(const Scenario& s) {
  const auto stall = s.optional_number("stop.stall");
  require(!stall || *stall > 0, s, "stop.stall", "must be > 0");
  if (stall) return *stall;
  const EngineEntry* e = find_engine(s.text("engine"));
  return e != nullptr ? e->default_stall : 0.0;
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
  r.series_max_rows = series_max_rows(s);
  r.record_final_load = s.boolean("output.final_load");
  r.separate_control = s.boolean("des.separate_control");
  r.work_scale = s.number("mpi.work_scale");
  r.faults.drop_every = static_cast<std::uint64_t>(s.integer("mpi.drop_every"));
  r.simgrid.network = s.text("simgrid.network");
  r.seed = engine_seed;
  return r;
}

}  // namespace nnlb
