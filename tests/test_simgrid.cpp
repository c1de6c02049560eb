// engine = "simgrid" (issue 28): the node programs des runs, on SimGrid, through the same engine
// core: convergence and conservation, one simulation per process, faults caught by the recount.
// Skipped with a message where nnlb was built without SimGrid.
#include <gtest/gtest.h>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/programs/async_balancer.hpp"
#ifdef NNLB_HAVE_SIMGRID
#include "nnlb/simgrid/simgrid_engine.hpp"
#endif
#include "support.hpp"

namespace nnlb {
namespace {

#ifdef NNLB_HAVE_SIMGRID
// The CLI attaches the runner in main(); this program does it before any test runs, so the
// conformance tests run simgrid too.
const bool attached = (attach_runner("simgrid", run_simgrid), true);
#endif

#define REQUIRE_SIMGRID()                                                                      \
  if (!find_engine("simgrid")->run)                                                           \
  GTEST_SKIP() << "nnlb was built without SimGrid (libsimgrid-dev): the simgrid tests do not run"

TEST(Simgrid, WithoutSimGridTheEngineIsNamedUnavailable) {
  const EngineEntry* e = find_engine("simgrid");
  ASSERT_NE(e, nullptr);
  if (e->run) GTEST_SKIP() << "built with SimGrid";
  EXPECT_TRUE(test::refused({"engine=simgrid", "topology=line:4"}, "engine = \"simgrid\" is not available"));
}

TEST(Simgrid, EachPolicyConvergesAndConservesOnEachTopology) {
  REQUIRE_SIMGRID();
  for (const char* topology : {"line:16", "torus:4x4", "hypercube:4"})
    for (const char* algorithm : {"best-effort", "bertsekas-tsitsiklis", "fos"}) {
      SCOPED_TRACE(std::string(topology) + " " + algorithm);
      const RunRecord r = test::run_sets({"engine=simgrid", std::string("topology=") + topology, std::string("algorithm=") + algorithm,
                                          "load.init=uniform:0,2000", "stop.time=100"});
      const RunSummary& s = r.result.summary;
      EXPECT_EQ(s.stop_reason, StopReason::balanced);
      EXPECT_TRUE(s.balanced);
      EXPECT_NEAR(s.final_total, s.initial_total, 1e-9 * s.initial_total);
      EXPECT_LE(s.max_conservation_error, 1e-12);
      EXPECT_GT(s.timing->data_messages, 0u);
      EXPECT_EQ(r.result.engine_info.at("network/model"), "CM02");
      EXPECT_EQ(r.result.engine_info.at("simgrid_version").substr(0, 5), "3.32.");
    }
}

TEST(Simgrid, TwoRunsInARowBothStartAtZeroAndAgree) {
  REQUIRE_SIMGRID();
  // A second s4u::Engine in one process would carry on from the first one's clock.
  const std::vector<std::string> sets = {"engine=simgrid", "topology=torus:4x4", "algorithm=best-effort", "load.init=single:0,1600"};
  const RunRecord a = test::run_sets(sets), b = test::run_sets(sets);
  for (const RunRecord* r : {&a, &b}) {
    ASSERT_FALSE(r->result.series.empty());
    EXPECT_EQ(r->result.series.front().time, 0.0);
  }
  EXPECT_EQ(a.result.summary.timing->time, b.result.summary.timing->time);
  EXPECT_EQ(a.result.summary.timing->max_convergence_time, b.result.summary.timing->max_convergence_time);
  EXPECT_EQ(a.result.series.size(), b.result.series.size());
}

TEST(Simgrid, LostDuplicatedAndAlteredMessagesAreCaughtByTheRecount) {
  REQUIRE_SIMGRID();
  const Topology t = make_topology("torus:4x4", 1);
  PolicySpec spec;
  spec.algorithm = "best-effort";
  const BuiltPolicy built = make_policy(spec, t);
  const AsyncBalancer program(*built.policy, {});
  const InitialState init{make_initial_load("random-total:16000", 16, LoadMode::real, 3), {}};
  const Platform platform{{1e9}, {5e-5}, {1.25e8}};
  for (int fault = 0; fault < 4; ++fault) {
    SCOPED_TRACE(fault);
    EngineRun r{t, program, LoadMode::real, init, platform};
    r.time_limit = 1;
    if (fault < 3) (fault == 0 ? r.faults.drop_every : fault == 1 ? r.faults.duplicate_every : r.faults.corrupt_every) = 7;
    if (fault < 3) EXPECT_THROW(find_engine("simgrid")->run(r), ConservationError);
    else EXPECT_NO_THROW(find_engine("simgrid")->run(r));
  }
}

}  // namespace
}  // namespace nnlb
