// Balances 800 units on one node of a 16-node ring with first-order diffusion (alpha 1/3) and
// prints the rounds it took to reach a spread of 1 and the total load at the end.
#include <cstdio>
#include <vector>

#include "nnlb/engine/sync/sync_engine.hpp"
#include "nnlb/model/topology.hpp"
#include "nnlb/policy/diffusion.hpp"

int main() {
  const nnlb::Topology ring = nnlb::make_topology("ring:16", 1);
  std::vector<double> load(ring.graph.num_nodes(), 0.0);
  load[0] = 800;
  nnlb::SyncOptions options;
  options.stop.spread = 1.0;
  const nnlb::Diffusion fos(nnlb::LinearForm{.alpha = 1.0 / 3.0});
  const nnlb::Platform platform{{1.0}, {0.0}, {1.0}};
  const nnlb::RunResult r = nnlb::run_sync(ring, fos, nullptr, nnlb::LoadMode::real, load, platform, options);
  std::printf("nodes %u rounds %llu total %.1f\n", static_cast<unsigned>(ring.graph.num_nodes()),
              static_cast<unsigned long long>(r.summary.rounds), r.summary.final_total);
  return r.summary.balanced ? 0 : 1;
}
