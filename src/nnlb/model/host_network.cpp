#include "nnlb/model/host_network.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace nnlb {

namespace {

// max(1, floor(log2 |H|)): the links of an entering host (Douglas & Harwood sec. 3.1).
std::uint32_t join_links(std::uint32_t hosts) { return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::bit_width(hosts)) - 1); }

}  // namespace

HostNetwork::HostNetwork(const Graph& initial)
    : adjacency_(initial.num_nodes()), alive_(initial.num_nodes(), true), live_(initial.num_nodes()) {
  for (NodeId h = 0; h < initial.num_nodes(); ++h) {
    const auto nb = initial.neighbors(h);
    adjacency_[h].assign(nb.begin(), nb.end());
  }
}

std::vector<NodeId> HostNetwork::live_hosts() const {
  std::vector<NodeId> out;
  out.reserve(live_);
  for (NodeId h = 0; h < slots(); ++h)
    if (alive_[h]) out.push_back(h);
  return out;
}

NodeId HostNetwork::random_host(Rng& rng, NodeId except) const {
  const bool skip = except < slots() && alive_[except] && live_ > 1;
  // Rejection on the slots: the live share stays high (hosts leave and enter in pairs).
  while (true) {
    const auto h = static_cast<NodeId>(rng.below(slots()));
    if (alive_[h] && !(skip && h == except)) return h;
  }
}

std::vector<NodeId> HostNetwork::leave(NodeId h) {
  std::vector<NodeId> former = std::move(adjacency_[h]);
  adjacency_[h].clear();
  for (NodeId j : former) std::erase(adjacency_[j], h);
  alive_[h] = false;
  --live_;
  return former;
}

NodeId HostNetwork::enter(Rng& rng) {
  const auto free = std::find(alive_.begin(), alive_.end(), false);
  const auto h = static_cast<NodeId>(free - alive_.begin());
  if (free == alive_.end()) adjacency_.emplace_back(), alive_.push_back(false);
  // max(1, floor(log2 |H|)) distinct live hosts (Douglas & Harwood sec. 3.1), at most all of them.
  const std::uint32_t k = std::min<std::uint32_t>(live_, join_links(live_));
  std::vector<NodeId> picked;
  while (picked.size() < k) {
    const NodeId j = random_host(rng, h);
    if (std::find(picked.begin(), picked.end(), j) == picked.end()) picked.push_back(j);
  }
  for (NodeId j : picked) adjacency_[j].push_back(h);
  adjacency_[h] = std::move(picked);
  alive_[h] = true;
  ++live_;
  return h;
}

void HostNetwork::ball(NodeId source, std::uint32_t radius, std::vector<std::pair<NodeId, std::uint32_t>>& out,
                       std::vector<std::uint8_t>& mark) const {
  out.clear();
  out.emplace_back(source, 0);
  mark[source] = 1;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const auto [h, d] = out[k];
    if (d == radius) continue;
    for (NodeId j : adjacency_[h])
      if (!mark[j]) mark[j] = 1, out.emplace_back(j, d + 1);
  }
  for (const auto& [h, d] : out) mark[h] = 0;
}

std::vector<std::uint32_t> HostNetwork::distances_from(NodeId source) const {
  std::vector<std::uint32_t> dist(slots(), std::numeric_limits<std::uint32_t>::max());
  std::vector<NodeId> queue{source};
  dist[source] = 0;
  for (std::size_t k = 0; k < queue.size(); ++k)
    for (NodeId j : adjacency_[queue[k]])
      if (dist[j] == std::numeric_limits<std::uint32_t>::max()) dist[j] = dist[queue[k]] + 1, queue.push_back(j);
  return dist;
}

bool HostNetwork::connected() const {
  const std::vector<NodeId> live = live_hosts();
  if (live.empty()) return true;
  const std::vector<std::uint32_t> dist = distances_from(live.front());
  return std::all_of(live.begin(), live.end(), [&](NodeId h) { return dist[h] != std::numeric_limits<std::uint32_t>::max(); });
}

std::vector<std::vector<NodeId>> HostNetwork::components() const {
  std::vector<std::vector<NodeId>> out;
  std::vector<std::uint8_t> seen(slots(), 0);
  for (NodeId s = 0; s < slots(); ++s) {
    if (!alive_[s] || seen[s]) continue;
    std::vector<NodeId> c{s};
    seen[s] = 1;
    for (std::size_t k = 0; k < c.size(); ++k)
      for (NodeId j : adjacency_[c[k]])
        if (!seen[j]) seen[j] = 1, c.push_back(j);
    std::sort(c.begin(), c.end());
    out.push_back(std::move(c));
  }
  return out;
}

void HostNetwork::rejoin(NodeId h, std::span<const NodeId> among, Rng& rng) {
  const auto k = std::min<std::size_t>(among.size(), join_links(live_));
  std::vector<NodeId> picked;
  while (picked.size() < k) {
    const NodeId j = among[rng.below(among.size())];
    if (j != h && std::find(picked.begin(), picked.end(), j) == picked.end()) picked.push_back(j);
  }
  for (NodeId j : picked)
    if (std::find(adjacency_[h].begin(), adjacency_[h].end(), j) == adjacency_[h].end()) {
      adjacency_[h].push_back(j);
      adjacency_[j].push_back(h);
    }
}

}  // namespace nnlb
