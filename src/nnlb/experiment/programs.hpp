#pragma once
// The node programs by name, beside the engines (engine/registry.hpp): the keys each reads, what
// it needs of an engine, and how it is built from a scenario. `agent` names one (auto: the
// engine's default program); an algorithm of its own kind brings its program (task scheduling,
// job strategies: PolicyEntry::program). Adding a program: its files and one register_program.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nnlb/experiment/run.hpp"
#include "nnlb/experiment/scenario.hpp"
#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/node/agent.hpp"
#include "nnlb/programs/async_balancer.hpp"

namespace nnlb {

// What a program is built from.
struct ProgramSetup {
  const Scenario& scenario;
  const PreparedRun& prepared;
  const EdgeColoring& coloring;
  const AsyncBalancerOptions& balancer;  // the async.* and message.* keys: sizes and periods every program uses
};

// Every member has a default, so that an entry written with designated initializers names only
// what it sets.
struct ProgramEntry {
  std::string name{};
  std::string summary{};
  std::string label{};  // a few words for tables: "asynchronous balancer"
  // Keys it reads itself on every engine that runs it (a name, or a family ending in '.'), and
  // those of the family it does not.
  std::vector<std::string> reads{};
  std::vector<std::string> except{};
  // Keys of an engine it reads where the engine that runs it honours them (async.*, message.*).
  std::vector<std::string> uses{};
  // Keys that mean nothing to it (the initial load of a job run, the band of a task run): refused.
  std::vector<std::string> ignores{};
  std::uint32_t needs = 0;         // Capability bits (engine/registry.hpp) an engine must provide
  bool needs_seconds = false;      // it needs an engine whose clock counts seconds
  bool application = false;        // it runs to its own end: a balanced state ends no run
  bool hears_churn = false;        // it hears of neighbours leaving and joining (churn.*)
  bool replays = false;            // it replays an application's load trace (load.trace)
  bool by_agent = true;            // `agent` names it (else its algorithm brings it)
  // Builds it; null for the programs the experiment layer runs itself (task and job runs, with
  // summaries of their own).
  std::function<std::unique_ptr<Program>(const ProgramSetup&)> make{};

  bool reads_key(std::string_view key) const;
  bool uses_key(std::string_view key) const;
  bool ignores_key(std::string_view key) const;
};

void register_program(ProgramEntry entry);
const std::vector<ProgramEntry>& programs();  // in registration order
const ProgramEntry* find_program(std::string_view name);
// Whether some program reads or uses `key` (it then belongs to the programs, not to an engine alone).
bool program_key(std::string_view key);
// Whether engine `e` runs program `p`: an engine of node programs with what `p` needs, the
// program of an engine's own loop, or an application it hands to the engine it runs node
// programs on (sync: the iterative application in lock-step rounds).
bool engine_runs(const EngineEntry& e, const ProgramEntry& p);
// The engines that run `p`, for messages ("des, mpi, simgrid").
std::string engines_running(const ProgramEntry& p);

}  // namespace nnlb
