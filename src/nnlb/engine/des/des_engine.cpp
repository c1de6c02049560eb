#include "nnlb/engine/des/des_engine.hpp"

#include <stdexcept>

#include "nnlb/engine/des/des_run.hpp"

namespace nnlb {

RunResult run_des(const Topology& topo, const Program& program, LoadMode mode, const InitialState& initial,
                  const Platform& platform, const DesOptions& options, const EdgeColoring* coloring,
                  const std::vector<GraphChange>& changes) {
  if (!(options.sample_period > 0)) throw std::logic_error("des sample period must be > 0");
  return des::DesRun(topo, program, mode, initial, platform, options, coloring, changes).run();
}

}  // namespace nnlb
