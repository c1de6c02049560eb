// Best effort (k = 1) as the asynchronous balancer on a ring of as many nodes as ranks, 100 units
// a node on rank 0 at the start; rank 0 prints whether the run balanced and the total at the end.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "nnlb/model/topology.hpp"
#include "nnlb/policy/best_effort.hpp"
#include "nnlb/programs/async_balancer.hpp"
#include "nnlb/runtime/mpi_engine.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int ranks = nnlb::mpi_size();
  const nnlb::Topology ring = nnlb::make_topology("ring:" + std::to_string(ranks), 1);
  nnlb::InitialState initial{std::vector<double>(ranks, 0.0), {}};
  initial.load[0] = 100.0 * ranks;
  const nnlb::BestEffort policy(1.0);
  const nnlb::AsyncBalancer program(policy, {});
  const nnlb::Platform platform{{1e9}, {5e-5}, {1.25e8}};
  nnlb::EngineRun run{ring, program, nnlb::LoadMode::real, initial, platform};
  run.time_limit = 60;
  run.stop_when_balanced = true;
  const nnlb::RunResult r = nnlb::run_mpi(run);
  if (r.reported) std::printf("balanced %d total %.1f\n", r.summary.balanced ? 1 : 0, r.summary.final_total);
  MPI_Finalize();
  return 0;
}
