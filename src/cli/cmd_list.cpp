#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "nnlb/catalog/registry.hpp"
#include "nnlb/engine/registry.hpp"
#include "nnlb/experiment/programs.hpp"
#include "nnlb/model/topology.hpp"

namespace nnlb::cli {

Action add_list(CLI::App&) {
  return [] {
    fmt::print("Topologies (topology = \"...\"):\n");
    for (const auto& [spec, doc] : topology_catalog()) fmt::print("  {:<22} {}\n", spec, doc);
    fmt::print("\nPolicies (algorithm = \"...\"):\n");
    for (const auto& p : policy_catalog().entries()) {
      fmt::print("  {:<6} {}\n", p.name, p.summary);
      for (const auto& param : p.help) fmt::print("         {}\n", param);
    }
    fmt::print("\nEngines (engine = \"...\"):\n");
    constexpr const char* time_names[] = {"rounds", "simulated seconds", "wall-clock seconds", "time units"};
    for (const EngineEntry& e : engines()) {
      fmt::print("  {:<6} {}\n", e.name, e.summary);
      std::string keys;
      for (const std::string& k : e.honours) keys += (keys.empty() ? "" : ", ") + k + (k.ends_with('.') ? "*" : "");
      for (const std::string& k : e.except) keys += ", not " + k;
      fmt::print("         time: {}{}; its own keys: {}\n", time_names[static_cast<int>(e.time)],
                 e.default_time_limit > 0 ? fmt::format(", stop.time default {:g} s", e.default_time_limit) : "", keys);
      if (!e.programs_on.empty()) fmt::print("         node programs run on: {}\n", e.programs_on);
      if (!e.ignores.empty()) fmt::print("         refuses, as meaning nothing here: {}\n", fmt::join(e.ignores, ", "));
    }
    fmt::print("\nNode programs (chosen by agent and algorithm):\n");
    for (const ProgramEntry& p : programs()) {
      std::string keys;
      for (const auto* list : {&p.reads, &p.uses})
        for (const std::string& k : *list) keys += (keys.empty() ? "" : ", ") + k + (k.ends_with('.') ? "*" : "");
      fmt::print("  {:<9} {}\n            reads: {}; runs on: {}\n", p.name, p.summary, keys, engines_running(p));
    }
    fmt::print("\nScenario keys (TOML tables or --set KEY=VALUE):\n");
    for (const auto& k : scenario_keys()) {
      std::string def = k.default_value.is_null() ? "unset" : k.default_value.dump();
      std::string choices;
      for (const auto& c : k.choices) choices += (choices.empty() ? " [" : "|") + c;
      if (!choices.empty()) choices += "]";
      std::string aliases;
      for (const auto& a : k.aliases) aliases += (aliases.empty() ? " (alias: " : ", ") + a;
      if (!aliases.empty()) aliases += ")";
      fmt::print("  {:<28} {:<16} {}{}{}\n", k.name, def, k.doc, choices, aliases);
    }
    return 0;
  };
}

}  // namespace nnlb::cli
