// The agent layer's contract (tests/contract.hpp) and the conformance tests of every Context
// operation (test_conformance.cpp, built in here for engine "mpi") on the MPI engine. This program
// runs under mpirun with as many ranks as the largest contract graph has nodes; each case runs on
// the first n ranks of the world (a communicator of its own), the others wait for the next case,
// and rank 0 checks the record. Real time makes message races, so the contract's same-seed clause
// is left to the simulated engines.
#include <mpi.h>

#include <gtest/gtest.h>

#include <optional>

#include "contract.hpp"
#include "support.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/experiment/p2p_run.hpp"
#include "nnlb/experiment/task_run.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/runtime/mpi_engine.hpp"

namespace nnlb {
namespace {

const Platform platform{{1e9}, {5e-5}, {1.25e8}};

// A run on the first n ranks of the world, n the run's nodes; the other ranks' result is not
// reported.
RunResult run_on_first_ranks(const EngineRun& r) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank < static_cast<int>(r.topology.graph.num_nodes()) ? 0 : MPI_UNDEFINED, rank, &comm);
  if (comm == MPI_COMM_NULL) {
    RunResult elsewhere;
    elsewhere.reported = false;
    return elsewhere;
  }
  RunResult out = run_mpi(r, comm);
  MPI_Comm_free(&comm);
  return out;
}

struct MpiEngine {
  static constexpr const char* name = "mpi";
  static constexpr bool deterministic = false;
  static std::optional<RunResult> run_balanced(const Topology& t, const Program& p, LoadMode mode, const InitialState& init,
                                               const EdgeColoring* coloring) {
    EngineRun r{t, p, mode, init, platform};
    r.time_limit = 60;
    r.stop_when_balanced = true;
    r.coloring = coloring;
    r.record_final_load = true;
    const RunResult out = run_on_first_ranks(r);
    if (!out.reported) return std::nullopt;
    return out;
  }
};

TEST(MpiEngine, ContractConservesAndConverges) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const std::string& spec : test::contract_topologies())
    ASSERT_GE(size, static_cast<int>(test::contract_topology(spec).graph.num_nodes())) << "run with more ranks: " << spec;
  test::check_contract<MpiEngine>();
}

TEST(MpiEngine, EveryAlgorithmRunsOrIsRefusedInOneLaunch) {
  // Every algorithm of `nnlb list` on engine "mpi", one after another in this one mpirun: each
  // runs to its end or is refused by name (an InputError on every rank alike); no rank hangs
  // or dies (the test's time limit would catch the first, mpirun the second).
  std::size_t ran = 0, refused = 0;
  for (const PolicyEntry& policy : policy_catalog().entries()) {
    std::vector<std::string> sets = {"engine=mpi", "algorithm=" + policy.name, "topology=ring:4", "stop.time=5"};
    if (is_job_strategy(policy.name)) sets.push_back("guest.graph=ring:12");
    if (is_task_algorithm(policy.name)) sets.insert(sets.end(), {"tasks.cores=4", "tasks.init=uniform:20,1,2", "mpi.work_scale=0.001"});
    if (policy.name == "mr") sets.push_back("mr.self=true");
    SCOPED_TRACE(policy.name);
    try {
      const RunRecord r = test::run_sets(sets);
      if (r.result.reported) {
        EXPECT_LT(r.result.summary.max_conservation_error, 1e-9);
      }
      ++ran;
    } catch (const InputError& e) {
      EXPECT_FALSE(e.line().empty());
      ++refused;
    }
  }
  EXPECT_GT(ran, 10u);
  EXPECT_GT(refused, 0u);  // the synchronous-only choices (odf, ode on a ring, ...) at least
}

}  // namespace
}  // namespace nnlb

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  nnlb::attach_runner("mpi", nnlb::run_on_first_ranks);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) ::testing::GTEST_FLAG(brief) = true;  // the other ranks print their failures only
  int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
