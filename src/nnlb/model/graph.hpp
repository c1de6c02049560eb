#pragma once
// Immutable undirected graph in compressed sparse row form. Each undirected edge {i, j} is stored
// as two directed slots, i->j and j->i; reverse(s) maps a slot to its twin, so per-edge state can
// live in per-slot arrays owned by the slot's source node (as it would on a real machine). A slot
// keeps its twin's rank among the target's slots (4 bytes, the target's port of the link), not
// the twin itself (8): at a million nodes the CSR is a large part of an engine's memory.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace nnlb {

using NodeId = std::uint32_t;
using Slot = std::uint64_t;

class Graph {
 public:
  Graph() = default;
  // Builds from an undirected edge list; self loops and duplicate edges are refused.
  static Graph from_edges(NodeId nodes, std::vector<std::pair<NodeId, NodeId>> edges);

  NodeId num_nodes() const { return static_cast<NodeId>(offsets_.empty() ? 0 : offsets_.size() - 1); }
  std::uint64_t num_edges() const { return targets_.size() / 2; }
  std::uint64_t num_slots() const { return targets_.size(); }

  std::uint32_t degree(NodeId i) const { return static_cast<std::uint32_t>(offsets_[i + 1] - offsets_[i]); }
  std::uint32_t max_degree() const { return max_degree_; }
  std::uint32_t min_degree() const { return min_degree_; }

  Slot first_slot(NodeId i) const { return offsets_[i]; }
  Slot end_slot(NodeId i) const { return offsets_[i + 1]; }
  NodeId target(Slot s) const { return targets_[s]; }
  // The target's port of the link: the twin's rank among the target's slots.
  std::uint32_t peer_port(Slot s) const { return peer_port_[s]; }
  Slot reverse(Slot s) const { return offsets_[targets_[s]] + peer_port_[s]; }
  std::span<const NodeId> neighbors(NodeId i) const {
    return {targets_.data() + offsets_[i], targets_.data() + offsets_[i + 1]};
  }

  std::span<const Slot> offsets() const { return offsets_; }
  std::span<const NodeId> targets() const { return targets_; }
  std::span<const std::uint32_t> peer_ports() const { return peer_port_; }

  bool is_connected() const;
  bool is_bipartite() const;
  // Hop distances from `source` (breadth-first search).
  std::vector<std::uint32_t> distances_from(NodeId source) const;

  // Bytes held by the CSR arrays (for the memory figures of the benchmarks).
  std::size_t memory_bytes() const;

 private:
  std::vector<Slot> offsets_;
  std::vector<NodeId> targets_;
  std::vector<std::uint32_t> peer_port_;
  std::uint32_t max_degree_ = 0;
  std::uint32_t min_degree_ = 0;
};

}  // namespace nnlb
