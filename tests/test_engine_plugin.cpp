// Engines as plugins (engine/plugin.hpp): the SimGrid engine loaded from nnlb-simgrid.so gives the
// record the linked engine gives, its errors come back as the kinds they were, and a file that is
// not a plugin of this build is one line at the first run that needs it. nnlb itself does not
// link SimGrid.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/plugin.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/model/load.hpp"
#include "nnlb/programs/async_balancer.hpp"
#ifdef NNLB_HAVE_SIMGRID
#include "nnlb/simgrid/simgrid_engine.hpp"
#endif
#include "support.hpp"

namespace nnlb {
namespace {

// An engine entry of the tests' own for a plugin to attach to.
const char* probe_engine(const char* name) {
  if (find_engine(name) == nullptr) register_engine({.name = name, .summary = "a plugin under test", .default_program = "async"});
  return name;
}

std::string run_error(const char* engine) {
  const Topology t = make_topology("ring:4", 1);
  const AsyncBalancer program(*make_policy(PolicySpec{}, t).policy, {});
  const InitialState init{make_initial_load("uniform:0,100", 4, LoadMode::real, 1), {}};
  const Platform platform{{1e9}, {5e-5}, {1.25e8}};
  try {
    find_engine(engine)->run(EngineRun{t, program, LoadMode::real, init, platform});
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(EnginePlugin, NoCandidateFileAttachesNothing) {
  EXPECT_FALSE(attach_engine_plugin(probe_engine("probe-none"), {"", "/nonexistent/nnlb-x.so", NNLB_TEST_DATA}));
  EXPECT_FALSE(find_engine("probe-none")->run);
}

TEST(EnginePlugin, AFileThatIsNoSharedObjectIsOneLineAtItsFirstRun) {
  const std::string text = std::string(NNLB_TEST_DATA) + "/simgrid/missing-host.txt";
  ASSERT_TRUE(attach_engine_plugin(probe_engine("probe-text"), {"/nonexistent/nnlb-x.so", text}));
  const std::string line = run_error("probe-text");
  EXPECT_NE(line.find("engine probe-text: cannot load its plugin: " + text), std::string::npos) << line;
}

TEST(EnginePlugin, APluginOfAnotherBuildIsRefused) {
  ASSERT_TRUE(attach_engine_plugin(probe_engine("probe-other"), {NNLB_OTHER_BUILD_PLUGIN}));
  const std::string line = run_error("probe-other");
  EXPECT_NE(line.find("is from another build of nnlb (0.0.0-other"), std::string::npos) << line;
}

TEST(EnginePlugin, TheNnlbCommandDoesNotLinkSimGrid) {
  std::ifstream in(NNLB_BINARY, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  ASSERT_GT(bytes.size(), 100000u);
  EXPECT_EQ(bytes.find("libsimgrid.so"), std::string::npos);  // a DT_NEEDED entry names it
  EXPECT_EQ(bytes.find("libns3"), std::string::npos);
}

#ifdef NNLB_HAVE_SIMGRID
// The engine "simgrid" through the plugin for one scope, then linked again (as this program has it).
struct ThroughThePlugin {
  ThroughThePlugin() { EXPECT_TRUE(attach_engine_plugin("simgrid", {NNLB_SIMGRID_PLUGIN})); }
  ~ThroughThePlugin() { attach_engine("simgrid", simgrid_engine_plugin()); }
};

nlohmann::json record(const std::vector<std::string>& sets) {
  nlohmann::json r = to_json(test::run_sets(sets));
  r.erase("timing");  // wall-clock seconds
  return r;
}

TEST(EnginePlugin, TheSimgridPluginGivesTheLinkedEnginesRecord) {
  const std::vector<std::string> logical = {"engine=simgrid", "topology=torus:4x4", "algorithm=best-effort", "load.init=uniform:0,1600"};
  const std::vector<std::string> file = {"engine=simgrid", "topology=line:2", "algorithm=fos", "load.init=single:0,100",
                                         "platform.file=" + std::string(NNLB_TEST_DATA) + "/simgrid/two-hosts.xml"};
  const nlohmann::json linked_logical = record(logical), linked_file = record(file);
  const ThroughThePlugin plugin;
  EXPECT_EQ(record(logical), linked_logical);
  EXPECT_EQ(record(file), linked_file);
  std::ifstream maps("/proc/self/maps");
  const std::string mapped{std::istreambuf_iterator<char>(maps), {}};
  EXPECT_NE(mapped.find(std::filesystem::path(NNLB_SIMGRID_PLUGIN).filename().string()), std::string::npos);  // loaded, and used
}

TEST(EnginePlugin, TheSimgridPluginsErrorsComeBackAsTheirKinds) {
  const ThroughThePlugin plugin;
  EXPECT_TRUE(test::refused({"engine=simgrid", "topology=line:4", "platform.file=/nonexistent/p.xml"}, "platform.file"));
  EXPECT_TRUE(test::refused({"engine=simgrid", "topology=line:4", "platform.file=" + std::string(NNLB_TEST_DATA) + "/simgrid/malformed.xml"},
                            "not a SimGrid platform"));
}
#endif

}  // namespace
}  // namespace nnlb
