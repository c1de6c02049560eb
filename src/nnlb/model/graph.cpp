#include "nnlb/model/graph.hpp"

#include <algorithm>
#include <limits>

#include "nnlb/util/error.hpp"

namespace nnlb {

Graph Graph::from_edges(NodeId nodes, std::vector<std::pair<NodeId, NodeId>> edges) {
  for (auto& [a, b] : edges) {
    if (a >= nodes || b >= nodes)
      throw InputError("edge (" + std::to_string(a) + ", " + std::to_string(b) + ") names a node outside 0.." +
                       std::to_string(nodes ? nodes - 1 : 0));
    if (a == b) throw InputError("self loop on node " + std::to_string(a));
    if (a > b) std::swap(a, b);
  }
  std::sort(edges.begin(), edges.end());
  if (auto dup = std::adjacent_find(edges.begin(), edges.end()); dup != edges.end())
    throw InputError("duplicate edge (" + std::to_string(dup->first) + ", " + std::to_string(dup->second) + ")");

  Graph g;
  g.offsets_.assign(static_cast<std::size_t>(nodes) + 1, 0);
  for (const auto& [a, b] : edges) {
    ++g.offsets_[a + 1];
    ++g.offsets_[b + 1];
  }
  for (std::size_t i = 1; i < g.offsets_.size(); ++i) g.offsets_[i] += g.offsets_[i - 1];
  g.targets_.resize(2 * edges.size());
  g.peer_port_.resize(2 * edges.size());
  std::vector<Slot> fill(g.offsets_.begin(), g.offsets_.end() - 1);
  // Edges are sorted by (low, high): filling in this order leaves every adjacency list sorted.
  for (const auto& [a, b] : edges) g.targets_[fill[a]++] = b;
  for (const auto& [a, b] : edges) g.targets_[fill[b]++] = a;
  for (NodeId i = 0; i < nodes; ++i) std::sort(g.targets_.begin() + g.offsets_[i], g.targets_.begin() + g.offsets_[i + 1]);
  for (NodeId i = 0; i < nodes; ++i) {
    for (Slot s = g.offsets_[i]; s < g.offsets_[i + 1]; ++s) {
      const NodeId j = g.targets_[s];
      if (j < i) continue;
      const auto* begin = g.targets_.data() + g.offsets_[j];
      const auto* end = g.targets_.data() + g.offsets_[j + 1];
      const auto t = static_cast<std::uint32_t>(std::lower_bound(begin, end, i) - begin);
      g.peer_port_[s] = t;
      g.peer_port_[g.offsets_[j] + t] = static_cast<std::uint32_t>(s - g.offsets_[i]);
    }
  }
  g.max_degree_ = 0;
  g.min_degree_ = nodes ? std::numeric_limits<std::uint32_t>::max() : 0;
  for (NodeId i = 0; i < nodes; ++i) {
    g.max_degree_ = std::max(g.max_degree_, g.degree(i));
    g.min_degree_ = std::min(g.min_degree_, g.degree(i));
  }
  return g;
}

std::vector<std::uint32_t> Graph::distances_from(NodeId source) const {
  constexpr auto unseen = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> dist(num_nodes(), unseen);
  std::vector<NodeId> frontier{source};
  dist[source] = 0;
  for (std::size_t head = 0; head < frontier.size(); ++head) {
    const NodeId i = frontier[head];
    for (NodeId j : neighbors(i))
      if (dist[j] == unseen) {
        dist[j] = dist[i] + 1;
        frontier.push_back(j);
      }
  }
  return dist;
}

bool Graph::is_connected() const {
  if (num_nodes() == 0) return false;
  const auto dist = distances_from(0);
  return std::none_of(dist.begin(), dist.end(), [](auto d) { return d == std::numeric_limits<std::uint32_t>::max(); });
}

bool Graph::is_bipartite() const {
  std::vector<std::int8_t> side(num_nodes(), -1);
  std::vector<NodeId> stack;
  for (NodeId root = 0; root < num_nodes(); ++root) {
    if (side[root] >= 0) continue;
    side[root] = 0;
    stack.push_back(root);
    while (!stack.empty()) {
      const NodeId i = stack.back();
      stack.pop_back();
      for (NodeId j : neighbors(i)) {
        if (side[j] < 0) {
          side[j] = static_cast<std::int8_t>(1 - side[i]);
          stack.push_back(j);
        } else if (side[j] == side[i]) {
          return false;
        }
      }
    }
  }
  return true;
}

std::size_t Graph::memory_bytes() const {
  return offsets_.size() * sizeof(Slot) + targets_.size() * sizeof(NodeId) + peer_port_.size() * sizeof(std::uint32_t);
}

}  // namespace nnlb
