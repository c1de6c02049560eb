#include "nnlb/experiment/task_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "nnlb/experiment/scenario_checks.hpp"
#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/model/background.hpp"
#include "nnlb/model/tasks.hpp"
#include "nnlb/util/error.hpp"
#include "nnlb/util/parse.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

using nlohmann::json;

namespace {

constexpr std::int64_t max_cores = 4096;

// The makespan no schedule can beat: all work spread over all speed, or the longest task on the
// fastest core (seconds; work is in seconds at the reference speed).
double lower_bound(const PreparedRun& p) {
  double work = 0, longest = 0, speed = 0, fastest = 0;
  for (const auto& items : p.items)
    for (const Item& it : items) work += it.weight, longest = std::max(longest, it.weight);
  for (NodeId i = 0; i < p.topology.graph.num_nodes(); ++i) {
    const double c = p.platform.node_speed(i) / reference_speed;
    speed += c, fastest = std::max(fastest, c);
  }
  return std::max(work / speed, longest / fastest);
}

// The cores' speeds in units of the reference speed, summed.
double speed_sum(const PreparedRun& p) {
  double speed = 0;
  for (NodeId i = 0; i < p.topology.graph.num_nodes(); ++i) speed += p.platform.node_speed(i) / reference_speed;
  return speed;
}

constexpr double max_latency = 1e6;             // tasks.latency, seconds
constexpr double max_samples = 1e5;             // rows of a task run's series
constexpr double max_background_changes = 1e9;  // changes of a random background over a run

double horizon(const Scenario& s, const PreparedRun& p) {
  double work = 0, slowest = std::numeric_limits<double>::infinity(), tasks = 0, least = 1;
  for (const auto& items : p.items)
    for (const Item& it : items) work += it.weight, ++tasks;
  for (NodeId i = 0; i < p.topology.graph.num_nodes(); ++i) {
    slowest = std::min(slowest, p.platform.node_speed(i) / reference_speed);
    least = std::min(least, p.platform.background.least_fraction(i));
  }
  const double per_request = s.number("tasks.latency") + s.number("tasks.service");
  return 2 * (work / slowest / least + (tasks + static_cast<double>(p.items.size()) + 4) * per_request) + 1;
}

}  // namespace

bool is_task_algorithm(const std::string& algorithm) {
  const PolicyEntry* e = policy_catalog().find(algorithm);
  return e != nullptr && e->program == "tasks";
}

std::string task_topology(const Scenario& s) {
  for (const char* key : {"topology", "load.init", "load.mode", "platform.latency", "platform.preset"})
    require(s.is_default(key), s, key, "does not apply to task scheduling (the cores are tasks.cores, the work tasks.init, the links' latency tasks.latency)");
  const std::int64_t cores = s.integer("tasks.cores");
  require(cores >= 2 && cores <= max_cores, s, "tasks.cores", "must be in 2 .. " + std::to_string(max_cores));
  return "complete:" + std::to_string(cores);
}

double task_count_bound(const Scenario& s) {
  const std::string spec = s.text("tasks.init");
  if (spec.starts_with("file:")) {
    std::filesystem::path path(spec.substr(5));
    if (path.is_relative() && !s.base_dir().empty()) path = std::filesystem::path(s.base_dir()) / path;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? 0.0 : static_cast<double>(size) / 2 + 1;  // "1\n" is the shortest line
  }
  const auto colon = spec.find(':');
  if (colon == std::string::npos) return 0;
  const std::string n = spec.substr(colon + 1, spec.find(',') == std::string::npos ? std::string::npos : spec.find(',') - colon - 1);
  try {
    return static_cast<double>(parse_uint(n, "tasks.init"));
  } catch (const InputError&) {
    return 0;  // make_tasks says what is wrong
  }
}

void prepare_tasks(const Scenario& s, PreparedRun& p, std::uint64_t seed) {
  const NodeId n = p.topology.graph.num_nodes();
  const RunSeeds seeds(seed);
  std::vector<double> work;
  try {
    work = make_tasks(s.text("tasks.init"), seeds.load, s.base_dir());
  } catch (const InputError& e) {
    throw e.located(s.source(), "tasks.init");
  }
  TaskSplit split = TaskSplit::block;
  try {
    split = parse_task_split(s.text("tasks.split"));
  } catch (const InputError& e) {
    throw e.located(s.source(), "tasks.split");
  }
  // The cores that hold tasks first: all of them, or MS's master alone.
  const NodeId holders = s.text("algorithm") == "ms" ? 1 : n;
  std::vector<double> speed(holders);
  for (NodeId i = 0; i < holders; ++i) speed[i] = p.platform.node_speed(i);
  const std::vector<std::uint32_t> owner = split_tasks(work, split, speed, seeds.load);
  // Items in reverse order of execution: a core executes its last item first.
  p.items.assign(n, {});
  for (std::size_t k = work.size(); k-- > 0;) p.items[owner[k]].push_back({k, work[k], 0.0});
  p.initial.assign(n, 0.0);
  const double latency = s.number("tasks.latency");
  require(latency >= 0 && latency <= max_latency, s, "tasks.latency", "must be in 0 .. 1e6 seconds (a request and its answer)");
  p.platform.latency = {latency / 2};  // a request and its answer: tasks.latency in all
  try {
    p.platform.background = Background::parse(s.text("tasks.background"), n, seeds.platform, s.base_dir());
  } catch (const InputError& e) {
    throw e.located(s.source(), "tasks.background");
  }
}

RunResult run_tasks(const Scenario& s, const PreparedRun& p, std::uint64_t engine_seed) {
  const InitialState initial{p.initial, p.items};
  EngineRun r = engine_run(s, p, *p.policy.program, initial, engine_seed);
  r.mode = LoadMode::real;
  r.nodes_key = "tasks.cores";
  const bool real = find_engine(s.text("engine"))->time == TimeModel::wall_seconds;
  const double scale = real ? r.work_scale : 1.0;  // real seconds per second of work
  // Unless stop.time says otherwise, a horizon no schedule can need: every task one after the
  // other on the slowest core at the background's least share, plus a request's latency and the
  // master's service time for each task and core (and a minute on real ranks).
  if (s.is_default("stop.time")) r.time_limit = real ? horizon(s, p) * std::max(1.0, scale) + 60 : horizon(s, p);
  // About 20 samples over the ideal schedule, and at most max_samples over the time limit.
  if (r.sample_period == 0) r.sample_period = std::max({lower_bound(p) * scale / 20, 1e-3, r.time_limit / max_samples});
  require(r.time_limit / r.sample_period <= max_samples, s, "output.sample_period",
          fmt::format("samples the task run's {:g} s more than {:g} times: use a longer period", r.time_limit, max_samples));
  // A random background changes every period on every core: each change is a step of the model.
  if (const double period = p.platform.background.period(); period > 0)
    require(r.time_limit / period * static_cast<double>(p.topology.graph.num_nodes()) <= max_background_changes, s, "tasks.background",
            fmt::format("a change every {:g} s on {} cores over the run's {:g} s is more than {:g} changes: use a longer period", period,
                        p.topology.graph.num_nodes(), r.time_limit, max_background_changes));
  return run_engine(s, s.text("engine"), r);
}

json task_summary(const PreparedRun& p, const RunSummary& summary, double time_scale) {
  std::uint64_t tasks = 0;
  double work = 0;
  for (const auto& items : p.items) {
    tasks += items.size();
    for (const Item& it : items) work += it.weight;
  }
  const WorkMetrics none;
  const WorkMetrics& w = summary.work ? *summary.work : none;
  if (w.completed != tasks) {
    const std::string ended = "ended the task run with " + std::to_string(w.completed) + " of " + std::to_string(tasks) + " tasks executed";
    if (summary.stop_reason == StopReason::time)
      throw InputError({}, "stop.time", ended + ": raise it, or leave it unset (a horizon every schedule fits)");
    throw std::logic_error("the task run " + ended.substr(10));
  }
  // On real ranks that outnumber the processors, each core computes at processors / ranks of its
  // speed (the MPI engine notes processors_available then).
  const double share = summary.notes.contains("processors_available")
                           ? summary.notes.at("processors_available") / static_cast<double>(p.topology.graph.num_nodes())
                           : 1.0;
  const double makespan = w.last_completion, bound = lower_bound(p) * time_scale / share;
  json idle = json::array();
  for (NodeId i = 0; i < p.topology.graph.num_nodes(); ++i) idle.push_back(makespan - (i < w.busy.size() ? w.busy[i] : 0.0));
  json j = {{"tasks", tasks},
            {"tasks_executed", w.completed},
            {"work", work},
            {"makespan", makespan},
            // The ideal time (all work spread over all the cores' speed, the lower bound's first
            // term) over the makespan: at most 1 on any platform.
            {"efficiency", makespan > 0 ? work * time_scale / (speed_sum(p) * share * makespan) : 0.0},
            {"idle_time", idle},
            {"lower_bound", bound},
            {"makespan_over_lower_bound", bound > 0 ? makespan / bound : 0.0}};
  if (share < 1) j["processors_available"] = summary.notes.at("processors_available");
  const auto note = [&](const char* k) { return summary.notes.at(k); };
  if (summary.notes.contains("ca_choice")) {
    j["ca_choice"] = note("ca_choice") == 1 ? "ms" : "dd";
    j["ca_chose_ms"] = note("ca_choice");  // 1 or 0: its mean over runs is the share of MS (Fig. 8)
    j["ca_phase1"] = note("ca_signal");
    j["ca_termination"] = note("ca_reports") - note("ca_signal");
    j["ca_phase3"] = makespan - note("ca_reports");
    j["ca_unfinished"] = note("ca_unfinished");
  }
  return j;
}

}  // namespace nnlb
