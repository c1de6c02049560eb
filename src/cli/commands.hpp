#pragma once
// Subcommands of the `nnlb` tool. Each registers its options on a CLI11 subcommand and returns
// the action to run once parsing succeeded.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "nnlb/experiment/scenario.hpp"

namespace nnlb::cli {

using Action = std::function<int()>;

// Options shared by the commands that take a scenario: the optional file and --set overrides.
struct ScenarioOptions {
  std::string file;
  std::vector<std::string> sets;
  void add_to(CLI::App& app);
  Scenario load() const;
};


// --threads N: worker threads (0, the default: all cores). Results never depend on it.
void add_threads_option(CLI::App& app, int& threads);

// An integer option in lo..hi; a refusal names both bounds as integers.
CLI::Validator integer_in(std::int64_t lo, std::int64_t hi);
// A seed: a whole number in 0..2^64-1 (a sign would wrap around, as --set seed refuses).
CLI::Validator seed_value();

// --max-memory SIZE: the memory a run may take (default: half of the machine's; util/memory.hpp).
void add_memory_option(CLI::App& app);

Action add_run(CLI::App& app);
Action add_analyze(CLI::App& app);
Action add_list(CLI::App& app);
Action add_reproduce(CLI::App& app);
Action add_report(CLI::App& app);
Action add_sweep(CLI::App& app);
Action add_plot(CLI::App& app);
Action add_tasks(CLI::App& app);

}  // namespace nnlb::cli
