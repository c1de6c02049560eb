#include "paths.hpp"

#include <cstdlib>

namespace nnlb::cli {

std::filesystem::path scenarios_dir() {
  if (const char* env = std::getenv("NNLB_SCENARIOS")) return env;
  if (std::filesystem::is_directory("scenarios")) return "scenarios";
  return std::filesystem::path(NNLB_SOURCE_DIR) / "scenarios";
}

}  // namespace nnlb::cli
