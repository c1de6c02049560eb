// Generated from the registries: for every (engine, program) pair that runs in this process and
// every scenario key `nnlb list` shows, a small scenario with the key changed either changes the
// record or is refused with one line naming the key. A key accepted and ignored is a bug: the
// user believes the run honoured it. The exceptions are listed with their reasons.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/programs.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/util/error.hpp"
#include "support.hpp"

namespace nnlb {
namespace {

using nlohmann::json;

// A small scenario for each program, on which its keys show: random initial loads (every node
// holds some, and above the threshold band's low end), more jobs than hosts, a few iterations.
std::vector<std::string> base_of(const std::string& program) {
  if (program == "tasks") return {"algorithm=ms", "tasks.cores=4", "tasks.init=cq:40"};
  if (program == "jobs") return {"algorithm=pm", "topology=ring:6", "guest.graph=ring:48", "guest.mapping=random"};
  if (program == "iterative")
    return {"agent=iterative", "algorithm=mr",        "topology=line:6",      "load.init=uniform:0,1000",
            "load.mode=integer", "app.iterations=30", "app.pre_cost=0.001", "app.work_per_unit=1e3"};
  return {"agent=" + program, "topology=ring:8", "load.init=uniform:0,1000"};
}

// A value away from the default that should show in such a run.
std::string changed(const KeyInfo& k) {
  static const std::map<std::string, std::string> chosen = {
      {"topology", "ring:5"},          {"load.init", "single:1,300"},     {"load.mode", "integer"},
      {"platform.preset", "two-cluster"},
      {"stop.steps", "2"},             {"stop.time", "0.002"},            {"stop.band", "0.4"},
      {"stop.imbalance", "1000"},      {"stop.spread", "300"},            {"stop.stall", "1e-4"},
      {"output.series_every", "0"},    {"output.load_history", "1"},      {"output.sample_period", "1e-4"},
      {"output.series_max_rows", "2"},
      {"guest.graph", "ring:20"},      {"guest.mapping", "block"},        {"churn.events", "leave@2"},
      {"tasks.init", "cq:60"},         {"tasks.background", "random:0.5,1,10"}, {"tasks.cores", "5"},
      {"platform.speed", "uniform:1e8,1e9"}, {"seed", "7"},
      {"algorithm", "best-effort"},    {"workload.kind", "dynamic"},      {"invocation", "threshold"},
      {"threshold.low", "50"},         {"threshold.high", "150"},         {"app.iterations", "9"},
      {"churn.half_life", "20"},       {"async.lb_period", "0.002"},
      {"p2p.iterations", "1"},         {"p2p.sample_every", "5"},         {"app.lb_every", "2"},
      {"platform.latency", "0.003"},   {"platform.bandwidth", "1e6"},     {"async.comp_min_period", "0.5"},
      {"async.compute_chunk", "0.01"}, {"message.control_bytes", "1e6"},  {"app.k", "0.001"},
      {"app.work_per_unit", "1e8"},
  };
  return test::sample_value(k, chosen);
}

// The record without the echo of its scenario: what a run produced.
json produced(const std::vector<std::string>& sets, std::string& refusal) {
  Scenario s;
  for (const std::string& kv : sets) s.set_from_text(kv, "test");
  try {
    json j = to_json(run_scenario(s, 1));
    j.erase("scenario");
    return j;
  } catch (const InputError& e) {
    refusal = e.line();
  }
  return nullptr;
}

// One test per engine, so that ctest runs them side by side.
class KeyEffects : public ::testing::TestWithParam<std::string> {};

TEST_P(KeyEffects, EveryKeyChangesTheRecordOrIsRefusedByName) {
  // Keys that name what runs (their own changes are the pairs), and what the record does not hold.
  const std::set<std::string> not_effects = {"name", "description", "engine", "agent"};
  // The reasoned exceptions: a key that may change nothing on a given run, and why.
  const std::map<std::string, std::string> exceptions = {
      {"alpha.unstable", "a permission: it changes nothing unless alpha is set beyond the stability bound"},
      {"load.trace", "a path: the test's value names no trace (refused naming the keys a trace gives)"},
      {"algorithm", "another algorithm is another program: the refusal names a key of the base that no longer applies"},
      {"seed", "the run's seed is the caller's: nnlb run and the sweeps pass the key's value, this test its own"},
      {"des/des.separate_control", "control queues behind data only on a loaded link (Couturier et al. sec. 6.1); a choice that "
                                   "matters where traffic is heavy (docs/reproductions/couturier.md), not in a light run"},
      {"simgrid/simgrid.network", "serial and sharing links differ only where messages overlap on a link"},
      {"sync/stop.quiescent", "a stop rule that a run ending in the band never reaches (a quiet sweep out of the band needs "
                              "integer loads that cannot split)"},
      {"des/guest.selection", "which jobs move, not how many: a job run's record on des counts jobs, not their places"},
      {"simgrid/guest.selection", "as on des"},
  };
  std::vector<std::string> ignored;
  std::size_t runs = 0;
  {
    const EngineEntry& engine = *find_engine(GetParam());
    if (engine.runs_programs && !engine.run) GTEST_SKIP() << engine.name << " cannot run in this process";
    for (const ProgramEntry& program : programs()) {
      if (!engine_runs(engine, program) || program.name.starts_with("toy")) continue;
      std::vector<std::string> base = base_of(program.name);
      base.insert(base.begin(), "engine=" + engine.name);
      // Short runs: 40 time units on p2p, a simulated second on des, 300 rounds.
      // Short runs with several samples: 200 time units on p2p, a simulated second on des and
      // simgrid (applications end by themselves), 300 rounds.
      if (!engine.runs_programs && engine.honours_key("stop.time")) base.push_back("stop.time=200");
      if (engine.time == TimeModel::simulated_seconds && !program.application) base.push_back("stop.time=1");
      if (engine.time == TimeModel::simulated_seconds && !program.application) base.push_back("output.sample_period=0.002");
      if (engine.time == TimeModel::rounds) base.push_back("stop.steps=300");
      std::string refused;
      const json reference = produced(base, refused);
      ASSERT_TRUE(refused.empty()) << engine.name << " " << program.name << ": " << refused;
      std::size_t case_index = 0;
      for (const KeyInfo& key : scenario_keys()) {
        if (not_effects.contains(key.name) || exceptions.contains(key.name)) continue;  // (engine/key exceptions: below)
        if (!test::runs_case(case_index++)) continue;
        std::vector<std::string> sets = base;
        std::string value = changed(key);
        if (std::find(base.begin(), base.end(), key.name + "=" + value) != base.end())  // the base's own value: back to the default
          value = key.default_value.is_string() ? key.default_value.get<std::string>() : key.default_value.dump();
        sets.push_back(key.name + "=" + value);
        std::string line;
        const json record = produced(sets, line);
        ++runs;
        if (!line.empty()) {
          EXPECT_NE(line.find("key '"), std::string::npos) << line;
          if (line.find("key '" + key.name + "'") == std::string::npos)
            ignored.push_back(engine.name + "/" + program.name + " " + key.name + ": refused naming another key: " + line);
          continue;
        }
        // An application, or p2p's jobs, runs to its end: the band sets only the verdict, and a
        // run that ends within the band is balanced at any band.
        const bool verdict_only = key.name == "stop.band" && (program.application || !engine.runs_programs);
        if (record == reference && !verdict_only && !exceptions.contains(engine.name + "/" + key.name))
          ignored.push_back(engine.name + "/" + program.name + " " + key.name + "=" + value);
      }
    }
  }
  for (const std::string& i : ignored) ADD_FAILURE() << i;
  EXPECT_GT(runs, 90u / test::case_stride);  // every key, once per program the engine runs
}

// mpi runs under mpirun only; the toy engine is the tests' (no keys of its own, no time limit).
INSTANTIATE_TEST_SUITE_P(Engines, KeyEffects, ::testing::Values("sync", "rounds", "des", "p2p", "simgrid"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace nnlb
