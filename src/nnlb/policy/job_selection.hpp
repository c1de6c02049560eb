#pragma once
// Which jobs a host sends when it migrates n of them (Douglas & Harwood sec. 4.5): any job, or by
// locality, the jobs whose guest neighbours (the jobs they synchronize with) are best placed for
// the move. The rule is written once; the p2p engine applies it with exact hosts and hop counts,
// the domain balancer (programs/domain_balancer.hpp) with what a host knows itself.
#include <algorithm>
#include <cstdint>
#include <queue>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "nnlb/model/graph.hpp"
#include "nnlb/util/rng.hpp"

namespace nnlb {

enum class JobSelection {
  any,       // "none": any job
  edge_cut,  // the fewest guest neighbours left off the destination host
  distance,  // the largest cut in total hops to the hosts of its guest neighbours
};

// The guest.selection key's values: "none", "edge-cut", "distance".
inline JobSelection job_selection(std::string_view name) {
  return name == "distance" ? JobSelection::distance : name == "edge-cut" ? JobSelection::edge_cut : JobSelection::any;
}

// Where a guest neighbour k is, seen from a move from host a to host b: its host's hops to a and
// to b (for edge cut only whether they are 0 matters).
struct NeighbourPlace {
  std::uint32_t hops_to_source, hops_to_destination;
};

// What neighbour k adds to the cost of moving a job from a to b: edge cut, 1 when k stays off b;
// distance, how much nearer b is to k's host than a is (negative: the move shortens the edge).
inline std::int64_t neighbour_cost(JobSelection rule, NeighbourPlace k) {
  if (rule == JobSelection::distance) return static_cast<std::int64_t>(k.hops_to_destination) - static_cast<std::int64_t>(k.hops_to_source);
  return k.hops_to_destination != 0;
}

// Picks n of `movable` (the sender's jobs free to move), one at a time, and calls `move(j)` for
// each as it is picked, after which `place(j)` must say j is on the destination. Any job: the
// first n of a random shuffle. By locality: each time the job of least cost given where the jobs
// picked before it went (a pick changes only its guest neighbours' costs); ties by a random
// order drawn once per cost. `movable` is reordered.
template <class Id, class Place, class Move>
void pick_jobs(JobSelection rule, std::vector<Id>& movable, std::uint64_t n, const Graph& guest, Rng& rng, Place&& place, Move&& move) {
  n = std::min<std::uint64_t>(n, movable.size());
  if (rule == JobSelection::any) {
    for (std::size_t k = 0; k < n; ++k) std::swap(movable[k], movable[k + rng.below(movable.size() - k)]);
    for (std::size_t k = 0; k < n; ++k) move(movable[k]);
    return;
  }
  // The candidates' costs, found by id; a picked job leaves the candidates.
  std::vector<std::tuple<Id, std::int64_t, bool>> cost;  // id, cost, picked
  cost.reserve(movable.size());
  for (Id j : movable) cost.emplace_back(j, 0, false);
  std::sort(cost.begin(), cost.end());
  auto candidate = [&](Id k) {
    const auto it = std::lower_bound(cost.begin(), cost.end(), k, [](const auto& c, Id id) { return std::get<0>(c) < id; });
    return it != cost.end() && std::get<0>(*it) == k && !std::get<2>(*it) ? &*it : nullptr;
  };
  auto term = [&](Id k) { return neighbour_cost(rule, place(k)); };
  using Entry = std::tuple<std::int64_t, std::uint64_t, Id>;  // cost, tie-break, job
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> best;
  for (Id j : movable) {
    auto* c = candidate(j);
    for (NodeId k : guest.neighbors(static_cast<NodeId>(j))) std::get<1>(*c) += term(k);
    best.emplace(std::get<1>(*c), rng(), j);
  }
  for (std::uint64_t picked = 0; picked < n;) {
    const auto [c, tie, j] = best.top();
    best.pop();
    auto* entry = candidate(j);
    if (entry == nullptr || std::get<1>(*entry) != c) continue;  // picked already, or costed anew since
    std::get<2>(*entry) = true;
    const std::int64_t before = term(j);
    move(j);
    const std::int64_t change = term(j) - before;  // to each guest neighbour's cost
    for (NodeId k : guest.neighbors(static_cast<NodeId>(j)))
      if (auto* c = candidate(static_cast<Id>(k))) {
        std::get<1>(*c) += change;
        best.emplace(std::get<1>(*c), rng(), std::get<0>(*c));
      }
    ++picked;
  }
}

}  // namespace nnlb
