#pragma once
// The host graph H of Douglas & Harwood sec. 3.1, as it changes: a host that enters connects to
// max(1, floor(log2 |H|)) distinct random live hosts (the rule of make_p2p); a host that leaves
// drops its edges. Host ids are slots: an entering host takes the lowest free slot, so ids stay
// below the largest size the network had.
#include <cstdint>
#include <span>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

class HostNetwork {
 public:
  explicit HostNetwork(const Graph& initial);

  std::uint32_t size() const { return live_; }    // |H|
  NodeId slots() const { return static_cast<NodeId>(adjacency_.size()); }
  bool alive(NodeId h) const { return alive_[h]; }
  std::span<const NodeId> neighbors(NodeId h) const { return adjacency_[h]; }
  // The live hosts, in id order.
  std::vector<NodeId> live_hosts() const;
  // A uniformly random live host (`except` excluded when it is live and another exists).
  NodeId random_host(Rng& rng, NodeId except) const;

  // Host h leaves: its edges go. Returns its neighbours at the time.
  std::vector<NodeId> leave(NodeId h);
  // A host enters, connected to max(1, floor(log2 |H|)) random live hosts (all of them if fewer).
  NodeId enter(Rng& rng);

  // Hop distances from `source` up to `radius` hops: (host, hops) in breadth-first order, the
  // source first. `mark` is scratch space of slots() entries, all 0 on entry and on return.
  void ball(NodeId source, std::uint32_t radius, std::vector<std::pair<NodeId, std::uint32_t>>& out, std::vector<std::uint8_t>& mark) const;
  // Hop distances from `source` to every slot (unreachable and dead: UINT32_MAX).
  std::vector<std::uint32_t> distances_from(NodeId source) const;
  // Whether the live hosts form one connected component.
  bool connected() const;
  // The connected components of the live hosts, each in id order, the components in the order
  // of their lowest host.
  std::vector<std::vector<NodeId>> components() const;
  // Host h links again by the entering rule: to max(1, floor(log2 |H|)) distinct random hosts of
  // `among` (all of them if fewer), those it is not linked to already.
  void rejoin(NodeId h, std::span<const NodeId> among, Rng& rng);

 private:
  std::vector<std::vector<NodeId>> adjacency_;
  std::vector<bool> alive_;
  std::uint32_t live_ = 0;
};

}  // namespace nnlb
