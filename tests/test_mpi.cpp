// The MPI engine (engine = "mpi"): the same node programs on real ranks, under mpirun -np 4 on
// this machine (oversubscribed: idle ranks sleep instead of spinning). Every task once for DD, MS
// and CA; a balancing program conserves load; a lost message is caught.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "support.hpp"

namespace {

using nnlb::test::Outcome;

#ifdef NNLB_TEST_MPIRUN
// nnlb under mpirun: its record on standard output, what the ranks and Open MPI said (notes,
// warnings of the launcher) in `err`.
struct Launch : Outcome {
  std::string err;
};

Launch mpirun(int ranks, const std::string& args) {
  const std::string err = ::testing::TempDir() + "nnlb_test_mpi_err_" + std::to_string(::getpid());
  // In NNLB_SANITIZE builds LeakSanitizer stays off for the ranks (Open MPI's own allocations);
  // ASan's other checks and UBSan stay on.
  const std::string cmd = std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 ") +
                          "OMPI_MCA_btl=self,vader ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" timeout -k 10 120 " NNLB_TEST_MPIRUN
                          " -np " + std::to_string(ranks) + " " NNLB_BINARY " run --set engine=mpi " + args + " 2> " + err;
  Launch o;
  static_cast<Outcome&>(o) = nnlb::test::shell(cmd);
  std::ifstream in(err);
  o.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::remove(err.c_str());
  return o;
}
#endif

TEST(MpiEngine, EveryTaskRunsOnceUnderDdMsAndCa) {
#ifndef NNLB_TEST_MPIRUN
  GTEST_SKIP() << "nnlb was built without MPI";
#else
  for (const char* algorithm : {"dd", "ms", "ca"}) {
    const Launch o = mpirun(4, std::string("--set algorithm=") + algorithm +
                                    " --set tasks.cores=4 --set tasks.init=cq:120 --set mpi.work_scale=0.0005 --format json");
    ASSERT_EQ(o.status, 0) << algorithm << ": " << o.out << o.err;
    const auto s = nlohmann::json::parse(o.out)["summary"];
    EXPECT_EQ(s["tasks_executed"], 120) << algorithm;
    EXPECT_EQ(s["stop_reason"], "finished") << algorithm;  // every core ran out of tasks
    EXPECT_GT(s["makespan"].get<double>(), 0) << algorithm;
    EXPECT_GE(s["makespan_over_lower_bound"].get<double>(), 0.5) << algorithm;  // real time: at least about the bound
    // Four ranks on fewer processors share them: the efficiency and the bound count the
    // processors the ranks really had (the README's example once gave an efficiency of 1.44).
    const unsigned processors = std::thread::hardware_concurrency();
    if (processors < 4) {
      ASSERT_TRUE(s.contains("processors_available")) << algorithm;
      EXPECT_EQ(s["processors_available"].get<double>(), processors) << algorithm;
      const double share = processors / 4.0, work = s["work"].get<double>() * 0.0005, speed = 4;  // the cores' speed: the reference
      EXPECT_NEAR(s["efficiency"].get<double>(), work / (speed * share * s["makespan"].get<double>()), 1e-9) << algorithm;
    } else {
      EXPECT_FALSE(s.contains("processors_available")) << algorithm;
    }
  }
#endif
}

TEST(MpiEngine, ABalancingProgramConservesLoadAndALostMessageIsCaught) {
#ifndef NNLB_TEST_MPIRUN
  GTEST_SKIP() << "nnlb was built without MPI";
#else
  // Iterations of 1e3 flop per unit (0.4 ms for node 0's 4,000 units at 1e9 flop/s): many
  // balancing steps in half a second.
  const std::string base = "--set topology=ring:4 --set algorithm=best-effort --set load.init=single:0,4000 --set stop.time=0.5 "
                           "--set async.flops_per_unit=1e3 ";
  const Launch o = mpirun(4, base + "--set stop.time=10 --format json");  // ends once balanced: time to spare on a busy machine
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  const auto s = nlohmann::json::parse(o.out)["summary"];
  EXPECT_EQ(s["stop_reason"], "balanced");  // as on des: a balancer stops once every node is in the band
  EXPECT_TRUE(s["balanced"]);
  EXPECT_NEAR(s["final_total"].get<double>(), 4000, 4000 * 1e-9);
  EXPECT_LT(s["final_imbalance"].get<double>(), 0.5 * s["initial_imbalance"].get<double>());
  // Iterations 100 times longer: the run goes on to stop.time, its series sampled every 10 ms.
  const Launch sampled = mpirun(4, base + "--set async.flops_per_unit=1e5 --set output.sample_period=0.01 --format json");
  ASSERT_EQ(sampled.status, 0) << sampled.out << sampled.err;
  const auto series = nlohmann::json::parse(sampled.out)["series"];
  const auto& time = series["time"];
  EXPECT_GE(time.size(), 10u);  // 0.5 s at 10 ms, less what ranks sharing 2 cores delay
  for (std::size_t k = 1; k < time.size(); ++k) EXPECT_GT(time[k].get<double>(), time[k - 1].get<double>()) << k;
  EXPECT_LT(series["imbalance"].back().get<double>(), series["imbalance"].front().get<double>());
  EXPECT_NEAR(series["mean"].back().get<double>(), 1000, 1e-9);
  const Launch lost = mpirun(4, base + "--set mpi.drop_every=3");
  EXPECT_NE(lost.status, 0) << lost.out << lost.err;
  EXPECT_NE(lost.err.find("not conserved"), std::string::npos) << lost.err;
  // The ranks must match the nodes: one line, status 2.
  const Launch wrong = mpirun(2, base);
  EXPECT_EQ(wrong.status, 2) << wrong.out << wrong.err;
  EXPECT_NE(wrong.err.find("one rank per node"), std::string::npos) << wrong.err;
#endif
}

TEST(MpiEngine, NodeProgramsRunUnchangedOnRealRanks) {
#ifndef NNLB_TEST_MPIRUN
  GTEST_SKIP() << "nnlb was built without MPI";
#else
  // The balancers on small graphs are the contract's (tests/mpi_contract.cpp, one mpirun for all);
  // here the programs with protocols of their own, each launched as a user would.
  // Douglas & Harwood's DASUD over messages, jobs as items with identities (recounted on rank 0).
  const Launch jobs = mpirun(4, "--set topology=ring:4 --set guest.graph=ring:40 --set algorithm=dasud --set async.lb_period=0.01 "
                                 "--set stop.time=0.5 --set output.final_load=true --format json");
  ASSERT_EQ(jobs.status, 0) << jobs.out << jobs.err;
  const auto fl = nlohmann::json::parse(jobs.out)["final_load"];
  double total = 0;
  for (const auto& w : fl) {
    total += w.get<double>();
    EXPECT_GE(w.get<double>(), 9) << fl;
    EXPECT_LE(w.get<double>(), 11) << fl;
  }
  EXPECT_EQ(total, 40);
  // Jeannot & Vernier's application with negotiation and spanning-tree detection: every node
  // finishes and the program ends by itself.
  const Launch app = mpirun(4, "--set topology=line:4 --set agent=iterative --set algorithm=mr --set mr.self=true --set load.mode=integer "
                                "--set load.init=single:0,400 --set app.iterations=50 --set app.work_per_unit=1e4 --set app.detection=true "
                                "--format json");
  ASSERT_EQ(app.status, 0) << app.out << app.err;
  const auto s = nlohmann::json::parse(app.out)["summary"];
  EXPECT_EQ(s["stop_reason"], "finished");
  EXPECT_TRUE(s.contains("finished_at"));
  EXPECT_EQ(s["final_total"], 400);
#endif
}

TEST(MpiEngine, NnlbHandsOverToNnlbMpiOrSaysWhyNot) {
#ifndef NNLB_TEST_MPIRUN
  GTEST_SKIP() << "nnlb was built without MPI";
#else
  // nnlb links no MPI (a process that does not run under mpirun loads none of it); launched by
  // mpirun it becomes nnlb-mpi, found beside it. A copy of nnlb alone in a folder cannot: one
  // line naming the file, status 2, before it reads its arguments.
  const Outcome links = nnlb::test::shell("ldd " NNLB_BINARY);
  ASSERT_EQ(links.status, 0) << links.out;
  EXPECT_EQ(links.out.find("libmpi"), std::string::npos) << links.out;
  const std::string dir = ::testing::TempDir() + "nnlb_alone_" + std::to_string(::getpid());
  ASSERT_EQ(nnlb::test::shell("mkdir -p " + dir + " && cp " NNLB_BINARY " " + dir + "/nnlb").status, 0);
  const Outcome alone = nnlb::test::shell("OMPI_COMM_WORLD_SIZE=1 " + dir + "/nnlb run --set topology=ring:4 2>&1");
  EXPECT_EQ(alone.status, 2) << alone.out;
  EXPECT_NE(alone.out.find("nnlb: launched by mpirun, but " + dir + "/nnlb-mpi (nnlb with MPI) cannot start: "), std::string::npos)
      << alone.out;
  EXPECT_EQ(std::count(alone.out.begin(), alone.out.end(), '\n'), 1) << alone.out;
  std::filesystem::remove_all(dir);
#endif
}

// --- records that mean the same on every engine --------------------------------------------------

#ifdef NNLB_TEST_MPIRUN
// The record of `args` on one process (des, or sync: the rounds engine for the application).
nlohmann::json simulated(const std::string& args) {
  const Outcome o = nnlb::test::shell(std::string(NNLB_BINARY) + " run " + args + " --format json 2>&1");
  EXPECT_EQ(o.status, 0) << args << ": " << o.out;
  return o.status == 0 ? nlohmann::json::parse(o.out) : nlohmann::json::object();
}

nlohmann::json on_ranks(int ranks, const std::string& args) {
  const Launch o = mpirun(ranks, args + " --format json");
  EXPECT_EQ(o.status, 0) << args << ": " << o.out << o.err;
  return o.status == 0 ? nlohmann::json::parse(o.out) : nlohmann::json::object();
}
#endif

TEST(CrossEngine, RecordsMeanTheSameOnEveryEngine) {
#ifndef NNLB_TEST_MPIRUN
  GTEST_SKIP() << "nnlb was built without MPI";
#else
  // First-order diffusion from one node of ring:4 (issue 36's case): every engine stops in the band,
  // says so, and counts the same totals; the timed engines' convergence times lie within the run.
  const std::string fos = "--set topology=ring:4 --set algorithm=fos --set load.init=single:0,400";
  std::vector<nlohmann::json> fos_runs;
  for (const char* engine : {"sync", "rounds", "des"}) fos_runs.push_back(simulated("--set engine=" + std::string(engine) + " " + fos));
  fos_runs.push_back(on_ranks(4, "--set engine=mpi " + fos));
#ifdef NNLB_HAVE_SIMGRID
  fos_runs.push_back(simulated("--set engine=simgrid " + fos));
  EXPECT_EQ(fos_runs[2]["summary"]["time"], fos_runs[4]["summary"]["time"]);  // des and simgrid: the same logical platform
#endif
  for (const auto& r : fos_runs) {
    const auto& s = r["summary"];
    EXPECT_EQ(s["stop_reason"], "balanced") << r["scenario"]["engine"];
    EXPECT_EQ(s["balanced"], true) << r["scenario"]["engine"];
    EXPECT_NEAR(s["initial_total"].get<double>(), 400, 1e-9);
    EXPECT_NEAR(s["final_total"].get<double>(), 400, 1e-9);
    if (!s.contains("time")) continue;  // sync and rounds count rounds
    EXPECT_GT(s["max_convergence_time"].get<double>(), 0) << r["scenario"]["engine"];
    EXPECT_LE(s["max_convergence_time"].get<double>(), s["time"].get<double>()) << r["scenario"]["engine"];
    EXPECT_GT(s["avg_convergence_time"].get<double>(), 0) << r["scenario"]["engine"];
  }
  // A job strategy: totals count item weights, load_moved counts jobs moved, one balance rule
  // (every host within one job of its share), and it stops once balanced.
  const std::string dasud = "--set topology=ring:4 --set guest.graph=ring:40 --set algorithm=dasud --set output.final_load=true";
  const auto jobs_des = simulated("--set engine=des " + dasud), jobs_mpi = on_ranks(4, "--set engine=mpi " + dasud);
  for (const auto* r : {&jobs_des, &jobs_mpi}) {
    const auto& s = (*r)["summary"];
    EXPECT_EQ(s["stop_reason"], "balanced") << s;
    EXPECT_EQ(s["balanced"], true);
    EXPECT_EQ(s["initial_total"], 40);
    EXPECT_EQ(s["final_total"], 40);
    // Jobs moved, by weight (whole jobs); how many depends on real timing on mpi.
    EXPECT_GT(s["load_moved"].get<double>(), 0);
    EXPECT_EQ(s["load_moved"].get<double>(), std::floor(s["load_moved"].get<double>()));
    EXPECT_EQ((*r)["final_load"], nlohmann::json::array({10, 10, 10, 10}));
  }
  // A task program: the totals count the tasks' work (what is left at the end: none), each task
  // moved once from the master, every task executed, "finished".
  const std::string ms = "--set algorithm=ms --set tasks.cores=4 --set tasks.init=cq:40";
  const auto ms_des = simulated("--set engine=des " + ms), ms_mpi = on_ranks(4, "--set engine=mpi --set mpi.work_scale=0.0005 " + ms);
  for (const char* key : {"initial_total", "work", "tasks", "tasks_executed", "final_total", "stop_reason"})
    EXPECT_EQ(ms_des["summary"][key], ms_mpi["summary"][key]) << key;
  EXPECT_GT(ms_des["summary"]["initial_total"].get<double>(), 0);
  EXPECT_EQ(ms_des["summary"]["stop_reason"], "finished");
  EXPECT_NEAR(ms_des["summary"]["load_moved"].get<double>(), ms_mpi["summary"]["load_moved"].get<double>(),
              1e-12 * ms_des["summary"]["initial_total"].get<double>());
  // Jeannot & Vernier's application (a synchronous program): the same loads after every
  // iteration whatever the timing, so the same final loads on the rounds engine (engine = sync),
  // des and real ranks, and the same message counts for its fixed number of steps.
  const std::string app = "--set topology=line:4 --set agent=iterative --set algorithm=mr --set mr.self=true --set load.mode=real "
                          "--set load.init=single:0,400 --set app.iterations=20 --set app.work_per_unit=1e4 --set output.final_load=true";
  const auto rounds = simulated("--set engine=sync " + app), des = simulated("--set engine=des " + app),
             mpi = on_ranks(4, "--set engine=mpi " + app);
  EXPECT_EQ(rounds["final_load"], des["final_load"]);  // bit for bit
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_NEAR(mpi["final_load"][i].get<double>(), des["final_load"][i].get<double>(), 1e-12 * 400) << i;
  for (const auto* r : {&rounds, &mpi}) {
    EXPECT_EQ((*r)["summary"]["stop_reason"], "finished");
    EXPECT_EQ((*r)["summary"]["initial_total"], des["summary"]["initial_total"]);
    EXPECT_NEAR((*r)["summary"]["final_total"].get<double>(), 400, 1e-9 * 400);
    EXPECT_NEAR((*r)["summary"]["load_moved"].get<double>(), des["summary"]["load_moved"].get<double>(), 1e-12 * 400);
  }
  for (const char* key : {"control_messages", "data_messages"})
    EXPECT_EQ(mpi["summary"][key], des["summary"][key]) << key;
  // A balancer out of the band where whole units cannot move (integer FOS, 10 units on 4 ranks
  // from one node): it ends "stalled" by itself, 10 s after its last movement by default.
  const auto stuck = on_ranks(4, "--set engine=mpi --set topology=ring:4 --set algorithm=fos --set load.mode=integer --set load.init=single:0,10");
  EXPECT_EQ(stuck["summary"]["stop_reason"], "stalled");
  EXPECT_EQ(stuck["summary"]["final_total"], 10);
  EXPECT_LT(stuck["summary"]["time"].get<double>(), 60);
  // Keys the MPI engine does not honour are refused by name.
  const Launch refused = mpirun(4, "--set topology=ring:4 --set des.separate_control=true");
  EXPECT_EQ(refused.status, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("'des.separate_control': is not honoured by engine = \"mpi\""), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("is not honoured"), refused.err.rfind("is not honoured")) << "an input error once, not once per rank: " << refused.err;
  // Too few ranks for the task run's cores: the key that sets them is named.
  const Launch cores = mpirun(4, "--set algorithm=ca --set tasks.init=cq:40");
  EXPECT_EQ(cores.status, 2) << cores.out << cores.err;
  EXPECT_NE(cores.err.find("key 'tasks.cores': gives 16 nodes and mpirun started 4 ranks"), std::string::npos) << cores.err;
#endif
}

}  // namespace
