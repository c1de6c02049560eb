#pragma once
// One decision of a balancing node program: builds the node's LocalView from what the program
// knows of each neighbour, runs the policy and returns its transfers addressed by port. Shared
// by every program that runs a Policy (async_balancer, round_balancer).
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "nnlb/node/context.hpp"
#include "nnlb/policy/policy.hpp"
#include "nnlb/protocol/speed_reports.hpp"

namespace nnlb {

// `known(p)` and `last_flow(p)` give what the node knows of port p; `memory` holds
// Policy::edge_memory() doubles per port. Matching policies see only the neighbour whose edge has
// colour `step mod colors`. Amounts are rounded down to whole units in integer mode; `step` is
// the policy's step counter. With `heard`, the neighbours' speeds and deltas are what they
// reported (speed_reports.hpp), else the speeds of set-up. The result lives in per-thread scratch until the next call.
template <class Known, class LastFlow>
std::span<const Transfer> decide_transfers(const Policy& policy, Context& ctx, double load, std::uint64_t step,
                                           std::uint32_t colors, std::vector<double>& memory, Known&& known,
                                           LastFlow&& last_flow, const SpeedReports* heard = nullptr) {
  struct Scratch {
    std::vector<NeighborState> neighbors;
    std::vector<Port> port_of;
    std::vector<Transfer> transfers;
  };
  thread_local Scratch scratch;
  auto& [neighbors, port_of, transfers] = scratch;
  transfers.clear();
  const bool pairwise = policy.pairing() == Pairing::matching;
  const auto partner_color = pairwise ? static_cast<std::int32_t>(step % colors) : -1;
  const std::uint32_t mem = policy.edge_memory();
  const std::span<const NeighborInfo> infos = ctx.neighbors();
  neighbors.resize(infos.size());
  port_of.resize(infos.size());
  std::size_t seen = 0;
  for (Port p = 0; p < infos.size(); ++p) {
    const NeighborInfo& info = infos[p];
    if (pairwise && info.color != partner_color) continue;
    neighbors[seen] = {info.id,     info.degree, known(p), heard ? heard->speed(p, info.speed) : info.speed, last_flow(p),
                       mem ? memory.data() + std::size_t{p} * mem : nullptr, heard ? heard->delta(p) : 0.0};
    port_of[seen++] = p;
  }
  neighbors.resize(seen);
  if (neighbors.empty()) return {};
  LocalView view;
  view.self = ctx.self();
  view.degree = ctx.degree();
  view.load = load;
  view.speed = ctx.speed();
  view.step = pairwise ? step / colors : step;
  view.neighbors = neighbors;
  view.rng = &ctx.rng();
  policy.decide(view, transfers);
  for (Transfer& t : transfers) {
    t.neighbor = port_of[t.neighbor];
    if (ctx.integer_load()) t.amount = std::floor(t.amount);
  }
  return transfers;
}

}  // namespace nnlb
