#include <fmt/format.h>

#include "commands.hpp"

namespace nnlb::cli {

Action add_analyze(CLI::App& app) {
  auto o = std::make_shared<ScenarioOptions>();
  o->add_to(app);
  return [o] {
    fmt::print("analyze: not wired yet\n");
    return 1;
  };
}

}  // namespace nnlb::cli
