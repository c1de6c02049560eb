// Independent tasks (Filipović & Krstajić 2016): Context::execute on every engine, DD and MS
// against hand-computed schedules, every task exactly once, CA's rules and its claim against DD,
// the CQ-like generator, background load, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>

#include "nnlb/programs/task_scheduling.hpp"
#include "nnlb/engine/des/des_engine.hpp"
#include "nnlb/engine/sync/rounds_engine.hpp"
#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/experiment/task_run.hpp"
#include "nnlb/model/background.hpp"
#include "nnlb/model/tasks.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/util/error.hpp"
#include "support.hpp"

namespace nnlb {
namespace {

using test::input_error;
using test::write_temp;

// A task run on the discrete-event engine with these settings.
RunRecord run_sets(std::vector<std::string> sets, std::uint64_t seed = 1) {
  sets.insert(sets.begin(), "engine=des");
  return test::run_sets(sets, seed);
}

using test::summary;

// --- Context::execute on every engine -----------------------------------------------------

// Every node executes the items it holds, one after the other, and notes when it is done.
struct Executor final : Program {
  std::string name() const override { return "executor"; }
  ProgramNeeds needs() const override { return {.items = true}; }
  std::unique_ptr<Agent> make_agent(NodeId) const override {
    struct A final : Agent {
      void start(Context& ctx) override { timer(ctx, 0); }
      void timer(Context& ctx, std::uint32_t) override {
        if (!ctx.items().empty()) ctx.execute(ctx.items().back().id, 0);
        else ctx.note("done_" + std::to_string(ctx.self()), ctx.now());
      }
    };
    return std::make_unique<A>();
  }
};

TEST(Execute, RunsEachItemOnceAtTheNodesSpeedOnEveryEngine) {
  const Topology t = make_topology("line:3", 1);
  // Node 0: 2 s + 3 s at 1 Gflop/s; node 1: 4 s of work at 2 Gflop/s; node 2: nothing.
  const InitialState initial{{0, 0, 0}, {{{1, 2.0, 0}, {2, 3.0, 0}}, {{3, 4.0, 0}}, {}}};
  const Platform platform{{1e9, 2e9, 1e9}, {0.0}, {1e9}, {}};
  DesOptions d;
  d.stop_when_balanced = false;
  const RunResult des = run_des(t, Executor{}, LoadMode::real, initial, platform, d);
  ASSERT_TRUE(des.summary.work);
  EXPECT_EQ(des.summary.work->completed, 3u);
  EXPECT_DOUBLE_EQ(des.summary.work->last_completion, 5.0);
  EXPECT_DOUBLE_EQ(des.summary.work->busy[0], 5.0);
  EXPECT_DOUBLE_EQ(des.summary.work->busy[1], 2.0);
  EXPECT_DOUBLE_EQ(des.summary.notes.at("done_1"), 2.0);
  RoundsOptions r;
  r.max_rounds = 100;
  const RunResult rounds = run_rounds(t, Executor{}, LoadMode::real, initial, platform, r);
  ASSERT_TRUE(rounds.summary.work);
  EXPECT_EQ(rounds.summary.work->completed, 3u);
  EXPECT_DOUBLE_EQ(rounds.summary.notes.at("done_0"), 5.0);  // whole rounds: 2 + 3
  EXPECT_DOUBLE_EQ(rounds.summary.notes.at("done_1"), 2.0);
}

TEST(Execute, BackgroundLoadSlowsTheWork) {
  const std::string file = write_temp("bg.txt", "0 1 0.5\n0 3 1\n");
  const Background b = Background::parse("file:" + file, 2, 1);
  EXPECT_DOUBLE_EQ(b.finish(0, 0, 2), 3.0);  // 1 s at full speed, then 1 s of work in 2 s at half
  EXPECT_DOUBLE_EQ(b.finish(1, 0, 2), 2.0);
  const Background r = Background::parse("random:0.25,0.5,1", 4, 7);
  const double end = r.finish(2, 0.3, 10);
  EXPECT_GE(end, 0.3 + 10 / 0.5);
  EXPECT_LE(end, 0.3 + 10 / 0.25);
  EXPECT_EQ(end, Background::parse("random:0.25,0.5,1", 4, 7).finish(2, 0.3, 10));  // same seed, same profile
}

// --- DD and MS against schedules computed by hand ---------------------------------------------

TEST(TaskScheduling, DomainDecompositionAndMasterSlaveMatchHandSchedules) {
  const std::string file = write_temp("six.txt", "# six tasks\n5\n3\n2\n4\n1\n6\n");
  auto makespan = [&](std::vector<std::string> sets) {
    sets.push_back("tasks.init=file:" + file);
    return summary(run_sets(sets))["makespan"].get<double>();
  };
  // Block on 3 cores: {5,3} {2,4} {1,6}; cyclic: {5,4} {3,1} {2,6}.
  EXPECT_DOUBLE_EQ(makespan({"algorithm=dd", "tasks.cores=3"}), 8);
  EXPECT_DOUBLE_EQ(makespan({"algorithm=dd", "tasks.cores=3", "tasks.split=cyclic"}), 9);
  // List scheduling on workers 1 and 2: 5 -> w1 [0,5], 3 -> w2 [0,3], 2 -> w2 [3,5], then both free
  // at 5 (the lower first): 4 -> w1 [5,9], 1 -> w2 [5,6], 6 -> w2 [6,12].
  EXPECT_DOUBLE_EQ(makespan({"algorithm=ms", "tasks.cores=3"}), 12);
  // A request costs 0.5 s: w1 gets 5 at 0.5 [0.5,5.5] and 4 at 6 [6,10]; w2 3 [0.5,3.5], 2 [4,6],
  // 1 [6.5,7.5], 6 [8,14].
  EXPECT_DOUBLE_EQ(makespan({"algorithm=ms", "tasks.cores=3", "tasks.latency=0.5"}), 14);
  // Batches of 2: w1 {5,3} [0,8], w2 {2,4} [0,6], then w2 {1,6} [6,13].
  EXPECT_DOUBLE_EQ(makespan({"algorithm=ms", "tasks.cores=3", "tasks.batch=2"}), 13);
  // A master spending 1 s per request serves at most one request a second: 100 tasks of 0.1 s on
  // 8 cores take at least 100 s (and 2 s without the service time).
  auto bottleneck = [&](const char* service) {
    return summary(run_sets({"algorithm=ms", "tasks.cores=8", "tasks.init=uniform:100,0.1,0.1", std::string("tasks.service=") + service}))["makespan"]
        .get<double>();
  };
  EXPECT_NEAR(bottleneck("0"), 100 / 7 * 0.1 + 0.1, 1e-9);
  EXPECT_GE(bottleneck("1"), 100.0);
  EXPECT_LE(bottleneck("1"), 101.0);
  // Speed: core 1 twice as fast takes twice the share.
  const RunRecord speed = run_sets({"algorithm=dd", "tasks.cores=2", "tasks.split=speed", "tasks.init=uniform:30,1,1",
                                    "platform.speed=file:" + write_temp("speeds.txt", "1e9\n2e9\n")});
  EXPECT_DOUBLE_EQ(summary(speed)["makespan"].get<double>(), 10);
}

TEST(TaskScheduling, EveryTaskRunsExactlyOnceAndALostTaskIsCaught) {
  for (const char* algorithm : {"dd", "ms", "ca"})
    for (const char* cores : {"2", "5", "16"}) {
      const auto s = summary(run_sets({std::string("algorithm=") + algorithm, std::string("tasks.cores=") + cores, "tasks.init=cq:500",
                                       "tasks.background=random:0.5,1,20"}));
      EXPECT_EQ(s["tasks_executed"], 500) << algorithm << " on " << cores;
      EXPECT_GE(s["makespan_over_lower_bound"].get<double>(), 1.0) << algorithm << " on " << cores;
    }
  // A message carrying tasks that is lost: the recount of identities fires.
  Scenario s;
  for (const char* kv : {"engine=des", "algorithm=ms", "tasks.cores=4", "tasks.init=cq:50"}) s.set_from_text(kv, "test");
  const PreparedRun p = prepare_run(s, 1);
  DesOptions o;
  o.stop_when_balanced = false;
  o.faults.drop_every = 3;
  EXPECT_THROW(run_des(p.topology, *p.policy.program, LoadMode::real, {p.initial, p.items}, p.platform, o), ConservationError);
}

// --- the combined algorithm -----------------------------------------------------------------

TEST(CombinedAlgorithm, RulesPickWhatThePaperSays) {
  const CaRules rules;
  auto same = [](std::size_t cores, double done) { return std::vector<CoreReport>(cores, CoreReport{done, done * 15.0, 1e9}); };
  // Fig. 3: 64 cores, about half of the tasks unfinished: MS (MS1, MS4).
  EXPECT_EQ(choose_phase3(same(64, 24), 1536, rules), Phase3::ms);
  // A homogeneous cluster under 32 cores with similar counts and durations: DD (DD1, DD2).
  EXPECT_EQ(choose_phase3(same(16, 190), 40, rules), Phase3::dd);
  // No more unfinished tasks than cores: DD (DD3), even on 128 cores.
  EXPECT_EQ(choose_phase3(same(128, 20), 100, rules), Phase3::dd);
  // ... unless MS1 (more than ca.cores cores) is checked first (ca.rule_order = "ms1-first").
  CaRules ms1_first = rules;
  ms1_first.ms1_first = true;
  EXPECT_EQ(choose_phase3(same(128, 20), 100, ms1_first), Phase3::ms);
  EXPECT_EQ(choose_phase3(same(16, 20), 10, ms1_first), Phase3::dd);  // 16 cores: MS1 does not apply
  auto r = same(16, 190);
  r[3].speed = 2e9;  // MS2: a heterogeneous cluster
  EXPECT_EQ(choose_phase3(r, 40, rules), Phase3::ms);
  r = same(16, 190);
  r[5].busy = 190 * 20.0;  // MS3: durations differ
  EXPECT_EQ(choose_phase3(r, 40, rules), Phase3::ms);
  r = same(16, 190);
  r[7].done = 150, r[7].busy = 150 * 15.0;  // MS4: counts differ
  EXPECT_EQ(choose_phase3(r, 40, rules), Phase3::ms);
}

TEST(CombinedAlgorithm, NeverWorseThanDomainDecompositionByMoreThanHalfAPercentWhenHomogeneous) {
  // The paper: "In few cases, CA required up to 0.5 % time more than DD", of Fig. 5's means of 20
  // runs. Here the mean gain is positive at every core count, and each run is within 0.5 % on 16
  // to 64 cores; on 128 cores (24 tasks per core) a run pays the wait for the tasks in hand at
  // T_min, as the paper's sec. 3 warns, and can lose 2 % (docs/reproductions/filipovic2016.md).
  for (const char* cores : {"16", "32", "64", "128"}) {
    double gain = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      const std::vector<std::string> base = {std::string("tasks.cores=") + cores, "tasks.init=cq:3072"};
      auto with = [&](const char* algorithm) {
        std::vector<std::string> sets = base;
        sets.push_back(std::string("algorithm=") + algorithm);
        return summary(run_sets(sets, seed));
      };
      const auto dd = with("dd"), ca = with("ca");
      const double t_dd = dd["makespan"].get<double>(), t_ca = ca["makespan"].get<double>();
      gain += (t_dd - t_ca) / t_dd / 10;
      if (std::string(cores) != "128") {
        EXPECT_LE(t_ca, 1.005 * t_dd) << cores << " cores, seed " << seed;
      }
      EXPECT_NEAR(ca["ca_phase1"].get<double>() + ca["ca_termination"].get<double>() + ca["ca_phase3"].get<double>(), t_ca, 1e-6);
      if (ca["ca_unfinished"].get<double>() > std::stod(cores)) {
        EXPECT_EQ(ca["ca_choice"], std::stoi(cores) > 32 ? "ms" : "dd") << cores << " cores, seed " << seed;  // MS1; DD1, DD2
      }
    }
    EXPECT_GT(gain, 0) << cores << " cores: CA gains on average";
  }
}

// --- the generator and the refusals ------------------------------------------------------------

TEST(TaskGenerator, CqMatchesThePapersStatistics) {
  // The paper's figures are over 800,000 runs of its tasks.
  // The structured set in the paper's order meets them too.
  for (const char* spec : {"cq:800000", "cq-structured:800000"}) {
    SCOPED_TRACE(spec);
    const std::vector<double> w = make_tasks(spec, 11);
    ASSERT_EQ(w.size(), 800000u);
    double sum = 0;
    std::size_t inside = 0;
    for (double x : w) sum += x, inside += x >= 12 && x <= 18;
    EXPECT_NEAR(sum / 800000, 15.10, 0.03);                         // mean 15.10 s
    EXPECT_NEAR(static_cast<double>(inside) / 800000, 0.95, 0.006);  // 95 % between 12 and 18 s
    const double longest = *std::max_element(w.begin(), w.end());
    EXPECT_LE(longest, 165.0);  // the longest, 165 s
    EXPECT_GT(longest, 100.0);
  }
  EXPECT_EQ(make_tasks("cq:3072", 11), make_tasks("cq:3072", 11));
  // In the paper's order: the 384 tasks of an algorithm together, RAND's (the last) cheapest and
  // EELQF's (the fifth) dearest; within an algorithm, larger buffers cost more.
  const std::vector<double> s = make_tasks("cq-structured:3072", 11);
  auto mean = [&](std::size_t from, std::size_t count) {
    std::vector<double> part(s.begin() + static_cast<std::ptrdiff_t>(from), s.begin() + static_cast<std::ptrdiff_t>(from + count));
    std::sort(part.begin(), part.end());
    return part[count / 2];  // the median: the tail's rare long tasks aside
  };
  EXPECT_LT(mean(7 * 384, 384), mean(4 * 384, 384) * 0.85);
  EXPECT_LT(mean(0, 32), mean(11 * 32, 32));
}

TEST(TaskScheduling, BadTaskFilesAndImpossibleKeysAreOneLine) {
  auto bad_file = [&](const std::string& name, const std::string& text) {
    return input_error([&] { run_sets({"algorithm=dd", "tasks.init=file:" + write_temp(name, text)}); });
  };
  EXPECT_NE(bad_file("empty.txt", "# nothing\n\n").find("lists no task"), std::string::npos);
  EXPECT_NE(bad_file("neg.txt", "3\n-1\n").find("neg.txt:2"), std::string::npos);
  EXPECT_NE(bad_file("nan.txt", "nan\n").find("nan.txt:1"), std::string::npos);
  EXPECT_NE(bad_file("zero.txt", "0\n").find("must be in (0, 1e12] seconds"), std::string::npos);
  EXPECT_NE(bad_file("text.txt", "twelve\n").find("text.txt:1"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=dd", "tasks.cores=0"}); }).find("tasks.cores"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=ms", "tasks.cores=1"}); }).find("must be in 2 .."), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=dd", "topology=ring:8"}); }).find("topology"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=fos", "tasks.cores=8"}); }).find("key 'tasks.cores': is not read by the program that runs (async"),
            std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=dd", "tasks.batch=2"}); }).find("tasks.batch"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=dd", "tasks.split=zigzag"}); }).find("tasks.split"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=ca", "ca.rule_order=ms1-last"}); }).find("ca.rule_order"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=dd", "ca.rule_order=ms1-first"}); }).find("ca.rule_order"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=dd", "tasks.init=cq:0"}); }).find("tasks.init"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=ca", "tasks.background=random:0,1,5"}); }).find("tasks.background"), std::string::npos);
  EXPECT_NE(input_error([] { run_sets({"algorithm=ca", "engine=sync"}); }).find("engine"), std::string::npos);
}

}  // namespace
}  // namespace nnlb
