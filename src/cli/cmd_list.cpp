#include <fmt/format.h>

#include "commands.hpp"
#include "nnlb/catalog/registry.hpp"
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
    fmt::print("\nScenario keys (TOML tables or --set KEY=VALUE):\n");
    for (const auto& k : scenario_keys()) {
      std::string def = k.default_value.is_null() ? "unset" : k.default_value.dump();
      std::string choices;
      for (const auto& c : k.choices) choices += (choices.empty() ? " [" : "|") + c;
      if (!choices.empty()) choices += "]";
      fmt::print("  {:<28} {:<16} {}{}\n", k.name, def, k.doc, choices);
    }
    return 0;
  };
}

}  // namespace nnlb::cli
