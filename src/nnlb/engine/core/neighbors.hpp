#pragma once
// What a node knows of a neighbour when the run starts (Context::neighbors): the same set-up
// knowledge on every engine.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "nnlb/model/edge_coloring.hpp"
#include "nnlb/model/graph.hpp"
#include "nnlb/model/platform.hpp"
#include "nnlb/node/agent.hpp"
#include "nnlb/util/prefetch.hpp"

namespace nnlb {

// The neighbour over slot s: its id, degree and speed, the link's latency and bandwidth, and the
// edge's colour (`colors`: null when the program needs none).
inline NeighborInfo neighbor_info(const Graph& g, Slot s, const Platform& p, const EdgeColoring* colors) {
  const NodeId j = g.target(s);
  return {j, g.degree(j), p.node_speed(j), p.link_latency(s), p.link_bandwidth(s), colors ? static_cast<std::int32_t>(colors->slot_color[s]) : -1};
}

// Every node's neighbours as set-up knows them, on a graph that does not change: built for one
// node at a time, when asked, into the caller's scratch (no 40 bytes a port kept for the run),
// from the node's slots in order, not the neighbours' (on a graph whose degrees differ, each slot
// keeps its neighbour's degree: 4 bytes a slot instead of a miss a neighbour at scale).
class NeighborFacts {
 public:
  // `colors`: null when the program needs none; `initial`: what every node holds at the start.
  NeighborFacts(const Graph& g, const Platform& p, const EdgeColoring* colors, std::vector<double> initial)
      : g_(g), platform_(p), colors_(colors), initial_(std::move(initial)) {
    if (g.min_degree() != g.max_degree()) {
      degree_.resize(g.num_slots());
      for (Slot s = 0; s < g.num_slots(); ++s) degree_[s] = g.degree(g.target(s));
    }
  }
  // One loop over node i's slots, with the arrays it reads held in registers (a field the
  // platform gives one value for is read from its one place).
  std::span<const NeighborInfo> of(NodeId i, std::vector<NeighborInfo>& scratch) const {
    const Slot first = g_.first_slot(i), end = g_.end_slot(i);
    scratch.resize(end - first);
    NeighborInfo* out = scratch.data();
    const NodeId* to = g_.targets().data();
    const double *speed = platform_.speed.data(), *latency = platform_.latency.data(), *bandwidth = platform_.bandwidth.data();
    const std::size_t speed_stride = platform_.speed.size() == 1 ? 0 : 1, latency_stride = platform_.latency.size() == 1 ? 0 : 1,
                      bandwidth_stride = platform_.bandwidth.size() == 1 ? 0 : 1;
    const std::uint32_t* degree = degree_.empty() ? nullptr : degree_.data();
    const std::uint16_t* color = colors_ ? colors_->slot_color.data() : nullptr;
    const std::uint32_t regular = g_.max_degree();
    for (Slot s = first; s < end; ++s) {
      const NodeId j = to[s];
      out[s - first] = {j,
                        degree ? degree[s] : regular,
                        speed[j * speed_stride],
                        latency[s * latency_stride],
                        bandwidth[s * bandwidth_stride],
                        color ? static_cast<std::int32_t>(color[s]) : -1};
    }
    return scratch;
  }
  // Node i's port p's neighbour's load at the start (Context::initial_load).
  double initial_load(NodeId i, Port p) const { return initial_[g_.target(g_.first_slot(i) + p)]; }
  // Asks ahead for what of(i) reads beyond the graph's targets.
  void prefetch(NodeId i) const {
    if (!degree_.empty()) nnlb::prefetch(&degree_[g_.first_slot(i)]);
  }

 private:
  const Graph& g_;
  const Platform& platform_;
  const EdgeColoring* colors_;
  std::vector<double> initial_;
  std::vector<std::uint32_t> degree_;  // slot s's neighbour's, on a graph whose degrees differ
};

}  // namespace nnlb
