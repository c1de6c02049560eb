#pragma once
// Where a run's nodes run: speeds and links from the platform.* keys, a preset of Jeannot &
// Vernier's networks, a platform file's lines, or a SimGrid XML platform.
#include <cstdint>

#include "nnlb/experiment/scenario.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/model/platform.hpp"

namespace nnlb {

Platform make_platform(const Scenario& s, const Graph& g, std::uint64_t seed);

}  // namespace nnlb
