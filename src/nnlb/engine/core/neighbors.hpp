#pragma once
// What a node knows of a neighbour when the run starts (Context::neighbors): the same set-up
// knowledge on every engine.
#include <cstdint>

#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/node/agent.hpp"

namespace nnlb {

// The neighbour over slot s: its id, degree (`degree`, if the caller has it at hand) and speed,
// the link's latency and bandwidth, the edge's colour (`colors`: null when the program needs
// none) and the load it holds (`held`).
inline NeighborInfo neighbor_info(const Graph& g, Slot s, const Platform& p, const EdgeColoring* colors, double held,
                                  std::uint32_t degree) {
  const NodeId j = g.target(s);
  return {j, degree, p.node_speed(j), p.link_latency(s), p.link_bandwidth(s), colors ? static_cast<std::int32_t>(colors->slot_color[s]) : -1,
          held};
}
inline NeighborInfo neighbor_info(const Graph& g, Slot s, const Platform& p, const EdgeColoring* colors, double held) {
  return neighbor_info(g, s, p, colors, held, g.degree(g.target(s)));
}

}  // namespace nnlb
