#pragma once
// Where a run's nodes run: speeds and links from the platform.* keys, a preset of Jeannot &
// Vernier's networks, a platform file's lines, or a SimGrid XML platform.
#include <cstdint>
#include <filesystem>

#include "nnlb/experiment/scenario.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/model/platform.hpp"

namespace nnlb {

Platform make_platform(const Scenario& s, const Graph& g, std::uint64_t seed);

// platform.file as the run reads it (relative to the scenario's folder), or empty.
std::filesystem::path platform_file_path(const Scenario& s);

}  // namespace nnlb
