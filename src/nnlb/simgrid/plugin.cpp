// The SimGrid engine as a plugin (engine/plugin.hpp): the shared object nnlb-simgrid.so, which
// nnlb and the Python module load when a run or a platform file first needs engine = "simgrid".
#include "nnlb/engine/codec.hpp"
#include "nnlb/engine/own_process.hpp"
#include "nnlb/engine/plugin.hpp"
#include "nnlb/simgrid/platform_file.hpp"
#include "nnlb/simgrid/simgrid_engine.hpp"
#include "nnlb/version.hpp"

extern "C" __attribute__((visibility("default"))) const nnlb::EnginePlugin* nnlb_engine_plugin() {
  using namespace nnlb;
  static const EnginePlugin plugin{
      .code_version = code_version,
      .run_size = sizeof(EngineRun),
      .result_size = sizeof(RunResult),
      .platform_size = sizeof(Platform),
      .run = [](const EngineRun& r) { return answer([&] { return encode(run_simgrid_here(r)); }); },
      .read_platform = [](const PlatformFile& f, const Graph& g) { return answer([&] { return encode(read_simgrid_platform_here(f, g)); }); },
      .died_reading_platform = simgrid_died_reading,
      .check_platform = [](const std::string& path) { return answer([&] { return check_simgrid_platform(path), std::string(); }); },
      .platform_hosts = simgrid_platform_hosts,
  };
  return &plugin;
}
