#pragma once
// What a node knows of a neighbour when the run starts (Context::neighbors): the same set-up
// knowledge on every engine.
#include <cstdint>

#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/node/agent.hpp"

namespace nnlb {

// The neighbour over slot s: its id, degree and speed, the link's latency and bandwidth, the
// edge's colour (`colors`: null when the program needs none) and the load it holds (`held`).
inline NeighborInfo neighbor_info(const Graph& g, Slot s, const Platform& p, const EdgeColoring* colors, double held) {
  const NodeId j = g.target(s);
  return {j, g.degree(j), p.node_speed(j), p.link_latency(s), p.link_bandwidth(s),
          colors ? static_cast<std::int32_t>(colors->slot_color[s]) : -1, held};
}

}  // namespace nnlb
