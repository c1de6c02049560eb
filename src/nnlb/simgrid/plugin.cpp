// The SimGrid engine as a plugin (engine/plugin.hpp): the shared object nnlb-simgrid.so, which
// nnlb and the Python module load when a run or a platform file first needs engine = "simgrid".
#include "nnlb/simgrid/simgrid_engine.hpp"

extern "C" __attribute__((visibility("default"))) const nnlb::EnginePlugin* nnlb_engine_plugin() {
  return &nnlb::simgrid_engine_plugin();
}
