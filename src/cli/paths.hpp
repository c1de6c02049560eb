#pragma once
// Folders that several subcommands look in.
#include <filesystem>

namespace nnlb::cli {

// Scenario folder: $NNLB_SCENARIOS, else ./scenarios, else the source tree's.
std::filesystem::path scenarios_dir();

}  // namespace nnlb::cli
