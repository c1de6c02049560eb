#pragma once
// Engines built as plugins: a shared object that nnlb loads the first time a run needs it, so
// that a library only one engine uses (SimGrid and ns-3, about 31 MB and 20 ms in every process
// that links them) stays out of every other run. The plugin carries its own copy of the core
// and exports one C function; its entry points run in a child process (own_process.hpp) and
// hand back answers (own_process.hpp's answer(): the result's bytes, codec.hpp, or the error),
// so no exception and no global state crosses between the two copies.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/engine/registry.hpp"

namespace nnlb {

struct EnginePlugin {
  // The build it comes from: the host refuses a plugin of another build, whose records differ.
  const char* code_version = nullptr;
  std::size_t run_size = 0, result_size = 0, platform_size = 0;
  // In a child process, answers (own_process.hpp): the run's RunResult, and the platform file's
  // Platform (codec.hpp). A child that dies reading the file: what the file's error line says.
  std::string (*run)(const EngineRun& run) = nullptr;
  std::string (*read_platform)(const PlatformFile& file, const Graph& g) = nullptr;
  const char* died_reading_platform = nullptr;
  // In this process: the checks of a platform file made before it is read (an answer with no
  // bytes, or the error), and the hosts it declares for the memory estimate (0: cannot tell).
  std::string (*check_platform)(const std::string& path) = nullptr;
  double (*platform_hosts)(const std::string& path) = nullptr;
};

// The symbol a plugin exports: extern "C" const EnginePlugin* nnlb_engine_plugin().
inline constexpr const char* engine_plugin_symbol = "nnlb_engine_plugin";

// Attaches the engine `name`'s runner and platform reader from the first of `candidates` (paths
// of the plugin file) that exists; it is loaded when a run first needs it, and a plugin that
// cannot be loaded or is of another build is one line naming the file. Returns whether one exists.
bool attach_engine_plugin(std::string_view name, const std::vector<std::string>& candidates);

// Attaches the engine `name` from entry points linked into this program (the tests link the
// SimGrid engine): each run and each platform reading in a child process, as from a plugin file.
void attach_engine(std::string_view name, const EnginePlugin& plugin);

}  // namespace nnlb
