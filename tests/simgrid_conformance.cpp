// The conformance tests (test_conformance.cpp) on engine = "simgrid" with the nodes in this
// process, so that what they observed is checked too (a run in a child process, as every simgrid
// run is elsewhere, returns only its record). SimGrid allows one simulation per process: ctest
// runs each test in a process of its own, its first run here and any later one in a child.
// `--sharing` runs them under simgrid.network = "sharing" (small messages overtake large ones on
// the wire; the engine must still deliver them in order).
#include <gtest/gtest.h>

#include <string>

#include "nnlb/engine/registry.hpp"
#include "nnlb/simgrid/simgrid_engine.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::string network = argc > 1 && std::string(argv[1]) == "--sharing" ? "sharing" : "serial";
  nnlb::attach_engine("simgrid", nnlb::simgrid_engine_plugin());
  nnlb::attach_runner("simgrid", [first = true, network, in_child = nnlb::find_engine("simgrid")->run](const nnlb::EngineRun& r) mutable {
    nnlb::EngineRun run = r;
    run.simgrid.network = network;
    if (!first) return in_child(run);
    first = false;
    return nnlb::run_simgrid_here(run);
  });
  return RUN_ALL_TESTS();
}
