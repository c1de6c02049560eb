#include "commands.hpp"

#include <filesystem>

#include "nnlb/util/error.hpp"

namespace nnlb::cli {

void ScenarioOptions::add_to(CLI::App& app) {
  app.add_option("scenario", file, "scenario TOML file (optional: --set alone runs on defaults)");
  app.add_option("--set", sets, "override a scenario key, KEY=VALUE (repeatable)")->take_all();
}

Scenario ScenarioOptions::load() const {
  if (std::filesystem::is_directory(file)) throw InputError(file, {}, "is a folder, not a scenario file");
  Scenario s = file.empty() ? Scenario() : Scenario::from_file(file);
  for (const auto& a : sets) s.set_from_text(a, "--set " + a.substr(0, a.find('=')));
  return s;
}

void add_threads_option(CLI::App& app, int& threads) {
  app.add_option("--threads", threads, "worker threads (default: all cores; results do not depend on it)")->check(CLI::NonNegativeNumber);
}

}  // namespace nnlb::cli
